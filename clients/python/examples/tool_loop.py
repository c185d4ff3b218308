"""askuser in a model's tool-calling loop, in OpenAI's and Anthropic's shapes.

No SDK and no network to a model: each function takes the assistant message
as that API returns it (a dict, as the SDKs' ``model_dump()`` gives) and
returns the messages to append before calling the model again. The ask_user
tool's definition for each API comes from ``askuser schema --format openai``
or ``--format anthropic``.

Run it against a service (the person answers on the card it prints)::

    ASKUSER_URL=http://127.0.0.1:8080 ASKUSER_TOKEN=$(cat ~/.local/state/askuser/agent-token) \\
        python3 examples/tool_loop.py
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from askuser_client import CallRefused, Client  # noqa: E402

TOOL = "ask_user"


def _answer(client: Client, session: str, call_id: str, arguments: Any) -> str:
    try:
        return client.call(session, call_id, arguments)
    except CallRefused as e:
        return e.model_reply()  # the model fixes its call from this


def openai_tool_messages(client: Client, session: str, assistant: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The "tool" messages answering a Chat Completions assistant message.

    Its ``tool_calls`` carry ``function.arguments`` as a JSON string, which
    the client takes as it is.
    """
    out = []
    for tc in assistant.get("tool_calls") or []:
        fn = tc["function"]
        if fn["name"] != TOOL:
            continue
        out.append({"role": "tool", "tool_call_id": tc["id"], "content": _answer(client, session, tc["id"], fn["arguments"])})
    return out


def anthropic_tool_results(client: Client, session: str, assistant: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The user message answering a Messages API assistant message's
    ``tool_use`` blocks (whose ``input`` is already an object)."""
    blocks = []
    for b in assistant.get("content") or []:
        if b.get("type") != "tool_use" or b.get("name") != TOOL:
            continue
        blocks.append({"type": "tool_result", "tool_use_id": b["id"], "content": _answer(client, session, b["id"], b["input"])})
    return [{"role": "user", "content": blocks}] if blocks else []


QUESTION = {
    "questions": [
        {
            "id": "env",
            "header": "Env",
            "question": "Which environment should I deploy to first?",
            "options": [
                {"label": "staging", "description": "Smoke tests first", "default": True},
                {"label": "production", "description": "Straight to users"},
            ],
        }
    ],
    "timeout_seconds": 120,
}

# What each API returns when the model decides to ask.
OPENAI_ASSISTANT = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{"id": "call_abc123", "type": "function", "function": {"name": TOOL, "arguments": json.dumps(QUESTION)}}],
}
ANTHROPIC_ASSISTANT = {
    "role": "assistant",
    "content": [
        {"type": "text", "text": "I need to know where to deploy."},
        {"type": "tool_use", "id": "toolu_01A", "name": TOOL, "input": QUESTION},
    ],
}


def main() -> None:
    client = Client(os.environ["ASKUSER_URL"], os.environ["ASKUSER_TOKEN"])
    print(json.dumps(openai_tool_messages(client, "example-openai", OPENAI_ASSISTANT), indent=2))
    print(json.dumps(anthropic_tool_results(client, "example-anthropic", ANTHROPIC_ASSISTANT), indent=2))


if __name__ == "__main__":
    main()
