package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/store"
	"github.com/askuser-go/askuser/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(*testing.T) store.Pending { return store.NewMemory(0) })
}

func sameEntry(a, b store.Entry) bool {
	return a.Key == b.Key && a.Revision == b.Revision && string(a.Data) == string(b.Data) && (a.Data == nil) == (b.Data == nil)
}

// TestMemoryRetention: Memory drops an entry Retention after its last
// write, and a feed of changes is told, with nil Data and a revision of
// its own.
func TestMemoryRetention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const retention = time.Hour
		s := store.NewMemory(retention)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		s.Create(ctx, "s1.a", []byte(`old`))
		time.Sleep(retention / 2)
		rev, _ := s.Create(ctx, "s1.b", []byte(`young`))

		got := make(chan store.Entry, 16)
		done := make(chan error, 1)
		go func() { done <- s.Changes(ctx, func(e store.Entry) { got <- e }) }()
		synctest.Wait()
		if e := <-got; !sameEntry(e, store.Entry{}) || len(got) != 0 {
			t.Fatalf("Changes began with %+v and %d more; want the empty mark alone", e, len(got))
		}

		// Just before its retention ends, s1.a is still there.
		time.Sleep(retention/2 - time.Second)
		if _, err := s.Get(ctx, "s1.a"); err != nil {
			t.Fatalf("Get before retention ran out: %v", err)
		}
		time.Sleep(time.Second)
		if e, err := s.Get(ctx, "s1.a"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Get after retention ran out = %+v, %v; want ErrNotFound", e, err)
		}
		synctest.Wait()
		if len(got) != 1 {
			t.Fatalf("the feed got %d entries when s1.a was dropped; want 1", len(got))
		}
		if e := <-got; e.Key != "s1.a" || e.Data != nil || e.Revision <= rev {
			t.Fatalf("the removal came as %+v; want key s1.a with nil Data and a revision after %d", e, rev)
		}
		if es, _ := s.List(ctx, "s1."); len(es) != 1 || es[0].Key != "s1.b" {
			t.Fatalf("List after s1.a was dropped = %+v; want s1.b alone", es)
		}
		// An update restarts the clock: s1.b, rewritten now, outlives its
		// first write's retention.
		if _, err := s.Update(ctx, "s1.b", []byte(`again`), rev); err != nil {
			t.Fatal(err)
		}
		<-got
		time.Sleep(retention - time.Second)
		if _, err := s.Get(ctx, "s1.b"); err != nil {
			t.Fatalf("Get of an entry rewritten within its retention: %v", err)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Changes returned %v, want context.Canceled", err)
		}
	})
}

// TestMemoryEmptyData: an entry created with nil data holds empty data,
// not nil, which the feed reserves for a removal.
func TestMemoryEmptyData(t *testing.T) {
	s := new(store.Memory)
	ctx := t.Context()
	if _, err := s.Create(ctx, "s1.a", nil); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Get(ctx, "s1.a"); err != nil || e.Data == nil {
		t.Fatalf("Get = %+v, %v; want empty, non-nil Data", e, err)
	}
}

// A dueLog records which caller got which key when, in a synctest bubble.
type dueLog struct {
	mu  sync.Mutex
	got []string
}

func (l *dueLog) add(s string) {
	l.mu.Lock()
	l.got = append(l.got, s)
	l.mu.Unlock()
}

func (l *dueLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

// TestMemoryTimers: the keys come due at their times exactly, in time
// order, to the callers in turn; a time replaced does not fire; a failed
// key comes again after Redelivery; and every Due returns when its
// context ends, leaving no goroutine behind.
func TestMemoryTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &store.Memory{Redelivery: 5 * time.Second}
		ctx, cancel := context.WithCancel(t.Context())
		t0 := time.Now()
		var log dueLog
		fail := map[string]bool{"s.c": true}
		var failMu sync.Mutex
		f := func(name string) func(context.Context, string) error {
			return func(_ context.Context, key string) error {
				log.add(name + " " + key + " " + time.Since(t0).String())
				failMu.Lock()
				defer failMu.Unlock()
				if fail[key] {
					delete(fail, key)
					return errors.New("not yet")
				}
				return nil
			}
		}
		for key, at := range map[string]time.Duration{"s.a": time.Minute, "s.b": 2 * time.Minute, "s.c": 3 * time.Minute, "s.d": time.Hour} {
			if err := s.Schedule(ctx, key, t0.Add(at)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Schedule(ctx, "s.d", t0.Add(4*time.Minute)); err != nil { // replaces an hour
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, name := range []string{"one", "two"} {
			wg.Go(func() {
				if err := s.Due(ctx, f(name)); !errors.Is(err, context.Canceled) {
					t.Errorf("Due returned %v, want context.Canceled", err)
				}
			})
			synctest.Wait() // "one" waits first
		}
		time.Sleep(2 * time.Hour)
		want := []string{
			"one s.a 1m0s",
			"two s.b 2m0s",
			"one s.c 3m0s",
			"two s.c 3m5s", // after Redelivery
			"one s.d 4m0s",
		}
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("the calls of f (-want +got):\n%s", diff)
		}
		cancel()
		wg.Wait()
	})
}

// TestMemoryDueHeld: a key that comes due again while an f has it waits
// for that f, and then comes once; one scheduled while its f runs is
// not lost when that f is acked.
func TestMemoryDueHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := new(store.Memory) // the zero Memory is ready
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		t0 := time.Now()
		var log dueLog
		release := make(chan struct{})
		f := func(name string) func(context.Context, string) error {
			return func(ctx context.Context, key string) error {
				log.add(name + " " + key + " " + time.Since(t0).String())
				if name == "one" {
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
				return nil
			}
		}
		s.Schedule(ctx, "s.a", t0.Add(time.Second))
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		wg.Go(func() { s.Due(ctx, f("one")) })
		synctest.Wait()
		wg.Go(func() { s.Due(ctx, f("two")) })
		time.Sleep(2 * time.Second) // "one" holds s.a
		s.Schedule(ctx, "s.a", time.Now())
		s.Schedule(ctx, "s.a", time.Now()) // due again twice while held: comes once
		time.Sleep(time.Minute)
		close(release)
		synctest.Wait()
		want := []string{"one s.a 1s", "two s.a 1m2s"}
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("the calls of f (-want +got):\n%s", diff)
		}
	})
}

// TestMemoryDueEndedMidF: a key whose Due's context ends while f runs
// comes again after Redelivery, whatever f returned.
func TestMemoryDueEndedMidF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := store.NewMemory(0)
		ctx := t.Context()
		t0 := time.Now()
		var log dueLog
		s.Schedule(ctx, "s.a", t0)
		first, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			s.Due(first, func(ctx context.Context, key string) error {
				log.add("one " + key)
				<-ctx.Done()
				return nil // done, but too late
			})
		})
		synctest.Wait()
		stop()
		wg.Wait()
		second, stop2 := context.WithCancel(ctx)
		defer stop2()
		wg.Go(func() {
			s.Due(second, func(ctx context.Context, key string) error {
				log.add("two " + key + " " + time.Since(t0).String())
				return nil
			})
		})
		time.Sleep(time.Minute)
		want := []string{"one s.a", "two s.a 1s"}
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("the calls of f (-want +got):\n%s", diff)
		}
		stop2()
		wg.Wait()
	})
}

// TestMemoryListOrder: List gives the entries of a prefix in revision
// order, whatever the order of their keys.
func TestMemoryListOrder(t *testing.T) {
	s := store.NewMemory(0)
	ctx := t.Context()
	revZ, _ := s.Create(ctx, "s.z", []byte(`z`))
	s.Create(ctx, "s.a", []byte(`a`))
	s.Create(ctx, "t.a", []byte(`t`))
	s.Create(ctx, "s.m", []byte(`m`))
	s.Update(ctx, "s.z", []byte(`z2`), revZ)
	es, err := s.List(ctx, "s.")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Key+"="+string(e.Data))
	}
	if diff := cmp.Diff([]string{"s.a=a", "s.m=m", "s.z=z2"}, got); diff != "" {
		t.Errorf("List(s.) (-want +got):\n%s", diff)
	}
}
