package askuser

import "context"

// Resume hands f a handle on the pending ask of a session's tool call,
// wherever it began — in this process, or with a shared store (Asks) in
// any process on it, even one that has gone away — so that a reply that
// reaches this process by a way of its own (an MCP client's retry that a
// load balancer sent to another server than the one that asked, a poll of
// an MCP task) is reported into the ask itself rather than into a second
// one: f calls Report, Submit, Decline or Cancel on a, and every rule of
// the ask holds as for any responder; on a shared store every change is
// written to the store as any other, so that the first ending wins and
// the ask has one journal record. The handle is good only until f
// returns; Await waits for the outcome of what f did.
//
// When the tool call's ask is final, Resume returns its outcome, replayed,
// and does not call f. When the ask has ended but is not final yet (its
// finalization is under way), Resume returns ErrAskEnded and does not call
// f. When no ask answers the tool call, Resume returns ErrUnknownAsk.
// Otherwise it returns f's error.
func (o *Orchestrator) Resume(ctx context.Context, session, toolCallID string, f func(a *Ask) error) (*Outcome, error) {
	a, release, out, err := o.take(ctx, session, toolCallID)
	if err != nil || out != nil {
		return out, err
	}
	defer release()
	if err := a.open(); err != nil {
		return nil, err
	}
	return nil, f(a)
}

// Withdraw ends the pending ask of a session's tool call, wherever it
// began, as superseded: its caller withdrew it (an MCP client cancelling
// its task), so that nobody answered it. Its result is cancelled and
// unattended, with the answers given so far, as Supersede's. It returns
// ErrAskEnded when the ask had ended already and ErrUnknownAsk when no ask
// answers the tool call.
func (o *Orchestrator) Withdraw(ctx context.Context, session, toolCallID string) error {
	a, release, out, err := o.take(ctx, session, toolCallID)
	switch {
	case err != nil:
		return err
	case out != nil:
		return ErrAskEnded
	}
	defer release()
	if !a.tryEnd(&ending{reason: ReasonSuperseded}) {
		return ErrAskEnded
	}
	return nil
}

// take finds a tool call's pending ask and a handle on it, held until
// release is called, or its final outcome (replayed).
func (o *Orchestrator) take(ctx context.Context, session, toolCallID string) (a *Ask, release func(), out *Outcome, err error) {
	o.init()
	if toolCallID == "" {
		return nil, nil, nil, ErrUnknownAsk
	}
	if fl := o.fl; fl != nil {
		fa, out, err := fl.find(ctx, session, toolCallID)
		if err != nil || out != nil {
			return nil, nil, out, err
		}
		fl.mu.Lock()
		if fa.ask == nil {
			a, err := fl.newAsk(fa, fa.rec)
			if err != nil {
				fl.mu.Unlock()
				fl.release(fa)
				return nil, nil, nil, err
			}
			fa.ask = a
		}
		rec, final := fa.rec, fa.out
		fl.mu.Unlock()
		if final == nil && rec.Ending != nil {
			// Ended, and maybe final in the store by now: what this
			// process holds may be behind it.
			fl.reread(ctx, fa)
		}
		fl.mu.Lock()
		a, rec, final := fa.ask, fa.rec, fa.out
		fl.mu.Unlock()
		if final != nil {
			fl.release(fa)
			r := *final
			r.Replayed = true
			return nil, nil, &r, nil
		}
		a.sync(rec)
		return a, func() { fl.release(fa) }, nil, nil
	}
	key := callKey{session, toolCallID}
	o.mu.Lock()
	a, final := o.byCall[key], o.replay[key]
	o.mu.Unlock()
	switch {
	case final != nil:
		r := *final
		r.Replayed = true
		return nil, nil, &r, nil
	case a == nil:
		if out, ok := o.journalReplay(ctx, session, toolCallID); ok {
			return nil, nil, out, nil
		}
		return nil, nil, nil, ErrUnknownAsk
	}
	if out := a.Outcome(); out != nil {
		if out.Reason == ReasonCaller {
			return nil, nil, nil, ErrUnknownAsk
		}
		r := *out
		r.Replayed = true
		return nil, nil, &r, nil
	}
	return a, func() {}, nil, nil
}
