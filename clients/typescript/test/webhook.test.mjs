import { test } from "node:test";
import assert from "node:assert/strict";
import { WebhookError, signWebhook, verifyWebhook } from "../dist/src/index.js";

const SECRET = "0123456789abcdef0123456789abcdef";
const BODY = '{"v":2,"ask_id":"a1","status":"answered"}';
const AT = 1733097600;
// The same vector as the Go package's test (webhook.TestSignKnownValue).
const KNOWN = "t=1733097600,v1=f4bb14f6533805d00f9d27ecd4935f61e3072c2ed9d933852cfbde165971c29f";

test("the known value", async () => {
  assert.equal(await signWebhook(SECRET, BODY, AT), KNOWN);
  assert.equal(await signWebhook(new TextEncoder().encode(SECRET), new TextEncoder().encode(BODY), AT), KNOWN);
});

test("verify", async () => {
  await verifyWebhook(SECRET, KNOWN, BODY, { nowSeconds: AT + 299 });
  await verifyWebhook(SECRET, KNOWN, BODY, { nowSeconds: AT - 240 });
  const other = await signWebhook("another secret, sixteen+ bytes", BODY, AT);
  await verifyWebhook(SECRET, other + "," + KNOWN.split(",")[1], BODY, { nowSeconds: AT }); // rotation
  await verifyWebhook(SECRET, KNOWN + ",v0=abc", BODY, { nowSeconds: AT }); // an unknown scheme is ignored
});

test("refused", async () => {
  const cases = {
    stale: [KNOWN, BODY, AT + 301, "from this clock"],
    future: [KNOWN, BODY, AT - 360, "from this clock"],
    "body changed": [KNOWN, BODY.replace("answered", "declined"), AT, "does not match"],
    missing: ["", BODY, AT, "no Askuser-Signature"],
    "no v1": ["t=1733097600", BODY, AT, "needs t="],
    "two timestamps": ["t=1733097600," + KNOWN, BODY, AT, "two timestamps"],
    "not hex": ["t=1733097600,v1=zz", BODY, AT, "32 hex bytes"],
    "leading zero": [KNOWN.replace("t=", "t=0"), BODY, AT, "not unix seconds"],
    garbage: ["t=1733097600,garbage", BODY, AT, "not key=value"],
  };
  for (const [name, [header, body, now, want]] of Object.entries(cases)) {
    await assert.rejects(verifyWebhook(SECRET, header, body, { nowSeconds: now }), (e) => e instanceof WebhookError && e.message.includes(want), name);
  }
  await assert.rejects(verifyWebhook("short", KNOWN, BODY, { nowSeconds: AT }), /at least 16/);
});
