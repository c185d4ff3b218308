import unittest

from askuser_client import WebhookError, sign_webhook, verify_webhook

SECRET = b"0123456789abcdef0123456789abcdef"
BODY = b'{"v":2,"ask_id":"a1","status":"answered"}'
AT = 1733097600
# The same vector as the Go package's test (webhook.TestSignKnownValue).
KNOWN = "t=1733097600,v1=f4bb14f6533805d00f9d27ecd4935f61e3072c2ed9d933852cfbde165971c29f"


class WebhookTest(unittest.TestCase):
    def test_known_value(self):
        self.assertEqual(sign_webhook(SECRET, BODY, AT), KNOWN)

    def test_verify(self):
        verify_webhook(SECRET, KNOWN, BODY, now=AT + 299)
        verify_webhook(SECRET.decode(), KNOWN, BODY, now=AT - 240)
        other = sign_webhook(b"another secret, sixteen+ bytes", BODY, AT)
        verify_webhook(SECRET, other + "," + KNOWN.split(",")[1], BODY, now=AT)  # rotation
        verify_webhook(SECRET, KNOWN + ",v0=abc", BODY, now=AT)  # an unknown scheme is ignored

    def test_refused(self):
        cases = {
            "stale": (KNOWN, BODY, AT + 301, "from this clock"),
            "future": (KNOWN, BODY, AT - 360, "from this clock"),
            "body changed": (KNOWN, BODY.replace(b"answered", b"declined"), AT, "does not match"),
            "missing": ("", BODY, AT, "no Askuser-Signature"),
            "no v1": ("t=1733097600", BODY, AT, "needs t="),
            "two timestamps": ("t=1733097600," + KNOWN, BODY, AT, "two timestamps"),
            "not hex": ("t=1733097600,v1=zz", BODY, AT, "32 hex bytes"),
            "leading zero": (KNOWN.replace("t=", "t=0"), BODY, AT, "not unix seconds"),
            "garbage": ("t=1733097600,garbage", BODY, AT, "not key=value"),
        }
        for name, (header, body, now, want) in cases.items():
            with self.subTest(name):
                with self.assertRaises(WebhookError) as cm:
                    verify_webhook(SECRET, header, body, now=now)
                self.assertIn(want, str(cm.exception))

    def test_short_secret(self):
        with self.assertRaisesRegex(WebhookError, "at least 16"):
            verify_webhook(b"short", KNOWN, BODY, now=AT)


if __name__ == "__main__":
    unittest.main()
