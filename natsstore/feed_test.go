package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// A record whose delivery failed twice comes a third time, and once
// acknowledged never again; a record journaled before the feed was made is
// not delivered.
func TestFeedRetriesUntilAcknowledged(t *testing.T) {
	js := single(t)
	s := open(t, js, Config{})
	j := s.Journal()
	ctx := ctxFor(t)
	if err := j.Append(ctx, stored(record("a0", "s", "c0"))); err != nil {
		t.Fatal(err)
	}
	if err := j.MakeFeed(ctx, "hook"); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(ctx, stored(record("a1", "s", "c1"))); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	attempts := map[string][]int{}
	got := make(chan Delivery, 16)
	fctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- j.Feed(fctx, "hook", func(ctx context.Context, d Delivery) error {
			mu.Lock()
			attempts[d.AskID] = append(attempts[d.AskID], d.Attempt)
			n := len(attempts[d.AskID])
			mu.Unlock()
			got <- d
			if d.AskID == "a1" && n <= 2 {
				return errors.New("the receiver answered 500")
			}
			return nil
		})
	}()
	next := func() Delivery {
		t.Helper()
		select {
		case d := <-got:
			return d
		case <-time.After(30 * time.Second):
			t.Fatal("no delivery within 30s")
			return Delivery{}
		}
	}
	for i := 1; i <= 3; i++ {
		d := next()
		if d.AskID != "a1" || d.Attempt != i || !strings.Contains(string(d.Record), `"ask_id":"a1"`) {
			t.Fatalf("delivery %d: %s attempt %d %s; want a1's record, attempt %d", i, d.AskID, d.Attempt, d.Record, i)
		}
	}
	// A later record is delivered once; a1 does not come again.
	if err := j.Append(ctx, stored(record("a2", "s", "c2"))); err != nil {
		t.Fatal(err)
	}
	if d := next(); d.AskID != "a2" || d.Attempt != 1 {
		t.Fatalf("after a1: %s attempt %d; want a2, attempt 1", d.AskID, d.Attempt)
	}
	cons, err := j.stream.Consumer(ctx, s.cfg.Prefix+"_feed_hook")
	if err != nil {
		t.Fatal(err)
	}
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the feed still holds records: %+v", info)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Feed returned %v at the end of its context; want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := fmt.Sprint(map[string][]int{"a1": {1, 2, 3}, "a2": {1}}); fmt.Sprint(attempts) != want {
		t.Errorf("attempts %v; want %s (a0 came before the feed)", attempts, want)
	}
}

// A record held by a process that dies before acknowledging it goes to
// another process on the same feed.
func TestFeedOutlivesAProcess(t *testing.T) {
	e, err := natsserver.Start(natsserver.Config{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	jsA, jsB := jsOn(t, e), jsOn(t, e)
	cfg := Config{Prefix: "feedkill", FeedAckWait: 300 * time.Millisecond}
	a, b := open(t, jsA, cfg).Journal(), open(t, jsB, cfg).Journal()
	ctx := ctxFor(t)
	if err := a.MakeFeed(ctx, "hook"); err != nil {
		t.Fatal(err)
	}

	held := make(chan Delivery, 1)
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	aDone := make(chan error, 1)
	go func() {
		aDone <- a.Feed(actx, "hook", func(ctx context.Context, d Delivery) error {
			held <- d
			<-actx.Done() // the process is gone before it answers
			return errors.New("killed")
		})
	}()
	if err := b.Append(ctx, stored(record("k1", "s", "c1"))); err != nil {
		t.Fatal(err)
	}
	var first Delivery
	select {
	case first = <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("process A never got the record")
	}
	// A dies: its connection is gone, its record unacknowledged.
	jsA.Conn().Close()
	acancel()
	<-aDone

	got := make(chan Delivery, 1)
	bctx, bcancel := context.WithCancel(context.Background())
	defer bcancel()
	bDone := make(chan error, 1)
	go func() {
		bDone <- b.Feed(bctx, "hook", func(ctx context.Context, d Delivery) error {
			got <- d
			return nil
		})
	}()
	select {
	case d := <-got:
		if d.AskID != "k1" || d.Attempt != first.Attempt+1 {
			t.Errorf("B got %s attempt %d; want k1, attempt %d", d.AskID, d.Attempt, first.Attempt+1)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the record A held never reached B")
	}
	bcancel()
	<-bDone
}

func TestFeedName(t *testing.T) {
	s := open(t, single(t), Config{})
	for _, name := range []string{"", "a.b", "a b", strings.Repeat("x", 65)} {
		if err := s.Journal().MakeFeed(ctxFor(t), name); err == nil || !strings.Contains(err.Error(), "1 to 64 letters") {
			t.Errorf("MakeFeed(%q) = %v; want an error saying what a name is", name, err)
		}
	}
	if _, err := Open(ctxFor(t), single(t), Config{FeedAckWait: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "at least 100ms") {
		t.Errorf("a 1ms feed ack wait: %v", err)
	}
}
