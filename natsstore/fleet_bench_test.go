package natsstore

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/natsstore/natsserver"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/store"
)

// The fleet's figures, each beside its in-memory baseline in one run:
//
//	go test -run '^$' -bench 'Fleet' -benchtime 200x ./natsstore/
//
// BenchmarkFleetAnswerToOutcome: how long from the person's submit on one
// replica's card to the outcome in the caller on another (p50, p99),
// against the in-memory orchestrator. BenchmarkFleetAsks: asks per second
// through the stores. BenchmarkFleetDeadline: how late after its deadline
// an ask nobody waits for is finalized by another replica's sweep.

// benchFleet is the replicas a benchmark runs on: in memory (one
// orchestrator, no store), one embedded node, or a three-node cluster.
func benchFleet(b *testing.B, kind string) (ask, answer *replica) {
	b.Helper()
	switch kind {
	case "memory":
		r := &replica{card: newCard()}
		r.o = &askuser.Orchestrator{Responder: r.card, Logger: quiet()}
		b.Cleanup(r.stop)
		return r, r
	case "jetstream-1-node":
		c := newNode(b)
		return newBenchReplica(b, c, 0, 1), newBenchReplica(b, c, 0, 1)
	case "jetstream-3-nodes":
		c := newCluster(b, 3)
		return newBenchReplica(b, c, 0, 3), newBenchReplica(b, c, 1, 3)
	}
	b.Fatalf("unknown fleet %q", kind)
	return nil, nil
}

func newBenchReplica(b *testing.B, c *cluster, node, replicas int) *replica {
	js := c.connect(b, node)
	s := open(b, js, Config{Prefix: "bench", Replicas: replicas, Keys: fleetKeys})
	r := &replica{card: newCard(), store: s}
	r.o = &askuser.Orchestrator{Responder: r.card, Asks: s.Asks(), Journal: s.Journal(), Secrets: s.Secrets(), Consents: s.Consents(), Logger: benchLogger}
	b.Cleanup(r.stop)
	if err := r.o.Ready(ctxFor(b)); err != nil {
		b.Fatal(err)
	}
	return r
}

// newNode starts one embedded server, as askuser serve does by default,
// as a cluster of one for the harness's connect.
func newNode(b *testing.B) *cluster {
	e, err := natsserver.Start(natsserver.Config{StoreDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Shutdown)
	return &cluster{cfgs: []natsserver.Config{{}}, nodes: []*natsserver.Server{e}}
}

var fleetKinds = []string{"memory", "jetstream-1-node", "jetstream-3-nodes"}

// benchLogger shows what goes wrong in a benchmark's orchestrators.
var benchLogger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

func reportPercentiles(b *testing.B, d []time.Duration, unit string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) float64 {
		return float64(d[min(len(d)-1, int(p*float64(len(d))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-"+unit)
	b.ReportMetric(at(0.99), "p99-"+unit)
}

func BenchmarkFleetAnswerToOutcome(b *testing.B) {
	for _, kind := range fleetKinds {
		b.Run(kind, func(b *testing.B) {
			ask, answerOn := benchFleet(b, kind)
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				i++
				tc := fmt.Sprintf("call-%d", i)
				res := ask.handle(context.Background(), "s1", tc, call(300))
				a := answerOn.card.byToolCall(b, "s1", tc)
				if a == nil {
					b.FailNow()
				}
				for _, ans := range []askuser.Answer{{QuestionID: "env", Selected: []string{"staging"}}, {QuestionID: "region", Selected: []string{"us"}}} {
					if err := a.Report(ans); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				if err := a.Submit(); err != nil {
					b.Fatal(err)
				}
				var got outcome
				select {
				case got = <-res:
				case <-time.After(10 * time.Second):
					b.Logf("iteration %d: A pending %+v; B pending %+v", i, ask.o.Pending("s1"), answerOn.o.Pending("s1"))
					pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
					b.FailNow()
				}
				lat = append(lat, time.Since(start))
				if got.err != nil || got.out.Reason != askuser.ReasonSubmitted {
					b.Fatalf("outcome %v, %v", got.out, got.err)
				}
			}
			reportPercentiles(b, lat, "ms")
		})
	}
}

// instant answers every ask at once.
var instant = askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
	for _, q := range a.Form().Questions {
		if err := a.Report(askuser.Answer{QuestionID: q.ID, Selected: responder.DeclaredDefaults(&q)}); err != nil {
			return err
		}
	}
	return a.Submit()
})

func BenchmarkFleetAsks(b *testing.B) {
	kinds := []string{"memory", "shared-memory-store", "jetstream-1-node"}
	for _, kind := range kinds {
		b.Run(kind, func(b *testing.B) {
			o := &askuser.Orchestrator{Responder: instant, Logger: quiet()}
			switch kind {
			case "shared-memory-store":
				o.Asks = store.NewMemory(0)
			case "jetstream-1-node":
				c := newNode(b)
				s := open(b, c.connect(b, 0), Config{Prefix: "asks", Keys: fleetKeys})
				o.Asks, o.Journal = s.Asks(), s.Journal()
			}
			b.Cleanup(func() { o.Close(); o.WaitResponders() })
			if err := o.Ready(context.Background()); err != nil {
				b.Fatal(err)
			}
			var n atomic.Int64
			start := time.Now()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tc := fmt.Sprintf("call-%d", n.Add(1))
					out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(call(300))})
					if err != nil || out.Reason != askuser.ReasonSubmitted {
						b.Errorf("outcome %v, %v", out, err)
						return
					}
				}
			})
			b.ReportMetric(float64(n.Load())/time.Since(start).Seconds(), "asks/s")
		})
	}
}

func BenchmarkFleetDeadline(b *testing.B) {
	for _, kind := range fleetKinds {
		b.Run(kind, func(b *testing.B) {
			ask, sweep := benchFleet(b, kind)
			late := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				i++
				tc := fmt.Sprintf("call-%d", i)
				var out *askuser.Outcome
				var err error
				if kind == "memory" {
					// Baseline: the caller waits on the only orchestrator.
					out, err = ask.o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(call(1))})
				} else {
					// Nobody waits where the ask began; another replica's
					// sweep ends it, and Await there sees the result.
					if _, err = ask.o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(call(1))}); err != nil {
						b.Fatal(err)
					}
					out, err = sweep.o.Await(ctxFor(b), "s1", tc)
				}
				if err != nil || out.Reason != askuser.ReasonDeadline {
					b.Fatalf("outcome %v, %v", out, err)
				}
				late = append(late, out.FinalizedAt.Sub(out.Form.ExpiresAt))
			}
			reportPercentiles(b, late, "late-ms")
		})
	}
}
