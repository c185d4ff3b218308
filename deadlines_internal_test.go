package askuser

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// heldAsks is an EventDriven responder that keeps every ask it is told of.
type heldAsks struct {
	mu   sync.Mutex
	asks map[string]*Ask // by session
}

func (r *heldAsks) Asked(a *Ask) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks[a.Session()] = a
}

func (r *heldAsks) Respond(ctx context.Context, a *Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

func (r *heldAsks) get(session string) *Ask {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asks[session]
}

// TestDeadlinesOneTimer: the pending asks of an EventDriven responder
// share one timer. Each ends at its own deadline, to the instant, in
// deadline order whatever the order they were asked in, several at one
// instant together; an ask ended before its deadline leaves the heap at
// once, and the heap is empty when every ask is over.
func TestDeadlinesOneTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &heldAsks{asks: map[string]*Ask{}}
		o := &Orchestrator{Responder: r}
		timeouts := map[string]int{"a": 40, "b": 10, "c": 30, "d": 10, "e": 20}
		type ended struct {
			session string
			after   time.Duration
			reason  Reason
		}
		got := make(chan ended, len(timeouts))
		start := time.Now()
		for s, secs := range timeouts {
			go func() {
				f := &Form{TimeoutSeconds: secs, Questions: []Question{{ID: "q", Header: "Q", Text: "Which?", Options: []Option{{Label: "x", Default: true}, {Label: "y"}}}}}
				out, err := o.Handle(context.Background(), Request{Session: s, Form: f})
				if err != nil {
					t.Errorf("%s: %v", s, err)
					return
				}
				got <- ended{s, time.Since(start), out.Reason}
			}()
		}
		synctest.Wait()
		if n := o.heapLen(); n != len(timeouts) {
			t.Fatalf("%d asks in the heap; want %d", n, len(timeouts))
		}
		time.Sleep(5 * time.Second)
		c := r.get("c")
		if err := c.Report(Answer{QuestionID: "q", Selected: []string{"y"}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Submit(); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := o.heapLen(); n != len(timeouts)-1 {
			t.Fatalf("after c was submitted, %d asks in the heap; want %d", n, len(timeouts)-1)
		}
		want := []ended{
			{"c", 5 * time.Second, ReasonSubmitted},
			{"b", 10 * time.Second, ReasonDeadline}, {"d", 10 * time.Second, ReasonDeadline},
			{"e", 20 * time.Second, ReasonDeadline},
			{"a", 40 * time.Second, ReasonDeadline},
		}
		var order []ended
		for range timeouts {
			order = append(order, <-got)
		}
		if order[1].session == "d" { // b and d end at one instant, in either order
			order[1], order[2] = order[2], order[1]
		}
		for i := range want {
			if order[i] != want[i] {
				t.Errorf("ending %d: %+v; want %+v", i+1, order[i], want[i])
			}
		}
		o.WaitResponders()
		if n := o.heapLen(); n != 0 {
			t.Errorf("%d asks left in the heap after every ask ended", n)
		}
	})
}

func (o *Orchestrator) heapLen() int {
	o.deadlines.mu.Lock()
	defer o.deadlines.mu.Unlock()
	return len(o.deadlines.h)
}
