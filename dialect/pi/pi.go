// Package pi speaks the pi ask tool contract: a tool named ask that takes
// either option questions ({questions: [...]}) or one rich question
// ({question, kind, ...}), reports status, answerSource and timedOut with
// every answer, and keeps a decision record per finished question. A team
// that already prompts a model with that tool keeps its prompts, tool
// definition and result parsing, and gets askuser's orchestrator
// underneath:
//
//	o := &askuser.Orchestrator{Responder: r, Journal: j}
//	out, err := o.Handle(ctx, askuser.Request{Session: s, ToolCallID: id, Arguments: args, Dialect: pi.Dialect()})
//
// The whole contract — every call shape, message and result — is
// docs/pi.md in this module; what follows is how it maps onto askuser.
//
// # Option questions
//
// Each becomes an optional choice question whose options are valued by
// their labels (by their 1-based positions, in a question whose labels
// repeat, so that two options reading alike stay two), with a free-text row
// "Other (type your own)" that excludes the checked options. The result
// names what was picked by label. The call waits for the longest timeoutMs of its
// questions, rounded up to whole seconds (at most the ceiling), or for the
// ceiling. At the deadline a single-select question gets its recommended
// option, else its first; a multi-select keeps what the person had checked
// (the responder's draft), else the recommended, else the first — marked
// status "timed-out", answerSource "automatic".
//
// # Rich question
//
// One question whose id is QuestionID of its text: a select or
// multi-select over the given options, valued as above (and a free-text
// row), or a text or
// editor (multi-line) answer, prefilled from default. A deadline invents
// nothing. sensitivity "secret" seals the answer (Question.Sensitive): the
// result and the journal carry only its reference and
// [REDACTED:secret-answer].
//
// # Decisions
//
// The Dialect's Encode returns the decision records of a finished call
// besides its result; the orchestrator keeps them in the ask's one journal
// record (store.Record.ContractRecord, journal.Record.ContractRecord),
// and the result reports each as {decisionId, backend, diagnostics}.
// backend is "jsonl" when the orchestrator has a journal and "memory"
// otherwise. The records are made before the journal record is written —
// they travel inside it — so diagnostics can only list problems known
// before the write (none, when the orchestrator made the records); a write
// that fails is logged and reported on askuser.Outcome.JournalErr, never in
// the result.
//
// # Choices made here
//
// The contract does not say what a superseded ask or a responder fault
// returns, nor what a decline does (pi has none). A decline is a cancel
// (on the question the person was on, else the first). A superseded ask and
// a fault return isError with the details of a cancel but no decision, and
// the texts TextSuperseded and TextFault. A rich question whose answer was
// accepted but not submitted when the deadline passed counts as answered.
package pi

import (
	"bytes"
	_ "embed"

	"github.com/askuser-go/askuser"
)

// Name is the contract's name, in Form.Contract and the journal.
const Name = "pi"

// ToolName is the name of the contract's tool.
const ToolName = "ask"

// state is what this contract keeps in Form.DialectData: which of its two
// call shapes a form came in, and a rich question's sensitivity as the
// call gave it ("public", "internal" or "secret"; only "secret" seals).
type state struct {
	rich        bool
	sensitivity string
}

func stateOf(f *askuser.Form) state {
	s, _ := f.DialectData.(state)
	return s
}

// The rich question kinds.
const (
	KindSelect      = "select"
	KindMultiSelect = "multi-select"
	KindText        = "text"
	KindEditor      = "editor"
)

// The sensitivities of a rich question.
const (
	SensitivityPublic   = "public"
	SensitivityInternal = "internal"
	SensitivitySecret   = "secret"
)

// OtherLabel labels the free-text row every list of options ends with.
const OtherLabel = "Other (type your own)"

// Dialect returns the pi ask contract, for askuser.Request.Dialect. Its
// Encode also returns the call's decision records, which travel in the
// ask's journal record.
func Dialect() askuser.Dialect { return piDialect{} }

type piDialect struct{}

func (piDialect) Name() string { return Name }

//go:embed tool.json
var toolJSON []byte

// Tool returns the contract's tool definition: its name, description and
// the JSON Schema of its input (either shape), in the form {"name",
// "description", "parameters"}.
func Tool() []byte { return bytes.Clone(toolJSON) }
