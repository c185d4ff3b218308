package askuser

import (
	"encoding/json"
	"math"
	"time"
)

// A Dialect is one tool contract: a decoder from the arguments a model sends
// to a normalized Call, and an encoder from an Outcome to the result the
// model reads. The orchestrator and the responders are the same for every
// dialect; a new contract is a new Dialect, never a change to them.
type Dialect interface {
	// Name names the contract ("ask_user").
	Name() string
	// Decode validates and normalizes a call. It does not stamp the
	// deadlines; the orchestrator does. An invalid call returns a
	// *CallError.
	Decode(data []byte, lim Limits) (*Call, error)
	// Encode renders a finalized outcome as the contract's result.
	Encode(o *Outcome) ([]byte, error)
}

// A DecisionRecorder is a Dialect whose contract keeps decision records of
// its own (the pi ask contract's). The orchestrator calls Decisions once per
// finalized ask — also for an ask whose caller went away, which gets no
// result — after the outcome is built and before Encode, and stores what it
// returns in Outcome.Decisions, so that the records travel inside the ask's
// one journal record (Record.Decisions) and the encoder can report them.
// Outcome.Journaled tells whether a journal will receive them. Decisions
// returns nil when the outcome has no records. The records are made before
// the record is written, so they cannot report the write itself; a failed
// write is on Outcome.JournalErr.
type DecisionRecorder interface {
	Decisions(o *Outcome) json.RawMessage
}

// Limits are the bounds the embedding program sets on calls.
type Limits struct {
	// MaxTimeoutSeconds is the ceiling on a call's wait and its default.
	MaxTimeoutSeconds int
	// MaxCallBytes caps the size of a call's arguments.
	MaxCallBytes int
}

// The defaults of Limits and Orchestrator.
const (
	DefaultMaxTimeoutSeconds = 300
	DefaultMaxCallBytes      = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.MaxTimeoutSeconds <= 0 {
		l.MaxTimeoutSeconds = DefaultMaxTimeoutSeconds
	}
	if l.MaxCallBytes <= 0 {
		l.MaxCallBytes = DefaultMaxCallBytes
	}
	return l
}

// A CallError is an invalid call: the model gets Message and can fix its
// call. Path is the JSON path of a shape problem ("questions[1].kind"),
// empty for a broken rule.
type CallError struct {
	// Path is the JSON path of the first shape problem, or empty.
	Path string
	// Message is the whole model-facing message, with the contract's
	// prefix ("invalid ask_user arguments: ...").
	Message string
	// Result is the tool result the contract returns for an invalid call,
	// where it returns one (the pi contracts); nil where the message itself
	// is the tool's error result (ask_user).
	Result []byte
}

func (e *CallError) Error() string { return e.Message }

// Stamp writes the call's deadlines (SPEC §1.2): AskedAt is now in UTC,
// ExpiresAt is AskedAt plus TimeoutSeconds, and NudgeAt is ExpiresAt less
// min(60, ceil(TimeoutSeconds/5)) seconds.
func Stamp(c *Call, now time.Time) {
	now = now.UTC()
	t := c.TimeoutSeconds
	c.AskedAt = now
	c.ExpiresAt = now.Add(time.Duration(t) * time.Second)
	lead := int(math.Ceil(float64(t) / 5))
	if lead > 60 {
		lead = 60
	}
	c.NudgeAt = c.ExpiresAt.Add(-time.Duration(lead) * time.Second)
}
