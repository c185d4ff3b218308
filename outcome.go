package askuser

import (
	"encoding/json"
	"time"

	"github.com/askuser-go/askuser/route"
)

// Status is how an ask ended, as the model reads it.
type Status string

// The statuses a result can carry.
const (
	StatusAnswered  Status = "answered"
	StatusDeclined  Status = "declined"
	StatusCancelled Status = "cancelled"
	StatusTimedOut  Status = "timed_out"
)

// Provenance says who decided.
type Provenance string

// Who can decide an answer.
const (
	// ByUser: a person.
	ByUser Provenance = "user"
	// ByTimeout: the deadline passed and the declared default was applied
	// (or, for text and secret, nothing was).
	ByTimeout Provenance = "timeout"
	// ByUnattended: nobody could be asked.
	ByUnattended Provenance = "unattended"
	// ByPolicy: the embedding program's ApprovalPolicy decided an
	// approval.
	ByPolicy Provenance = "policy"
	// ByRemembered: a person's earlier decision for the session decided an
	// approval (see store.Consents).
	ByRemembered Provenance = "remembered"
)

// Reason says why an ask ended, in more detail than Status.
type Reason string

// The reasons an ask ends.
const (
	ReasonSubmitted  Reason = "submitted"       // the person submitted
	ReasonDeclined   Reason = "declined"        // the person declined the call
	ReasonDismissed  Reason = "dismissed"       // the person dismissed the card
	ReasonSuperseded Reason = "superseded"      // the embedding program superseded the ask
	ReasonDeadline   Reason = "deadline"        // the deadline passed
	ReasonUnattended Reason = "unattended"      // nobody could be asked
	ReasonFault      Reason = "responder_fault" // the responder failed
	ReasonCaller     Reason = "caller"          // the caller's context ended
	ReasonPolicy     Reason = "policy"          // the ApprovalPolicy decided an approval
	ReasonRemembered Reason = "remembered"      // a remembered decision decided an approval
)

// An Outcome is a finalized ask: how it ended, who decided, and the answers.
// The orchestrator builds it; responders read it through Ask.Outcome.
type Outcome struct {
	// AskID identifies this ask (not the tool call).
	AskID string
	// Session and ToolCallID are the correlation data the caller gave.
	Session    string
	ToolCallID string
	// Form is the normalized call.
	Form *Form

	// Status and AnsweredBy are the top of the result the model reads.
	Status     Status
	AnsweredBy Provenance
	// Reason is why the ask ended.
	Reason Reason
	// Answers are the final answers, in question order; a question without
	// an answer has no entry.
	Answers []FinalAnswer
	// CancelledOn is the question the person was on when they dismissed the
	// call, where the responder said.
	CancelledOn string
	// RememberedFrom is, for an approval decided by a remembered decision
	// (ReasonRemembered), the ask in which the person decided.
	RememberedFrom string

	// Fault is the responder's failure (an error, a panic, or an ending
	// that was not valid) when Reason is ReasonFault. It is for the
	// embedding program and never reaches the model.
	Fault error
	// JournalErr is the journal's failure to record the outcome, if any,
	// when the record is written before the outcome is given (in memory).
	// With a shared store the outcome is given once it is stored, before
	// its record is written, and a failure is logged and retried instead.
	JournalErr error
	// Principal is who answered, where the responder knows (opaque).
	Principal string
	// Responder names the responder that asked.
	Responder string
	// FinalizedAt is when the outcome became final.
	FinalizedAt time.Time

	// Quorum is, for an approval decided by votes (a route's quorum, or
	// Request.Approvers), what route.Decide made of them: the status, the
	// tally and every vote, counted or not. approvaltool.VerdictOf reads it. Nil
	// for every other ask.
	Quorum *route.Verdict
	// AnsweredVia is, for a routed ask, the channel the answer came by
	// (the responder's name), or for a quorum the channel of the vote that
	// decided; empty otherwise.
	AnsweredVia string
	// Step is, for an ask that took a route with steps, the step (and
	// pass) that had begun when the ask ended; nil otherwise.
	Step *route.Begin

	// Result is the result the model reads, in the contract's encoding.
	Result []byte
	// Replayed is set on an outcome returned again for a tool-call id that
	// was already finalized; nobody was asked.
	Replayed bool

	rt *routing // the ask's route and policy, for the journal record
	// contractRecord is what the contract keeps of the ask besides the
	// result, as its Dialect's Encode returned it, for the journal record
	// (store.Record.ContractRecord).
	contractRecord json.RawMessage
}

// Answer returns the final answer to the question with the given id, or nil.
func (o *Outcome) Answer(id string) *FinalAnswer {
	for i := range o.Answers {
		if o.Answers[i].QuestionID == id {
			return &o.Answers[i]
		}
	}
	return nil
}

// A FinalAnswer is one question's answer in an Outcome. It never holds a
// secret value: a sealed answer carries only its reference.
type FinalAnswer struct {
	// QuestionID is the question answered.
	QuestionID string `json:"question_id"`
	// Selected holds option values in the order the person picked them (in
	// option order for applied defaults). Each contract's encoder orders
	// them as its contract says: the ask_user result lists labels in option
	// order. Nil (nothing selected, as for a sealed answer) leaves
	// "selected" out of the JSON.
	Selected []string `json:"selected,omitzero"`
	// Other is the free text as typed; empty when there is none.
	Other string `json:"other,omitempty"`
	// Note is the person's remark on the answer, as typed.
	Note string `json:"note,omitempty"`
	// OptionNotes holds remarks on selected options, by value.
	OptionNotes map[string]string `json:"option_notes,omitempty"`
	// SecretRef is "session:<name>" for a sealed answer.
	SecretRef string `json:"secret_ref,omitempty"`
	// SecretItems is, for a sealed answer to a sensitive multi-select
	// question, how many items the sealed JSON array holds (see
	// responder.ChoiceSecret), so that a contract can redact one per item;
	// zero otherwise.
	SecretItems int `json:"secret_items,omitempty"`
	// By is who decided this answer.
	By Provenance `json:"answered_by"`
	// Draft is set on an answer the deadline kept from what the person had
	// checked but not submitted (a question whose rule is FallbackDraft);
	// By is then ByTimeout. An answer by the timeout or unattended without
	// Draft holds the question's declared defaults.
	Draft bool `json:"draft,omitempty"`
}
