package askuser

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// An Announcer is a SessionFollower that must also be told (Asked) of
// every ask on the process that began it, whether or not that process
// follows the ask's session: a responder that posts each ask once to a
// channel of its own (a Slack message, a mail), or a fan-out of one with
// a web card. On a fleet it is then told of an ask once where the ask
// began (responder.BeganHere reports true there), and again on each replica
// that follows the ask's session (where BeganHere reports false), so that
// it posts once and lets a card show the ask everywhere. Without a shared
// store every ask is told about where it began, as it is to any
// responder.
type Announcer interface {
	SessionFollower
	// AnnouncesAsks reports whether the responder is to be told of every
	// ask where it began. A wrapper answers for what it wraps.
	AnnouncesAsks() bool
}

// beganHere reports whether this handle is the one of the process that
// began the ask: always, without a shared store (Orchestrator.Asks); on a
// fleet, on the replica where the caller asked only. A responder that
// posts each ask once (a Slack message, a mail) posts it from the handle
// for which BeganHere reports true, and finds it elsewhere with
// Sessions.Find.
func (a *Ask) beganHere() bool { return a.fa == nil || a.fa.began && a.fa.ask == a }

// announces reports whether r is an Announcer that announces.
func announces(r Responder) bool {
	an, ok := findOptional[Announcer](r)
	return ok && an.AnnouncesAsks()
}

// ErrUnknownAsk is what Await, Resume and Withdraw return for a tool call
// that no ask answers, and Sessions.Find for an ask id it does not know in
// the session: never asked there, or no longer kept — past the store's
// retention or, without a store, past ReplayLimit (for Find, once final).
var ErrUnknownAsk = errors.New("askuser: no such ask is known in the session (never asked there, or no longer kept)")

// Find looks up the ask askID of session, wherever it began, for a
// responder that takes an answer for an ask it was not told about here —
// a Slack click or a mail's link that reached another replica, or a
// replica started again after the one that posted the ask went away.
//
// For a pending ask it returns a handle, held here until release is
// called: what the responder reports through it goes through the store,
// with every rule of Asked (each answer checked on arrival, one ending),
// and its AfterEnd functions run when the ask ends on any replica, by any
// ending, if it is still held then. For an ask already final it returns
// its outcome (and a nil handle). release is always to be called, and may
// be called more than once. An ask the store does not hold in session, or
// (without a store) one this process does not hold pending, returns
// ErrUnknownAsk; a store that fails returns its error.
func (s *Sessions) Find(ctx context.Context, session, askID string) (a *Ask, final *Outcome, release func(), err error) {
	release = func() {}
	if s == nil || s.o == nil {
		return nil, nil, release, errors.New("askuser: Sessions is handed out by an Orchestrator; a zero Sessions finds nothing")
	}
	if askID == "" {
		return nil, nil, release, fmt.Errorf("%w: the ask id is empty", ErrUnknownAsk)
	}
	o := s.o
	if o.fl == nil {
		for _, p := range o.pendingAsks(session) {
			if p.id == askID {
				return p, nil, release, nil
			}
		}
		return nil, nil, release, ErrUnknownAsk
	}
	return o.fl.findAsk(ctx, session, askID)
}

// findAsk is Sessions.Find on a shared store: it reads the session's keys
// (one prefix), and holds the ask's entry, with a handle, while the
// responder uses it.
func (fl *fleet) findAsk(ctx context.Context, session, askID string) (*Ask, *Outcome, func(), error) {
	none := func() {}
	es, err := fl.st.List(ctx, sessionPrefix(session))
	if err != nil {
		return nil, nil, none, fmt.Errorf("askuser: reading the session's asks from the pending-ask store failed: %w", err)
	}
	for _, e := range es {
		rec, err := decodeRecord(e.Data)
		if err != nil || rec.Session != session || rec.AskID != askID {
			continue
		}
		if rec.Final != nil {
			return nil, outcomeFromRecord(rec.Final, false), none, nil
		}
		fa := fl.hold(e.Key, rec, e.Revision)
		release := sync.OnceFunc(func() { fl.release(fa) })
		// A change between the read and the hold is read once more.
		fl.reread(ctx, fa)
		fl.mu.Lock()
		if fa.rec.AskID != askID {
			fl.mu.Unlock()
			release()
			return nil, nil, none, ErrUnknownAsk
		}
		if fa.out != nil {
			out := fa.out
			fl.mu.Unlock()
			release()
			return nil, out, none, nil
		}
		h, cur := fa.ask, fa.rec
		if h == nil {
			// deliver reads fa.ask under fl.mu once it has set fa.out: a
			// final result that comes after this reaches the handle.
			if h, err = fl.newAsk(fa, cur); err != nil {
				fl.mu.Unlock()
				release()
				return nil, nil, none, fmt.Errorf("askuser: the ask cannot be shown here: %w", err)
			}
			fa.ask = h
		}
		fl.mu.Unlock()
		h.sync(cur)
		return h, nil, release, nil
	}
	return nil, nil, none, ErrUnknownAsk
}
