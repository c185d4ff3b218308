// Package examples holds runnable examples of askuser, in a module of its
// own so that the LLM SDKs stay out of askuser's dependencies.
//
// quickstart is the library in a dozen lines and the README's first command
// (go -C examples run ./quickstart): it answers a call through the auto or
// the line-based terminal responder and builds nothing else. Each other
// subpackage puts the ask_user tool into one SDK's own types and answers
// that SDK's tool calls through an askuser.Orchestrator:
//
//   - askanthropic: github.com/anthropics/anthropic-sdk-go
//   - askopenai: github.com/openai/openai-go/v3
//   - askmcp: github.com/modelcontextprotocol/go-sdk
//
// Run their tests from the repository root with
//
//	cd examples && go test ./...
//
// They need no network and no API key: the model's side is a canned
// payload, or the MCP SDK's own client over an in-memory transport.
package examples
