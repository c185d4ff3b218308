package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/store"
)

// TestConformanceFleet runs the conformance suite against Slack on a
// two-replica fleet. The suite makes an orchestrator of its own, without a
// shared store, so each of its asks is carried onto the fleet: begun on
// replica A (whose responder posts it), ended there when the suite ends
// it, and its result carried back; the suite's person clicks on replica
// B's endpoint, which finds the ask through the stores.
//
// The person answers secrets as on one replica, across the two: the card
// button clicked on A gets a one-time link from A's card, which the
// browser opens on B's card (the cards share their notes and CSRF key, and
// B's holds no ask until the link's note names it and B follows its
// session), so that every case runs but approval-not-taken (for a
// responder that takes none).
func TestConformanceFleet(t *testing.T) {
	skipped := respondertest.Run(t, func(t *testing.T) askuser.Responder { return newPair(t) },
		&respondertest.Options{Synctest: true, Person: func(r askuser.Responder) respondertest.Person { return r.(*pair) }})
	if _, ok := skipped["approval-not-taken"]; !ok {
		t.Error("approval-not-taken ran; want it skipped, as the pair takes approvals")
	}
	delete(skipped, "approval-not-taken")
	if len(skipped) != 0 {
		t.Errorf("cases skipped on the fleet: %v; want every case to run but approval-not-taken", skipped)
	}
}

// cardFollower is a replica's responder, as askuser serve's: its Slack
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

// A pair is a two-replica fleet behind one EventDriven responder, as the
// suite sees it.
type pair struct {
	fl     *fleetOf
	a, b   *slackReplica
	cardB  *web.Responder // replica B's card
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
func (p *pair) carried(suiteID string) *carried {
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
func (p *pair) fleetID(a *askuser.Ask) (string, error) {
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
	_ askuser.EventDriven     = (*pair)(nil)
	_ askuser.ApprovalCapable = (*pair)(nil)
	_ askuser.Named           = (*pair)(nil)
)

// pairCSRFKey is the CSRF key the pair's cards share.
var pairCSRFKey = []byte("the pair's cards' CSRF key, 32 bytes or more")

// pairReplica is a replica of the pair: fleetOf.replica's, with a card on
// notes of its own kind shared by the pair, which makes the Slack
// responder's one-time links.
func pairReplica(fl *fleetOf, cardNotes store.Notes) (*slackReplica, *web.Responder) {
	t := fl.t
	card := web.New(&web.Options{Logger: quietLog, CSRFKey: pairCSRFKey, Notes: cardNotes, Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	r := newResponder(t, fl.f, Options{Notes: fl.notes, Logger: quiet, SecretLink: card.OneTimeLinks(cardBase, 0)})
	o := &askuser.Orchestrator{Responder: cardFollower{r, card}, Asks: fl.st, Logger: quiet}
	if err := o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(); _ = r.Close(); _ = card.Close(); o.WaitResponders() })
	return &slackReplica{o: o, r: r}, card
}

func newPair(t *testing.T) *pair {
	fl := newFleetOf(t)
	p := &pair{fl: fl, ids: map[string]*carried{}}
	cardNotes := &store.MemoryNotes{}
	p.a, _ = pairReplica(fl, cardNotes)
	p.b, p.cardB = pairReplica(fl, cardNotes)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	t.Cleanup(func() { p.cancel(); p.wg.Wait() }) // before the replicas close
	return p
}

func (p *pair) ResponderName() string  { return "slack" }
func (p *pair) CanTakeApprovals() bool { return true }

func (p *pair) Respond(ctx context.Context, a *askuser.Ask) error {
	p.Asked(a)
	<-ctx.Done()
	return nil
}

// Asked begins the suite's ask on replica A, in a session of its own, and
// carries the fleet's outcome back: a person's answer or decline ends the
// suite's ask the same way; its ending ends the fleet's.
func (p *pair) Asked(a *askuser.Ask) {
	session := "fleet-" + a.ID()
	req := askuser.Request{Session: session, ToolCallID: "c", Form: a.Form(), AskedAt: a.Form().AskedAt}
	if a.Form().Approval != nil {
		req.Dialect = approvaltool.Dialect()
	}
	c := p.carried(a.ID())
	id, err := p.a.o.Begin(p.ctx, req)
	c.id = id
	close(c.ready)
	if err != nil {
		_ = a.Unreachable()
		return
	}
	a.AfterEnd(func() { p.a.o.Supersede(session) })
	p.wg.Go(func() {
		out, err := p.a.o.Await(p.ctx, session, "c")
		if err != nil || out.AnsweredBy != askuser.ByUser {
			return
		}
		if c.filled.Load() {
			return
		}
		a.SetPrincipal(out.Principal)
		switch out.Reason {
		case askuser.ReasonSubmitted:
			for _, ans := range out.Answers {
				if ans.By == askuser.ByUser {
					_ = a.Report(askuser.Answer{QuestionID: ans.QuestionID, Selected: ans.Selected, Other: ans.Other})
				}
			}
			_ = a.Submit()
		case askuser.ReasonDeclined:
			_ = a.Decline()
		}
	})
}

// click is the person's signed click, by the allowed user, posted to
// replica B, which did not post the ask.
func (p *pair) click(a *askuser.Ask, actionID, rest string) error {
	id, err := p.fleetID(a)
	if err != nil {
		return err
	}
	rec := serve(p.b.r, signed(click(slacktest.Team, "U1", actionID, id+sep+rest), time.Now(), signingSecret))
	if rec.Code != http.StatusOK {
		return fmt.Errorf("B's endpoint answered %d %s", rec.Code, rec.Body)
	}
	return nil
}

func (p *pair) Choose(a *askuser.Ask, question, option int) error {
	return p.click(a, actionPick, strconv.Itoa(question)+sep+strconv.Itoa(option))
}

func (p *pair) Decide(a *askuser.Ask, choice string) error {
	return p.click(a, actionApprove, choice)
}

// Fill clicks the card button on A, whose card makes the one-time link,
// opens the link on B's card and answers there; once the fleet's ask has
// ended submitted, it gives the suite's ask the same answers.
func (p *pair) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	id, err := p.fleetID(a)
	if err != nil {
		return err
	}
	p.carried(a.ID()).filled.Store(true)
	link, err := oneTimeLinkFor(p.fl.f, p.a.r, "U1", id)
	if err != nil {
		return err
	}
	b := &browser{card: p.cardB}
	if err := b.open(link); err != nil {
		return err
	}
	if err := b.answerID(id, "fleet-"+a.ID(), answers); err != nil {
		return err
	}
	out, err := p.a.o.Await(p.ctx, "fleet-"+a.ID(), "c")
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
