package askuser

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/askuser-go/askuser/dialect"
)

// submitAtOnce answers every question with its declared defaults (or a
// line of text) and submits.
var submitAtOnce = ResponderFunc(func(ctx context.Context, a *Ask) error {
	for i := range a.Form().Questions {
		q := &a.Form().Questions[i]
		ans := Answer{QuestionID: q.ID, Selected: q.declaredDefaults()}
		if ans.Selected == nil {
			ans.Other = "an answer"
		}
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
})

// BenchmarkAskRoundTrip is a whole ask, JSON in to JSON out, with a
// responder that submits at once. Compare with BenchmarkDecodeCallBaseline:
//
//	go test -run='^$' -bench='AskRoundTrip|DecodeCallBaseline' -benchmem -count=5 .
func BenchmarkAskRoundTrip(b *testing.B) { benchRoundTrip(b, submitAtOnce) }

// benchRoundTrip asks the fixture of responder r, which submits at once,
// b.N times.
func benchRoundTrip(b *testing.B, r Responder) {
	data := benchCall(b)
	o := &Orchestrator{Responder: r}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		out, err := o.Handle(ctx, Request{Session: "bench", Arguments: data})
		if err != nil || out.Status != StatusAnswered {
			b.Fatal(out, err)
		}
	}
}

// submitOnAsked is an EventDriven responder that answers and submits in
// Asked, as submitAtOnce does in Respond.
type submitOnAsked struct{}

func (submitOnAsked) Asked(a *Ask) {
	if err := submitAtOnce(context.Background(), a); err != nil {
		panic(err)
	}
}

func (submitOnAsked) Respond(ctx context.Context, a *Ask) error { return submitAtOnce(ctx, a) }

// BenchmarkAskRoundTripEventDriven is BenchmarkAskRoundTrip with a
// responder driven by events: its asks are begun on a goroutine of the
// orchestrator's (so that a pending ask's caller keeps a small stack), and
// this shows what that hand-off costs. Run beside BenchmarkAskRoundTrip:
//
//	go test -run='^$' -bench='AskRoundTrip' -benchmem -count=5 .
func BenchmarkAskRoundTripEventDriven(b *testing.B) { benchRoundTrip(b, submitOnAsked{}) }

// BenchmarkPendingAskMemory measures the memory one pending ask holds: heap
// plus stacks in use with 10,000 asks pending, minus the same number of bare
// goroutines parked on a channel (the callers' own cost), divided by
// 10,000. It reports B/ask (the ask's own cost) beside
// B/parked-goroutine (the baseline):
//
//	go test -run='^$' -bench=PendingAskMemory -count=3 .
func BenchmarkPendingAskMemory(b *testing.B) {
	const n = 10000
	data := benchCall(b)
	for b.Loop() {
		bare := parkedInUse(n)
		var shown sync.WaitGroup
		o := &Orchestrator{Responder: ResponderFunc(func(ctx context.Context, a *Ask) error {
			shown.Done()
			<-ctx.Done()
			return ctx.Err()
		})}
		shown.Add(n)
		asks := inUseWith(n, func(release <-chan struct{}, ready *sync.WaitGroup) {
			ready.Done()
			_, _ = o.Handle(context.Background(), Request{Session: "bench", Arguments: data})
		}, func() { shown.Wait() }, func() { o.Supersede("bench") })
		b.ReportMetric(float64(asks-bare)/n, "B/ask")
		b.ReportMetric(float64(bare)/n, "B/parked-goroutine")
	}
}

// BenchmarkPendingAskMemoryEventDriven is BenchmarkPendingAskMemory, same
// fixture and baseline, with a responder driven by events (EventDriven): it
// keeps each ask in a map, as the web card does, and forgets it through
// Ask.AfterEnd, so no goroutine of its own waits for an ask. It also
// reports, in the same run, what the compacted call alone holds (10,000
// decoded calls kept, measured the same way: B/compacted-call) and what an
// ask holds beyond it (B/ask-beyond-call, whose target is 1 KiB). Run
// beside the goroutine-per-ask figure:
//
//	go test -run='^$' -bench=PendingAskMemory -count=5 .
func BenchmarkPendingAskMemoryEventDriven(b *testing.B) {
	const n = 10000
	data := benchCall(b)
	for b.Loop() {
		bare := parkedInUse(n)
		r := &keptAsks{asks: map[string]*Ask{}}
		o := &Orchestrator{Responder: r}
		r.shown.Add(n)
		asks := inUseWith(n, func(release <-chan struct{}, ready *sync.WaitGroup) {
			ready.Done()
			_, _ = o.Handle(context.Background(), Request{Session: "bench", Arguments: data})
		}, func() { r.shown.Wait() }, func() { o.Supersede("bench") })
		o.WaitResponders()
		if len(r.asks) != 0 {
			b.Fatalf("%d asks still kept after every ask ended", len(r.asks))
		}
		calls := compactedCallsInUse(b, n, data)
		b.ReportMetric(float64(asks-bare)/n, "B/ask")
		b.ReportMetric(float64(bare)/n, "B/parked-goroutine")
		b.ReportMetric(float64(calls)/n, "B/compacted-call")
		b.ReportMetric(float64(asks-bare-calls)/n, "B/ask-beyond-call")
	}
}

// keptAsks is a minimal EventDriven responder: it keeps the pending asks by
// id for events to find, and forgets each once it has ended.
type keptAsks struct {
	shown sync.WaitGroup
	mu    sync.Mutex
	asks  map[string]*Ask
}

func (r *keptAsks) Asked(a *Ask) {
	r.mu.Lock()
	r.asks[a.ID()] = a
	r.mu.Unlock()
	a.AfterEnd(func() {
		r.mu.Lock()
		delete(r.asks, a.ID())
		r.mu.Unlock()
	})
	r.shown.Done()
}

// Respond is not called: the orchestrator calls Asked instead.
func (r *keptAsks) Respond(ctx context.Context, a *Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

// compactedCallsInUse returns the heap and stack bytes in use while n
// decoded (compacted) copies of the call data are kept, beyond what was
// in use before, less the slice that keeps them.
func compactedCallsInUse(b *testing.B, n int, data []byte) int64 {
	keep := make([]*Form, n)
	before := inUse()
	for i := range keep {
		f, err := Decode(askUserDialect{}, data, dialect.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		keep[i] = f
	}
	after := inUse()
	runtime.KeepAlive(keep)
	return after - before
}

// parkedInUse returns the heap and stack bytes n bare goroutines parked
// on a channel hold: the baseline of the memory benchmarks.
func parkedInUse(n int) int64 {
	return inUseWith(n, func(release <-chan struct{}, ready *sync.WaitGroup) {
		ready.Done()
		<-release
	})
}

// inUseWith starts n goroutines running f, waits until each has called
// ready.Done and settle[0] has returned, and returns the heap and stack
// bytes in use beyond what was in use before. settle[1], if given, ends
// the goroutines' work after the measurement.
func inUseWith(n int, f func(release <-chan struct{}, ready *sync.WaitGroup), settle ...func()) int64 {
	before := inUse()
	release := make(chan struct{})
	var ready, exited sync.WaitGroup
	ready.Add(n)
	for range n {
		exited.Go(func() { f(release, &ready) })
	}
	ready.Wait()
	if len(settle) > 0 {
		settle[0]()
	}
	after := inUse()
	close(release)
	if len(settle) > 1 {
		settle[1]()
	}
	exited.Wait()
	return after - before
}

func inUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
