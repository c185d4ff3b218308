package askuser_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// traceKey stands for a trace context: a value the caller's context
// carries, which the Observer must see at the beginning and at the end.
type traceKey struct{}

// observed is what a test Observer saw: one line per event.
type observed struct {
	mu  sync.Mutex
	evs []string
}

// hooks returns an Observer that writes what it is told to s.
func (s *observed) hooks() *askuser.Observer {
	return &askuser.Observer{
		Began: func(ctx context.Context, ask askuser.PendingAsk) {
			line := "began " + ask.Session + "/" + ask.ToolCallID + traceOf(ctx)
			if ask.Form == nil || ask.AskID == "" || ask.Form.AskedAt.IsZero() || ask.Answered != nil {
				line += " (no stamped form or ask id, or answers already)"
			}
			s.add(line)
		},
		Ended: func(ctx context.Context, out *askuser.Outcome) {
			s.add("ended " + out.Session + "/" + out.ToolCallID + traceOf(ctx) + " " + string(out.Status) + "/" + string(out.AnsweredBy))
		},
		Journaled: func(ctx context.Context, rec store.Record, retry bool, err error) {
			line := "journaled " + rec.Session + "/" + rec.ToolCallID + traceOf(ctx)
			if retry {
				line += " retry"
			}
			if err != nil {
				line += " failed"
			}
			s.add(line)
		},
	}
}

// traceOf renders the trace value ctx carries, if any.
func traceOf(ctx context.Context) string {
	if v, _ := ctx.Value(traceKey{}).(string); v != "" {
		return " trace=" + v
	}
	return ""
}

func (s *observed) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, line)
}

func (s *observed) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.evs...)
}

// TestObserverInMemory: an ask answered in this process's memory is
// reported as began, journaled (a failed try, then the outbox's retry) and
// ended, with the caller's context values at each step; a replay of its
// tool call is reported as nothing.
func TestObserverInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &observed{}
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r, Journal: &downJournal{fails: 1}, Observer: obs.hooks(), Logger: newDiscardLogger()}
		defer o.Close()
		ctx := context.WithValue(context.Background(), traceKey{}, "t1")
		res := make(chan *askuser.Outcome, 1)
		go func() {
			out, _ := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)})
			res <- out
		}()
		answerChoice(t, <-r.asked)
		<-res
		time.Sleep(time.Second) // the outbox tries again
		synctest.Wait()
		if _, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)}); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"began s1/c1 trace=t1",
			"journaled s1/c1 trace=t1 failed",
			"ended s1/c1 trace=t1 answered/user",
			"journaled s1/c1 trace=t1 retry",
		}
		if diff := cmp.Diff(want, obs.lines()); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

// TestObserverUnattended: an ask decided at once (nobody to ask) is
// reported as began and ended, without a journal.
func TestObserverUnattended(t *testing.T) {
	obs := &observed{}
	o := &askuser.Orchestrator{Observer: obs.hooks()}
	if _, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: []byte(choiceCall)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"began s1/", "ended s1/ answered/unattended"}
	if diff := cmp.Diff(want, obs.lines()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestObserverSharedStore: with a shared store, the ask is reported as
// began on the replica the call came to and as ended once, by the replica
// that finalized it, with the caller's context values when that is the
// replica the call came to.
func TestObserverSharedStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		var orch []*askuser.Orchestrator
		var cards []*events
		var obs []*observed
		for range 2 {
			r, ob := newEvents(), &observed{}
			o := &askuser.Orchestrator{Responder: r, Asks: st, Observer: ob.hooks(), Logger: newDiscardLogger()}
			defer func() { o.Close(); o.WaitResponders() }()
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			follow(t, r, "s1")
			orch, cards, obs = append(orch, o), append(cards, r), append(obs, ob)
		}
		ctx := context.WithValue(context.Background(), traceKey{}, "t2")
		res := make(chan *askuser.Outcome, 1)
		go func() {
			out, _ := orch[0].Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)})
			res <- out
		}()
		answerChoice(t, <-cards[0].asked)
		<-res
		synctest.Wait()
		want := [][]string{{"began s1/c1 trace=t2", "ended s1/c1 trace=t2 answered/user"}, nil}
		for i := range obs {
			if diff := cmp.Diff(want[i], obs[i].lines()); diff != "" {
				t.Errorf("replica %d's events (-want +got):\n%s", i, diff)
			}
		}
	})
}

// TestObserverPanics: an Observer that panics is logged, and the ask goes
// on to its outcome.
func TestObserverPanics(t *testing.T) {
	var logs bytes.Buffer
	o := &askuser.Orchestrator{
		Observer: &askuser.Observer{Began: func(context.Context, askuser.PendingAsk) { panic("observer bug") }},
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
	}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: []byte(choiceCall)})
	if err != nil || out.Status != askuser.StatusAnswered {
		t.Fatalf("Handle: %v, %+v; want the unattended defaults", err, out)
	}
	if !bytes.Contains(logs.Bytes(), []byte("the Observer panicked")) {
		t.Errorf("the panic was not logged:\n%s", logs.String())
	}
}

// TestObserverSomeHooks: an Observer that sets only some hooks is called
// for those, and the others are passed over.
func TestObserverSomeHooks(t *testing.T) {
	var ended []askuser.Status
	j := &downJournal{}
	o := &askuser.Orchestrator{Observer: &askuser.Observer{Ended: func(_ context.Context, out *askuser.Outcome) {
		ended = append(ended, out.Status)
	}}, Journal: j}
	if _, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: []byte(choiceCall)}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]askuser.Status{askuser.StatusAnswered}, ended); diff != "" {
		t.Errorf("Ended calls (-want +got):\n%s", diff)
	}
	if j.tries != 1 {
		t.Errorf("the journal was tried %d times; want once", j.tries)
	}
}
