package natsstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/route"
)

// stepTally is a channel a route's step tells: it counts the asks it is
// given.
type stepTally struct {
	mu   sync.Mutex
	asks []*askuser.Ask
}

func (s *stepTally) Asked(a *askuser.Ask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asks = append(s.asks, a)
}
func (s *stepTally) Respond(ctx context.Context, a *askuser.Ask) error {
	s.Asked(a)
	<-ctx.Done()
	return ctx.Err()
}
func (s *stepTally) n() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.asks)
}

// TestFleetRouteStepsOnce: three orchestrators on a three-node JetStream
// cluster, an ask whose route has two later steps, and the replica that
// began it closed before the first of them. Each step is told exactly
// once across the other two (JetStream's timers and a compare-and-set on
// steps_begun), and the deadline still ends the ask with the defaults.
func TestFleetRouteStepsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	r := route.Route{Name: "oncall", Steps: []route.Step{
		{Responders: []string{"card"}},
		{Responders: []string{"slack:#ops"}, After: route.Duration(2 * time.Second)},
		{Responders: []string{"email"}, After: route.Duration(2 * time.Second)},
	}}
	routes := func(route.Request) (route.Route, bool) { return r, true }
	var orch []*askuser.Orchestrator
	var ops, lead []*stepTally
	cards := []*card{}
	for i := range 3 {
		js := c.connect(t, i)
		s := open(t, js, Config{Prefix: "routes", Replicas: 3, Keys: fleetKeys})
		o1, l1, cd := &stepTally{}, &stepTally{}, newCard()
		ops, lead, cards = append(ops, o1), append(lead, l1), append(cards, cd)
		o := &askuser.Orchestrator{Responder: cd, Asks: s.Asks(), Journal: s.Journal(), Secrets: s.Secrets(), Consents: s.Consents(),
			Routes: routes, Channels: map[string]askuser.Responder{"slack:#ops": o1, "email": l1}, Logger: quiet()}
		t.Cleanup(func() { o.Close(); o.WaitResponders() })
		if err := o.Ready(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		cd.follow(t, "s1")
		orch = append(orch, o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := orch[0].Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(call(10))})
		res <- err
	}()
	a := cards[1].wait(t, "")
	if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
		t.Fatal(err)
	}
	orch[0].Close()
	orch[0].WaitResponders()
	if err := <-res; !errors.Is(err, askuser.ErrOrchestratorClosed) {
		t.Fatalf("the closed replica's caller got %v", err)
	}
	out, err := orch[2].Await(ctxFor(t), "s1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != askuser.StatusTimedOut || len(out.Answers) != 2 || out.Answers[0].By != askuser.ByUser || out.Answers[1].By != askuser.ByTimeout || out.Answers[1].Draft {
		t.Errorf("the deadline ended it as %s with %+v; want timed_out with the answer and the defaults", out.Status, out.Answers)
	}
	sum := func(ts []*stepTally) int { return ts[0].n() + ts[1].n() + ts[2].n() }
	if got := [2]int{sum(ops), sum(lead)}; got != [2]int{1, 1} || ops[0].n()+lead[0].n() != 0 {
		t.Errorf("the steps were told %v times (%d on the closed replica); want each once, none there", got, ops[0].n()+lead[0].n())
	}
}
