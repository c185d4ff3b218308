package email

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// TestConformanceFleet runs the conformance suite against email on a
// two-replica fleet. The suite makes an orchestrator of its own, without a
// shared store, so each of its asks is carried onto the fleet: begun on
// replica A (whose responder mails it), ended there when the suite ends
// it, and its result carried back; the suite's person follows the mail's
// links on replica B, which finds the ask through the stores.
//
// The person answers secrets across the two replicas: the mail A sent
// carries a one-time link from A's card, which the browser opens on B's
// card (the cards share their notes and CSRF key; B's holds the ask only
// once the link's note names it and B follows its session), so that every
// case runs but approval-not-taken (for a responder that takes none).
func TestConformanceFleet(t *testing.T) {
	skipped := respondertest.Run(t, func(t *testing.T) askuser.Responder { return newMailPair(t) },
		&respondertest.Options{Person: func(r askuser.Responder) respondertest.Person { return r.(*mailPair) }})
	if _, ok := skipped["approval-not-taken"]; !ok {
		t.Error("approval-not-taken ran; want it skipped, as the pair takes approvals")
	}
	delete(skipped, "approval-not-taken")
	if len(skipped) != 0 {
		t.Errorf("cases skipped on the fleet: %v; want every case to run but approval-not-taken", skipped)
	}
}

// cardFollower is a replica's responder, as askuser serve's: its email
// responder and its card, each told of the asks (the card of all but
// approvals, which it does not take), the card following sessions through
// the replica.
type cardFollower struct {
	*Responder
	card *web.Responder
}

func (c cardFollower) Asked(a *askuser.Ask) {
	if a.Form().Approval == nil {
		c.card.Asked(a)
	}
	c.Responder.Asked(a)
}

func (c cardFollower) FollowSessions(s *askuser.Sessions) {
	c.Responder.FollowSessions(s)
	c.card.FollowSessions(s)
}

func (c cardFollower) Unwrap() askuser.Responder { return c.Responder }

// pairCSRFKey is the CSRF key the pair's cards share.
var pairCSRFKey = []byte("the pair's cards' CSRF key, 32 bytes or more")

// A mailPair is a two-replica fleet behind one EventDriven responder, as
// the suite sees it.
type mailPair struct {
	oA     *askuser.Orchestrator
	cardB  *web.Responder // replica B's card
	person linkFollower   // on replica B
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu  sync.Mutex
	ids map[string]*carried // by the suite's ask id
}

// carried is a suite's ask carried onto the fleet: the fleet's ask id,
// once ready is closed (empty when it could not be begun).
type carried struct {
	id     string
	ready  chan struct{}
	filled atomic.Bool // the person answers on the card: Fill carries the answers back
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
	cardNotes, secrets := &store.MemoryNotes{}, secretstore.NewMemory(nil)
	var rs []*Responder
	var os []*askuser.Orchestrator
	var cards []*web.Responder
	for range 2 {
		card := web.New(&web.Options{Logger: quiet, CSRFKey: pairCSRFKey, Notes: cardNotes, Authorize: func(*http.Request, string) (string, error) {
			return "", errors.New("only a one-time link admits here")
		}})
		opts.SecretLink = card.OneTimeLinks(cardBase, 0)
		r := newResponder(t, m, opts)
		o := &askuser.Orchestrator{Responder: cardFollower{r, card}, Asks: st, Logger: quiet, Secrets: secrets}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(); _ = card.Close(); o.WaitResponders() })
		rs, os, cards = append(rs, r), append(os, o), append(cards, card)
	}
	p := &mailPair{oA: os[0], cardB: cards[1], person: linkFollower{r: rs[1], box: &inbox{m: m, mails: map[string][]byte{}}}, ids: map[string]*carried{}}
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
		req.Dialect = approvaltool.Dialect()
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
		if err != nil || out.AnsweredBy != askuser.ByUser || out.Reason != askuser.ReasonSubmitted || c.filled.Load() {
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

// Fill opens the one-time link of the mail A sent on B's card and answers
// there; once the fleet's ask has ended submitted, it gives the suite's
// ask the same answers.
func (p *mailPair) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	id, err := p.fleetID(a)
	if err != nil {
		return err
	}
	p.carried(a.ID()).filled.Store(true)
	raw, err := p.person.box.mail(id)
	if err != nil {
		return err
	}
	text, err := textPart(raw)
	if err != nil {
		return err
	}
	m := onceRE.FindSubmatch(text)
	if m == nil {
		return fmt.Errorf("the mail has no one-time link to the card:\n%s", text)
	}
	b := &browser{card: p.cardB}
	if err := b.open(string(m[1])); err != nil {
		return err
	}
	session := "fleet-" + a.ID()
	if err := b.answerID(id, session, answers); err != nil {
		return err
	}
	out, err := p.oA.Await(p.ctx, session, "c")
	if err != nil {
		return err
	}
	if out.Reason != askuser.ReasonSubmitted || out.AnsweredBy != askuser.ByUser {
		return fmt.Errorf("the fleet's ask ended %s by %s; want submitted by the user", out.Reason, out.AnsweredBy)
	}
	a.SetPrincipal(out.Principal)
	for _, ans := range answers {
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
}
