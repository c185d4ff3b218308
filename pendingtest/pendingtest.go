// Package pendingtest is the conformance suite for askuser.PendingStore
// implementations: what every store of pending asks must do for the
// orchestrator to share asks safely across processes.
//
// Use it from a test of the implementation:
//
//	func TestConformance(t *testing.T) {
//		pendingtest.Run(t, func(t *testing.T) askuser.PendingStore {
//			return mystore.New(...) // an empty store
//		})
//	}
package pendingtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
)

// Rounds is how many times the concurrent-update case races two writers.
const Rounds = 40

// wait bounds every wait of the suite: a store that has not answered by
// then is broken, not slow.
const wait = 20 * time.Second

// Run runs every case against stores made by open. Each call of open must
// return a store that holds nothing (a fresh one, or one under a prefix of
// its own); the store is not closed by Run, so open registers any cleanup
// with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) askuser.PendingStore) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*wait)
			defer cancel()
			c.run(ctx, t, open(t))
		})
	}
}

var cases = []struct {
	name string
	run  func(ctx context.Context, t *testing.T, s askuser.PendingStore)
}{
	{"create", testCreate},
	{"get-missing", testGetMissing},
	{"update", testUpdate},
	{"revisions-increase", testRevisions},
	{"watch", testWatch},
	{"watch-ended-context", testWatchEnded},
	{"concurrent-updates-one-wins", testConcurrentUpdates},
	{"not-aliased", testNotAliased},
}

// newKey returns a fresh hex key, as the orchestrator's keys are.
func newKey() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func mustCreate(ctx context.Context, t *testing.T, s askuser.PendingStore, key string, data []byte) uint64 {
	t.Helper()
	rev, err := s.Create(ctx, key, data)
	if err != nil {
		t.Fatalf("Create(%s) on a free key: %v", key, err)
	}
	if rev == 0 {
		t.Fatalf("Create(%s) returned revision 0; revisions are positive", key)
	}
	return rev
}

// wantEntry checks that key holds data at rev.
func wantEntry(ctx context.Context, t *testing.T, s askuser.PendingStore, key string, data []byte, rev uint64) {
	t.Helper()
	e, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	if e.Key != key || !bytes.Equal(e.Data, data) || e.Revision != rev {
		t.Fatalf("Get(%s) = {Key %q, Data %q, Revision %d}, want {Key %q, Data %q, Revision %d}", key, e.Key, e.Data, e.Revision, key, data, rev)
	}
}

func testCreate(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	key := newKey()
	rev := mustCreate(ctx, t, s, key, []byte(`{"v":1}`))
	wantEntry(ctx, t, s, key, []byte(`{"v":1}`), rev)
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"same data", []byte(`{"v":1}`)},
		{"other data", []byte(`{"v":2}`)},
		{"empty data", []byte{}},
	} {
		got, err := s.Create(ctx, key, tt.data)
		if !errors.Is(err, askuser.ErrPendingExists) {
			t.Errorf("Create on a taken key (%s) = %d, %v; want an error wrapping ErrPendingExists", tt.name, got, err)
		}
		wantEntry(ctx, t, s, key, []byte(`{"v":1}`), rev)
	}
}

func testGetMissing(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	mustCreate(ctx, t, s, newKey(), []byte(`{}`)) // another key exists
	key := newKey()
	e, err := s.Get(ctx, key)
	if !errors.Is(err, askuser.ErrPendingNotFound) {
		t.Errorf("Get on a missing key = %+v, %v; want an error wrapping ErrPendingNotFound", e, err)
	}
}

func testUpdate(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	key := newKey()
	rev1 := mustCreate(ctx, t, s, key, []byte(`1`))
	rev2, err := s.Update(ctx, key, []byte(`2`), rev1)
	if err != nil {
		t.Fatalf("Update with the current revision: %v", err)
	}
	if rev2 <= rev1 {
		t.Fatalf("Update returned revision %d after %d; revisions increase with every write", rev2, rev1)
	}
	wantEntry(ctx, t, s, key, []byte(`2`), rev2)

	missing := newKey()
	for _, tt := range []struct {
		name string
		key  string
		rev  uint64
	}{
		{"stale revision", key, rev1},
		{"revision from the future", key, rev2 + 1000},
		{"revision zero", key, 0},
		{"missing key", missing, rev2},
		{"missing key, revision zero", missing, 0},
	} {
		got, err := s.Update(ctx, tt.key, []byte(`lost`), tt.rev)
		if !errors.Is(err, askuser.ErrPendingChanged) {
			t.Errorf("Update (%s) = %d, %v; want an error wrapping ErrPendingChanged", tt.name, got, err)
		}
	}
	wantEntry(ctx, t, s, key, []byte(`2`), rev2)
	if e, err := s.Get(ctx, missing); !errors.Is(err, askuser.ErrPendingNotFound) {
		t.Errorf("a refused Update of a missing key stored something: Get = %+v, %v", e, err)
	}
}

func testRevisions(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	keys := []string{newKey(), newKey()}
	last := map[string]uint64{}
	for _, k := range keys {
		last[k] = mustCreate(ctx, t, s, k, []byte(`0`))
	}
	for i := range 10 {
		k := keys[i%2]
		rev, err := s.Update(ctx, k, fmt.Appendf(nil, "%d", i), last[k])
		if err != nil {
			t.Fatalf("Update %d: %v", i, err)
		}
		if rev <= last[k] {
			t.Fatalf("write %d to %s got revision %d after %d; revisions increase per key", i, k, rev, last[k])
		}
		last[k] = rev
	}
	for _, k := range keys {
		e, err := s.Get(ctx, k)
		if err != nil || e.Revision != last[k] {
			t.Errorf("Get(%s) = revision %d, %v; want %d, the last write's", k, e.Revision, err, last[k])
		}
	}
}

// watcher runs Watch in a goroutine and hands over what f gets.
type watcher struct {
	got    chan askuser.PendingEntry
	done   chan error
	cancel context.CancelFunc
}

func startWatch(ctx context.Context, s askuser.PendingStore) *watcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{got: make(chan askuser.PendingEntry, 1024), done: make(chan error, 1), cancel: cancel}
	go func() {
		w.done <- s.Watch(ctx, func(e askuser.PendingEntry) {
			e.Data = slices.Clone(e.Data) // the test keeps it past f
			select {
			case w.got <- e:
			case <-ctx.Done():
			}
		})
	}()
	return w
}

func (w *watcher) next(t *testing.T, what string) askuser.PendingEntry {
	t.Helper()
	select {
	case e := <-w.got:
		return e
	case err := <-w.done:
		t.Fatalf("Watch returned %v while the test waited for %s", err, what)
	case <-time.After(wait):
		t.Fatalf("Watch delivered nothing in %v while the test waited for %s", wait, what)
	}
	panic("unreachable")
}

// stop ends the watch and checks that it returns ctx's error.
func (w *watcher) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	select {
	case err := <-w.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch returned %v when its context was cancelled; want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatalf("Watch had not returned %v after its context was cancelled", wait)
	}
}

func sameEntry(a, b askuser.PendingEntry) bool {
	return a.Key == b.Key && a.Revision == b.Revision && bytes.Equal(a.Data, b.Data)
}

func testWatch(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	a, b := newKey(), newKey()
	revA := mustCreate(ctx, t, s, a, []byte(`a1`))
	revB := mustCreate(ctx, t, s, b, []byte(`b1`))
	revA, err := s.Update(ctx, a, []byte(`a2`), revA)
	if err != nil {
		t.Fatal(err)
	}
	w := startWatch(ctx, s)
	defer w.cancel()

	want := []askuser.PendingEntry{{Key: a, Data: []byte(`a2`), Revision: revA}, {Key: b, Data: []byte(`b1`), Revision: revB}}
	var initial []askuser.PendingEntry
	for {
		e := w.next(t, "the current entries and the caught-up mark")
		if e.Key == "" {
			if e.Data != nil || e.Revision != 0 {
				t.Errorf("the caught-up mark is %+v; want an empty PendingEntry", e)
			}
			break
		}
		initial = append(initial, e)
	}
	if len(initial) != len(want) || !slices.ContainsFunc(initial, func(e askuser.PendingEntry) bool { return sameEntry(e, want[0]) }) ||
		!slices.ContainsFunc(initial, func(e askuser.PendingEntry) bool { return sameEntry(e, want[1]) }) {
		t.Fatalf("Watch delivered %s before catching up; want each current entry once: %s", show(initial), show(want))
	}

	// Changes after the mark come in revision order, and each key's last
	// one comes; one that a newer write to its key replaced may be passed
	// over (a store that keeps one value per key drops it), and a refused
	// write is no change.
	c := newKey()
	var changes []askuser.PendingEntry
	rev, err := s.Update(ctx, b, []byte(`b2`), revB)
	if err != nil {
		t.Fatal(err)
	}
	changes = append(changes, askuser.PendingEntry{Key: b, Data: []byte(`b2`), Revision: rev})
	rev, err = s.Create(ctx, c, []byte(`c1`))
	if err != nil {
		t.Fatal(err)
	}
	changes = append(changes, askuser.PendingEntry{Key: c, Data: []byte(`c1`), Revision: rev})
	rev, err = s.Update(ctx, a, []byte(`a3`), revA)
	if err != nil {
		t.Fatal(err)
	}
	changes = append(changes, askuser.PendingEntry{Key: a, Data: []byte(`a3`), Revision: rev})
	// A refused write is no change.
	if _, err := s.Update(ctx, a, []byte(`lost`), revA); !errors.Is(err, askuser.ErrPendingChanged) {
		t.Fatalf("stale Update: %v", err)
	}
	if _, err := s.Create(ctx, c, []byte(`lost`)); !errors.Is(err, askuser.ErrPendingExists) {
		t.Fatalf("Create on a taken key: %v", err)
	}
	rev, err = s.Update(ctx, c, []byte(`c2`), changes[1].Revision)
	if err != nil {
		t.Fatal(err)
	}
	changes = append(changes, askuser.PendingEntry{Key: c, Data: []byte(`c2`), Revision: rev})
	lastOf := map[string]uint64{}
	for _, ch := range changes {
		lastOf[ch.Key] = ch.Revision
	}
	var delivered []askuser.PendingEntry
	for len(lastOf) > 0 {
		got := w.next(t, fmt.Sprintf("the last change of %d keys", len(lastOf)))
		delivered = append(delivered, got)
		i := slices.IndexFunc(changes, func(ch askuser.PendingEntry) bool { return sameEntry(got, ch) })
		if i < 0 {
			t.Fatalf("Watch delivered %s, which is no change the test made (a refused write is none); the changes: %s", show([]askuser.PendingEntry{got}), show(changes))
		}
		if len(delivered) > 1 && got.Revision <= delivered[len(delivered)-2].Revision {
			t.Fatalf("Watch delivered the changes %s; want them in revision order", show(delivered))
		}
		if lastOf[got.Key] == got.Revision {
			delete(lastOf, got.Key)
		}
	}
	w.stop(t)
}

func show(es []askuser.PendingEntry) string {
	var b bytes.Buffer
	for _, e := range es {
		fmt.Fprintf(&b, "{%s %q rev %d} ", e.Key, e.Data, e.Revision)
	}
	return b.String()
}

func testWatchEnded(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	mustCreate(ctx, t, s, newKey(), []byte(`x`))
	done, cancel := context.WithCancel(ctx)
	cancel()
	res := make(chan error, 1)
	go func() { res <- s.Watch(done, func(askuser.PendingEntry) {}) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch with an ended context returned %v; want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatalf("Watch with an ended context had not returned after %v", wait)
	}
}

func testConcurrentUpdates(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	for round := range Rounds {
		key := newKey()
		rev := mustCreate(ctx, t, s, key, []byte(`start`))
		type res struct {
			data []byte
			rev  uint64
			err  error
		}
		results := make([]res, 2)
		var start, wg sync.WaitGroup
		start.Add(1)
		for i := range results {
			wg.Go(func() {
				data := fmt.Appendf(nil, "writer %d", i)
				start.Wait()
				r, err := s.Update(ctx, key, data, rev)
				results[i] = res{data, r, err}
			})
		}
		start.Done()
		wg.Wait()
		var won []res
		for _, r := range results {
			switch {
			case r.err == nil:
				won = append(won, r)
			case !errors.Is(r.err, askuser.ErrPendingChanged):
				t.Fatalf("round %d: the losing Update returned %v; want an error wrapping ErrPendingChanged", round, r.err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d of 2 Updates from the same revision succeeded; exactly one must", round, len(won))
		}
		wantEntry(ctx, t, s, key, won[0].data, won[0].rev)
	}
}

func testNotAliased(ctx context.Context, t *testing.T, s askuser.PendingStore) {
	key := newKey()
	buf := []byte(`original`)
	rev := mustCreate(ctx, t, s, key, buf)
	copy(buf, "MUTATED!")
	wantEntry(ctx, t, s, key, []byte(`original`), rev)

	e, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	copy(e.Data, "MUTATED!")
	wantEntry(ctx, t, s, key, []byte(`original`), rev)

	buf = []byte(`updated`)
	rev, err = s.Update(ctx, key, buf, rev)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, "MUTATED")
	wantEntry(ctx, t, s, key, []byte(`updated`), rev)
}
