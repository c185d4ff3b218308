package askuser

import (
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/secret"
)

// Kind says what a question collects.
type Kind string

// The kinds of question.
const (
	// KindChoice picks one option, or several with MultiSelect, and/or types
	// something else where AllowOther is set.
	KindChoice Kind = "choice"
	// KindText collects one free-form answer. It is never resolved by default.
	KindText Kind = "text"
	// KindSecret collects one credential, which is sealed and never reaches
	// the model. It must be the only question of its call and is never
	// resolved by default.
	KindSecret Kind = "secret"
	// KindApproval asks permission to act (see approvaltool.Form). It is the
	// only question of its form, offers exactly the approval options, and
	// is never resolved by default.
	KindApproval Kind = "approval"
)

// A Fallback says what a question the person did not answer gets: at the
// deadline (Question.OnDeadline), or at once when nobody can be asked
// (Form.Unattended). The zero value is FallbackDefaults; Normalize also
// takes "default" and "defaults" for it.
type Fallback string

const (
	// FallbackDefaults applies the question's declared defaults (see
	// responder.DeclaredDefaults); text and secret questions have none.
	// When nobody can be asked, the defaults are applied at once if every
	// unanswered question has them, and otherwise the call is declined:
	// the ask_user contract's rule.
	FallbackDefaults Fallback = ""
	// FallbackDraft, at the deadline, keeps what the person had checked
	// but not submitted (a draft the responder reported with Ask.Draft),
	// else applies the declared defaults. It is a question's rule only:
	// when nobody can be asked there is no draft.
	FallbackDraft Fallback = "draft"
	// FallbackNothing applies nothing. At the deadline the question stays
	// unanswered, and the other questions' rules still apply (where every
	// unanswered question is served by its rule, the call times out
	// rather than being declined). When nobody can be asked, the outcome
	// carries no answer the person did not give, and the contract's
	// encoder says that nobody was there (a listing of the questions, or
	// an error).
	FallbackNothing Fallback = "nothing"
)

// A Form is what the person is asked: one to four questions, with the
// deadlines and the rules of the contract they came in. It is the model
// underneath every tool contract askuser speaks (the ask_user JSON is one
// encoding of it, the pi contracts two others), and what an Outcome answers.
//
// A Form handed to a responder has been validated and normalized: every
// question has a unique id, defaults are written out and the deadlines are
// stamped. Responders must not modify it.
//
// An approval (permission to act, which never decides by itself) is a form
// of its own kind: see approvaltool.Form.
type Form struct {
	// Questions are asked in order.
	Questions []Question `json:"questions"`
	// TimeoutSeconds is how long the call waits for the person.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// AskedAt is when the call was stamped.
	AskedAt time.Time `json:"asked_at,omitzero"`
	// NudgeAt is when a responder shows a countdown; AskedAt ≤ NudgeAt <
	// ExpiresAt.
	NudgeAt time.Time `json:"nudge_at,omitzero"`
	// ExpiresAt is the deadline.
	ExpiresAt time.Time `json:"expires_at,omitzero"`

	// Title is an optional heading for the whole form.
	Title string `json:"title,omitempty"`
	// HumanIntent is the agent's one-line narration of what it is doing
	// ("Deploying the login fix"), shown to the person above the questions
	// where the contract carries it.
	HumanIntent string `json:"human_intent,omitempty"`
	// Contract names the tool contract the call came in ("ask_user",
	// "pi-ask", "pi"), for the journal.
	Contract string `json:"contract,omitempty"`
	// Unattended says what the call yields when nobody can be asked:
	// FallbackDefaults or FallbackNothing.
	Unattended Fallback `json:"unattended,omitempty"`
	// CancelDropsAnswers drops the answers given so far when the person
	// dismisses the call; by default they are kept.
	CancelDropsAnswers bool `json:"cancel_drops_answers,omitempty"`
	// DeclineKeepsAnswers keeps the answers given so far when the person
	// declines the call; by default a decline passes nothing on.
	DeclineKeepsAnswers bool `json:"decline_keeps_answers,omitempty"`
	// Approval is what an approval form asks the person to permit; nil on
	// every other form.
	Approval *approval.Request `json:"approval,omitempty"`
	// DialectData belongs to the dialect that decoded the form: whatever
	// its encoder needs to answer in the contract's own terms (which of
	// its call shapes the call came in, say). The orchestrator and the
	// responders never read it, and it is not journaled.
	DialectData any `json:"-"`
}

// Question returns the question with the given id, or nil.
func (c *Form) Question(id string) *Question {
	for i := range c.Questions {
		if c.Questions[i].ID == id {
			return &c.Questions[i]
		}
	}
	return nil
}

// A Question is one thing the person is asked.
type Question struct {
	// ID names the question in answers; unique within its call.
	ID string `json:"id"`
	// Kind is what the question collects.
	Kind Kind `json:"kind"`
	// Header is a short chip label (at most 16 runes in ask_user).
	Header string `json:"header"`
	// Text is the question itself.
	Text string `json:"question"`
	// OtherLabel is how a responder labels the free-text path; empty means
	// "Something else".
	OtherLabel string `json:"other_label,omitempty"`
	// Options are ordered most-applicable-first. Nil (a text or secret
	// question) leaves "options" out of the JSON.
	Options []Option `json:"options,omitzero"`
	// SecretName names the credential a secret question collects; its
	// reference is "session:" + SecretName.
	SecretName string `json:"secret_name,omitempty"`
	// Purpose says what the credential is for.
	Purpose string `json:"purpose,omitempty"`
	// Prefill is the text a text question starts with.
	Prefill string `json:"prefill,omitempty"`
	// OnDeadline says what the deadline does when this question is
	// unanswered.
	OnDeadline Fallback `json:"on_deadline,omitempty"`
	// MultiSelect lets the person pick several options.
	MultiSelect bool `json:"multi_select"`
	// AllowOther offers a free-text path ("Something else") on a choice.
	// Text questions always allow free text; secrets never do.
	AllowOther bool `json:"allow_other"`
	// OtherExclusive makes picked options and free text exclude each
	// other: an answer carrying both is refused.
	OtherExclusive bool `json:"other_exclusive,omitempty"`
	// NoDefault marks a question that recommends nothing: no option is
	// shown as recommended, empty input picks nothing and the deadline
	// applies nothing.
	NoDefault bool `json:"no_default,omitempty"`
	// Sensitive seals the answer like a secret's, named by SecretName if
	// set, else by ID. The responder hands the answer over as a secret
	// value: a text question's text as typed, a choice question's value
	// as ChoiceSecret makes it.
	Sensitive bool `json:"sensitive,omitempty"`
	// Multiline asks for a multi-line text answer.
	Multiline bool `json:"multiline,omitempty"`
	// Optional lets the person submit without answering this question.
	Optional bool `json:"optional,omitempty"`
}

// sealed reports whether the question's answer is a secret value that the
// orchestrator seals: a secret question or a sensitive one.
func (q *Question) sealed() bool { return q.Kind == KindSecret || q.Sensitive }

// sealName is the name the question's sealed answer is stored under.
func (q *Question) sealName() string {
	if q.SecretName != "" {
		return q.SecretName
	}
	return q.ID
}

// freeText reports whether the question accepts free text.
func (q *Question) freeText() bool {
	switch q.Kind {
	case KindText:
		return true
	case KindSecret:
		return false
	}
	return q.AllowOther
}

// declaredDefaults returns the values of the question's declared defaults:
// the options marked Default, in option order, or else the first option. Text
// and secret questions, and questions marked NoDefault, have none.
func (q *Question) declaredDefaults() []string {
	if q.Kind != KindChoice || q.NoDefault || len(q.Options) == 0 {
		return nil
	}
	var vals []string
	for _, o := range q.Options {
		if o.Default {
			vals = append(vals, o.Value)
		}
	}
	if vals == nil {
		vals = []string{q.Options[0].Value}
	}
	return vals
}

// Option returns the option with the given value, or nil.
func (q *Question) Option(value string) *Option {
	for i := range q.Options {
		if q.Options[i].Value == value {
			return &q.Options[i]
		}
	}
	return nil
}

// An Option is one choice offered by a choice question.
type Option struct {
	// Value identifies the option in answers. Contracts without values
	// (ask_user) use the label.
	Value string `json:"value"`
	// Label is what the person sees.
	Label string `json:"label"`
	// Description says what picking the option means.
	Description string `json:"description,omitempty"`
	// Preview is longer text shown under the option (a diff, a sample).
	Preview string `json:"preview,omitempty"`
	// Default marks the recommended option.
	Default bool `json:"default"`
}

// An Answer is what a responder reports for one question.
type Answer struct {
	// QuestionID is the question answered.
	QuestionID string
	// Selected holds the picked options' values in the order the person
	// picked them.
	Selected []string
	// Other is the free text as typed. It is trimmed for the checks; blank
	// counts as absent.
	Other string
	// Note is a remark the person added to the answer.
	Note string
	// OptionNotes holds remarks on selected options, by option value.
	OptionNotes map[string]string
	// Secret is the answer to a secret or sensitive question. It is sealed
	// when the answer is accepted, and wiped.
	Secret secret.Value
}
