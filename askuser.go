package askuser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/askuser-go/askuser/dialect"
)

// A Responder puts a form in front of a person — a terminal, a web page, a
// chat, an MCP client — or knows that nobody is there.
//
// The orchestrator calls Respond once per ask, in a goroutine of its own.
// What Respond may assume:
//   - The form (Ask.Form) is validated and normalized: ids are unique and
//     non-empty, every default is written out, declared defaults are known
//     (responder.DeclaredDefaults), and the deadlines are stamped. It must not
//     be modified.
//   - ctx ends at the form's ExpiresAt, when the caller stops, or when the
//     ask has ended for another reason (superseded, or the responder itself
//     ended it).
//
// What Respond must do:
//   - Report each answer through Ask.Report as the person gives it (or all
//     at once at the end). Every answer is checked on arrival (see
//     responder.CheckAnswer); a refused answer returns an *AnswerError whose
//     Reason a person can read, so the responder can ask again. Nothing of a
//     refused answer is kept. An accepted answer may be replaced until the
//     ask ends.
//   - End the ask once: Submit (refused with an *UnansweredError while a
//     required question has no accepted answer), Decline, Cancel (the person
//     dismissed it) or Unreachable (nobody can be asked).
//   - Hand a secret or sensitive answer over as a secret.Value in
//     Answer.Secret; the orchestrator seals it and wipes the bytes.
//   - Return promptly once ctx is done, with whatever the person answered
//     so far already reported. The orchestrator does not wait for it: it
//     finalizes at the deadline with the answers it holds, and every report
//     after that returns ErrAskEnded (first writer wins; at exactly ExpiresAt
//     the deadline wins).
//
// Whatever Respond does, the orchestrator keeps the contract. A returned
// error, a panic, or a return without an ending, while the ask is still
// open, ends the ask as a responder fault: cancelled / unattended with the
// answers accepted so far, the fault on Outcome.Fault and in the log, never
// in the result. An error returned after the ask has ended (its context is
// done) changes nothing, since the outcome is already final; it is logged
// as a warning, except ctx's own error and ErrAskEnded, which are the
// expected way out. Respond may read the final outcome through Ask.Done and
// Ask.Outcome, to show the person what was applied.
//
// Several asks may be pending at once, for one session or many; each has
// its own Ask. A responder that can show only one at a time queues them; a
// queued ask's deadline keeps running.
//
// A responder may implement optional interfaces, found on it or on what it
// wraps: Presence (is anybody there), SecretCapable (can it
// collect a credential), ApprovalCapable (can it take an approval) and
// Named (its name in the journal). A responder driven by events (HTTP
// requests, messages) rather than by a goroutine per ask implements
// EventDriven, and is told about asks instead of being called per ask.
//
// A responder that wraps another has the method Unwrap() Responder. The
// orchestrator looks for every optional interface on the responder first
// and then down the chain of Unwrap, as http.ResponseController does, so
// that wrapping hides no capability; a wrapper that implements an
// optional interface itself answers for the whole chain.
type Responder interface {
	Respond(ctx context.Context, a *Ask) error
}

// ResponderFunc adapts an ordinary function to a Responder.
type ResponderFunc func(ctx context.Context, a *Ask) error

// Respond calls f(ctx, a).
func (f ResponderFunc) Respond(ctx context.Context, a *Ask) error { return f(ctx, a) }

// Presence is implemented by a responder that knows, before showing
// anything, whether a person can be reached for a session. When Reachable
// reports false, the orchestrator applies the unattended rules at once and
// does not call Respond. A panic in Reachable, as in the other optional
// checks, ends the ask as a responder fault, as a panic in Respond does.
type Presence interface {
	Reachable(ctx context.Context, session string) bool
}

// SecretCapable is implemented by a responder that knows whether it can
// collect a credential safely (without echo, not from a pipe). When
// CanCollectSecrets reports false for a form with a sealed question, the
// orchestrator treats the ask as unattended and does not call Respond.
type SecretCapable interface {
	CanCollectSecrets() bool
}

// EventDriven is implemented by a responder that is driven by events — a
// web page's requests, a client's messages — and so needs no goroutine per
// pending ask. The orchestrator calls Asked once per ask, in place of
// Respond (which it then does not call): where Respond would be started,
// after every Presence, SecretCapable and ApprovalCapable check, and before
// Handle's caller starts to wait (on a short-lived goroutine of the
// orchestrator's, while the caller's is blocked). Asked must not block. It keeps the ask wherever the responder
// looks asks up, and returns; the responder then reports answers and ends
// the ask through the *Ask from its own events, with every rule of Respond
// (see Responder): each answer checked on arrival, one ending, ErrAskEnded
// once the ask has ended (at exactly ExpiresAt the deadline wins). It learns
// that the ask has ended, and its final outcome, through Ask.AfterEnd; the
// orchestrator finalizes at the first ending, at the deadline, when the
// caller goes away or when the ask is superseded, without a goroutine of the
// responder's.
//
// A panic in Asked ends the ask as a responder fault, as a panic in Respond
// does, and is logged; the caller is not hurt. Asked returning without an
// ending is not a fault: the ask stays pending until an event or the
// deadline ends it.
//
// The orchestrator finds EventDriven on the responder or down its chain of
// Unwrap, like the other optional interfaces. A wrapper whose Respond does
// more than call the wrapped responder's must implement EventDriven itself
// (forwarding to the wrapped Asked), or not unwrap: otherwise the
// orchestrator calls the wrapped Asked and the wrapper's Respond is not
// called. FirstReachable does not forward Asked: it calls the chosen
// responder's Respond, so an EventDriven responder keeps a working Respond
// for it (one that calls Asked and returns once ctx is done is enough).
type EventDriven interface {
	Asked(a *Ask)
}

// Named is implemented by a responder that names itself for the journal
// and the Outcome; others are named by their Go type.
type Named interface {
	ResponderName() string
}

// findOptional finds an optional interface on r or on what it wraps.
func findOptional[T any](r Responder) (T, bool) {
	for range 64 { // a wrapper chain longer than this is a cycle
		if r == nil {
			break
		}
		if t, ok := r.(T); ok {
			return t, true
		}
		w, ok := r.(interface{ Unwrap() Responder })
		if !ok {
			break
		}
		r = w.Unwrap()
	}
	var zero T
	return zero, false
}

// FirstReachable returns a responder that hands each ask to the first of rs
// that is reachable for its session: one without Presence counts as
// reachable. An approval goes to the first reachable one that can take
// approvals (ApprovalCapable). When none is, the ask is unattended.
func FirstReachable(rs ...Responder) Responder {
	return firstReachable(rs)
}

type firstReachable []Responder

func (f firstReachable) pick(ctx context.Context, session string, approval bool) Responder {
	for _, r := range f {
		if r == nil {
			continue
		}
		if c, ok := findOptional[ApprovalCapable](r); approval && (!ok || !c.CanTakeApprovals()) {
			continue
		}
		if p, ok := findOptional[Presence](r); ok && !p.Reachable(ctx, session) {
			continue
		}
		return r
	}
	return nil
}

func (f firstReachable) Reachable(ctx context.Context, session string) bool {
	return f.pick(ctx, session, false) != nil
}

func (f firstReachable) Respond(ctx context.Context, a *Ask) error {
	r := f.pick(ctx, a.Session(), a.Form().Approval != nil)
	if r == nil {
		return a.Unreachable()
	}
	return r.Respond(ctx, a)
}

func (f firstReachable) ResponderName() string { return "first-reachable" }

// CanTakeApprovals reports whether one of the responders can.
func (f firstReachable) CanTakeApprovals() bool {
	for _, r := range f {
		if c, ok := findOptional[ApprovalCapable](r); ok && c.CanTakeApprovals() {
			return true
		}
	}
	return false
}

// responderName names r for the journal.
func responderName(r Responder) string {
	if r == nil {
		return "none"
	}
	if n, ok := findOptional[Named](r); ok {
		return n.ResponderName()
	}
	return fmt.Sprintf("%T", r)
}

// A Dialect is one tool contract: a decoder from the arguments a model sends
// to a normalized Form, and an encoder from an Outcome to the result the
// model reads. The orchestrator and the responders are the same for every
// dialect; a new contract is a new Dialect, never a change to them. Every
// contract askuser speaks is one, each in its package under dialect/:
// askusertool (ask_user, the default), approvaltool (request_approval, the
// default for an approval's Form), piask and pi.
//
// The orchestrator holds a dialect to the model's own rules: a Form that
// Decode returns is checked as Normalize checks a Go-built one before any
// responder sees it. A Form that breaks them is a bug in the dialect; it is
// logged, and the caller gets a *dialect.CallError saying so, not an ask.
type Dialect interface {
	// Name names the contract ("ask_user"); the journal records it.
	Name() string
	// Decode validates and normalizes a call. It does not stamp the
	// deadlines; the orchestrator does. An invalid call returns a
	// *dialect.CallError. Per-contract state the encoder needs goes in
	// Form.DialectData.
	Decode(data []byte, lim dialect.Limits) (*Form, error)
	// Encode renders a finalized outcome as the result the model reads,
	// and may return what the contract keeps of the ask besides the result
	// (record), which travels in the ask's journal record as
	// store.Record.ContractRecord. journaled says whether a journal will keep
	// that record. Encode is called once per finalized ask, also for an
	// ask whose caller went away (whose result nobody reads).
	Encode(o *Outcome, journaled bool) (result []byte, record json.RawMessage, err error)
}
