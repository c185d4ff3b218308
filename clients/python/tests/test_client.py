"""Tests against a real askuser serve: clients/clients_test.go starts one
on loopback, with a stand-in person who answers every question with its
last option (after a moment), and never answers a question with id "hold"."""

import json
import os
import sys
import unittest
import uuid

from askuser_client import CallRefused, Client, Pending, ServiceError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import tool_loop  # noqa: E402

URL = os.environ.get("ASKUSER_URL")
TOKEN = os.environ.get("ASKUSER_TOKEN", "")

CHOICE = {
    "questions": [
        {
            "id": "env",
            "header": "Env",
            "question": "Where first?",
            "options": [{"label": "staging", "description": "s"}, {"label": "production", "description": "p"}],
        }
    ],
    "timeout_seconds": 120,
}
HOLD = {"questions": [{"id": "hold", "header": "Hold", "question": "Nobody answers this", "options": CHOICE["questions"][0]["options"]}], "timeout_seconds": 120}
ANSWERED = {"status": "answered", "answered_by": "user", "answers": [{"id": "env", "selected": ["production"], "other_text": None}]}


@unittest.skipUnless(URL, "ASKUSER_URL is not set: clients/clients_test.go runs these against a real service")
class ClientTest(unittest.TestCase):
    def setUp(self):
        self.client = Client(URL, TOKEN)
        self.session = "py-" + uuid.uuid4().hex

    def test_call_blocks_until_answered(self):
        result = self.client.call(self.session, "c1", CHOICE)
        self.assertEqual(json.loads(result), ANSWERED)
        # The same tool call again replays the result: nobody is asked twice.
        self.assertEqual(self.client.call(self.session, "c1", CHOICE), result)

    def test_arguments_as_a_string(self):
        result = self.client.call(self.session, "c1", json.dumps(CHOICE))
        self.assertEqual(json.loads(result), ANSWERED)
        with self.assertRaisesRegex(ValueError, "must hold an object"):
            self.client.call(self.session, "c2", "[1, 2]")

    def test_async_wait_supersede(self):
        p = self.client.call_async(self.session, "held", HOLD)
        self.assertIsInstance(p, Pending)
        self.assertTrue(p.ask_id)
        self.assertIn("/sessions/" + self.session, p.card_url)
        self.assertTrue(p.status_url.endswith("/v1/sessions/%s/calls/held" % self.session))
        self.assertIsInstance(self.client.status(self.session, "held"), Pending)
        with self.assertRaises(TimeoutError):
            self.client.wait(self.session, "held", timeout=1)
        self.assertEqual(self.client.supersede(self.session), 1)
        result = json.loads(self.client.wait(self.session, "held", timeout=30))
        self.assertEqual(result["status"], "cancelled")
        self.assertEqual(result["answered_by"], "unattended")

    def test_invalid_call(self):
        with self.assertRaises(CallRefused) as cm:
            self.client.call(self.session, "bad", {"questions": []})
        self.assertIn("invalid ask_user arguments", cm.exception.message)
        self.assertEqual(cm.exception.model_reply(), cm.exception.message)

    def test_unknown_call_and_bad_token(self):
        with self.assertRaises(ServiceError) as cm:
            self.client.status(self.session, "never-asked")
        self.assertEqual(cm.exception.status, 404)
        with self.assertRaises(ServiceError) as cm:
            Client(URL, "not-the-token").status(self.session, "x")
        self.assertEqual(cm.exception.status, 401)
        self.assertNotIn(TOKEN, repr(self.client))

    def test_examples(self):
        msgs = tool_loop.openai_tool_messages(self.client, self.session, tool_loop.OPENAI_ASSISTANT)
        self.assertEqual([m["role"] for m in msgs], ["tool"])
        self.assertEqual(msgs[0]["tool_call_id"], "call_abc123")
        self.assertEqual(json.loads(msgs[0]["content"])["answers"][0]["selected"], ["production"])
        msgs = tool_loop.anthropic_tool_results(self.client, self.session, tool_loop.ANTHROPIC_ASSISTANT)
        self.assertEqual(len(msgs), 1)
        block = msgs[0]["content"][0]
        self.assertEqual((block["type"], block["tool_use_id"]), ("tool_result", "toolu_01A"))
        self.assertEqual(json.loads(block["content"])["status"], "answered")


if __name__ == "__main__":
    unittest.main()
