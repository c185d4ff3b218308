package otelask_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/otelask"
)

// finish tells obs of an ask_user ask that began and ended (in two
// seconds), taken by responder.
func finish(obs *otelask.Observer, f *askuser.Form, responder string) {
	h := obs.Hooks()
	h.Began(context.Background(), askuser.PendingAsk{Form: f})
	h.Ended(context.Background(), ended(f, responder))
}

// TestQueueWaits: with a queue, a finalized ask's span is made by the
// Observer's goroutine once the queue's delay has passed since it was
// woken, not before; its metrics are counted at once.
func TestQueueWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newQueuedRig(t, nil, 64)
		f := &askuser.Form{Contract: "ask_user", AskedAt: time.Now()}
		finish(g.obs, f, "r")
		synctest.Wait()
		if n := len(g.spans.Ended()); n != 0 {
			t.Fatalf("%d spans made as the ask ended; want them to wait %v", n, otelask.QueueDelay)
		}
		by := "{askuser.answered_by=user,askuser.reason=submitted,askuser.responder=r,askuser.status=answered,gen_ai.tool.name=ask_user}"
		m := g.metrics(t)
		if m["askuser.asks"+by] != "1" || m["askuser.ask.duration"+by] != "count=1 sum=2" {
			t.Errorf("metrics while the span waits: %v; want the ask counted and its 2 s recorded", m)
		}
		time.Sleep(otelask.QueueDelay - time.Nanosecond)
		synctest.Wait()
		if n := len(g.spans.Ended()); n != 0 {
			t.Fatalf("%d spans made a nanosecond before the delay, want 0", n)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if n := len(g.spans.Ended()); n != 1 {
			t.Fatalf("%d spans made once the delay had passed, want 1", n)
		}
		if sp := g.spans.Ended()[0]; !sp.StartTime().Equal(f.AskedAt) || sp.EndTime().Sub(sp.StartTime()) != 2*time.Second {
			t.Errorf("span from %v to %v, want from the ask's start %v, 2s long", sp.StartTime(), sp.EndTime(), f.AskedAt)
		}
	})
}

// gate is a span processor whose first OnEnd waits until the test
// releases it: it holds the Observer's goroutine inside the SDK.
type gate struct {
	entered, release chan struct{}
	once             sync.Once
}

func newGate() *gate { return &gate{entered: make(chan struct{}), release: make(chan struct{})} }

func (*gate) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (g *gate) OnEnd(sdktrace.ReadOnlySpan) {
	g.once.Do(func() { close(g.entered); <-g.release })
}
func (*gate) Shutdown(context.Context) error   { return nil }
func (*gate) ForceFlush(context.Context) error { return nil }

// TestQueueFull: while the Observer's goroutine is held, asks fill its
// queue; the spans of the asks past it are dropped and counted, their
// metrics are not (every ask counted, every duration recorded), a
// collection does not wait for the goroutine, and Close makes every span
// queued.
func TestQueueFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const size, over = 8, 3
		gt := newGate()
		g := newQueuedRig(t, nil, size, gt)
		f := &askuser.Form{Contract: "ask_user", AskedAt: time.Now()}
		finish(g.obs, f, "r")
		<-gt.entered // the goroutine holds the first span, the queue is empty
		for range size + over {
			finish(g.obs, f, "r")
		}
		by := "{askuser.answered_by=user,askuser.reason=submitted,askuser.responder=r,askuser.status=answered,gen_ai.tool.name=ask_user}"
		m := g.metrics(t)
		want := map[string]string{
			"askuser.spans.dropped{}":                         fmt.Sprint(over),
			"askuser.asks" + by:                               fmt.Sprint(1 + size + over),
			"askuser.ask.duration" + by:                       fmt.Sprintf("count=%d sum=%d", 1+size+over, 2*(1+size+over)),
			"askuser.asks.pending{gen_ai.tool.name=ask_user}": "0",
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s = %q, want %q", k, m[k], v)
			}
		}
		close(gt.release)
		g.obs.Close()
		if n := len(g.spans.Ended()); n != 1+size {
			t.Errorf("%d spans once closed, want %d (the one held and the %d queued)", n, 1+size, size)
		}
	})
}

// TestQueueConcurrent: asks finalized from many goroutines at once, with
// collections among them, each leave a span or a count in
// askuser.spans.dropped, and are each counted once.
func TestQueueConcurrent(t *testing.T) {
	g := newQueuedRig(t, nil, 64)
	f := &askuser.Form{Contract: "ask_user", AskedAt: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				finish(g.obs, f, fmt.Sprint("r", (w+i)%5))
			}
		})
	}
	for range 5 {
		g.metrics(t)
		g.obs.Flush()
	}
	wg.Wait()
	g.obs.Close()
	m := g.metrics(t)
	var dropped, counted int
	if _, err := fmt.Sscan(m["askuser.spans.dropped{}"], &dropped); err != nil {
		t.Fatalf("askuser.spans.dropped = %q: %v", m["askuser.spans.dropped{}"], err)
	}
	for k, v := range m {
		if strings.HasPrefix(k, "askuser.asks{") {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("%s = %q: %v", k, v, err)
			}
			counted += n
		}
	}
	if spans := len(g.spans.Ended()); spans+dropped != workers*each || counted != workers*each {
		t.Errorf("%d spans and %d dropped, %d asks counted; want spans and dropped to make %d, and %d counted", spans, dropped, counted, workers*each, workers*each)
	}
}

// TestQueueClose: Close stops the Observer's goroutine, and a span of an
// ask finalized after it is made on the ask's goroutine; Close and Flush
// may be called again.
func TestQueueClose(t *testing.T) {
	before := goleak.IgnoreCurrent()
	g := newQueuedRig(t, nil, 64)
	f := &askuser.Form{Contract: "ask_user", AskedAt: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	finish(g.obs, f, "r")
	g.obs.Close()
	if n := len(g.spans.Ended()); n != 1 {
		t.Errorf("%d spans once closed, want the queued one", n)
	}
	goleak.VerifyNone(t, before)
	finish(g.obs, f, "r")
	if n := len(g.spans.Ended()); n != 2 {
		t.Errorf("%d spans after an ask finalized once closed, want 2: its span made at once", n)
	}
	g.obs.Close()
	g.obs.Flush()
}

// TestQueueBelowZero: New refuses a queue below zero, saying what it
// takes.
func TestQueueBelowZero(t *testing.T) {
	_, err := otelask.New(otelask.Options{Queue: -1, MeterProvider: metric.NewMeterProvider()})
	if err == nil || !strings.Contains(err.Error(), "Options.Queue is -1") || !strings.Contains(err.Error(), "give 0") {
		t.Errorf("New with Queue -1: %v; want an error naming the value and what is allowed", err)
	}
}
