package natsstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askuser-go/askuser/store"
	"github.com/askuser-go/askuser/store/storetest"
)

func TestNotes(t *testing.T) {
	js := single(t)
	storetest.RunNotes(t, func(t *testing.T) store.Notes {
		n, err := open(t, js, Config{}).Notes(context.Background(), "test", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return n
	})
}

// TestNotesShared: two stores on one server with the same prefix (two
// replicas) share a bucket: a create on one is refused on the other; bad
// names and time to live are refused.
func TestNotesShared(t *testing.T) {
	js := single(t)
	ctx := context.Background()
	a, err := Open(ctx, js, Config{Prefix: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, js, Config{Prefix: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	na, err := a.Notes(ctx, "slack", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.Notes(ctx, "slack", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := na.Create(ctx, "seen.x", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.Create(ctx, "seen.x", nil); !errors.Is(err, store.ErrExists) {
		t.Fatalf("a create on the other replica: %v; want ErrExists", err)
	}
	if _, err := a.Notes(ctx, "no spaces", time.Hour); err == nil {
		t.Error("a name with a space was taken")
	}
	if _, err := a.Notes(ctx, "x", time.Millisecond); err == nil {
		t.Error("a time to live under a second was taken")
	}
}
