"""The agent API of askuser serve: post a call, read or wait for its result."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Union

Arguments = Union[Mapping[str, Any], str, bytes]
"""A tool call's arguments: the JSON object the model sent, or a string
holding one (OpenAI's tool calls carry their arguments as a string)."""

MAX_POLL_SECONDS = 60


class AskuserError(Exception):
    """Every error this package raises about a call."""


class CallRefused(AskuserError):
    """The model's call is invalid (400): nobody was asked.

    Give the model :meth:`model_reply`: the contract's own result where it
    has one (pi, pi-ask), else the message, from which the model fixes its
    call.
    """

    def __init__(self, message: str, result: Optional[str]) -> None:
        super().__init__(message)
        self.message = message
        self.result = result

    def model_reply(self) -> str:
        """What to give the model as the tool result."""
        return self.result if self.result is not None else self.message


class ServiceError(AskuserError):
    """The service refused a request, or could not be reached."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"askuser serve answered {status}: {message}" if status else message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Pending:
    """A call that is waiting for its person."""

    ask_id: Optional[str]
    card_url: str
    status_url: str


def _arguments(arguments: Arguments) -> Any:
    if isinstance(arguments, (str, bytes)):
        try:
            value = json.loads(arguments)
        except ValueError as e:
            raise ValueError(f"arguments is a string but does not hold JSON: {e}") from None
        if not isinstance(value, dict):
            raise ValueError(f"arguments is a string holding JSON {type(value).__name__}; it must hold an object")
        return value
    if not isinstance(arguments, Mapping):
        raise TypeError(f"arguments is {type(arguments).__name__}; give the JSON object the model sent, or a string holding one")
    return dict(arguments)


class Client:
    """A client of one askuser serve (or a fleet behind one URL).

    ``base_url`` is where the service is reached (``http://127.0.0.1:8080``);
    ``token`` is the agent's bearer token (the file ``askuser serve`` made,
    ``agent-token`` in its state directory). A replica that is stopping
    (503) or unreachable is retried ``retries`` times, since a call sent
    again joins its ask and loses nothing.
    """

    def __init__(self, base_url: str, token: str, *, timeout: float = 30.0, retries: int = 5) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url {base_url!r} is not an http:// or https:// URL")
        if not token:
            raise ValueError("token is empty: give the agent's bearer token")
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.timeout = timeout
        self.retries = retries

    def __repr__(self) -> str:  # never the token
        return f"Client({self.base_url!r})"

    # The raw request, with the retries that are safe for every request here.
    def _request(self, method: str, path: str, body: Optional[bytes] = None, headers: Optional[Dict[str, str]] = None, timeout: Optional[float] = None):
        url = self.base_url + path
        hdrs = {"Authorization": "Bearer " + self._token, "Accept": "application/json"}
        if body is not None:
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        delay = 0.5
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data=body, method=method, headers=hdrs)
            try:
                with urllib.request.urlopen(req, timeout=timeout or self.timeout) as res:
                    return res.status, res.read()
            except urllib.error.HTTPError as e:
                data = e.read()
                if e.code == 503 and attempt < self.retries:
                    retry_after = e.headers.get("Retry-After", "")
                    time.sleep(min(float(retry_after), 10.0) if retry_after.isdigit() else delay)
                    delay = min(delay * 2, 10.0)
                    continue
                return e.code, data
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                if attempt < self.retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 10.0)
                    continue
                reason = getattr(e, "reason", e)
                raise ServiceError(0, f"askuser serve at {self.base_url} could not be reached: {reason}") from None
        raise AssertionError("unreachable")

    @staticmethod
    def _error(status: int, data: bytes) -> AskuserError:
        try:
            doc = json.loads(data)
        except ValueError:
            doc = None
        message = doc.get("error") if isinstance(doc, dict) and isinstance(doc.get("error"), str) else data.decode("utf-8", "replace")[:500]
        if status == 400 and isinstance(doc, dict) and "error" in doc:
            result = doc.get("result")
            return CallRefused(message, json.dumps(result, separators=(",", ":")) if result is not None else None)
        return ServiceError(status, message)

    @staticmethod
    def _pending(data: bytes) -> Pending:
        doc = json.loads(data)
        return Pending(ask_id=doc.get("ask_id"), card_url=doc.get("card_url", ""), status_url=doc.get("status_url", ""))

    def _path(self, session: str, tool_call_id: str) -> str:
        q = urllib.parse.quote
        return f"/v1/sessions/{q(session, safe='')}/calls/{q(tool_call_id, safe='')}"

    def call_async(self, session: str, tool_call_id: str, arguments: Arguments, *, dialect: Optional[str] = None) -> Union[str, Pending]:
        """Post a call and return at once: a :class:`Pending` (with the card
        URL to show a person), or the result text when the call is already
        final (a retried tool call replays its result)."""
        doc: Dict[str, Any] = {"session": session, "tool_call_id": tool_call_id, "arguments": _arguments(arguments)}
        if dialect:
            doc["dialect"] = dialect
        status, data = self._request("POST", "/v1/calls", json.dumps(doc).encode(), {"Prefer": "respond-async"})
        if status == 200:
            return data.decode()
        if status == 202:
            return self._pending(data)
        raise self._error(status, data)

    def status(self, session: str, tool_call_id: str, *, wait: int = 0) -> Union[str, Pending]:
        """Read a call: its result text once final, else a :class:`Pending`.

        ``wait`` long-polls up to that many seconds (at most 60) for the ask
        to end. A call no ask answers raises :class:`ServiceError` (404).
        """
        wait = max(0, min(int(wait), MAX_POLL_SECONDS))
        status, data = self._request("GET", self._path(session, tool_call_id) + f"?wait={wait}", timeout=wait + self.timeout)
        if status == 200:
            return data.decode()
        if status == 202:
            return self._pending(data)
        raise self._error(status, data)

    def wait(self, session: str, tool_call_id: str, *, timeout: Optional[float] = None) -> str:
        """Wait for a call's result text, with long polls (a replica that
        restarts in between loses nothing). ``timeout`` (seconds; None: as
        long as the ask lasts) raises TimeoutError with the ask still
        pending."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = MAX_POLL_SECONDS if end is None else end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the call {tool_call_id!r} of session {session!r} is still pending after {timeout}s")
            got = self.status(session, tool_call_id, wait=max(1, min(MAX_POLL_SECONDS, int(left))))
            if isinstance(got, str):
                return got

    def call(self, session: str, tool_call_id: str, arguments: Arguments, *, dialect: Optional[str] = None, timeout: Optional[float] = None) -> str:
        """Ask a call and return its result text: what to give the model.

        It posts the call and waits for it with long polls, so no HTTP
        request is held for the whole wait. Raises :class:`CallRefused` for
        an invalid call (give the model ``e.model_reply()``).
        """
        got = self.call_async(session, tool_call_id, arguments, dialect=dialect)
        if isinstance(got, str):
            return got
        return self.wait(session, tool_call_id, timeout=timeout)

    def supersede(self, session: str) -> int:
        """End every pending ask of the session (the person wrote in the chat
        instead): they end cancelled, with what was answered so far. Returns
        how many."""
        q = urllib.parse.quote(session, safe="")
        status, data = self._request("POST", f"/v1/sessions/{q}/supersede", b"")
        if status != 200:
            raise self._error(status, data)
        return int(json.loads(data)["superseded"])
