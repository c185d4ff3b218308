package askuser

import "context"

// A Responder puts a call in front of a person — a terminal, a web page, a
// chat, an MCP client — or knows that nobody is there.
//
// The orchestrator calls Respond once per ask, in a goroutine of its own.
// What Respond may assume:
//   - The call (Ask.Call) is validated and normalized: ids are unique and
//     non-empty, every default is written out, declared defaults are known
//     (Question.DeclaredDefaults), and the deadlines are stamped. It must not
//     be modified.
//   - ctx ends at the call's ExpiresAt, when the caller stops, or when the
//     ask has ended for another reason (superseded, or the responder itself
//     ended it).
//
// What Respond must do:
//   - Report each answer through Ask.Answer as the person gives it (or all at
//     once at the end). Every answer is checked on arrival (see CheckAnswer);
//     a refused answer returns an *AnswerError whose Reason a person can
//     read, so the responder can ask again. Nothing of a refused answer is
//     kept. An accepted answer may be replaced until the ask ends.
//   - End the ask once: Submit (refused with an *UnansweredError while a
//     required question has no accepted answer), Decline, Cancel (the person
//     dismissed it) or Unreachable (nobody can be asked).
//   - Hand a secret or sensitive answer over as a secret.Value in
//     Answer.Secret; the orchestrator seals it and wipes the bytes.
//   - Return promptly once ctx is done. The orchestrator does not wait for
//     it: it finalizes at the deadline with the answers it holds, and every
//     report after that returns ErrClosed (first writer wins; at exactly
//     ExpiresAt the deadline wins).
//
// Whatever Respond does, the orchestrator keeps the contract: a returned
// error, a panic, or a return without an ending ends the ask as a responder
// fault (SPEC §2), which goes to the embedding program and never to the
// model as an answer. Respond may read the final outcome through Ask.Done
// and Ask.Outcome, to show the person what was applied.
//
// Several asks may be pending at once, for one session or many; each has
// its own Ask. A responder that can show only one at a time queues them; a
// queued ask's deadline keeps running.
//
// Optional interfaces a Responder may implement, detected by type
// assertion: Presence (is anybody there), SecretCapable (can it collect a
// credential), Named (its name in the journal) and Wrapper (what it wraps).
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
// does not call Respond.
type Presence interface {
	Reachable(ctx context.Context, session string) bool
}

// SecretCapable is implemented by a responder that knows whether it can
// collect a credential safely (without echo, not from a pipe). When
// CanCollectSecrets reports false for a call with a sealed question, the
// orchestrator treats the call as unattended and does not call Respond.
type SecretCapable interface {
	CanCollectSecrets() bool
}

// Named is implemented by a responder that names itself for the journal
// and the Outcome; others are named by their Go type.
type Named interface {
	ResponderName() string
}

// Wrapper is implemented by a responder that wraps another, so that the
// optional interfaces of the wrapped one are not hidden.
type Wrapper interface {
	Unwrap() Responder
}

// FirstReachable returns a responder that hands each ask to the first of rs
// that is reachable for its session: one that does not implement Presence
// counts as reachable. When none is, the ask is unattended.
func FirstReachable(rs ...Responder) Responder {
	return firstReachable(rs)
}

type firstReachable []Responder

func (f firstReachable) pick(ctx context.Context, session string) Responder {
	for _, r := range f {
		if r == nil {
			continue
		}
		if p, ok := r.(Presence); ok && !p.Reachable(ctx, session) {
			continue
		}
		return r
	}
	return nil
}

func (f firstReachable) Reachable(ctx context.Context, session string) bool {
	return f.pick(ctx, session) != nil
}

func (f firstReachable) Respond(ctx context.Context, a *Ask) error {
	r := f.pick(ctx, a.Session())
	if r == nil {
		return a.Unreachable()
	}
	return r.Respond(ctx, a)
}

func (f firstReachable) ResponderName() string { return "first-reachable" }

// responderName names r for the journal.
func responderName(r Responder) string {
	if r == nil {
		return "none"
	}
	if n, ok := r.(Named); ok {
		return n.ResponderName()
	}
	return typeName(r)
}
