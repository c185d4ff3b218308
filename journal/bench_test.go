package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser/journal"
)

// The benchmarks write to the checkout's own file system (a directory
// under journal/, git-ignored), not to a tmpfs: fsync is what they
// measure.

func benchDir(b *testing.B) string {
	b.Helper()
	dir, err := os.MkdirTemp(".", "bench-tmp-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func benchLine(b *testing.B) []byte {
	b.Helper()
	data, err := json.Marshal(record("bench-0001"))
	if err != nil {
		b.Fatal(err)
	}
	return append(data, '\n')
}

// percentile returns the p-th percentile of ds (which it sorts).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// writeSync writes line and fsyncs, n times, serially; it returns each
// round's duration.
func writeSync(b *testing.B, path string, line []byte, n int) []time.Duration {
	b.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	lat := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if _, err := f.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}

// BenchmarkBaseline is the baseline of BenchmarkAppend: one writer doing
// write + fsync per record, serially. ns/op is one fsync duration.
func BenchmarkBaseline(b *testing.B) {
	path := filepath.Join(benchDir(b), "baseline.jsonl")
	line := benchLine(b)
	b.ResetTimer()
	lat := writeSync(b, path, line, b.N)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(percentile(lat, 0.50)), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 0.99)), "p99-ns")
}

// BenchmarkAppend measures durable appends through a File with 1, 8 and 64
// concurrent finalizations: records/s, and the p99 latency of an Append.
// That latency is also given as a multiple of the baseline's write + fsync
// duration, measured just before on the same file system (300 rounds): of
// its p99 (p99/fsync-p99, the like-for-like ratio; the target is ≤ 2) and
// of its median (p99/fsync-p50, the harsher reading).
func BenchmarkAppend(b *testing.B) {
	for _, workers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrent=%d", workers), func(b *testing.B) {
			dir := benchDir(b)
			line := benchLine(b)
			base := writeSync(b, filepath.Join(dir, "fsync.jsonl"), line, 300)
			fsync50, fsync99 := percentile(base, 0.50), percentile(base, 0.99)
			j, err := journal.Open(filepath.Join(dir, "j.jsonl"), &journal.Options{MaxWait: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			rec := record("bench-0001")
			lats := make([][]time.Duration, workers)
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ReportAllocs()
			b.ResetTimer()
			for w := range workers {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						start := time.Now()
						if err := j.Append(context.Background(), stored(rec)); err != nil {
							b.Error(err)
							return
						}
						lats[w] = append(lats[w], time.Since(start))
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if err := j.Close(); err != nil {
				b.Fatal(err)
			}
			p99 := percentile(slices.Concat(lats...), 0.99)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(p99), "p99-ns")
			b.ReportMetric(float64(p99)/float64(fsync99), "p99/fsync-p99")
			b.ReportMetric(float64(p99)/float64(fsync50), "p99/fsync-p50")
		})
	}
}
