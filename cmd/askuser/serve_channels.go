package main

import (
	"context"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
)

// serveResponders gives serve's orchestrator its first responder and the
// channels a route's later steps tell. Without --routes the first
// responder is the card followed by Slack and email (every ask on each).
// With --routes, an ask that takes a route begins on the card and on the
// channels its first step names; the card, Slack and email are
// registered as channels (Orchestrator.Channels: "card", "slack",
// "email", beside the --step-webhook ones), so that a later step that
// names slack:#ops posts to #ops, and one that names email mails, when
// its delay has passed — on whichever replica the step's timer reaches.
// An ask no rule routes is shown as without --routes.
func serveResponders(card askuser.Responder, ch *chat, routed bool, channels map[string]askuser.Responder) (askuser.Responder, map[string]askuser.Responder) {
	if !routed {
		return ch.responder(card), channels
	}
	out := map[string]askuser.Responder{"card": card}
	for name, r := range channels {
		out[name] = r
	}
	var rest []askuser.Responder
	if ch != nil && ch.slack != nil {
		out["slack"] = ch.slack
		rest = append(rest, ch.slack)
	}
	if ch != nil && ch.email != nil {
		out["email"] = ch.email
		rest = append(rest, ch.email)
	}
	return &routedFirst{all: &fanout{first: card, rest: rest}, channels: out}, out
}

// routedFirst is serve's first responder under --routes: for an ask that
// takes a route, the card and the channels the route's first step names
// (other than the card; each through a handle of its own, told once where
// the ask began); for any other, the card with Slack and email, as
// without --routes. It follows sessions, finds asks and answers for
// secrets as the fan-out does, so that Slack and email — which it
// follows sessions for — take a click or a link for a step's message on
// any replica.
type routedFirst struct {
	all      *fanout
	channels map[string]askuser.Responder
}

var (
	_ askuser.EventDriven     = (*routedFirst)(nil)
	_ askuser.Announcer       = (*routedFirst)(nil)
	_ askuser.ApprovalCapable = (*routedFirst)(nil)
	_ askuser.SecretCapable   = (*routedFirst)(nil)
)

// Asked shows the ask on the card, and on the first step's channels or,
// for an ask without a route, on Slack and email.
func (f *routedFirst) Asked(a *askuser.Ask) {
	r, ok := responder.Route(a)
	if !ok {
		f.all.Asked(a)
		return
	}
	if ev, ok := responder.Optional[askuser.EventDriven](f.all.first); ok {
		ev.Asked(a)
	}
	if !responder.BeganHere(a) || len(r.Steps) == 0 {
		return // the first step's channels are told once, where the ask began
	}
	for _, name := range r.Steps[0].Responders {
		c, ok := f.channel(name)
		if !ok || c == f.all.first {
			continue
		}
		if a.Form().Approval != nil {
			if ac, ok := responder.Optional[askuser.ApprovalCapable](c); !ok || !ac.CanTakeApprovals() {
				continue
			}
		}
		if ev, ok := responder.Optional[askuser.EventDriven](c); ok {
			ev.Asked(responder.Through(a, name))
		}
	}
}

// channel finds the responder of a step's channel name: under the whole
// name, else under its kind, as the orchestrator finds it.
func (f *routedFirst) channel(name string) (askuser.Responder, bool) {
	if r, ok := f.channels[name]; ok {
		return r, true
	}
	if c, err := route.ParseChannel(name); err == nil {
		r, ok := f.channels[c.Kind]
		return r, ok
	}
	return nil, false
}

// Respond shows the ask as Asked does, until ctx ends.
func (f *routedFirst) Respond(ctx context.Context, a *askuser.Ask) error {
	f.Asked(a)
	<-ctx.Done()
	return nil
}

// FollowSessions hands s to the card, Slack and email.
func (f *routedFirst) FollowSessions(s *askuser.Sessions) { f.all.FollowSessions(s) }

// AnnouncesAsks reports true when Slack or email runs: a first step that
// names them is told where the ask began.
func (f *routedFirst) AnnouncesAsks() bool { return f.all.AnnouncesAsks() }

// CanTakeApprovals reports whether the card, Slack or email takes them.
func (f *routedFirst) CanTakeApprovals() bool { return f.all.CanTakeApprovals() }

// CanCollectSecrets reports whether the card collects secrets.
func (f *routedFirst) CanCollectSecrets() bool { return f.all.CanCollectSecrets() }

// ResponderName names the card and the channels it may tell.
func (f *routedFirst) ResponderName() string { return f.all.ResponderName() }
