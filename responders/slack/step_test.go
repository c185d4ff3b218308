package slack

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
)

// quietCard stands for the card a route's first step shows: it is told of
// an ask and does nothing with it; it hands the Sessions the orchestrator
// gives it to the Slack responder, a step's channel, as askuser serve's
// first responder does.
type quietCard struct{ slack *Responder }

func (quietCard) Asked(*askuser.Ask) {}
func (quietCard) Respond(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return ctx.Err()
}
func (c quietCard) FollowSessions(s *askuser.Sessions) { c.slack.FollowSessions(s) }

// opsRoute is the card first; a minute later Slack's #ops channel and the
// responder's own channel (slack alone); a minute after that #ops again.
func opsRoute(route.Request) (route.Route, bool) {
	return route.Route{Name: "oncall", Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops", "slack"}, After: route.Duration(time.Minute)},
		{Responders: []string{"slack:#ops"}, After: route.Duration(time.Minute)},
	}}, true
}

// stepReplica starts a replica whose Slack responder is only a route's
// step channel: the card is its first responder.
func (fl *fleetOf) stepReplica() (*slackReplica, func()) {
	t := fl.t
	t.Helper()
	r := newResponder(t, fl.f, Options{Notes: fl.notes, Logger: quiet})
	o := &askuser.Orchestrator{Responder: quietCard{r}, Asks: fl.st, Logger: quiet, Routes: opsRoute,
		Channels: map[string]askuser.Responder{"slack": r}}
	if err := o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed := false
	closeIt := func() {
		if !closed {
			closed = true
			_ = o.Close()
			_ = r.Close()
			o.WaitResponders()
		}
	}
	t.Cleanup(closeIt)
	return &slackReplica{o: o, r: r}, closeIt
}

// TestFleetStepPostsOnceToItsChannel: a route's later step is told on a
// replica that did not begin the ask (the one that did is gone), and the
// Slack responder posts the step's handle there — though BeganHere is
// false — once per channel of the step: slack:#ops to #ops, slack alone to
// its own channel; the next step posts to #ops again, once. Telling the
// same step again on a third replica (a teller whose lease ran out) posts
// nothing more. A click on the #ops message, sent to a replica that holds
// nothing of the ask, answers it through the step's channel: the outcome
// says answered via slack:#ops, in step 2 (index 2 of the plan), and every
// message is edited once.
func TestFleetStepPostsOnceToItsChannel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := newFleetOf(t)
		a, closeA := fl.stepReplica()
		b, _ := fl.stepReplica()
		if _, err := a.o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(strings.Replace(deployCall, `"timeout_seconds":120`, `"timeout_seconds":300`, 1))}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if ms := messages(fl.f); len(ms) != 0 {
			t.Fatalf("%d messages before the Slack step began; want none (the card alone)", len(ms))
		}
		closeA() // the replica that began the ask goes away
		time.Sleep(61 * time.Second)
		synctest.Wait()
		ms := messages(fl.f)
		if len(ms) != 2 {
			t.Fatalf("step 1 posted %d messages; want 2 (#ops and C1)", len(ms))
		}
		byChannel := map[string]string{}
		for _, m := range ms {
			byChannel[m.Form.Get("channel")] = askIDOf(t, m)
		}
		ops, own := byChannel["#ops"], byChannel["C1"]
		if ops == "" || own == "" || ops == own {
			t.Fatalf("step 1 posted to %v; want #ops and C1, two messages", byChannel)
		}
		// Another replica tells step 1's #ops channel again: nothing more.
		c, _ := fl.stepReplica()
		h, _, release, err := c.r.sessions.Load().Find(context.Background(), "s", strings.Split(ops, "-")[0])
		if err != nil || h == nil {
			t.Fatalf("Find on C: %v", err)
		}
		c.r.Asked(responder.Through(h, "slack:#ops"))
		c.r.Asked(h) // not a step's handle, and not where the ask began: nothing
		release()
		synctest.Wait()
		if ms := messages(fl.f); len(ms) != 0 {
			t.Fatalf("telling step 1 again posted %d messages; want none", len(ms))
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		ms = messages(fl.f)
		if len(ms) != 1 || ms[0].Form.Get("channel") != "#ops" || askIDOf(t, ms[0]) == ops {
			t.Fatalf("step 2 posted %d messages; want one more to #ops", len(ms))
		}
		ops2 := askIDOf(t, ms[0])
		// A replica that holds nothing of the ask's messages takes the
		// click on the second #ops message.
		d, _ := fl.stepReplica()
		if rec := serve(d.r, signed(click("T1", "U1", actionPick, ops2+"|0|1"), time.Now(), signingSecret)); rec.Code != 200 {
			t.Fatalf("the click: %d %s", rec.Code, rec.Body)
		}
		out, err := b.o.Await(context.Background(), "s", "c")
		if err != nil {
			t.Fatal(err)
		}
		if out.AnsweredBy != askuser.ByUser || out.Answers[0].Selected[0] != "production" || out.AnsweredVia != "slack:#ops" || out.Step == nil || out.Step.Step != 2 {
			t.Fatalf("outcome %s by %s via %q in %+v; want production, by the user via slack:#ops in step 2", out.Status, out.AnsweredBy, out.AnsweredVia, out.Step)
		}
		synctest.Wait()
		if ups := updates(fl.f); len(ups) != 3 {
			t.Errorf("%d messages edited; want the 3 posted, once each", len(ups))
		}
	})
}
