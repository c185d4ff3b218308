// Package schema renders the tool definition of each contract askuser
// speaks (ask_user, the pi-ask and pi contracts, and request_approval, the
// consent gate offered beside them) for each LLM API, so that a program
// putting askuser into its own model calls can hand the API a definition it
// accepts as is, and route the model's tool calls back through an
// askuser.Orchestrator.
//
// # Overview
//
// ask_user's and request_approval's definitions are generated once, with
// github.com/invopop/jsonschema, from their wire types (not from
// askuser.Form, which holds more than these contracts accept); pi-ask's and
// pi's come from their own tool.json (piask.Tool, pi.Tool). Each is then
// rendered per API:
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
// field's description; rules that span fields (for ask_user: unique ids and
// labels, non-blank after trimming, what each kind allows, a secret alone,
// at most one default on a single-select) are stated in words everywhere.
// The decoder enforces every rule either way: a schema only helps the model
// get the call right the first time. ask_user's read-only stamps (asked_at,
// nudge_at, expires_at) are in no rendering.
//
// The timeout ceiling is the embedding program's: render with
// Options{MaxTimeoutSeconds: o.Limits.MaxTimeoutSeconds} to match an Orchestrator
// that changes it.
//
// # Contracts
//
// Options.Dialect names the contract, as the Name of its askuser.Dialect:
//
//	schema.Options{Dialect: pi.Name, MaxTimeoutSeconds: o.Limits.MaxTimeoutSeconds}.OpenAI()
//
// The zero value is ask_user, and the package functions (JSONSchema,
// OpenAI, …) render it. request_approval (approvalwire.ToolName) is
// rendered the same way as ask_user, with its own MCP title
// (ApprovalTitle); its details are limited in bytes, which a schema cannot
// count, so maxLength carries the limit in characters and the description
// states it in bytes. pi-ask and pi ignore unknown fields, so their
// objects stay open, except in the strict renderings, which close every
// object as strict modes require. pi's call has two shapes, option questions
// and one rich question; JSONSchema keeps them as a union (anyOf), and every
// other rendering merges them into one object, since model APIs refuse a
// union at the top of a tool's parameters: the properties of both shapes,
// none required, each description saying which shape the field belongs to,
// and the decoder tells the shapes apart by whether questions is present.
// ResultSchema of pi-ask and pi is the schema of their tool result,
// {content: [{type, text}], details, isError?}.
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
