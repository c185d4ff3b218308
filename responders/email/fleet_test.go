package email

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestFleetLinkOnOtherReplica: two replicas with the same key, pending-ask
// store and notes; an ask begun on A is mailed once; its link, followed on
// B as a scanner does (GET), decides nothing, and as the person does
// (POST) decides for A's caller; the used link replayed to A, and to B,
// changes nothing.
func TestFleetLinkOnOtherReplica(t *testing.T) {
	m := newMailbox(t, false)
	st, notes := store.NewMemory(0), &store.MemoryNotes{}
	var rs []*Responder
	var os []*askuser.Orchestrator
	for range 2 {
		r := newResponder(t, m, Options{Notes: notes, Logger: quiet})
		o := &askuser.Orchestrator{Responder: r, Asks: st, Logger: quiet}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); o.WaitResponders() })
		rs, os = append(rs, r), append(os, o)
	}
	a, b := rs[0], rs[1]
	if _, err := os[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(deployCall)}); err != nil {
		t.Fatal(err)
	}
	_, text, _ := parts(t, m.next(t))
	links := linkRE.FindAllStringSubmatch(text, -1)
	if len(links) != 2 {
		t.Fatalf("the mail:\n%s\nwant two links", text)
	}
	production := links[1][1]
	if rec := hit(b, http.MethodGet, production); rec.Code != 200 || !strings.Contains(rec.Body.String(), "Your answer: <b>production</b>") {
		t.Fatalf("GET on B: %d %s; want the confirm page", rec.Code, rec.Body)
	}
	if p := os[1].Pending("s"); len(p) != 1 {
		t.Fatalf("after a GET on B, pending %+v; want the ask still pending", p)
	}
	if rec := hit(b, http.MethodPost, production); rec.Code != 200 || !strings.Contains(rec.Body.String(), "Your answer was taken: production") {
		t.Fatalf("POST on B: %d %s", rec.Code, rec.Body)
	}
	out, err := os[0].Await(context.Background(), "s", "c")
	if err != nil {
		t.Fatal(err)
	}
	if out.AnsweredBy != askuser.ByUser || out.Principal != "mailto:oncall@example.test" || out.Answers[0].Selected[0] != "production" {
		t.Fatalf("A's caller got %+v; want production by the mailbox", out)
	}
	for name, r := range map[string]*Responder{"A": a, "B": b} {
		if rec := hit(r, http.MethodPost, production); rec.Code != http.StatusConflict || !strings.Contains(rec.Body.String(), "This link was used") {
			t.Errorf("the used link replayed to %s: %d %s; want it refused as used", name, rec.Code, rec.Body)
		}
	}
	// Once both have stopped (every mail sent), one mail was sent.
	_ = a.Close()
	_ = b.Close()
	if n := len(m.got); n != 0 {
		t.Errorf("%d more mails were sent for the ask; want one in all", n)
	}
}

// TestFleetLinkRace: the same link posted to both replicas at once
// decides once.
func TestFleetLinkRace(t *testing.T) {
	m := newMailbox(t, false)
	st, notes := store.NewMemory(0), &store.MemoryNotes{}
	var rs []*Responder
	var os []*askuser.Orchestrator
	for range 2 {
		r := newResponder(t, m, Options{Notes: notes, Logger: quiet})
		o := &askuser.Orchestrator{Responder: r, Asks: st, Logger: quiet}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); o.WaitResponders() })
		rs, os = append(rs, r), append(os, o)
	}
	if _, err := os[0].Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(deployCall)}); err != nil {
		t.Fatal(err)
	}
	_, text, _ := parts(t, m.next(t))
	l := linkRE.FindAllStringSubmatch(text, -1)[0][1]
	codes := make(chan int, 2)
	for _, r := range rs {
		go func() { codes <- hit(r, http.MethodPost, l).Code }()
	}
	got := []int{<-codes, <-codes}
	if !(got[0] == 200 && got[1] == http.StatusConflict || got[0] == http.StatusConflict && got[1] == 200) {
		t.Errorf("codes %v; want one 200 and one 409", got)
	}
}
