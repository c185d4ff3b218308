/**
 * askuser in a model's tool-calling loop, in OpenAI's and Anthropic's
 * shapes. No SDK and no network to a model: each function takes the
 * assistant message as that API returns it and returns the messages to
 * append before calling the model again. The ask_user tool's definition
 * for each API comes from `askuser schema --format openai` or
 * `--format anthropic`.
 *
 *   ASKUSER_URL=http://127.0.0.1:8080 ASKUSER_TOKEN=$(cat ~/.local/state/askuser/agent-token) \
 *     node dist/examples/tool_loop.js
 */
import { CallRefused, Client } from "../src/index.js";

export const TOOL = "ask_user";

/** A Chat Completions assistant message (the fields used here). */
export interface OpenAIAssistant {
  role: "assistant";
  content: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
}
/** A Chat Completions tool message. */
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}
/** A Messages API assistant message (the fields used here). */
export interface AnthropicAssistant {
  role: "assistant";
  content: ({ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> })[];
}
/** A Messages API user message answering tool_use blocks. */
export interface AnthropicToolResults {
  role: "user";
  content: { type: "tool_result"; tool_use_id: string; content: string }[];
}

async function answer(client: Client, session: string, id: string, args: string | Record<string, unknown>): Promise<string> {
  try {
    return await client.call(session, id, args);
  } catch (e) {
    if (e instanceof CallRefused) return e.modelReply(); // the model fixes its call from this
    throw e;
  }
}

/** The "tool" messages answering an assistant message's tool_calls, whose
 * arguments are a JSON string, which the client takes as it is. */
export async function openAIToolMessages(client: Client, session: string, m: OpenAIAssistant): Promise<OpenAIToolMessage[]> {
  const out: OpenAIToolMessage[] = [];
  for (const tc of m.tool_calls ?? []) {
    if (tc.function.name !== TOOL) continue;
    out.push({ role: "tool", tool_call_id: tc.id, content: await answer(client, session, tc.id, tc.function.arguments) });
  }
  return out;
}

/** The user message answering an assistant message's tool_use blocks. */
export async function anthropicToolResults(client: Client, session: string, m: AnthropicAssistant): Promise<AnthropicToolResults[]> {
  const content: AnthropicToolResults["content"] = [];
  for (const b of m.content) {
    if (b.type !== "tool_use" || b.name !== TOOL) continue;
    content.push({ type: "tool_result", tool_use_id: b.id, content: await answer(client, session, b.id, b.input) });
  }
  return content.length ? [{ role: "user", content }] : [];
}

export const QUESTION = {
  questions: [
    {
      id: "env",
      header: "Env",
      question: "Which environment should I deploy to first?",
      options: [
        { label: "staging", description: "Smoke tests first", default: true },
        { label: "production", description: "Straight to users" },
      ],
    },
  ],
  timeout_seconds: 120,
};

/** What each API returns when the model decides to ask. */
export const OPENAI_ASSISTANT: OpenAIAssistant = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_abc123", type: "function", function: { name: TOOL, arguments: JSON.stringify(QUESTION) } }],
};
export const ANTHROPIC_ASSISTANT: AnthropicAssistant = {
  role: "assistant",
  content: [
    { type: "text", text: "I need to know where to deploy." },
    { type: "tool_use", id: "toolu_01A", name: TOOL, input: QUESTION },
  ],
};

declare const process: { env: Record<string, string | undefined>; argv: string[] };

if (typeof process !== "undefined" && process.argv[1]?.endsWith("tool_loop.js")) {
  const client = new Client({ baseUrl: process.env["ASKUSER_URL"] ?? "http://127.0.0.1:8080", token: process.env["ASKUSER_TOKEN"] ?? "" });
  console.log(JSON.stringify(await openAIToolMessages(client, "example-openai", OPENAI_ASSISTANT), null, 2));
  console.log(JSON.stringify(await anthropicToolResults(client, "example-anthropic", ANTHROPIC_ASSISTANT), null, 2));
}
