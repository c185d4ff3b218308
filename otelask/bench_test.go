package otelask_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/otelask"
	respond "github.com/askuser-go/askuser/responder"
)

// submitDefaults answers every question with its declared defaults (or a
// line of text) and submits, at once.
var submitDefaults = askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
	for i := range a.Form().Questions {
		q := &a.Form().Questions[i]
		ans := askuser.Answer{QuestionID: q.ID, Selected: respond.DeclaredDefaults(q)}
		if ans.Selected == nil {
			ans.Other = "an answer"
		}
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
})

// discard is a span exporter that drops what it is given: the benchmark
// counts what an ask costs its caller, not an exporter's network.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// benchRig is the orchestrators the benchmarks compare: off, without an
// Observer (the baseline), and on, with the OpenTelemetry SDK behind one,
// as askuser serve --otlp runs it: every span sampled and handed to a
// batch processor, whose exporter drops it, and every metric aggregated by
// a reader. metrics is on without the spans (a no-op tracer provider), to
// tell the spans' cost from the metrics'. queued is on with the spans
// queued for the Observer's goroutine (Options.Queue, as askuser serve
// runs it), the same SDK behind it.
type benchRig struct {
	off, on, metrics, queued *askuser.Orchestrator
	queuedObs                *otelask.Observer
}

// benchQueue is the queued Observer's queue, askuser serve's.
const benchQueue = 4096

func newBenchRig(b *testing.B) *benchRig {
	b.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	mpOnly := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := otelask.New(otelask.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	obsMetrics, err := otelask.New(otelask.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: mpOnly})
	if err != nil {
		b.Fatal(err)
	}
	tpQ := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	mpQ := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obsQ, err := otelask.New(otelask.Options{TracerProvider: tpQ, MeterProvider: mpQ, Queue: benchQueue})
	if err != nil {
		b.Fatal(err)
	}
	g := &benchRig{
		off:       &askuser.Orchestrator{Responder: submitDefaults},
		on:        &askuser.Orchestrator{Responder: submitDefaults, Observer: obs.Hooks()},
		metrics:   &askuser.Orchestrator{Responder: submitDefaults, Observer: obsMetrics.Hooks()},
		queued:    &askuser.Orchestrator{Responder: submitDefaults, Observer: obsQ.Hooks()},
		queuedObs: obsQ,
	}
	b.Cleanup(func() {
		for _, o := range []*askuser.Orchestrator{g.off, g.on, g.metrics, g.queued} {
			o.Close()
			o.WaitResponders()
		}
		obsQ.Close()
		for _, s := range []func(context.Context) error{tp.Shutdown, mp.Shutdown, mpOnly.Shutdown, tpQ.Shutdown, mpQ.Shutdown} {
			_ = s(context.Background())
		}
	})
	return g
}

// ask asks o the benchmark's call, which the responder answers at once.
func (g *benchRig) ask(b *testing.B, o *askuser.Orchestrator) {
	out, err := o.Handle(context.Background(), askuser.Request{Session: "bench", Arguments: []byte(choiceCall)})
	if err != nil || out.Status != askuser.StatusAnswered {
		b.Fatal(out, err)
	}
}

// BenchmarkAsk is a whole ask, JSON in to JSON out, with a responder that
// submits at once, asked in turn off, on and queued (see benchRig), the
// order rotating. Taking them in turn in one loop puts them under the same
// load; it reports each one's wall time per ask (the caller's: a queued
// span is made on the Observer's goroutine) and their ratios:
//
//	go test -run='^$' -bench=Ask -count=6 ./otelask
func BenchmarkAsk(b *testing.B) {
	g := newBenchRig(b)
	orchs := [3]*askuser.Orchestrator{g.off, g.on, g.queued}
	rotate(b, g, orchs)
}

// BenchmarkAskCPU is BenchmarkAsk's comparison in the process's CPU time
// (every thread: the asks, the SDK's batching goroutine, the garbage
// collector) rather than in wall time, which on a loaded machine swings
// with what else runs. Each iteration asks a block of asks off, a block on,
// a block with the metrics alone and a block queued (the order rotating),
// so that the collections each block's garbage causes fall mostly in that
// block; the queued block ends with a Flush, so that its spans are made
// within it:
//
//	go test -run='^$' -bench=AskCPU -count=6 ./otelask
func BenchmarkAskCPU(b *testing.B) {
	if _, ok := processCPU(); !ok {
		b.Skip("this system gives no process CPU clock")
	}
	const block = 200
	g := newBenchRig(b)
	run := func(o *askuser.Orchestrator) time.Duration {
		start, _ := processCPU()
		for range block {
			g.ask(b, o)
		}
		if o == g.queued {
			g.queuedObs.Flush()
		}
		end, _ := processCPU()
		return end - start
	}
	orchs := [4]*askuser.Orchestrator{g.off, g.on, g.metrics, g.queued}
	var cpu [4]time.Duration
	n := 0
	for b.Loop() {
		for j := range orchs {
			k := (j + n) % len(orchs)
			cpu[k] += run(orchs[k])
		}
		n++
	}
	asks := float64(n * block)
	b.ReportMetric(float64(cpu[0].Nanoseconds())/asks, "off-cpu-ns/ask")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/asks, "on-cpu-ns/ask")
	b.ReportMetric(float64(cpu[2].Nanoseconds())/asks, "metrics-cpu-ns/ask")
	b.ReportMetric(float64(cpu[3].Nanoseconds())/asks, "queued-cpu-ns/ask")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-on/off")
	b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "cpu-metrics/off")
	b.ReportMetric(float64(cpu[3])/float64(cpu[0]), "cpu-queued/off")
}

// BenchmarkObserveEnded is the Observer's work for one finalized ask
// alone: its span (batched, dropped) and its metrics. Queued, the span is
// made on the Observer's goroutine, the benchmark flushing the queue every
// 256 asks so that none is dropped (the allocations count both
// goroutines'):
//
//	go test -run='^$' -bench=ObserveEnded -benchmem ./otelask
func BenchmarkObserveEnded(b *testing.B) {
	b.Run("sync", func(b *testing.B) { benchObserveEnded(b, 0) })
	b.Run("queued", func(b *testing.B) { benchObserveEnded(b, benchQueue) })
}

func benchObserveEnded(b *testing.B, queue int) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := otelask.New(otelask.Options{TracerProvider: tp, MeterProvider: mp, Queue: queue})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		obs.Close()
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}()
	o := &askuser.Orchestrator{Responder: submitDefaults}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "bench", ToolCallID: "call_1", Arguments: []byte(choiceCall)})
	if err != nil {
		b.Fatal(err)
	}
	ended := obs.Hooks().Ended
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ended(ctx, out)
		if n++; n%256 == 0 {
			obs.Flush()
		}
	}
}

// BenchmarkAskJournaled is BenchmarkAsk as askuser serve runs an ask: with
// a decision journal, here a file journal (its own file for each side,
// fsynced), on both sides: off, without an Observer; on, the SDK behind a
// synchronous Observer; queued, behind a queued one (serve's). It reports
// each one's wall time per ask and their ratios:
//
//	go test -run='^$' -bench=AskJournaled -count=6 ./otelask
func BenchmarkAskJournaled(b *testing.B) {
	g := newBenchRig(b)
	orchs := [3]*askuser.Orchestrator{
		{Responder: submitDefaults},
		{Responder: submitDefaults, Observer: g.on.Observer},
		{Responder: submitDefaults, Observer: g.queued.Observer},
	}
	dir := b.TempDir()
	for i, o := range orchs {
		j, err := journal.Open(filepath.Join(dir, fmt.Sprint(i, ".jsonl")), nil)
		if err != nil {
			b.Fatal(err)
		}
		o.Journal = j
		b.Cleanup(func() {
			o.Close()
			o.WaitResponders()
			_ = j.Close()
		})
	}
	rotate(b, g, orchs)
}

// rotate asks on the three orchestrators (off, on, queued) in turn, the
// order rotating each round so that none always runs after the same
// neighbour, and reports each one's wall time per ask and the two ratios.
func rotate(b *testing.B, g *benchRig, orchs [3]*askuser.Orchestrator) {
	var wall [3]time.Duration
	n := 0
	for b.Loop() {
		for j := range orchs {
			k := (j + n) % len(orchs)
			start := time.Now()
			g.ask(b, orchs[k])
			wall[k] += time.Since(start)
		}
		n++
	}
	b.ReportMetric(float64(wall[0].Nanoseconds())/float64(n), "off-ns/ask")
	b.ReportMetric(float64(wall[1].Nanoseconds())/float64(n), "on-ns/ask")
	b.ReportMetric(float64(wall[2].Nanoseconds())/float64(n), "queued-ns/ask")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "on/off")
	b.ReportMetric(float64(wall[2])/float64(wall[0]), "queued/off")
}
