package askuser

import (
	"context"
	"errors"
)

// A SessionFollower is an EventDriven responder that shows asks by
// session — a web card, whose page for a session may be opened on any
// replica of a fleet. The orchestrator hands it a Sessions at its first
// use, where it is the Responder or one of the Channels; through it the
// responder finds an ask of the fleet (Find) and follows a session while
// it shows that session, and the Responder is told (Asked) about the
// session's asks wherever they began. Without a shared store every ask is told about anyway, and
// following changes nothing.
type SessionFollower interface {
	EventDriven
	FollowSessions(s *Sessions)
}

// Sessions is what a SessionFollower follows sessions through.
type Sessions struct{ o *Orchestrator }

// Follow tells the orchestrator's Responder (Asked) about every pending
// ask of session that it was not told about yet, wherever the ask began,
// before it returns, and about every new one until stop is called. The
// asks it was told about stay its own until they end, whether or not it
// follows their session still. A store that fails returns its error, and stop is still
// to be called.
func (s *Sessions) Follow(ctx context.Context, session string) (stop func(), err error) {
	if s == nil || s.o == nil {
		return func() {}, errors.New("askuser: Sessions is handed out by an Orchestrator; a zero Sessions follows nothing")
	}
	if s.o.fl == nil {
		return func() {}, nil
	}
	return s.o.fl.follow(ctx, session)
}
