package natsstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser/store"
	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterSurvives: with three replicas, pending asks and the journal
// keep working while one node (the client's own) is down, and everything
// is still there after the whole cluster restarts from its files.
func TestClusterSurvives(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	ctx := ctxFor(t)
	js := c.connect(t, 0)
	s := open(t, js, Config{Replicas: 3, Prefix: "fleet"})
	p, j := s.Asks(), s.Journal()
	want := map[string]store.Entry{}
	put := func(key, data string) {
		t.Helper()
		var rev uint64
		var err error
		if e, ok := want[key]; ok {
			rev, err = p.Update(ctx, key, []byte(data), e.Revision)
		} else {
			rev, err = p.Create(ctx, key, []byte(data))
		}
		if err != nil {
			t.Fatalf("writing %s: %v", key, err)
		}
		want[key] = store.Entry{Key: key, Data: []byte(data), Revision: rev}
	}
	check := func(p store.Pending, when string) {
		t.Helper()
		for k, w := range want {
			e, err := p.Get(ctx, k)
			if err != nil || string(e.Data) != string(w.Data) || e.Revision != w.Revision {
				t.Fatalf("%s: Get(%s) = %q rev %d, %v; want %q rev %d", when, k, e.Data, e.Revision, err, w.Data, w.Revision)
			}
		}
	}
	put("0a", "a pending")
	put("0b", "b pending")
	if err := j.Append(ctx, stored(record("ask-a", "s1", "tc1"))); err != nil {
		t.Fatal(err)
	}

	// A watcher started before the node goes down keeps delivering.
	wctx, cancel := context.WithCancel(context.Background()) // it outlives ctx, renewed below
	got := make(chan store.Entry, 64)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := p.Changes(wctx, func(e store.Entry) { got <- e })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Changes returned %v, want context.Canceled", err)
		}
	})
	defer func() { cancel(); wg.Wait() }()
	for e := range got {
		if e.Key == "" {
			break // caught up
		}
	}

	c.kill(0) // the node the client is connected to
	// Once the client has found another node and the two left have
	// taken over what the third led, everything works as before.
	// (Meanwhile a request may go unanswered, and wait out its context.)
	waitConnected(t, js)
	c.waitReady(t)
	ctx = ctxFor(t)
	put("0a", "a answered on two of three")
	put("0c", "c asked on two of three")
	check(p, "one node down")
	if err := j.Append(ctx, stored(record("ask-c", "s1", "tc3"))); err != nil {
		t.Fatalf("Append with one node down: %v", err)
	}
	if rec, ok, err := j.FindResult(ctx, "s1", "tc3"); err != nil || !ok || rec.AskID != "ask-c" {
		t.Fatalf("FindResult with one node down = %v, %v, %v", rec, ok, err)
	}
	for _, k := range []string{"0a", "0c"} {
		select {
		case e := <-got:
			if e.Key != k || string(e.Data) != string(want[k].Data) {
				t.Fatalf("the watcher got %s %q; want %s %q", e.Key, e.Data, k, want[k].Data)
			}
		case <-ctx.Done():
			t.Fatalf("the watcher got no change after a node went down")
		}
	}
	c.restart(t, 0)

	c.restartAll(t)
	waitConnected(t, js)
	ctx = ctxFor(t)
	s2 := open(t, c.connect(t, 2), Config{Replicas: 3, Prefix: "fleet"})
	check(s2.Asks(), "after the whole cluster restarted")
	put("0b", "b answered after the restart") // through the first client, reconnected
	check(s2.Asks(), "after a write following the restart")
	for tc, ask := range map[string]string{"tc1": "ask-a", "tc3": "ask-c"} {
		if rec, ok, err := s2.Journal().FindResult(ctx, "s1", tc); err != nil || !ok || rec.AskID != ask {
			t.Fatalf("FindResult(%s) after the restart = %v, %v, %v", tc, rec, ok, err)
		}
	}
}

// waitConnected waits until js's connection is connected again.
func waitConnected(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	deadline := time.Now().Add(readyWait)
	for !js.Conn().IsConnected() {
		if time.Now().After(deadline) {
			t.Fatalf("the client had not reconnected after %v", readyWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusterJournalOnce: two replicas on different nodes journal the
// same ask at once; the stream keeps one record.
func TestClusterJournalOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	ctx := ctxFor(t)
	var js []*Journal
	for i := range 3 {
		js = append(js, open(t, c.connect(t, i), Config{Replicas: 3, Prefix: "j"}).Journal())
	}
	const asks = 20
	var wg sync.WaitGroup
	for i := range asks {
		for _, j := range js {
			wg.Go(func() {
				if err := j.Append(ctx, stored(record("ask"+string(rune('a'+i)), "s", "tc"+string(rune('a'+i))))); err != nil {
					t.Errorf("Append: %v", err)
				}
			})
		}
	}
	wg.Wait()
	rs, err := js[1].Records(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != asks {
		t.Fatalf("%d replicas journaling %d asks left %d records; want one per ask", len(js), asks, len(rs))
	}
}
