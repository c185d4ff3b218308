package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/askuser-go/askuser/store"
)

// RunNotes checks a store.Notes implementation: a create-only write wins
// once (also when replicas race), compare-and-set refuses a stale
// revision, a missing key is ErrNotFound, and List reads one prefix. open
// returns a fresh, empty Notes for each check, whose time to live is
// longer than the check. Expiry is the implementation's to test.
func RunNotes(t *testing.T, open func(t *testing.T) store.Notes) {
	ctx := context.Background()
	t.Run("create-once", func(t *testing.T) {
		n := open(t)
		rev, err := n.Create(ctx, "seen.a", []byte("1"))
		if err != nil || rev == 0 {
			t.Fatalf("Create: %d, %v; want a revision", rev, err)
		}
		if _, err := n.Create(ctx, "seen.a", []byte("2")); !errors.Is(err, store.ErrExists) {
			t.Fatalf("a second Create: %v; want ErrExists", err)
		}
		if e, err := n.Get(ctx, "seen.a"); err != nil || string(e.Data) != "1" || e.Revision != rev {
			t.Fatalf("Get: %+v, %v; want the first value at its revision", e, err)
		}
	})
	t.Run("create-race", func(t *testing.T) {
		n := open(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := range 16 {
			wg.Go(func() {
				if _, err := n.Create(ctx, "seen.race", fmt.Appendf(nil, "%d", i)); err == nil {
					mu.Lock()
					won++
					mu.Unlock()
				} else if !errors.Is(err, store.ErrExists) {
					t.Errorf("Create: %v", err)
				}
			})
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d creates of one key won; want 1", won)
		}
	})
	t.Run("compare-and-set", func(t *testing.T) {
		n := open(t)
		rev, err := n.Create(ctx, "msg.a", []byte("posting"))
		if err != nil {
			t.Fatal(err)
		}
		next, err := n.Update(ctx, "msg.a", []byte("posted"), rev)
		if err != nil || next <= rev {
			t.Fatalf("Update: %d, %v; want a newer revision", next, err)
		}
		if _, err := n.Update(ctx, "msg.a", []byte("stale"), rev); !errors.Is(err, store.ErrChanged) {
			t.Fatalf("an Update at a stale revision: %v; want ErrChanged", err)
		}
		if _, err := n.Update(ctx, "msg.none", []byte("x"), 1); !errors.Is(err, store.ErrChanged) {
			t.Fatalf("an Update of a missing key: %v; want ErrChanged", err)
		}
		if e, _ := n.Get(ctx, "msg.a"); string(e.Data) != "posted" {
			t.Fatalf("Get: %q; want the update's value", e.Data)
		}
	})
	t.Run("missing", func(t *testing.T) {
		n := open(t)
		if _, err := n.Get(ctx, "msg.none"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Get of a missing key: %v; want ErrNotFound", err)
		}
	})
	t.Run("list", func(t *testing.T) {
		n := open(t)
		for _, k := range []string{"msg.a", "seen.b", "msg.c"} {
			if _, err := n.Create(ctx, k, []byte(k)); err != nil {
				t.Fatal(err)
			}
		}
		es, err := n.List(ctx, "msg.")
		if err != nil {
			t.Fatal(err)
		}
		if len(es) != 2 || es[0].Key != "msg.a" || es[1].Key != "msg.c" || string(es[1].Data) != "msg.c" {
			t.Fatalf("List(msg.): %+v; want msg.a then msg.c", es)
		}
		if _, err := n.List(ctx, "msg"); err == nil {
			t.Error("List of a prefix without its dot: no error")
		}
	})
}
