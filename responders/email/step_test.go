package email

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// quietCard stands for the card a route's first step shows: it does
// nothing with an ask, and hands the Sessions the orchestrator gives it to
// the email responder, a step's channel, as askuser serve's first
// responder does.
type quietCard struct{ email *Responder }

func (quietCard) Asked(*askuser.Ask) {}
func (quietCard) Respond(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return ctx.Err()
}
func (c quietCard) FollowSessions(s *askuser.Sessions) { c.email.FollowSessions(s) }

func leadRoute(route.Request) (route.Route, bool) {
	return route.Route{Name: "oncall", Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"email"}, People: []string{"lead@example.com"}, After: route.Duration(time.Minute)},
		{Responders: []string{"email:boss@example.com"}, After: route.Duration(time.Minute)},
	}}, true
}

// TestStepMailedOnceAcrossReplicas: the handle a route's step gives the
// email channel is mailed wherever it is told — here on two replicas, as
// when a step's teller died after telling it and another told it again,
// neither the replica that began the ask for one of them — once, to the
// step's person (email with people [lead@example.com]); email:ADDRESS
// mails that address. The link, followed on a third replica that holds
// nothing of the ask, answers through the step's channel, as the mailbox
// it went to: answered_via says email, the principal the lead's mailbox.
func TestStepMailedOnceAcrossReplicas(t *testing.T) {
	m := newMailbox(t, false)
	st, notes := store.NewMemory(0), &store.MemoryNotes{}
	var rs []*Responder
	var os []*askuser.Orchestrator
	for range 3 {
		r := newResponder(t, m, Options{Notes: notes, Logger: quiet})
		o := &askuser.Orchestrator{Responder: quietCard{r}, Asks: st, Logger: quiet, Routes: leadRoute,
			Channels: map[string]askuser.Responder{"email": r}}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); o.WaitResponders() })
		rs, os = append(rs, r), append(os, o)
	}
	if _, err := os[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(deployCall)}); err != nil {
		t.Fatal(err)
	}
	askID := os[0].Pending("s")[0].AskID
	for i, r := range rs[:2] {
		h, _, release, err := r.sessions.Load().Find(context.Background(), "s", askID)
		if err != nil || h == nil {
			t.Fatalf("Find on replica %d: %v", i, err)
		}
		r.Asked(responder.Through(h, "email"))
		if i == 1 {
			r.Asked(h) // not a step's handle, nor where the ask began: not mailed
		}
		t.Cleanup(release)
	}
	raw := m.next(t)
	if !strings.Contains(string(raw), "\r\nTo: lead@example.com\r\n") {
		t.Fatalf("the step's mail:\n%s\nwant it to the step's person, lead@example.com", raw)
	}
	_, text, _ := parts(t, raw)
	links := linkRE.FindAllStringSubmatch(text, -1)
	if len(links) != 2 {
		t.Fatalf("the mail:\n%s\nwant two links", text)
	}
	h, _, release, err := rs[0].sessions.Load().Find(context.Background(), "s", askID)
	if err != nil || h == nil {
		t.Fatalf("Find: %v", err)
	}
	rs[0].Asked(responder.Through(h, "email:boss@example.com"))
	release()
	if raw := m.next(t); !strings.Contains(string(raw), "\r\nTo: boss@example.com\r\n") {
		t.Fatalf("the email:boss@example.com step's mail:\n%s\nwant it to boss@example.com", raw)
	}
	if rec := hit(rs[2], http.MethodPost, links[1][1]); rec.Code != 200 || !strings.Contains(rec.Body.String(), "Your answer was taken: production") {
		t.Fatalf("POST on the third replica: %d %s", rec.Code, rec.Body)
	}
	out, err := os[1].Await(context.Background(), "s", "c")
	if err != nil {
		t.Fatal(err)
	}
	if out.AnsweredBy != askuser.ByUser || out.Principal != "mailto:lead@example.com" || out.AnsweredVia != "email" || out.Answers[0].Selected[0] != "production" {
		t.Fatalf("outcome by %s, principal %q, via %q; want production by mailto:lead@example.com via email", out.AnsweredBy, out.Principal, out.AnsweredVia)
	}
	for _, r := range rs {
		_ = r.Close()
	}
	if n := len(m.got); n != 0 {
		t.Errorf("%d more mails were sent; want one per step", n)
	}
}
