package askuser

import (
	"context"
	"runtime/debug"

	"github.com/askuser-go/askuser/store"
)

// EventKind says what an Event reports.
type EventKind uint8

// The kinds of events the Orchestrator's Observer is told of.
const (
	// EventBegan: an ask was registered in this process — not a replay
	// of a finalized tool call, not a call joining one that is pending.
	// AskID, Session, ToolCallID and Form are set, and ctx is the
	// caller's (Handle's or Begin's).
	EventBegan EventKind = iota + 1
	// EventEnded: an ask's outcome is final. It is reported once per
	// ask, by the process that finalized it, with Outcome set (and AskID,
	// Session, ToolCallID and Form as in it); ctx is the caller's where
	// this process began the ask, and carries its values (a trace
	// context, say) but not its cancellation.
	EventEnded
	// EventJournaled: one try at writing an ask's journal record.
	// Record is set, Retry says whether an earlier try failed, and Err
	// is the journal's failure, or nil when the record was taken.
	EventJournaled
)

// An Event is one step of an ask's life, as the Orchestrator's Observer is told of it. Its
// pointers are the orchestrator's and must not be modified.
type Event struct {
	Kind EventKind
	// AskID, Session and ToolCallID identify the ask.
	AskID, Session, ToolCallID string
	// Form is the normalized form, with its deadlines stamped.
	Form *Form
	// Outcome is the final outcome (EventEnded).
	Outcome *Outcome
	// Record, Retry and Err report a journal write (EventJournaled).
	Record store.Record
	Retry  bool
	Err    error
}

// observe tells the Observer of ev, containing its panic.
func (o *Orchestrator) observe(ctx context.Context, ev Event) {
	if o.Observer == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			o.logger().Error("askuser: the Observer panicked; the ask goes on", "event", ev.Kind, "ask", ev.AskID, "err", &panicError{value: p}, "stack", string(debug.Stack()))
		}
	}()
	o.Observer(ctx, ev)
}

// observeBegan reports a's beginning.
func (o *Orchestrator) observeBegan(ctx context.Context, a *Ask) {
	if o.Observer != nil {
		o.observe(ctx, Event{Kind: EventBegan, AskID: a.id, Session: a.session, ToolCallID: a.toolCallID, Form: a.form})
	}
}

// observeEnded reports a finalized outcome.
func (o *Orchestrator) observeEnded(ctx context.Context, out *Outcome) {
	if o.Observer != nil {
		o.observe(ctx, Event{Kind: EventEnded, AskID: out.AskID, Session: out.Session, ToolCallID: out.ToolCallID, Form: out.Form, Outcome: out})
	}
}

// journalTry writes rec to the journal, as appendRec does, and reports the
// try.
func (o *Orchestrator) journalTry(ctx context.Context, rec *record, retry bool) error {
	sr, err := rec.stored()
	if err == nil {
		err = o.appendRec(ctx, sr)
	}
	if o.Observer != nil {
		o.observe(ctx, Event{Kind: EventJournaled, AskID: rec.AskID, Session: rec.Session, ToolCallID: rec.ToolCallID, Record: sr, Retry: retry, Err: err})
	}
	return err
}
