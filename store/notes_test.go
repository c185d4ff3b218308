package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askuser-go/askuser/store"
	"github.com/askuser-go/askuser/store/storetest"
)

func TestMemoryNotes(t *testing.T) {
	storetest.RunNotes(t, func(*testing.T) store.Notes { return &store.MemoryNotes{} })
}

// TestMemoryNotesExpire: a note is gone once its time to live has passed
// since its last write, and its key can be created again.
func TestMemoryNotesExpire(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	n := &store.MemoryNotes{TTL: time.Minute, Now: func() time.Time { return now }}
	ctx := context.Background()
	rev, err := n.Create(ctx, "seen.a", nil)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(50 * time.Second)
	if _, err := n.Update(ctx, "seen.a", []byte("x"), rev); err != nil {
		t.Fatal(err)
	}
	now = now.Add(50 * time.Second) // 100 s after the create, 50 after the update
	if _, err := n.Get(ctx, "seen.a"); err != nil {
		t.Fatalf("a note written 50 s ago with a TTL of a minute: %v", err)
	}
	now = now.Add(10 * time.Second)
	if _, err := n.Get(ctx, "seen.a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a note past its TTL: %v; want ErrNotFound", err)
	}
	if es, _ := n.List(ctx, "seen."); len(es) != 0 {
		t.Fatalf("List shows a note past its TTL: %+v", es)
	}
	if _, err := n.Create(ctx, "seen.a", nil); err != nil {
		t.Fatalf("Create of an expired key: %v", err)
	}
	if n.Len() != 1 {
		t.Errorf("%d notes kept; want 1", n.Len())
	}
	// Keys never read again are dropped too, once their time has passed.
	for _, k := range []string{"seen.x", "seen.y"} {
		if _, err := n.Create(ctx, k, nil); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(2 * time.Minute)
	if _, err := n.Create(ctx, "seen.z", nil); err != nil {
		t.Fatal(err)
	}
	if n.Len() != 1 {
		t.Errorf("%d notes kept after their time; want only the newest", n.Len())
	}
	if _, err := n.Create(ctx, "bad key", nil); err == nil {
		t.Error("a key with a space was taken")
	}
}
