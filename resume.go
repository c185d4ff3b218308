package askuser

import "context"

// Resume calls f with a handle of the pending ask of a session's tool
// call, wherever it began, so that a person's reply that reaches this
// process — an MCP client's retry that a load balancer sent to another
// server than the one that asked, say — is reported into the ask itself
// rather than into a second one. In this process's memory (no Asks) it is
// the ask pending here; with a shared store it is the ask in the store,
// begun on any orchestrator on it, and every change made through the
// handle (Report, Submit, Decline, Cancel, …) is written to the store as
// any other, so that the first ending wins and the ask has one journal
// record. The handle is good until f returns. Resume returns f's error;
// ErrClosed, without calling f, for a tool call whose ask is final
// (Await returns its result); ErrUnknownCall for a tool call that no ask
// answers. Await waits for the outcome of what f did.
func (o *Orchestrator) Resume(ctx context.Context, session, toolCallID string, f func(a *Ask) error) error {
	o.init()
	if toolCallID == "" {
		return ErrUnknownCall
	}
	if o.fl != nil {
		return o.fl.resume(ctx, session, toolCallID, f)
	}
	key := callKey{session, toolCallID}
	o.mu.Lock()
	a, final := o.byCall[key], o.replay[key] != nil
	o.mu.Unlock()
	switch {
	case a != nil:
		return f(a)
	case final:
		return ErrClosed
	}
	if _, ok := o.journalReplay(ctx, session, toolCallID); ok {
		return ErrClosed
	}
	return ErrUnknownCall
}

// resume is Resume with a shared store: the ask's entry is held while f
// runs, with a local handle made for it when this process has none.
func (fl *fleet) resume(ctx context.Context, session, toolCallID string, f func(a *Ask) error) error {
	fa, out, err := fl.find(ctx, session, toolCallID)
	switch {
	case err != nil:
		return err
	case out != nil:
		return ErrClosed
	}
	defer fl.release(fa)
	fl.mu.Lock()
	if fa.out != nil {
		fl.mu.Unlock()
		return ErrClosed
	}
	a, rec := fa.ask, fa.rec
	fresh := a == nil
	if fresh {
		if a, err = fl.newAsk(fa, rec); err != nil {
			fl.mu.Unlock()
			return err
		}
		fa.ask = a
	}
	fl.mu.Unlock()
	if fresh {
		a.sync(rec)
	}
	return f(a)
}
