package email

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/store"
)

// TestConformanceFleet runs the conformance suite against email on a
// two-replica fleet. The suite makes an orchestrator of its own, without a
// shared store, so each of its asks is carried onto the fleet: begun on
// replica A (whose responder mails it), ended there when the suite ends
// it, and its result carried back; the suite's person follows the mail's
// links on replica B, which finds the ask through the stores.
func TestConformanceFleet(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder { return newMailPair(t) },
		&respondertest.Options{Person: func(r askuser.Responder) respondertest.Person { return r.(*mailPair) }})
}

// A mailPair is a two-replica fleet behind one EventDriven responder, as
// the suite sees it.
type mailPair struct {
	oA     *askuser.Orchestrator
	person linkFollower // on replica B
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu  sync.Mutex
	ids map[string]*carried // by the suite's ask id
}

// carried is a suite's ask carried onto the fleet: the fleet's ask id,
// once ready is closed (empty when it could not be begun).
type carried struct {
	id    string
	ready chan struct{}
}

// carried returns the entry of the suite's ask id, made on first use (by
// Asked, or by the person, who may come while Asked runs).
func (p *mailPair) carried(suiteID string) *carried {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.ids[suiteID]
	if c == nil {
		c = &carried{ready: make(chan struct{})}
		p.ids[suiteID] = c
	}
	return c
}

// fleetID waits for the fleet's id of the suite's ask a.
func (p *mailPair) fleetID(a *askuser.Ask) (string, error) {
	c := p.carried(a.ID())
	select {
	case <-c.ready:
	case <-time.After(time.Minute):
	}
	if !isClosed(c.ready) || c.id == "" {
		return "", errors.New("the ask was not carried onto the fleet")
	}
	return c.id, nil
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

var (
	_ askuser.EventDriven     = (*mailPair)(nil)
	_ askuser.ApprovalCapable = (*mailPair)(nil)
	_ askuser.Named           = (*mailPair)(nil)
)

func newMailPair(t *testing.T) *mailPair {
	m := newMailbox(t, false)
	st, notes := store.NewMemory(0), &store.MemoryNotes{}
	opts := Options{Notes: notes, Logger: quiet, Authorize: func(req *http.Request) (string, bool) {
		return "person", req.Header.Get("X-Test-Person") == "signed in"
	}}
	var rs []*Responder
	var os []*askuser.Orchestrator
	for range 2 {
		r := newResponder(t, m, opts)
		o := &askuser.Orchestrator{Responder: r, Asks: st, Logger: quiet}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); o.Wait() })
		rs, os = append(rs, r), append(os, o)
	}
	p := &mailPair{oA: os[0], person: linkFollower{r: rs[1], box: &inbox{m: m, mails: map[string][]byte{}}}, ids: map[string]*carried{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { p.cancel(); p.wg.Wait() })
	return p
}

func (p *mailPair) ResponderName() string  { return "email" }
func (p *mailPair) CanTakeApprovals() bool { return true }

func (p *mailPair) Respond(ctx context.Context, a *askuser.Ask) error {
	p.Asked(a)
	<-ctx.Done()
	return nil
}

// Asked begins the suite's ask on replica A, in a session of its own, and
// carries the fleet's outcome back: a person's answer ends the suite's ask
// the same way; its ending ends the fleet's.
func (p *mailPair) Asked(a *askuser.Ask) {
	session := "fleet-" + a.ID()
	req := askuser.Request{Session: session, ToolCallID: "c", Form: a.Form(), AskedAt: a.Form().AskedAt}
	if a.Form().Approval != nil {
		req.Dialect = askuser.RequestApproval()
	}
	c := p.carried(a.ID())
	id, err := p.oA.Begin(p.ctx, req)
	c.id = id
	close(c.ready)
	if err != nil {
		_ = a.Unreachable()
		return
	}
	a.AfterEnd(func() { p.oA.Supersede(session) })
	p.wg.Go(func() {
		out, err := p.oA.Await(p.ctx, session, "c")
		if err != nil || out.AnsweredBy != askuser.ByUser || out.Reason != askuser.ReasonSubmitted {
			return
		}
		a.SetPrincipal(out.Principal)
		for _, ans := range out.Answers {
			if ans.By == askuser.ByUser {
				_ = a.Report(askuser.Answer{QuestionID: ans.QuestionID, Selected: ans.Selected, Other: ans.Other})
			}
		}
		_ = a.Submit()
	})
}

func (p *mailPair) Choose(a *askuser.Ask, question, option int) error {
	if question != 0 {
		return fmt.Errorf("question %d: a mail's links answer the first question only", question)
	}
	id, err := p.fleetID(a)
	if err != nil {
		return err
	}
	return p.person.followID(id, option)
}

func (p *mailPair) Decide(a *askuser.Ask, choice string) error {
	id, err := p.fleetID(a)
	if err != nil {
		return err
	}
	for i, o := range a.Form().Questions[0].Options {
		if o.Value == choice {
			return p.person.followID(id, i)
		}
	}
	return fmt.Errorf("the approval has no option %q", choice)
}
