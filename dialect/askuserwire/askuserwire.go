// Package askuserwire is the JSON wire format of the ask_user tool: it reads
// the arguments a model sends when it calls the tool, checks them against
// the tool's contract in a fixed order and answers an invalid call with one
// message the model can fix its call from, fills in every default of a
// valid call, writes a call back in the same JSON form, stamps a call's
// deadlines, and carries the tool's description and the guidance text for
// the model's system prompt.
//
// The package knows nothing of the orchestrator: package
// dialect/askusertool's Dialect maps a Call onto the model.
package askuserwire

import (
	"time"

	"github.com/askuser-go/askuser/internal/deadline"
)

// ToolName is the name of the ask_user tool.
const ToolName = "ask_user"

// Prefix starts every message of an invalid call.
const Prefix = "invalid ask_user arguments: "

// Call is a validated, normalized ask_user call. The deadlines are zero
// until Stamp writes them.
type Call struct {
	// Questions are the questions, in the order the model gave them.
	Questions []Question
	// TimeoutSeconds is how long the call waits for an answer.
	TimeoutSeconds int
	// AskedAt is when the call was asked, in UTC.
	AskedAt time.Time
	// NudgeAt is when a responder starts showing a countdown.
	NudgeAt time.Time
	// ExpiresAt is the deadline.
	ExpiresAt time.Time
	// HumanIntent is the agent's one-line narration of what it is doing
	// ("Deploying the login fix"), at most 120 characters, kept as the
	// model sent it; empty when the call carries none.
	HumanIntent string
}

// Question is one question of a call.
type Question struct {
	// Kind is "choice", "text" or "secret".
	Kind string
	// ID names the answer; unique in the call.
	ID string
	// Header is a short chip label, at most 16 characters.
	Header string
	// Question is the question's text.
	Question string
	// MultiSelect lets the person pick several options of a choice.
	MultiSelect bool
	// AllowOther offers a free-text answer besides the options.
	AllowOther bool
	// Options are a choice's options, most applicable first; empty (and
	// not nil, in a decoded call) for text and secret questions.
	Options []Option
	// SecretName is the name a secret is stored under; secret only.
	SecretName string
	// Purpose says what a secret is for; secret only.
	Purpose string
}

// Option is one option of a choice question.
type Option struct {
	// Label is the option as shown and as answered.
	Label string
	// Description says what picking the option means.
	Description string
	// Default marks the recommended option, applied when nobody answers.
	Default bool
}

// Error is an invalid call.
type Error struct {
	// Path is the JSON path of a shape problem ("questions[1].kind",
	// "(root)" for the top-level value); it is empty for a broken rule and
	// for the size cap.
	Path string
	// Message is the whole model-facing message, starting with Prefix.
	Message string
}

// Error returns the model-facing message.
func (e *Error) Error() string { return e.Message }

// Stamp writes the call's deadlines: AskedAt is now in UTC, ExpiresAt is
// AskedAt plus TimeoutSeconds, and NudgeAt is ExpiresAt less
// min(60, ceil(TimeoutSeconds/5)) seconds.
func (c *Call) Stamp(now time.Time) {
	c.AskedAt, c.NudgeAt, c.ExpiresAt = deadline.Stamps(now, c.TimeoutSeconds)
}
