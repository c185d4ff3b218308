// Package schema renders the ask_user tool definition for each LLM API, so
// that a program putting askuser into its own model calls can hand the API
// a definition it accepts as is, and route the model's tool calls back
// through an askuser.Orchestrator.
//
// # Overview
//
// The definition is generated once, with github.com/invopop/jsonschema,
// from the ask_user wire types (not from askuser.Form, which holds more than
// this contract accepts), and then rendered per API:
//
//   - JSONSchema: plain JSON Schema 2020-12, every limit one field carries
//     as a keyword.
//   - OpenAI: a function tool with strict: true.
//   - Anthropic and AnthropicStrict: a Messages API tool, and the variant
//     for strict tool use.
//   - Gemini and GeminiJSONSchema: a function declaration with the
//     OpenAPI-subset parameters, or with parametersJsonSchema.
//   - MCP: the tool with inputSchema, outputSchema (ResultSchema) and
//     annotations.
//
// A limit a rendering cannot carry as a keyword is stated in words in the
// field's description; rules that span fields (unique ids and labels,
// non-blank after trimming, what each kind allows, a secret alone, at most
// one default on a single-select) are stated in words everywhere. The
// decoder enforces every rule either way: a schema only helps the model get
// the call right the first time. The read-only stamps (asked_at, nudge_at,
// expires_at) are in no rendering.
//
// The timeout ceiling is the embedding program's: render with
// Options{MaxTimeoutSeconds: o.MaxTimeoutSeconds} to match an Orchestrator
// that changes it.
//
// # Tool calls and results
//
// Arguments, ToolResult and Handle carry a provider's tool call to the
// orchestrator and its outcome back, without depending on any SDK: an
// outcome is the tool result, an invalid call's message is an error result,
// and a caller whose context ended gets no result at all. The examples
// module (github.com/askuser-go/askuser/examples) shows them with the
// Anthropic, OpenAI and MCP Go SDKs.
package schema
