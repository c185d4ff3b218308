package natsstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/store"
)

// kvCreate, kvGet and kvUpdate are the create-only write, the read and the
// compare-and-set write of a key, with the store's sentinel errors; what
// names the kind of entry in their errors ("pending ask", "note").

func kvCreate(ctx context.Context, kv jetstream.KeyValue, what, key string, data []byte) (uint64, error) {
	rev, err := kv.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, fmt.Errorf("natsstore: creating %s %s: %w", what, key, store.ErrExists)
	}
	if err != nil {
		return 0, keyErr("creating "+what, key, err)
	}
	return rev, nil
}

func kvGet(ctx context.Context, kv jetstream.KeyValue, what, key string) (store.Entry, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return store.Entry{}, fmt.Errorf("natsstore: reading %s %s: %w", what, key, store.ErrNotFound)
	}
	if err != nil {
		return store.Entry{}, keyErr("reading "+what, key, err)
	}
	return store.Entry{Key: key, Data: nonNil(e.Value()), Revision: e.Revision()}, nil
}

func kvUpdate(ctx context.Context, kv jetstream.KeyValue, what, key string, data []byte, rev uint64) (uint64, error) {
	if rev == 0 {
		// To JetStream, revision 0 means "the key holds nothing": the
		// write would create the key. No entry has revision 0.
		return 0, fmt.Errorf("natsstore: updating %s %s at revision 0: %w", what, key, store.ErrChanged)
	}
	for try := 0; ; try++ {
		n, err := kv.Update(ctx, key, data, rev)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, keyErr("updating "+what, key, err)
		}
		// A clustered stream refuses a write that expects a revision
		// while another to the same key is in flight; when that other
		// fails too, both are refused though the key is still at rev.
		// Only a newer revision is a real conflict; at rev, the write
		// is tried again.
		cur, gerr := kv.Get(ctx, key)
		if gerr != nil || cur.Revision() != rev || try >= maxSpuriousConflicts {
			return 0, fmt.Errorf("natsstore: updating %s %s at revision %d: %w", what, key, rev, store.ErrChanged)
		}
		t := time.NewTimer(time.Duration(1+try) * 5 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	}
}
