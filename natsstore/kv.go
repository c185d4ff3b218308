package natsstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// keyErr explains a key the bucket refuses.
func keyErr(op, key string, err error) error {
	if errors.Is(err, jetstream.ErrInvalidKey) {
		return fmt.Errorf("natsstore: %s %q: %w (a key is letters, digits, '-', '_', '=', '/' and dots between them)", op, key, err)
	}
	return fmt.Errorf("natsstore: %s %q: %w", op, key, err)
}

// maxSpuriousConflicts bounds how often Update tries again a write the
// stream refused while the key was still at the revision it expected.
const maxSpuriousConflicts = 8

// stopWatcher stops w and drains what it still delivers until its channel
// closes: its subscription's handler blocks on a full channel, and only
// returns, so that the subscription can end, once someone reads.
func stopWatcher(w jetstream.KeyWatcher) {
	_ = w.Stop()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case _, ok := <-w.Updates():
			if !ok {
				return
			}
		case <-timeout.C:
			return // bounded: a stuck connection must not hang the caller
		}
	}
}

// entries returns the current entries of kv under filter (a key pattern).
func entries(ctx context.Context, kv jetstream.KeyValue, filter string) ([]jetstream.KeyValueEntry, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := kv.Watch(wctx, filter, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer stopWatcher(w)
	var out []jetstream.KeyValueEntry
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("the NATS connection was closed")
			}
			if e == nil {
				return out, nil
			}
			out = append(out, e)
		}
	}
}
