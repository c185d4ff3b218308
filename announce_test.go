package askuser_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/store"
)

// announcer is a SessionFollower that is told of every ask where it
// began (an Announcer): a card with a Slack channel, as askuser serve runs
// them.
type announcer struct {
	*events
	told chan told
}

type told struct {
	a     *askuser.Ask
	began bool
}

func newAnnouncer() *announcer {
	an := &announcer{events: newEvents(), told: make(chan told, 16)}
	an.onAsked = func(a *askuser.Ask) { an.told <- told{a, responder.BeganHere(a)} }
	return an
}

func (an *announcer) AnnouncesAsks() bool { return true }

// replicas are two orchestrators on one store, each with resp(i).
func replicas(t *testing.T, resp func(i int) askuser.Responder) (*store.Memory, []*askuser.Orchestrator) {
	st := store.NewMemory(0)
	var os []*askuser.Orchestrator
	for i := range 2 {
		o := &askuser.Orchestrator{Responder: resp(i), Asks: st, Logger: newDiscardLogger()}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		os = append(os, o)
	}
	t.Cleanup(func() {
		for _, o := range os {
			_ = o.Close()
			o.WaitResponders()
		}
	})
	return st, os
}

// TestAnnouncerToldWhereBegan: an Announcer is told of an ask on the
// replica that began it, with BeganHere, though no replica follows the
// ask's session; another replica that follows the session is told too,
// without BeganHere. A plain SessionFollower is told only where its
// session is followed.
func TestAnnouncerToldWhereBegan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ans := []*announcer{newAnnouncer(), newAnnouncer()}
		_, os := replicas(t, func(i int) askuser.Responder { return ans[i] })
		id, err := os[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(choiceCall)})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case got := <-ans[0].told:
			if got.a.ID() != id || !got.began {
				t.Errorf("A was told of %s, BeganHere %v; want %s, true", got.a.ID(), got.began, id)
			}
		default:
			t.Fatal("the replica that began the ask did not tell its Announcer")
		}
		if len(ans[1].told) != 0 {
			t.Fatal("B, which follows no session, was told of the ask")
		}
		stop, err := ans[1].sessions.Follow(context.Background(), "s")
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		select {
		case got := <-ans[1].told:
			if got.a.ID() != id || got.began {
				t.Errorf("B was told of %s, BeganHere %v; want %s, false", got.a.ID(), got.began, id)
			}
		default:
			t.Fatal("B follows the session and was not told of its ask")
		}
		if len(ans[0].told) != 0 {
			t.Error("A was told twice")
		}

		// A SessionFollower that is no Announcer: told only where its
		// session is followed.
		plain := []*events{newEvents(), newEvents()}
		_, ps := replicas(t, func(i int) askuser.Responder { return plain[i] })
		if _, err := ps[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(choiceCall)}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if len(plain[0].asked) != 0 {
			t.Error("a SessionFollower that follows nothing was told of an ask")
		}
	})
}

// TestFindOnAnotherReplica: Sessions.Find gives replica B a handle of an
// ask A began, which B was never told of: B's answer through it ends the
// ask for A's caller, and the handle's AfterEnd runs on B; once final,
// Find returns the outcome; an ask of another session, or an unknown id,
// is not found.
func TestFindOnAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ans := []*announcer{newAnnouncer(), newAnnouncer()}
		_, os := replicas(t, func(i int) askuser.Responder { return ans[i] })
		res := make(chan *askuser.Outcome, 1)
		go func() {
			out, err := os[0].Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(choiceCall)})
			if err != nil {
				t.Error(err)
			}
			res <- out
		}()
		onA := (<-ans[0].told).a
		for _, tt := range []struct{ session, id string }{{"other", onA.ID()}, {"s", "no-such-ask"}, {"s", ""}} {
			_, _, release, err := ans[1].sessions.Find(context.Background(), tt.session, tt.id)
			release()
			if !errors.Is(err, askuser.ErrUnknownAsk) {
				t.Errorf("Find(%q, %q): %v; want ErrUnknownAsk", tt.session, tt.id, err)
			}
		}
		a, final, release, err := ans[1].sessions.Find(context.Background(), "s", onA.ID())
		if err != nil || a == nil || final != nil {
			t.Fatalf("Find on B: %v, %v, %v; want a handle", a, final, err)
		}
		if responder.BeganHere(a) {
			t.Error("B's handle says B began the ask")
		}
		endedOnB := make(chan struct{})
		a.AfterEnd(func() { close(endedOnB) })
		answerChoice(t, a)
		release()
		release() // more than once is harmless
		out := <-res
		if string(out.Result) != answeredChoice {
			t.Errorf("A's caller got %s; want %s", out.Result, answeredChoice)
		}
		select {
		case <-endedOnB:
		case <-time.After(time.Minute):
			t.Fatal("the AfterEnd of B's handle did not run")
		}
		_, final, release, err = ans[1].sessions.Find(context.Background(), "s", onA.ID())
		release()
		if err != nil || final == nil || string(final.Result) != answeredChoice {
			t.Errorf("Find of the final ask: %+v, %v; want its outcome", final, err)
		}
	})
}

// TestFindWithoutStore: without a shared store, Find finds the pending
// asks of this orchestrator, and not the ones that ended.
func TestFindWithoutStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		an := newAnnouncer()
		o := &askuser.Orchestrator{Responder: an, Logger: newDiscardLogger()}
		defer o.Close()
		res := make(chan *askuser.Outcome, 1)
		go func() {
			out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(choiceCall)})
			res <- out
		}()
		got := <-an.told
		if !got.began {
			t.Error("BeganHere is false without a store")
		}
		a, _, release, err := an.sessions.Find(context.Background(), "s", got.a.ID())
		release()
		if err != nil || a != got.a {
			t.Fatalf("Find: %v, %v; want the ask's handle", a, err)
		}
		answerChoice(t, a)
		<-res
		o.WaitResponders()
		if _, _, release, err := an.sessions.Find(context.Background(), "s", got.a.ID()); !errors.Is(err, askuser.ErrUnknownAsk) {
			t.Errorf("Find of an ended ask without a store: %v; want ErrUnknownAsk", err)
		} else {
			release()
		}
	})
}

// countingFollower is a SessionFollower that counts the Sessions it is
// handed and keeps the last.
type countingFollower struct {
	*events
	handed int
}

func (f *countingFollower) FollowSessions(s *askuser.Sessions) {
	f.handed++
	f.events.FollowSessions(s)
}

// TestChannelsAreHandedSessions: a SessionFollower among Channels (a Slack
// channel of a route's later step) is handed a Sessions at the
// orchestrator's first use, as the Responder is, and finds through it an
// ask another replica began; a responder that is both the Responder and a
// channel, or two channels, is handed one once.
func TestChannelsAreHandedSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		main, slack := &countingFollower{events: newEvents()}, &countingFollower{events: newEvents()}
		a := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Logger: newDiscardLogger()}
		b := &askuser.Orchestrator{Responder: main, Asks: st, Logger: newDiscardLogger(),
			Channels: map[string]askuser.Responder{"card": main, "slack": slack, "slack:#ops": slack, "plain": askuser.ResponderFunc(func(context.Context, *askuser.Ask) error { return nil })}}
		defer func() {
			for _, o := range []*askuser.Orchestrator{a, b} {
				_ = o.Close()
				o.WaitResponders()
			}
		}()
		id, err := a.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(choiceCall)})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		if main.handed != 1 || slack.handed != 1 {
			t.Fatalf("handed Sessions %d times to the Responder and %d to the Slack channel; want once each", main.handed, slack.handed)
		}
		h, final, release, err := slack.sessions.Find(context.Background(), "s", id)
		defer release()
		if err != nil || h == nil || final != nil || h.ID() != id {
			t.Fatalf("the channel's Find(%s) = %v, %v, %v; want a handle of the ask A began", id, h, final, err)
		}
	})
}
