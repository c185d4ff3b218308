package natsstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/askuser-go/askuser/store"
)

// BenchmarkPendingAsks: one ask's life in the store, Create, Update (an
// answer), Get (a replay), through JetStream on one embedded node with
// file storage, beside the in-memory store. Run with -benchtime to taste;
// asks/s is reported for each.
func BenchmarkPendingAsks(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Pending
	}{
		{"Memory", func(*testing.B) store.Pending { return store.NewMemory(0) }},
		{"JetStream", func(b *testing.B) store.Pending { return open(b, single(b), Config{}).Asks() }},
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
