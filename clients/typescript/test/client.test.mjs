// Tests against a real askuser serve: clients/clients_test.go starts one on
// loopback, with a stand-in person who answers every question with its last
// option (after a moment), and never answers a question with id "hold".
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { CallRefused, Client, ServiceError, WaitTimeout } from "../dist/src/index.js";
import { ANTHROPIC_ASSISTANT, OPENAI_ASSISTANT, anthropicToolResults, openAIToolMessages } from "../dist/examples/tool_loop.js";

const URL = process.env.ASKUSER_URL;
const TOKEN = process.env.ASKUSER_TOKEN ?? "";
const skip = URL ? false : "ASKUSER_URL is not set: clients/clients_test.go runs these against a real service";

const OPTIONS = [{ label: "staging", description: "s" }, { label: "production", description: "p" }];
const CHOICE = { questions: [{ id: "env", header: "Env", question: "Where first?", options: OPTIONS }], timeout_seconds: 120 };
const HOLD = { questions: [{ id: "hold", header: "Hold", question: "Nobody answers this", options: OPTIONS }], timeout_seconds: 120 };
const ANSWERED = { status: "answered", answered_by: "user", answers: [{ id: "env", selected: ["production"], other_text: null }] };

const setup = () => ({ client: new Client({ baseUrl: URL, token: TOKEN }), session: "ts-" + randomUUID() });

test("a call blocks until answered, and replays", { skip }, async () => {
  const { client, session } = setup();
  const result = await client.call(session, "c1", CHOICE);
  assert.deepEqual(JSON.parse(result), ANSWERED);
  assert.equal(await client.call(session, "c1", CHOICE), result);
});

test("arguments as a string", { skip }, async () => {
  const { client, session } = setup();
  assert.deepEqual(JSON.parse(await client.call(session, "c1", JSON.stringify(CHOICE))), ANSWERED);
  await assert.rejects(client.call(session, "c2", "[1, 2]"), /must hold an object/);
});

test("async, wait, supersede", { skip }, async () => {
  const { client, session } = setup();
  const p = await client.callAsync(session, "held", HOLD);
  assert.equal(typeof p, "object");
  assert.ok(p.askId);
  assert.ok(p.cardUrl.includes("/sessions/" + session));
  assert.ok(p.statusUrl.endsWith(`/v1/sessions/${session}/calls/held`));
  assert.equal((await client.status(session, "held")).status, "pending");
  await assert.rejects(client.wait(session, "held", { timeoutMs: 1000 }), WaitTimeout);
  assert.equal(await client.supersede(session), 1);
  const r = JSON.parse(await client.wait(session, "held", { timeoutMs: 30000 }));
  assert.equal(r.status, "cancelled");
  assert.equal(r.answered_by, "unattended");
});

test("an invalid call", { skip }, async () => {
  const { client, session } = setup();
  await assert.rejects(client.call(session, "bad", { questions: [] }), (e) => e instanceof CallRefused && e.reason.includes("invalid ask_user arguments") && e.modelReply() === e.reason);
});

test("an unknown call and a bad token", { skip }, async () => {
  const { client, session } = setup();
  await assert.rejects(client.status(session, "never-asked"), (e) => e instanceof ServiceError && e.status === 404);
  await assert.rejects(new Client({ baseUrl: URL, token: "not-the-token" }).status(session, "x"), (e) => e instanceof ServiceError && e.status === 401);
  assert.ok(!JSON.stringify(client).includes(TOKEN));
});

test("the tool-loop examples", { skip }, async () => {
  const { client, session } = setup();
  const msgs = await openAIToolMessages(client, session, OPENAI_ASSISTANT);
  assert.deepEqual(msgs.map((m) => [m.role, m.tool_call_id]), [["tool", "call_abc123"]]);
  assert.deepEqual(JSON.parse(msgs[0].content).answers[0].selected, ["production"]);
  const res = await anthropicToolResults(client, session, ANTHROPIC_ASSISTANT);
  assert.equal(res.length, 1);
  assert.deepEqual([res[0].content[0].type, res[0].content[0].tool_use_id], ["tool_result", "toolu_01A"]);
  assert.equal(JSON.parse(res[0].content[0].content).status, "answered");
});
