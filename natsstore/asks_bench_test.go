package natsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/store"
)

// BenchmarkAsksLifecycle: one ask's life in the store, Create, Update (an
// answer), Get (a replay), through JetStream on one embedded node with
// file storage (Asks), beside store.Memory in the same run. asks/s is
// reported for each:
//
//	go test -run '^$' -bench AsksLifecycle -benchtime 2000x ./natsstore/
func BenchmarkAsksLifecycle(b *testing.B) {
	js := single(b)
	type ops struct {
		create func(ctx context.Context, key string, data []byte) (uint64, error)
		update func(ctx context.Context, key string, data []byte, rev uint64) (uint64, error)
		get    func(ctx context.Context, key string) error
	}
	stores := []struct {
		name string
		open func(b *testing.B) ops
	}{
		{"Memory", func(b *testing.B) ops {
			p := store.NewMemory(0)
			return ops{p.Create, p.Update, func(ctx context.Context, key string) error { _, err := p.Get(ctx, key); return err }}
		}},
		{"Asks", func(b *testing.B) ops {
			p := open(b, js, Config{}).Asks()
			return ops{p.Create, p.Update, func(ctx context.Context, key string) error { _, err := p.Get(ctx, key); return err }}
		}},
	}
	data := make([]byte, 2048) // about a compacted ask
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			p := s.open(b)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("s%032x.c%032x", i/20, i)
				i++
				rev, err := p.create(ctx, key, data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.update(ctx, key, data, rev); err != nil {
					b.Fatal(err)
				}
				if err := p.get(ctx, key); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "asks/s")
		})
	}
}

// BenchmarkAsksList: List of one session's 20 asks in a bucket of 2,000,
// on one node and on a three-node cluster (R3), four ways: the keys under
// the prefix from the stream leader's info, then a Get of each, 16 at a
// time (what List does); one next-by-subject request per entry to the
// leader, one after the other; a filtered key listing, then a Get of each
// key; and a filtered watch read to its end-of-initial marker (the last
// two may be served by a replica that is behind):
//
//	go test -run '^$' -bench AsksList ./natsstore/
func BenchmarkAsksList(b *testing.B) {
	const sessions, perSession = 100, 20
	for _, where := range []string{"node", "R3"} {
		b.Run(where, func(b *testing.B) {
			var s *Store
			if where == "node" {
				s = open(b, single(b), Config{})
			} else {
				if testing.Short() {
					b.Skip("starts a three-node cluster")
				}
				s = open(b, newCluster(b, 3).connect(b, 0), Config{Replicas: 3})
			}
			a := s.Asks().(*asks)
			ctx := context.Background()
			data := make([]byte, 2048)
			for i := range sessions * perSession {
				if _, err := a.Create(ctx, fmt.Sprintf("s%032x.c%032x", i%sessions, i), data); err != nil {
					b.Fatal(err)
				}
			}
			prefix := fmt.Sprintf("s%032x.", 42)
			for _, way := range []struct {
				name string
				list func(ctx context.Context, prefix string) ([]store.Entry, error)
			}{
				{"leader-keys+gets", a.List},
				{"leader-next", a.listByLeaderNext},
				{"keys+gets", a.listByKeys},
				{"watch", a.listByWatch},
			} {
				b.Run(way.name, func(b *testing.B) {
					for b.Loop() {
						es, err := way.list(ctx, prefix)
						if err != nil {
							b.Fatal(err)
						}
						if len(es) != perSession {
							b.Fatalf("listed %d entries; want %d", len(es), perSession)
						}
					}
				})
			}
		})
	}
}

// listByKeys is List by a filtered key listing and a Get of each key.
func (a *asks) listByKeys(ctx context.Context, prefix string) ([]store.Entry, error) {
	kl, err := a.kv.ListKeysFiltered(ctx, prefix+">")
	if err != nil {
		return nil, err
	}
	defer kl.Stop()
	var out []store.Entry
	for key := range kl.Keys() {
		e, err := a.Get(ctx, key)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(x, y store.Entry) int { return cmp.Compare(x.Revision, y.Revision) })
	return out, nil
}

// listByLeaderNext is List by asking the stream's leader for the next
// entry under the prefix, from the start, until there is none: one request
// per entry and one more, one after the other.
func (a *asks) listByLeaderNext(ctx context.Context, prefix string) ([]store.Entry, error) {
	subject := "$KV." + a.kv.Bucket() + "."
	var out []store.Entry
	for seq := uint64(1); ; {
		m, err := a.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject+prefix+">"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		seq = m.Sequence + 1
		if m.Header.Get("KV-Operation") == "" && m.Header.Get(jetstream.MarkerReasonHeader) == "" {
			out = append(out, store.Entry{Key: strings.TrimPrefix(m.Subject, subject), Data: m.Data, Revision: m.Sequence})
		}
	}
}

// listByWatch is List by a filtered watch read to its end-of-initial
// marker.
func (a *asks) listByWatch(ctx context.Context, prefix string) ([]store.Entry, error) {
	es, err := entries(ctx, a.kv, prefix+">")
	if err != nil {
		return nil, err
	}
	out := make([]store.Entry, 0, len(es))
	for _, e := range es {
		out = append(out, store.Entry{Key: e.Key(), Data: e.Value(), Revision: e.Revision()})
	}
	slices.SortFunc(out, func(x, y store.Entry) int { return cmp.Compare(x.Revision, y.Revision) })
	return out, nil
}

// BenchmarkAsksScheduleDue: how late a key reaches Due on one node with
// file storage, when it is scheduled for now (Schedule's call to f's) and
// when it is scheduled half a second ahead (its time to f's); p50 and p99
// are reported in milliseconds:
//
//	go test -run '^$' -bench AsksScheduleDue -benchtime 40x ./natsstore/
func BenchmarkAsksScheduleDue(b *testing.B) {
	for _, ahead := range []time.Duration{0, 500 * time.Millisecond} {
		b.Run(fmt.Sprintf("ahead=%v", ahead), func(b *testing.B) {
			p := open(b, single(b), Config{}).Asks()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			got := map[string]time.Time{}
			arrived := make(chan struct{}, 1)
			done := make(chan error, 1)
			go func() {
				done <- p.Due(ctx, func(_ context.Context, key string) error {
					mu.Lock()
					got[key] = time.Now()
					mu.Unlock()
					select {
					case arrived <- struct{}{}:
					case <-ctx.Done():
					}
					return nil
				})
			}()
			var late []time.Duration
			i := 0
			for b.Loop() {
				key := fmt.Sprintf("s%032x.c%032x", 0, i)
				i++
				at := time.Now().Add(ahead)
				if err := p.Schedule(ctx, key, at); err != nil {
					b.Fatal(err)
				}
				<-arrived
				mu.Lock()
				late = append(late, got[key].Sub(at))
				mu.Unlock()
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				b.Fatal(err)
			}
			slices.Sort(late)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(late[len(late)/2]), "p50-ms")
			b.ReportMetric(ms(late[len(late)*99/100]), "p99-ms")
		})
	}
}
