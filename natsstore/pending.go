package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
)

// Pending returns the store's pending asks, an askuser.PendingStore in
// the <prefix>_pending bucket. Revisions are the bucket's stream sequence
// numbers.
func (s *Store) Pending() askuser.PendingStore {
	return pending{kv: s.pending, stream: s.pendingStream}
}

type pending struct {
	kv     jetstream.KeyValue
	stream jetstream.Stream

	readWorkers int // how many ranges readCurrent reads at once; 0 is readWorkers (benchmarks set it)
}

// keyErr explains a key the bucket refuses.
func keyErr(op, key string, err error) error {
	if errors.Is(err, jetstream.ErrInvalidKey) {
		return fmt.Errorf("natsstore: %s %q: %w (a key is letters, digits, '-', '_', '=', '/' and dots between them)", op, key, err)
	}
	return fmt.Errorf("natsstore: %s %q: %w", op, key, err)
}

func (p pending) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	rev, err := p.kv.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, fmt.Errorf("natsstore: creating pending ask %s: %w", key, askuser.ErrPendingExists)
	}
	if err != nil {
		return 0, keyErr("creating pending ask", key, err)
	}
	return rev, nil
}

func (p pending) Get(ctx context.Context, key string) (askuser.PendingEntry, error) {
	e, err := p.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return askuser.PendingEntry{}, fmt.Errorf("natsstore: reading pending ask %s: %w", key, askuser.ErrPendingNotFound)
	}
	if err != nil {
		return askuser.PendingEntry{}, keyErr("reading pending ask", key, err)
	}
	return askuser.PendingEntry{Key: key, Data: e.Value(), Revision: e.Revision()}, nil
}

func (p pending) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if rev == 0 {
		// To JetStream, revision 0 means "the key holds nothing": the
		// write would create the key. No entry has revision 0.
		return 0, fmt.Errorf("natsstore: updating pending ask %s at revision 0: %w", key, askuser.ErrPendingChanged)
	}
	for try := 0; ; try++ {
		n, err := p.kv.Update(ctx, key, data, rev)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, keyErr("updating pending ask", key, err)
		}
		// A clustered stream serializes writes that expect a revision
		// by refusing one while another to the same key is in flight;
		// when that other fails too, both are refused though the key is
		// still at rev. The key is read again: only a newer revision is
		// a real conflict; at rev, the write is tried again.
		cur, gerr := p.kv.Get(ctx, key)
		if gerr != nil || cur.Revision() != rev || try >= maxSpuriousConflicts {
			return 0, fmt.Errorf("natsstore: updating pending ask %s at revision %d: %w", key, rev, askuser.ErrPendingChanged)
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

// maxSpuriousConflicts bounds how often Update tries again a write the
// stream refused while the key was still at the revision it expected.
const maxSpuriousConflicts = 8

// Watch reads the entries as they are from the bucket's stream leader,
// then follows the stream from the next revision. (A watcher alone would
// not do: JetStream may serve it from a replica that is behind, and its
// "caught up" would come before the latest writes.) Reading the current
// entries takes one request per entry, up to 16 at a time (see
// readCurrent).
func (p pending) Watch(ctx context.Context, f func(askuser.PendingEntry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The watcher starts after the stream's last revision as the leader
	// has it, and exists before f hears "caught up": nothing written
	// after that is missed.
	info, err := p.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("natsstore: watching pending asks: %w", err)
	}
	last := info.State.LastSeq
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := p.kv.WatchAll(wctx, jetstream.IncludeHistory(), jetstream.ResumeFromRevision(last+1))
	if err != nil {
		return fmt.Errorf("natsstore: watching pending asks: %w", err)
	}
	defer stopWatcher(w)

	if err := p.readCurrent(ctx, last, f); err != nil {
		return err
	}
	f(askuser.PendingEntry{})

	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				if err := ctx.Err(); err != nil {
					return err
				}
				return errors.New("natsstore: the watch of pending asks ended: the NATS connection was closed")
			case e == nil || e.Revision() <= last:
				// The watcher's own "caught up", or (should the server
				// start early) what was read already.
			case e.Operation() != jetstream.KeyValuePut:
				f(askuser.PendingEntry{Key: e.Key()})
			default:
				f(askuser.PendingEntry{Key: e.Key(), Data: e.Value(), Revision: e.Revision()})
			}
		}
	}
}

// Reading the current entries: each request asks the stream's leader
// for the next message at or after a sequence number, so a read of n
// entries takes n round trips. The sequence numbers up to last are cut
// into up to readWorkers ranges of at least readRange, read side by side.
const (
	readWorkers = 16
	readRange   = 256
)

// readCurrent hands f the entries of the bucket's stream up to sequence
// last, as its leader has them, in sequence order (each key is there at
// most once: the bucket keeps one message per key).
func (p pending) readCurrent(ctx context.Context, last uint64, f func(askuser.PendingEntry)) error {
	workers := uint64(readWorkers)
	if p.readWorkers > 0 {
		workers = uint64(p.readWorkers)
	}
	n := min(workers, max(1, last/readRange))
	size := (last + n - 1) / n
	type part struct {
		entries []askuser.PendingEntry
		err     error
		done    chan struct{}
	}
	ctx, cancel := context.WithCancel(ctx)
	parts := make([]part, n)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	for i := range parts {
		parts[i].done = make(chan struct{})
		lo, hi := 1+uint64(i)*size, min(last, uint64(i+1)*size)
		wg.Go(func() {
			defer close(parts[i].done)
			parts[i].entries, parts[i].err = p.readRange(ctx, lo, hi)
		})
	}
	for i := range parts {
		<-parts[i].done
		if err := parts[i].err; err != nil {
			return fmt.Errorf("natsstore: reading pending asks: %w", err)
		}
		for _, e := range parts[i].entries {
			f(e)
		}
		parts[i].entries = nil
	}
	return nil
}

// readRange returns the entries whose sequence numbers are in [lo, hi].
func (p pending) readRange(ctx context.Context, lo, hi uint64) ([]askuser.PendingEntry, error) {
	prefix := "$KV." + p.kv.Bucket() + "."
	var out []askuser.PendingEntry
	for seq := lo; seq <= hi; {
		m, err := p.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(prefix+">"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		if m.Sequence > hi {
			break
		}
		if m.Header.Get("KV-Operation") == "" && m.Header.Get(jetstream.MarkerReasonHeader) == "" {
			out = append(out, askuser.PendingEntry{Key: strings.TrimPrefix(m.Subject, prefix), Data: m.Data, Revision: m.Sequence})
		}
		seq = m.Sequence + 1
	}
	return out, nil
}

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
