package otelask_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
)

// ended is the outcome of an ask_user ask of two seconds, answered by its
// user, that responder took.
func ended(f *askuser.Form, responder string) *askuser.Outcome {
	return &askuser.Outcome{
		Status: askuser.StatusAnswered, AnsweredBy: askuser.ByUser, Reason: askuser.ReasonSubmitted,
		Responder: responder, Form: f, FinalizedAt: f.AskedAt.Add(2 * time.Second),
	}
}

// TestManyCombinations: past 1,024 combinations of attributes, the asks
// are counted in the overflow set, none lost, and the pending gauge still
// returns to zero.
func TestManyCombinations(t *testing.T) {
	g := newRig(t, nil)
	f := &askuser.Form{Contract: "ask_user", AskedAt: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	const asks = 1100
	for i := range asks {
		g.o.Observer.Began(context.Background(), askuser.PendingAsk{Form: f})
		g.o.Observer.Ended(context.Background(), ended(f, fmt.Sprint("responder-", i)))
	}
	m := g.metrics(t)
	sets, counted := 0, 0
	for k, v := range m {
		if !strings.HasPrefix(k, "askuser.asks{") {
			continue
		}
		sets++
		var n int
		if _, err := fmt.Sscan(v, &n); err != nil {
			t.Fatalf("%s = %q: %v", k, v, err)
		}
		counted += n
	}
	if sets != 1024+1 || counted != asks {
		t.Errorf("askuser.asks: %d sets counting %d asks, want 1,025 (1,024 and the overflow) counting %d", sets, counted, asks)
	}
	want := map[string]string{
		"askuser.asks{askuser.overflow=true}":             fmt.Sprint(asks - 1024),
		"askuser.ask.duration{askuser.overflow=true}":     fmt.Sprintf("count=%d sum=%d", asks-1024, 2*(asks-1024)),
		"askuser.asks.pending{gen_ai.tool.name=ask_user}": "0",
		"askuser.asks{askuser.answered_by=user,askuser.reason=submitted,askuser.responder=responder-0,askuser.status=answered,gen_ai.tool.name=ask_user}":         "1",
		"askuser.ask.duration{askuser.answered_by=user,askuser.reason=submitted,askuser.responder=responder-0,askuser.status=answered,gen_ai.tool.name=ask_user}": "count=1 sum=2",
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
}

// TestConcurrentCounts: asks observed from many goroutines at once, new
// combinations among them, are each counted once, and a collection while
// they are observed reads counts that only grow.
func TestConcurrentCounts(t *testing.T) {
	g := newRig(t, nil)
	f := &askuser.Form{Contract: "ask_user", AskedAt: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	const workers, each, responders = 8, 200, 5
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				g.o.Observer.Began(context.Background(), askuser.PendingAsk{Form: f})
				g.o.Observer.Ended(context.Background(), ended(f, fmt.Sprint("r", (w+i)%responders)))
			}
		})
	}
	for range 5 {
		g.metrics(t) // collect while the workers observe
	}
	wg.Wait()
	m := g.metrics(t)
	for r := range responders {
		k := fmt.Sprintf("askuser.asks{askuser.answered_by=user,askuser.reason=submitted,askuser.responder=r%d,askuser.status=answered,gen_ai.tool.name=ask_user}", r)
		if want := fmt.Sprint(workers * each / responders); m[k] != want {
			t.Errorf("%s = %q, want %s", k, m[k], want)
		}
	}
	if got := m["askuser.asks.pending{gen_ai.tool.name=ask_user}"]; got != "0" {
		t.Errorf("pending = %q once every ask has ended, want 0", got)
	}
}
