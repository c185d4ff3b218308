package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/store"
	"github.com/askuser-go/askuser/store/storetest"
)

func TestAsksStoretest(t *testing.T) {
	js := single(t)
	storetest.Run(t, func(t *testing.T) store.Pending { return open(t, js, Config{}).Asks() })
}

func TestAsksStoretestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	js := c.connect(t, 1)
	storetest.Run(t, func(t *testing.T) store.Pending {
		return open(t, js, Config{Replicas: 3}).Asks()
	})
}

// TestAsksExpiry: an entry is dropped Retention after its last write, and
// the feed of changes sees it go, with nil Data; the key is then free.
func TestAsksExpiry(t *testing.T) {
	ctx := ctxFor(t)
	p := open(t, single(t), Config{Retention: time.Second}).Asks()
	got := make(chan store.Entry, 8)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Changes(wctx, func(e store.Entry) { got <- e }) }()
	defer func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Changes returned %v, want context.Canceled", err)
		}
	}()
	if e := <-got; e.Key != "" {
		t.Fatalf("Changes began with %+v; want the empty mark", e)
	}
	rev, err := p.Create(ctx, "s1.a", []byte(`x`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []store.Entry
	for {
		select {
		case e := <-got:
			seen = append(seen, e)
			if e.Key != "s1.a" || e.Data != nil {
				continue
			}
			if seen[0].Revision != rev || e.Revision <= rev {
				t.Fatalf("Changes delivered %+v; want the entry, then its removal at a later revision", seen)
			}
			if _, err := p.Get(ctx, "s1.a"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get after expiry: %v, want ErrNotFound", err)
			}
			if es, err := p.List(ctx, "s1."); err != nil || len(es) != 0 {
				t.Fatalf("List after expiry = %+v, %v; want nothing", es, err)
			}
			if _, err := p.Create(ctx, "s1.a", []byte(`again`)); err != nil {
				t.Fatalf("Create after expiry: %v", err)
			}
			return
		case <-ctx.Done():
			t.Fatalf("no removal came through Changes; it delivered %+v", seen)
		}
	}
}

func TestAsksBadKeys(t *testing.T) {
	ctx := ctxFor(t)
	p := open(t, single(t), Config{}).Asks()
	for _, key := range []string{"", "a b", "a..b", ".a", "a.", "a*", "a>", "a.>"} {
		if _, err := p.Create(ctx, key, []byte(`x`)); err == nil || !strings.Contains(err.Error(), "a key is letters, digits") {
			t.Errorf("Create(%q) = %v; want an error saying what a key may hold", key, err)
		}
		if err := p.Schedule(ctx, key, time.Now()); err == nil || !strings.Contains(err.Error(), "a key is letters, digits") {
			t.Errorf("Schedule(%q) = %v; want an error saying what a key may hold", key, err)
		}
	}
	for _, prefix := range []string{"s1", ".", "s1..", "s*.", ">", "s1.>"} { // "" is every key
		if _, err := p.List(ctx, prefix); err == nil || !strings.Contains(err.Error(), "a prefix is keys' first tokens") {
			t.Errorf("List(%q) = %v; want an error saying what a prefix is", prefix, err)
		}
	}
}

// TestAsksTimerMessages: a key's schedule is one message, replaced by the
// next, on the subject and with the headers the server schedules by; the
// key that came due leaves the stream once acknowledged.
func TestAsksTimerMessages(t *testing.T) {
	ctx := ctxFor(t)
	s := open(t, single(t), Config{})
	p := s.Asks()
	at := time.Date(2100, 1, 2, 3, 4, 5, 600_000_000, time.FixedZone("x", 3600))
	for _, when := range []time.Time{at.Add(time.Hour), at} {
		if err := p.Schedule(ctx, "s1.a", when); err != nil {
			t.Fatal(err)
		}
	}
	info, err := s.timers.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("two schedules of one key left %d messages; want the second alone", info.State.Msgs)
	}
	m, err := s.timers.GetLastMsgForSubject(ctx, s.cfg.Prefix+".timers.at.s1.a")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Header.Get("Nats-Schedule"), "@at 2100-01-02T02:04:05.6Z"; got != want {
		t.Errorf("Nats-Schedule = %q, want %q", got, want)
	}
	if got, want := m.Header.Get("Nats-Schedule-Target"), s.cfg.Prefix+".timers.due.s1.a"; got != want {
		t.Errorf("Nats-Schedule-Target = %q, want %q", got, want)
	}

	// Brought forward to now, it fires; acknowledged, it is gone, and so
	// is its schedule.
	if err := p.Schedule(ctx, "s1.a", time.Now()); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- p.Due(dctx, func(ctx context.Context, key string) error {
			got <- key
			cancel()
			return nil
		})
	}()
	if key := <-got; key != "s1.a" {
		t.Fatalf("Due delivered %q, want s1.a", key)
	}
	<-done
	// The ack may not have been sent: Due's context ended as f returned.
	// Take the key again, and ack it.
	if err := drainDue(ctx, p); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(readyWait)
	for {
		info, err := s.timers.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the timers stream still holds %d messages after the key was acknowledged", info.State.Msgs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// drainDue acknowledges every key that is due now, and returns once none
// has come for a second.
func drainDue(ctx context.Context, p store.Pending) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keys := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- p.Due(ctx, func(_ context.Context, key string) error {
			keys <- key
			return nil
		})
	}()
	for {
		select {
		case <-keys:
		case <-time.After(time.Second):
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		}
	}
}

// TestAsksDueDeadline: f's context ends dueWorkFactor ack waits after f
// was called; a key whose f overran is not with two fs at once.
func TestAsksDueDeadline(t *testing.T) {
	ctx := ctxFor(t)
	const ackWait = 100 * time.Millisecond
	p := open(t, single(t), Config{TimerAckWait: ackWait}).Asks()
	if err := p.Schedule(ctx, "s1.a", time.Now()); err != nil {
		t.Fatal(err)
	}
	type call struct {
		start    time.Time
		deadline time.Time
	}
	calls := make(chan call, 10)
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- p.Due(dctx, func(ctx context.Context, key string) error {
			d, _ := ctx.Deadline()
			calls <- call{time.Now(), d}
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	first := <-calls
	if left := first.deadline.Sub(first.start); left > dueWorkFactor*ackWait || left < dueWorkFactor*ackWait/2 {
		t.Errorf("f's context ends %v after it was called; want just under %v", left, dueWorkFactor*ackWait)
	}
	second := <-calls // after the error: the key comes again
	if second.start.Before(first.deadline) {
		t.Errorf("the key came again at %v, before the first f's context ended at %v", second.start, first.deadline)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Due returned %v, want context.Canceled", err)
	}
}

// TestAsksDueKeptInHand: a key whose f runs for many ack waits (a store
// electing a leader) stays with that f, does not go to a second caller
// meanwhile, and is acknowledged once f returns nil.
func TestAsksDueKeptInHand(t *testing.T) {
	ctx := ctxFor(t)
	const ackWait = 200 * time.Millisecond
	p := open(t, single(t), Config{TimerAckWait: ackWait}).Asks()
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan string, 10)
	cut := make(chan struct{}, 10)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for caller := range 2 {
		wg.Go(func() {
			_ = p.Due(dctx, func(ctx context.Context, key string) error {
				got <- fmt.Sprint(caller)
				select {
				case <-release:
				case <-ctx.Done():
					cut <- struct{}{}
				}
				return nil
			})
		})
	}
	if err := p.Schedule(ctx, "s1.held", time.Now()); err != nil {
		t.Fatal(err)
	}
	first := <-got
	// Ten ack waits: the key would have gone to the other caller long
	// since, were it not kept in hand.
	select {
	case c := <-got:
		t.Fatalf("the key went to caller %s while caller %s still worked on it", c, first)
	case <-cut:
		t.Fatalf("caller %s's context ended while it worked on the key, within ten ack waits", first)
	case <-time.After(10 * ackWait):
	}
	close(release)
	select {
	case c := <-got:
		t.Fatalf("the key came again, to caller %s, after it was acknowledged", c)
	case <-time.After(5 * ackWait):
	}
	cancel()
	wg.Wait()
}

// TestAsksOpen: Open makes the timers stream and its consumer as Config
// says, a second Open binds to them, and a BindOnly one creates nothing.
func TestAsksOpen(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{Prefix: "tm", Retention: time.Hour, TimerAckWait: 2 * time.Second, Memory: true})
	info, err := s.timers.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := info.Config
	if c.Name != "tm_timers" || c.MaxAge != time.Hour || !c.AllowMsgSchedules || c.Storage != jetstream.MemoryStorage || c.Retention != jetstream.WorkQueuePolicy || len(c.Subjects) != 1 || c.Subjects[0] != "tm.timers.>" {
		t.Errorf("the timers stream: %+v", c)
	}
	cons, err := s.timers.Consumer(ctx, "tm_due")
	if err != nil {
		t.Fatal(err)
	}
	if cc := cons.CachedInfo().Config; cc.AckWait != 2*time.Second || cc.MaxDeliver != -1 || cc.FilterSubject != "tm.timers.due.>" || cc.Durable != "tm_due" {
		t.Errorf("the consumer of due keys: %+v", cc)
	}
	// A later Open with another ack wait binds to what is there.
	s2 := open(t, js, Config{Prefix: "tm", TimerAckWait: 5 * time.Second, Memory: true})
	cons, err = s2.timers.Consumer(ctx, "tm_due")
	if err != nil || cons.CachedInfo().Config.AckWait != 2*time.Second {
		t.Errorf("after a second Open, the consumer: %v, %v; want the first Open's ack wait", cons, err)
	}
	if _, err := Open(ctx, js, Config{Prefix: "tm", TimerAckWait: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "at least 100ms") {
		t.Errorf("Open with a 1ms ack wait = %v; want an error saying the least", err)
	}
}
