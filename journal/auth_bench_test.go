package journal_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secretstore"
)

// BenchmarkAuthAppend is BenchmarkAppend without keys (today's append,
// the baseline) and with a key ring (every record MACed and chained, after
// following the file under its lock), side by side in one run.
func BenchmarkAuthAppend(b *testing.B) {
	keys := ring(b, testKey(b, "k1"))
	for _, mode := range []string{"plain", "mac"} {
		for _, workers := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/concurrent=%d", mode, workers), func(b *testing.B) {
				opts := &journal.Options{MaxWait: time.Minute}
				if mode == "mac" {
					opts.Keys = keys
				}
				j, err := journal.Open(filepath.Join(benchDir(b), "j.jsonl"), opts)
				if err != nil {
					b.Fatal(err)
				}
				rec := record("bench-0001")
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				for range workers {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							if err := j.Append(context.Background(), stored(rec)); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				if err := j.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// BenchmarkAuthOpen measures Open of a journal of 10,000 records, which
// reads and indexes every one — and, with a key ring, checks every MAC and
// the chain.
func BenchmarkAuthOpen(b *testing.B) {
	keys := ring(b, testKey(b, "k1"))
	for _, mode := range []string{"plain", "mac"} {
		b.Run(mode, func(b *testing.B) {
			var k *secretstore.KeyRing
			if mode == "mac" {
				k = keys
			}
			path := filepath.Join(benchDir(b), "j.jsonl")
			j, err := journal.Open(path, &journal.Options{Keys: k, MaxWait: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			var wg sync.WaitGroup
			for w := range 100 {
				wg.Go(func() {
					for i := range 100 {
						if err := j.Append(context.Background(), stored(record(fmt.Sprintf("r%d-%d", w, i)))); err != nil {
							b.Error(err)
						}
					}
				})
			}
			wg.Wait()
			j.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				j, err := journal.Open(path, &journal.Options{Keys: k})
				if err != nil {
					b.Fatal(err)
				}
				j.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10000, "ns/record")
		})
	}
}
