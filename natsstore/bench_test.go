package natsstore

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/askuser-go/askuser"
)

// BenchmarkPendingAsks: one ask's life in the store, Create, Update (an
// answer), Get (a replay), through JetStream on one embedded node with
// file storage, beside the in-memory store. Run with -benchtime to taste;
// asks/s is reported for each.
func BenchmarkPendingAsks(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) askuser.PendingStore
	}{
		{"Memory", func(*testing.B) askuser.PendingStore { return askuser.NewMemoryPending(0) }},
		{"JetStream", func(b *testing.B) askuser.PendingStore { return open(b, single(b), Config{}).Pending() }},
	}
	data := make([]byte, 2048) // about a compacted ask
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			p := s.open(b)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("%016x", i)
				i++
				rev, err := p.Create(ctx, key, data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Update(ctx, key, data, rev); err != nil {
					b.Fatal(err)
				}
				if _, err := p.Get(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "asks/s")
		})
	}
}

// BenchmarkWatchStart: how long a new Watch takes to read a bucket of
// 5,000 asks (each written three times, as an ask's life writes it) and
// say it has caught up, on one embedded node, reading the entries one
// range at a time (the baseline) and 16 ranges side by side:
//
//	go test -run '^$' -bench WatchStart -benchtime 10x ./natsstore/
func BenchmarkWatchStart(b *testing.B) {
	const asks = 5000
	s := open(b, single(b), Config{})
	p := s.Pending().(pending)
	ctx := context.Background()
	data := make([]byte, 2048)
	for i := range asks {
		key := fmt.Sprintf("%016x", i)
		rev, err := p.Create(ctx, key, data)
		if err != nil {
			b.Fatal(err)
		}
		for range 2 {
			if rev, err = p.Update(ctx, key, data, rev); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, workers := range []int{1, readWorkers} {
		b.Run(fmt.Sprintf("ranges=%d", workers), func(b *testing.B) {
			p := p
			p.readWorkers = workers
			for b.Loop() {
				n := 0
				if err := readAll(b, ctx, p, func(askuser.PendingEntry) { n++ }); !errors.Is(err, context.Canceled) {
					b.Fatalf("Watch returned %v, want context.Canceled", err)
				}
				if n != asks {
					b.Fatalf("Watch read %d entries; want %d", n, asks)
				}
			}
		})
	}
}
