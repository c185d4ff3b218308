package otelask_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/otelask"
)

// submitDefaults answers every question with its declared defaults (or a
// line of text) and submits, at once.
var submitDefaults = askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
	for i := range a.Form().Questions {
		q := &a.Form().Questions[i]
		ans := askuser.Answer{QuestionID: q.ID, Selected: q.DeclaredDefaults()}
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
// tell the spans' cost from the metrics'.
type benchRig struct {
	off, on, metrics *askuser.Orchestrator
}

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
	g := &benchRig{
		off:     &askuser.Orchestrator{Responder: submitDefaults},
		on:      &askuser.Orchestrator{Responder: submitDefaults, Observer: obs},
		metrics: &askuser.Orchestrator{Responder: submitDefaults, Observer: obsMetrics},
	}
	b.Cleanup(func() {
		for _, o := range []*askuser.Orchestrator{g.off, g.on, g.metrics} {
			o.Close()
			o.WaitResponders()
		}
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
		_ = mpOnly.Shutdown(context.Background())
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
// submits at once, asked alternately off and on (see benchRig).
// Alternating the two in one loop puts them under the same load; it
// reports each one's wall time per ask and their ratio:
//
//	go test -run='^$' -bench=Ask -count=6 ./otelask
func BenchmarkAsk(b *testing.B) {
	g := newBenchRig(b)
	timed := func(o *askuser.Orchestrator) time.Duration {
		start := time.Now()
		g.ask(b, o)
		return time.Since(start)
	}
	var tOff, tOn time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			tOff += timed(g.off)
			tOn += timed(g.on)
		} else {
			tOn += timed(g.on)
			tOff += timed(g.off)
		}
		n++
	}
	b.ReportMetric(float64(tOff.Nanoseconds())/float64(n), "off-ns/ask")
	b.ReportMetric(float64(tOn.Nanoseconds())/float64(n), "on-ns/ask")
	b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
}

// BenchmarkAskCPU is BenchmarkAsk's comparison in the process's CPU time
// (every thread: the asks, the SDK's batching goroutine, the garbage
// collector) rather than in wall time, which on a loaded machine swings
// with what else runs. Each iteration asks a block of asks off, a block on
// and a block with the metrics alone (the order rotating), so that the
// collections each block's garbage causes fall mostly in that block:
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
		end, _ := processCPU()
		return end - start
	}
	orchs := [3]*askuser.Orchestrator{g.off, g.on, g.metrics}
	var cpu [3]time.Duration
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
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-on/off")
	b.ReportMetric(float64(cpu[2])/float64(cpu[0]), "cpu-metrics/off")
}

// BenchmarkObserveEnded is the Observer's work for one finalized ask
// alone: its span (batched, dropped) and its metrics.
//
//	go test -run='^$' -bench=ObserveEnded -benchmem ./otelask
func BenchmarkObserveEnded(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}()
	obs, err := otelask.New(otelask.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: submitDefaults}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "bench", ToolCallID: "call_1", Arguments: []byte(choiceCall)})
	if err != nil {
		b.Fatal(err)
	}
	ev := askuser.Event{Kind: askuser.EventEnded, AskID: out.AskID, Session: out.Session, ToolCallID: out.ToolCallID, Form: out.Form, Outcome: out}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		obs.Observe(ctx, ev)
	}
}
