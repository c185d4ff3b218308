// Package piask speaks the pi-ask tool contract: a tool named ask_user whose
// questions offer options with a value distinct from the label, an optional
// preview, and notes the person adds. A team that already prompts a model
// with that tool keeps its prompts, tool definition and result parsing, and
// gets askuser's orchestrator underneath:
//
//	o := &askuser.Orchestrator{Responder: r}
//	out, err := o.Handle(ctx, askuser.Request{Session: s, ToolCallID: id, Arguments: args, Dialect: piask.Dialect()})
//
// The whole contract — the call, every validation message, the result for
// every ending — is docs/pi-ask.md in this module; what follows is how it
// maps onto askuser.
//
// Decode validates a call with the contract's own messages and normalizes it
// to the model: each question is an optional choice question (required is
// metadata only), its options keep their values, a non-preview question
// offers a free-text row labelled "Type your own", and nothing is ever
// chosen for the person (no recommended option, no default at the deadline,
// no answers invented when nobody is there). An invalid call is a
// *dialect.CallError whose Result is the contract's tool result.
//
// Encode writes the contract's result: texts and details byte for byte as
// the original, for a submit, a cancel, a decline, a superseded ask, a
// responder fault and nobody reachable.
//
// # Extension: deadlines
//
// The original waits for ever; askuser always has a deadline, and since
// this contract has no timeout field, the call waits for the ceiling
// (askuser.Orchestrator.Limits.MaxTimeoutSeconds). When the deadline passes the
// result is cancelled, with the answers given so far, and its details carry
// timedOut: true, a field the original never writes; the text is the
// summary of those answers followed by "The ask flow timed out before the
// user submitted it".
package piask

import (
	"bytes"
	_ "embed"

	"github.com/askuser-go/askuser"
)

// Name is the contract's name, in Form.Contract and the journal.
const Name = "pi-ask"

// ToolName is the name of the contract's tool.
const ToolName = "ask_user"

// Dialect returns the pi-ask contract, for askuser.Request.Dialect.
func Dialect() askuser.Dialect { return piaskDialect{} }

type piaskDialect struct{}

func (piaskDialect) Name() string { return Name }

//go:embed tool.json
var toolJSON []byte

// Tool returns the contract's tool definition: its name, description and
// the JSON Schema of its input, as the original declares them, in the form
// {"name", "description", "parameters"}.
func Tool() []byte { return bytes.Clone(toolJSON) }
