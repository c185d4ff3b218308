package otelask_test

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

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

// BenchmarkAsk is a whole ask, JSON in to JSON out, with a responder that
// submits at once, asked alternately without an Observer (Off, the
// baseline) and with the OpenTelemetry SDK behind one (On: every span
// sampled and handed to a batch processor, whose exporter drops it, and
// every metric aggregated by a reader), as askuser serve --otlp runs it.
// Alternating the two in one loop puts them under the same load; it
// reports each one's ns/ask and their ratio:
//
//	go test -run='^$' -bench=Ask -count=6 ./otelask
func BenchmarkAsk(b *testing.B) {
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
	off := &askuser.Orchestrator{Responder: submitDefaults}
	on := &askuser.Orchestrator{Responder: submitDefaults, Observer: obs}
	defer func() { off.Close(); off.Wait(); on.Close(); on.Wait() }()
	ctx := context.Background()
	data := []byte(choiceCall)
	ask := func(o *askuser.Orchestrator) time.Duration {
		start := time.Now()
		out, err := o.Handle(ctx, askuser.Request{Session: "bench", Arguments: data})
		if err != nil || out.Status != askuser.StatusAnswered {
			b.Fatal(out, err)
		}
		return time.Since(start)
	}
	var tOff, tOn time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			tOff += ask(off)
			tOn += ask(on)
		} else {
			tOn += ask(on)
			tOff += ask(off)
		}
		n++
	}
	b.ReportMetric(float64(tOff.Nanoseconds())/float64(n), "off-ns/ask")
	b.ReportMetric(float64(tOn.Nanoseconds())/float64(n), "on-ns/ask")
	b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
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
