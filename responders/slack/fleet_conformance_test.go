package slack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

// TestConformanceFleet runs the conformance suite against Slack on a
// two-replica fleet. The suite makes an orchestrator of its own, without a
// shared store, so each of its asks is carried onto the fleet: begun on
// replica A (whose responder posts it), ended there when the suite ends
// it, and its result carried back; the suite's person clicks on replica
// B's endpoint, which finds the ask through the stores.
func TestConformanceFleet(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder { return newPair(t) },
		&respondertest.Options{Synctest: true, Person: func(r askuser.Responder) respondertest.Person { return r.(*pair) }})
}

// A pair is a two-replica fleet behind one EventDriven responder, as the
// suite sees it.
type pair struct {
	fl     *fleetOf
	a, b   *slackReplica
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

func newPair(t *testing.T) *pair {
	fl := newFleetOf(t)
	p := &pair{fl: fl, ids: map[string]*carried{}}
	p.a, _ = fl.replica(Options{})
	p.b, _ = fl.replica(Options{})
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
		req.Dialect = askuser.RequestApproval()
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
