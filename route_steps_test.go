package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// tally is an EventDriven channel a route's step tells: it counts the
// asks it is given and keeps their handles.
type tally struct {
	mu   sync.Mutex
	asks []*askuser.Ask
}

func (t *tally) Asked(a *askuser.Ask) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.asks = append(t.asks, a)
}
func (t *tally) Respond(ctx context.Context, a *askuser.Ask) error {
	t.Asked(a)
	<-ctx.Done()
	return ctx.Err()
}
func (t *tally) told() []*askuser.Ask {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*askuser.Ask(nil), t.asks...)
}

// escalation is the card first; a minute later the #ops channel on Slack
// too; two minutes after that the lead by email.
var escalation = route.Route{
	Name: "oncall",
	Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops"}, After: route.Duration(time.Minute)},
		{Responders: []string{"email"}, People: []string{"lead@example.com"}, After: route.Duration(2 * time.Minute)},
	},
}

func oncallRoutes(route.Request) (route.Route, bool) { return escalation, true }

// TestRouteStepsInMemory: each later step tells its channel when its
// delay has passed with the ask still open, once, with what was answered
// so far; the deadline still ends the ask with the recommended defaults,
// and the journal says the step it ended in.
func TestRouteStepsInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		card, ops, lead := newBallot(), &tally{}, &tally{}
		j := &approvalJournal{}
		o := &askuser.Orchestrator{Responder: card, Routes: oncallRoutes, Journal: j, Logger: newDiscardLogger(),
			Channels: map[string]askuser.Responder{"slack:#ops": ops, "email": lead}}
		res := make(chan result, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)})
			res <- result{out, err}
		}()
		h := <-card.asks
		if err := h.Report(*pick("env", "staging")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if n := len(ops.told()); n != 0 {
			t.Fatalf("the second step began before its delay: told %d times", n)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		told := ops.told()
		if len(told) != 1 || len(lead.told()) != 0 {
			t.Fatalf("at 61s: #ops told %d times, the lead %d; want 1 and 0", len(told), len(lead.told()))
		}
		if got := told[0].Accepted(); len(got) != 1 || got[0].QuestionID != "env" {
			t.Errorf("the newcomer sees %+v, not what was answered so far", got)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if len(ops.told()) != 1 || len(lead.told()) != 1 {
			t.Fatalf("at 181s: #ops told %d times, the lead %d; want 1 and 1", len(ops.told()), len(lead.told()))
		}
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.out.Status != askuser.StatusTimedOut || len(r.out.Answers) != 2 || r.out.Answers[1].By != askuser.ByTimeout || r.out.Answers[1].Draft {
			t.Errorf("the deadline ended it as %s with %+v; want timed_out with the defaults", r.out.Status, r.out.Answers)
		}
		o.WaitResponders()
		synctest.Wait() // a record follows its final result on a shared store
		recs := j.records()
		if len(recs) != 1 || recs[0].Step == nil || recs[0].Step.Step != 2 {
			t.Fatalf("journal: %+v", recs)
		}
	})
}

// TestRouteStepsOnceAcrossReplicas: three orchestrators on one store; the
// one that began the ask is closed before the second step is due. Each
// later step is told exactly once across the other two (the store's timer
// and a compare-and-set on steps_begun), with what was answered on the
// closed one, and the deadline still ends the ask with the defaults.
func TestRouteStepsOnceAcrossReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		j := &approvalJournal{}
		var orch []*askuser.Orchestrator
		var ops, lead []*tally
		card := newBallot()
		for i := range 3 {
			o1, l1 := &tally{}, &tally{}
			ops, lead = append(ops, o1), append(lead, l1)
			o := &askuser.Orchestrator{Asks: st, Routes: oncallRoutes, Journal: j, Logger: newDiscardLogger(),
				Channels: map[string]askuser.Responder{"slack:#ops": o1, "email": l1}}
			if i == 0 {
				o.Responder = card
			}
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			orch = append(orch, o)
		}
		defer func() {
			for _, o := range orch {
				o.Close()
				o.WaitResponders()
			}
		}()
		res := make(chan result, 1)
		go func() {
			out, err := orch[0].Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)})
			res <- result{out, err}
		}()
		h := <-card.asks
		if err := h.Report(*pick("env", "staging")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		orch[0].Close()
		orch[0].WaitResponders()
		if r := <-res; !errors.Is(r.err, askuser.ErrOrchestratorClosed) {
			t.Fatalf("the closed replica's caller got %v", r.err)
		}
		count := func(ts []*tally) (n int, last *askuser.Ask) {
			for _, t := range ts {
				for _, a := range t.told() {
					n, last = n+1, a
				}
			}
			return n, last
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		n, a := count(ops)
		if n != 1 || len(ops[0].told()) != 0 {
			t.Fatalf("at 61s the second step was told %d times (%d on the closed replica); want once", n, len(ops[0].told()))
		}
		if got := a.Accepted(); len(got) != 1 || got[0].QuestionID != "env" {
			t.Errorf("the newcomer sees %+v, not what was answered so far", got)
		}
		if n, _ := count(lead); n != 0 {
			t.Fatalf("at 61s the third step was told %d times", n)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n, _ := count(lead); n != 1 {
			t.Fatalf("at 181s the third step was told %d times; want once", n)
		}
		if n, _ := count(ops); n != 1 {
			t.Fatalf("at 181s the second step was told %d times; want once", n)
		}
		out, err := orch[1].Await(context.Background(), "s1", "c1")
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != askuser.StatusTimedOut || len(out.Answers) != 2 || out.Answers[0].By != askuser.ByUser || out.Answers[1].By != askuser.ByTimeout || out.Answers[1].Draft {
			t.Errorf("the deadline ended it as %s with %+v; want timed_out with the answer and the defaults", out.Status, out.Answers)
		}
		synctest.Wait()
		if recs := j.records(); len(recs) != 1 || recs[0].Step == nil || recs[0].Step.Step != 2 {
			t.Errorf("journal: %d records, %+v", len(recs), recs)
		}
	})
}

// approvingTally is a tally that takes approvals.
type approvingTally struct{ *tally }

func (approvingTally) CanTakeApprovals() bool { return true }

// TestVoteViaIsTheStepsChannel: a vote cast through a responder a
// route's step reached says via the step's channel as the route names it
// ("slack:#ops", found under its kind "slack"), not the ask's first
// responder; a vote on the first responder says its name. In memory and
// on a store shared by two replicas (the step told on either).
func TestVoteViaIsTheStepsChannel(t *testing.T) {
	r := route.Route{Name: "prod", Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops"}, After: route.Duration(30 * time.Second)},
	}, Quorum: &route.Quorum{Required: 2, Eligible: []route.Approver{{Principal: "alice"}, {Principal: "bob"}}}}
	routes := func(route.Request) (route.Route, bool) { return r, true }
	for _, shared := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "store"}[shared], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var st *store.Memory
				if shared {
					st = store.NewMemory(0)
				}
				card := newBallot()
				j := &approvalJournal{}
				var orch []*askuser.Orchestrator
				var slack []*tally
				for i := range map[bool]int{false: 1, true: 2}[shared] {
					s := &tally{}
					o := &askuser.Orchestrator{Routes: routes, Journal: j, Logger: newDiscardLogger(),
						Channels: map[string]askuser.Responder{"slack": approvingTally{s}}}
					if i == 0 {
						o.Responder = card
					}
					if shared {
						o.Asks = st
						if err := o.Ready(context.Background()); err != nil {
							t.Fatal(err)
						}
					}
					orch, slack = append(orch, o), append(slack, s)
				}
				defer func() {
					for _, o := range orch {
						o.Close()
						o.WaitResponders()
					}
				}()
				res := make(chan result, 1)
				go func() {
					out, err := orch[0].Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall)})
					res <- result{out, err}
				}()
				cast(t, <-card.asks, vote{"alice", approval.ApproveOnce})
				time.Sleep(31 * time.Second)
				synctest.Wait()
				var told []*askuser.Ask
				for _, s := range slack {
					told = append(told, s.told()...)
				}
				if len(told) != 1 {
					t.Fatalf("the second step was told %d times; want once", len(told))
				}
				cast(t, told[0], vote{"bob", approval.ApproveOnce})
				out := <-res
				if out.err != nil {
					t.Fatal(out.err)
				}
				var rr quorumResult
				if err := json.Unmarshal(out.out.Result, &rr); err != nil {
					t.Fatal(err)
				}
				if rr.Status != approval.Approved || len(rr.Votes) != 2 || rr.Votes[0].Via != "card" || rr.Votes[1].Via != "slack:#ops" {
					t.Fatalf("result %s; want approved, alice via card, bob via slack:#ops", out.out.Result)
				}
				for _, o := range orch {
					o.WaitResponders()
				}
				synctest.Wait()
				if recs := j.records(); len(recs) != 1 || recs[0].AnsweredVia != "slack:#ops" {
					t.Errorf("journal: %d records; want one answered via slack:#ops", len(recs))
				}
			})
		})
	}
}

// TestQuestionAnsweredViaTheStepsChannel: a question's later step gives
// its channel a handle of its own, which says which step and channel told
// it (Told); an answer submitted through it — or through Through, as a
// responder that found the ask on another replica answers — says so:
// answered_via is the step's channel as the route names it, in the
// outcome and the journal, in memory and on a store shared by two
// replicas (the answer taken on whichever the store's timer reached).
func TestQuestionAnsweredViaTheStepsChannel(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "memory", true: "store"}[shared]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				j := &approvalJournal{}
				card := newBallot()
				var st store.Pending
				if shared {
					st = store.NewMemory(0)
				}
				ops, other := &tally{}, &tally{}
				o := &askuser.Orchestrator{Responder: card, Routes: oncallRoutes, Journal: j, Logger: newDiscardLogger(), Asks: st,
					Channels: map[string]askuser.Responder{"slack:#ops": ops, "email": &tally{}}}
				defer func() { o.Close(); o.WaitResponders() }()
				second := o
				if shared {
					// Whichever replica the store's timer reaches tells
					// the step.
					second = &askuser.Orchestrator{Routes: oncallRoutes, Journal: j, Logger: newDiscardLogger(), Asks: st,
						Channels: map[string]askuser.Responder{"slack:#ops": other, "email": &tally{}}}
					defer func() { second.Close(); second.WaitResponders() }()
					for _, x := range []*askuser.Orchestrator{o, second} {
						if err := x.Ready(context.Background()); err != nil {
							t.Fatal(err)
						}
					}
				}
				res := make(chan result, 1)
				go func() {
					out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)})
					res <- result{out, err}
				}()
				h := <-card.asks
				if _, ok := responder.Told(h); ok {
					t.Error("the first responder's handle says a step told it")
				}
				time.Sleep(61 * time.Second)
				synctest.Wait()
				told := append(ops.told(), other.told()...)
				if len(told) != 1 {
					t.Fatalf("#ops was told %d times; want once", len(told))
				}
				st1, ok := responder.Told(told[0])
				if !ok || st1.Channel != "slack:#ops" || st1.Begin.Step != 1 || st1.Begin.Pass != 0 {
					t.Fatalf("the step's handle says %+v, %v; want slack:#ops, step 1 of pass 0", st1, ok)
				}
				if tt, ok := responder.Told(responder.Through(h, "slack:#ops")); !ok || tt.Begin.Step != 1 {
					t.Errorf("Through(slack:#ops) says %+v, %v; want step 1", tt, ok)
				}
				if r, ok := responder.Route(h); !ok || r.Name != "oncall" || len(r.Steps) != 3 {
					t.Errorf("Route() = %+v, %v; want the oncall route's 3 steps", r, ok)
				} else {
					r.Steps[1].Responders[0] = "changed"
					if again, _ := responder.Route(h); again.Steps[1].Responders[0] != "slack:#ops" {
						t.Error("changing what Route returned changed the ask's route")
					}
				}
				if responder.Through(h, "webhook:none") != h {
					t.Error("Through a channel the route does not name gave another handle")
				}
				a := told[0]
				a.SetPrincipal("alice")
				for _, ans := range []*askuser.Answer{pick("env", "staging"), pick("region", "eu")} {
					if err := a.Report(*ans); err != nil {
						t.Fatal(err)
					}
				}
				if err := a.Submit(); err != nil {
					t.Fatal(err)
				}
				r := <-res
				if r.err != nil {
					t.Fatal(r.err)
				}
				if r.out.Status != askuser.StatusAnswered || r.out.AnsweredVia != "slack:#ops" || r.out.Step == nil || r.out.Step.Step != 1 {
					t.Errorf("the outcome: %s via %q, step %+v; want answered via slack:#ops in step 1", r.out.Status, r.out.AnsweredVia, r.out.Step)
				}
				o.WaitResponders()
				second.WaitResponders()
				synctest.Wait()
				recs := j.records()
				if len(recs) != 1 || recs[0].AnsweredVia != "slack:#ops" || recs[0].Step == nil || recs[0].Step.Step != 1 {
					t.Fatalf("journal: %+v", recs)
				}
			})
		})
	}
}
