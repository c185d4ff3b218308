/**
 * A client of askuser serve's agent API, with no runtime dependencies
 * (fetch and Web Crypto, as Node.js 18+, Deno, Bun and browsers have them).
 *
 * askuser lets an AI agent ask a person 1-4 structured questions and get
 * back an answer that says who decided: the person, the deadline, or
 * nobody. `askuser serve` runs it as a service; this package posts the
 * agent's tool calls to it, reads their results, and checks the signature
 * of its webhooks.
 *
 * ```ts
 * const client = new Client({ baseUrl: "http://127.0.0.1:8080", token });
 * const result = await client.call("run-42", toolCall.id, toolCall.function.arguments);
 * // result is the tool result text: exactly what to give the model
 * ```
 *
 * @module
 */

/** A tool call's arguments: the JSON object the model sent, or a string
 * holding one (OpenAI's tool calls carry their arguments as a string). */
export type Arguments = Record<string, unknown> | string;

/** A call that is waiting for its person. */
export interface Pending {
  readonly status: "pending";
  /** The ask's id (absent for a moment after the call began). */
  readonly askId?: string;
  /** Where a person answers it. */
  readonly cardUrl: string;
  /** Where its result is read. */
  readonly statusUrl: string;
}

/** Every error this package raises about a call. */
export class AskuserError extends Error {
  override name = "AskuserError";
}

/** The model's call is invalid (400): nobody was asked. Give the model
 * {@link CallRefused.modelReply}, from which it fixes its call. */
export class CallRefused extends AskuserError {
  override name = "CallRefused";
  constructor(
    readonly reason: string,
    /** The contract's own result where it has one (pi, pi-ask). */
    readonly result: string | undefined,
  ) {
    super(reason);
  }
  /** What to give the model as the tool result. */
  modelReply(): string {
    return this.result ?? this.reason;
  }
}

/** The service refused a request (status), or could not be reached (0). */
export class ServiceError extends AskuserError {
  override name = "ServiceError";
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(status ? `askuser serve answered ${status}: ${reason}` : reason);
  }
}

/** A wait that ran out with the ask still pending. */
export class WaitTimeout extends AskuserError {
  override name = "WaitTimeout";
}

/** How a {@link Client} is made. */
export interface ClientOptions {
  /** Where the service is reached: `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The agent's bearer token (the `agent-token` file serve made). */
  token: string;
  /** Retries of a replica that is stopping (503) or unreachable: a call
   * sent again joins its ask and loses nothing (default 5). */
  retries?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** The longest long poll the service serves, in seconds. */
export const MAX_POLL_SECONDS = 60;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function toArguments(args: Arguments): Record<string, unknown> {
  if (typeof args === "string") {
    let v: unknown;
    try {
      v = JSON.parse(args);
    } catch (e) {
      throw new TypeError(`arguments is a string but does not hold JSON: ${(e as Error).message}`);
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new TypeError(`arguments is a string holding JSON ${Array.isArray(v) ? "array" : v === null ? "null" : typeof v}; it must hold an object`);
    }
    return v as Record<string, unknown>;
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw new TypeError("arguments must be the JSON object the model sent, or a string holding one");
  }
  return args;
}

/** A client of one askuser serve (or a fleet behind one URL). */
export class Client {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #retries: number;
  readonly #fetch: typeof fetch;

  constructor(opts: ClientOptions) {
    if (!/^https?:\/\//.test(opts.baseUrl)) {
      throw new TypeError(`baseUrl ${JSON.stringify(opts.baseUrl)} is not an http:// or https:// URL`);
    }
    if (!opts.token) throw new TypeError("token is empty: give the agent's bearer token");
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.#token = opts.token;
    this.#retries = opts.retries ?? 5;
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async #request(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const h: Record<string, string> = { Authorization: `Bearer ${this.#token}`, Accept: "application/json", ...headers };
    if (body !== undefined) h["Content-Type"] = "application/json";
    let delay = 500;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const init: RequestInit = { method, headers: h };
        if (body !== undefined) init.body = body;
        res = await this.#fetch(this.baseUrl + path, init);
      } catch (e) {
        if (attempt < this.#retries) {
          await sleep(delay);
          delay = Math.min(delay * 2, 10_000);
          continue;
        }
        throw new ServiceError(0, `askuser serve at ${this.baseUrl} could not be reached: ${(e as Error).message}`);
      }
      const text = await res.text();
      if (res.status === 503 && attempt < this.#retries) {
        const ra = Number(res.headers.get("Retry-After"));
        await sleep(Number.isInteger(ra) && ra > 0 ? Math.min(ra, 10) * 1000 : delay);
        delay = Math.min(delay * 2, 10_000);
        continue;
      }
      return { status: res.status, text };
    }
  }

  static #error(status: number, text: string): AskuserError {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      doc = undefined;
    }
    const d = doc as { error?: unknown; result?: unknown } | undefined;
    const message = typeof d?.error === "string" ? d.error : text.slice(0, 500);
    if (status === 400 && typeof d?.error === "string") {
      return new CallRefused(message, d.result === undefined || d.result === null ? undefined : JSON.stringify(d.result));
    }
    return new ServiceError(status, message);
  }

  static #pending(text: string): Pending {
    const d = JSON.parse(text) as { ask_id?: string; card_url?: string; status_url?: string };
    const p: { status: "pending"; askId?: string; cardUrl: string; statusUrl: string } = { status: "pending", cardUrl: d.card_url ?? "", statusUrl: d.status_url ?? "" };
    if (d.ask_id) p.askId = d.ask_id;
    return p;
  }

  #path(session: string, toolCallId: string): string {
    return `/v1/sessions/${encodeURIComponent(session)}/calls/${encodeURIComponent(toolCallId)}`;
  }

  /** Post a call and return at once: a {@link Pending} (with the card URL
   * to show a person), or the result text when the call is already final
   * (a retried tool call replays its result). */
  async callAsync(session: string, toolCallId: string, args: Arguments, opts: { dialect?: string } = {}): Promise<string | Pending> {
    const doc: Record<string, unknown> = { session, tool_call_id: toolCallId, arguments: toArguments(args) };
    if (opts.dialect) doc["dialect"] = opts.dialect;
    const r = await this.#request("POST", "/v1/calls", JSON.stringify(doc), { Prefer: "respond-async" });
    if (r.status === 200) return r.text;
    if (r.status === 202) return Client.#pending(r.text);
    throw Client.#error(r.status, r.text);
  }

  /** Read a call: its result text once final, else a {@link Pending}.
   * `wait` long-polls up to that many seconds (at most 60). A call no ask
   * answers throws a {@link ServiceError} with status 404. */
  async status(session: string, toolCallId: string, opts: { wait?: number } = {}): Promise<string | Pending> {
    const wait = Math.max(0, Math.min(Math.trunc(opts.wait ?? 0), MAX_POLL_SECONDS));
    const r = await this.#request("GET", `${this.#path(session, toolCallId)}?wait=${wait}`);
    if (r.status === 200) return r.text;
    if (r.status === 202) return Client.#pending(r.text);
    throw Client.#error(r.status, r.text);
  }

  /** Wait for a call's result text, with long polls (a replica that
   * restarts in between loses nothing). `timeoutMs` (default: as long as
   * the ask lasts) throws {@link WaitTimeout} with the ask still pending. */
  async wait(session: string, toolCallId: string, opts: { timeoutMs?: number } = {}): Promise<string> {
    const end = opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs;
    for (;;) {
      const left = end === undefined ? MAX_POLL_SECONDS : Math.floor((end - Date.now()) / 1000);
      if (end !== undefined && end - Date.now() <= 0) {
        throw new WaitTimeout(`the call ${JSON.stringify(toolCallId)} of session ${JSON.stringify(session)} is still pending after ${opts.timeoutMs} ms`);
      }
      const got = await this.status(session, toolCallId, { wait: Math.max(1, Math.min(MAX_POLL_SECONDS, left)) });
      if (typeof got === "string") return got;
    }
  }

  /** Ask a call and return its result text: what to give the model. It
   * posts the call and waits with long polls, so no request is held for
   * the whole wait. Throws {@link CallRefused} for an invalid call. */
  async call(session: string, toolCallId: string, args: Arguments, opts: { dialect?: string; timeoutMs?: number } = {}): Promise<string> {
    const got = await this.callAsync(session, toolCallId, args, opts.dialect === undefined ? {} : { dialect: opts.dialect });
    if (typeof got === "string") return got;
    return this.wait(session, toolCallId, opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs });
  }

  /** End every pending ask of the session (the person wrote in the chat
   * instead): they end cancelled with what was answered so far. Returns
   * how many. */
  async supersede(session: string): Promise<number> {
    const r = await this.#request("POST", `/v1/sessions/${encodeURIComponent(session)}/supersede`, "");
    if (r.status !== 200) throw Client.#error(r.status, r.text);
    return (JSON.parse(r.text) as { superseded: number }).superseded;
  }

  /** Never the token. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }
}

/** The header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = "Askuser-Signature";
/** The header carrying the ask id, the same on every try of one delivery. */
export const ID_HEADER = "Askuser-Webhook-Id";
/** How far a delivery's timestamp may be from this clock: five minutes. */
export const TOLERANCE_SECONDS = 300;
const MIN_SECRET_BYTES = 16;

/** A delivery whose signature does not verify, or is too old. */
export class WebhookError extends Error {
  override name = "WebhookError";
}

const enc = new TextEncoder();
const bytes = (v: string | Uint8Array): Uint8Array => (typeof v === "string" ? enc.encode(v) : v);

async function mac(secret: Uint8Array, ts: string, body: Uint8Array): Promise<Uint8Array> {
  if (secret.length < MIN_SECRET_BYTES) throw new WebhookError(`the secret is ${secret.length} bytes; at least ${MIN_SECRET_BYTES} are needed`);
  const key = await crypto.subtle.importKey("raw", secret as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const msg = new Uint8Array(ts.length + 1 + body.length);
  msg.set(enc.encode(ts + "."), 0);
  msg.set(body, ts.length + 1);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, msg as BufferSource));
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The Askuser-Signature value of `body` sent at `timestamp` (unix seconds). */
export async function signWebhook(secret: string | Uint8Array, body: string | Uint8Array, timestamp: number): Promise<string> {
  const ts = String(Math.trunc(timestamp));
  return `t=${ts},v1=${hex(await mac(bytes(secret), ts, bytes(body)))}`;
}

/**
 * Check that `header` (the Askuser-Signature value) signs `body`, the raw
 * request body before any JSON decoding. Throws a {@link WebhookError}
 * saying what is wrong; resolves when the delivery is askuser's and its
 * timestamp is within `toleranceSeconds` of `nowSeconds` (default: the
 * clock). One matching v1 signature of several is enough (while a secret is
 * rotated).
 */
export async function verifyWebhook(
  secret: string | Uint8Array,
  header: string | null | undefined,
  body: string | Uint8Array,
  opts: { nowSeconds?: number; toleranceSeconds?: number } = {},
): Promise<void> {
  const key = bytes(secret);
  if (key.length < MIN_SECRET_BYTES) throw new WebhookError(`the secret is ${key.length} bytes; at least ${MIN_SECRET_BYTES} are needed`);
  if (!header) throw new WebhookError(`no ${SIGNATURE_HEADER} header`);
  if (header.length > 4096) throw new WebhookError("the signature header is longer than 4096 bytes");
  let ts: string | undefined;
  const sigs: string[] = [];
  for (const field of header.split(",")) {
    const f = field.trim();
    const i = f.indexOf("=");
    if (i < 0) throw new WebhookError(`${JSON.stringify(field)} is not key=value (want t=<unix seconds>,v1=<hex>)`);
    const k = f.slice(0, i);
    const v = f.slice(i + 1);
    if (k === "t") {
      if (ts !== undefined) throw new WebhookError("the header has two timestamps");
      ts = v;
    } else if (k === "v1") {
      if (!/^[0-9a-fA-F]{64}$/.test(v)) throw new WebhookError("a v1 signature is not 32 hex bytes");
      sigs.push(v.toLowerCase());
    }
  }
  if (ts === undefined || sigs.length === 0) throw new WebhookError("the header needs t=<unix seconds> and v1=<hex>");
  if (!/^[1-9][0-9]*$/.test(ts)) throw new WebhookError(`the timestamp ${JSON.stringify(ts)} is not unix seconds`);
  const want = hex(await mac(key, ts, bytes(body)));
  let ok = false;
  for (const s of sigs) {
    let diff = s.length ^ want.length;
    for (let i = 0; i < want.length; i++) diff |= (s.charCodeAt(i) | 0) ^ want.charCodeAt(i);
    ok = diff === 0 || ok;
  }
  if (!ok) throw new WebhookError("the signature does not match");
  const now = opts.nowSeconds ?? Date.now() / 1000;
  const tol = opts.toleranceSeconds ?? TOLERANCE_SECONDS;
  const skew = Math.abs(now - Number(ts));
  if (skew > tol) throw new WebhookError(`the timestamp is ${Math.round(skew)}s from this clock; at most ${tol}s is taken`);
}
