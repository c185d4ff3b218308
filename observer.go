package askuser

import (
	"context"
	"runtime/debug"

	"github.com/askuser-go/askuser/store"
)

// An Observer is told how asks begin and end and how their journal
// records are written, for telemetry: set it as the Orchestrator's
// Observer. Each hook is optional (nil: not called), and a later version
// may add hooks for more of an ask's life (an escalation step, a vote) as
// new fields, as net/http/httptrace.ClientTrace does, so an Observer
// written today goes on working. The otelask package's Hooks turns what
// it is told into OpenTelemetry spans and metrics; the root package
// depends on no telemetry library.
//
// A hook is called on the goroutine that begins, finalizes or journals
// the ask, before the caller of Handle is given the outcome: it must
// return quickly, must not block, and must not call the orchestrator.
// What it is given is the orchestrator's and must not be modified; it
// holds no secret value (a sealed answer is a reference), but it does hold
// the person's answers and the model's questions, so an Observer that
// exports what it sees leaves their text out. A panic in a hook is logged
// and goes no further.
type Observer struct {
	// Began is called when an ask is registered in this process — not
	// for a replay of a finalized tool call, nor for a call joining one
	// that is pending — with the ask as Pending lists it (nothing is
	// answered yet) and the caller's ctx (Handle's or Begin's).
	Began func(ctx context.Context, ask PendingAsk)
	// Ended is called once per ask, by the process that finalized it,
	// with the final outcome. ctx is the caller's where this process began
	// the ask, and carries its values (a trace context, say) but not its
	// cancellation.
	Ended func(ctx context.Context, out *Outcome)
	// Journaled is called for each try at writing an ask's journal
	// record: retry says whether an earlier try failed, and err is the
	// journal's failure, or nil when the journal took the record.
	Journaled func(ctx context.Context, rec store.Record, retry bool, err error)
}

// observe calls one hook of the Observer, containing its panic.
func (o *Orchestrator) observe(hook, askID string, call func()) {
	defer func() {
		if p := recover(); p != nil {
			o.logger().Error("askuser: the Observer panicked; the ask goes on", "hook", hook, "ask", askID, "err", &panicError{value: p}, "stack", string(debug.Stack()))
		}
	}()
	call()
}

// observeBegan reports a's beginning.
func (o *Orchestrator) observeBegan(ctx context.Context, a *Ask) {
	if ob := o.Observer; ob != nil && ob.Began != nil {
		o.observe("Began", a.id, func() {
			ob.Began(ctx, PendingAsk{AskID: a.id, Session: a.session, ToolCallID: a.toolCallID, Form: a.form})
		})
	}
}

// observeEnded reports a finalized outcome.
func (o *Orchestrator) observeEnded(ctx context.Context, out *Outcome) {
	if ob := o.Observer; ob != nil && ob.Ended != nil {
		o.observe("Ended", out.AskID, func() { ob.Ended(ctx, out) })
	}
}

// journalTry writes rec to the journal, as appendRec does, and reports the
// try.
func (o *Orchestrator) journalTry(ctx context.Context, rec *record, retry bool) error {
	sr, err := rec.stored()
	if err == nil {
		err = o.appendRec(ctx, sr)
	}
	if ob := o.Observer; ob != nil && ob.Journaled != nil {
		o.observe("Journaled", rec.AskID, func() { ob.Journaled(ctx, sr, retry, err) })
	}
	return err
}
