// Package storetest is the conformance suite for store.Pending
// implementations: what every store of pending asks must do for the
// orchestrator to share asks and their timers safely across processes.
//
// Use it from a test of the implementation:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Pending {
//			return mystore.New(...) // an empty store
//		})
//	}
//
// The timer cases use real time, with timers a fraction of a second
// ahead, so that a store whose timers live in a server can be checked; the
// whole suite takes a few seconds.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser/store"
)

// Rounds is how many times the concurrent-update case races two writers.
const Rounds = 40

// Bounds of the suite's waits. A store that has not done what it must
// within wait is broken, not slow; lead is how far ahead the timer cases
// set their timers; quiet is how long they watch for a key that must not
// come again.
const (
	wait  = 20 * time.Second
	lead  = 200 * time.Millisecond
	quiet = time.Second
)

// Run runs every case against stores made by open. Each call of open must
// return a store that holds nothing and has no timers (a fresh one, or one
// under a prefix of its own); the store is not closed by Run, so open
// registers any cleanup with t.Cleanup. The cases run in parallel with one
// another, each on a store of its own.
func Run(t *testing.T, open func(t *testing.T) store.Pending) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 3*wait)
			defer cancel()
			c.run(ctx, t, open(t))
		})
	}
}

var cases = []struct {
	name string
	run  func(ctx context.Context, t *testing.T, s store.Pending)
}{
	{"create", testCreate},
	{"get-missing", testGetMissing},
	{"update", testUpdate},
	{"revisions-increase", testRevisions},
	{"concurrent-updates-one-wins", testConcurrentUpdates},
	{"not-aliased", testNotAliased},
	{"list", testList},
	{"changes", testChanges},
	{"changes-ended-context", testChangesEnded},
	{"due-at-time", testDueAtTime},
	{"schedule-replaces", testScheduleReplaces},
	{"schedule-new", testScheduleNew},
	{"due-waits-for-a-caller", testDueWaitsForCaller},
	{"due-retries-failed", testDueRetries},
	{"due-one-at-a-time", testDueOneAtATime},
	{"due-ended-mid-f", testDueEndedMidF},
	{"due-ended-context", testDueEnded},
}

// newKey returns a fresh key of two tokens, as the orchestrator's keys
// are: a session's digest and an ask's.
func newKey() string {
	return newToken("s") + "." + newToken("c")
}

func newToken(kind string) string {
	var b [16]byte
	rand.Read(b[:])
	return kind + hex.EncodeToString(b[:])
}

func mustCreate(ctx context.Context, t *testing.T, s store.Pending, key string, data []byte) uint64 {
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

func mustUpdate(ctx context.Context, t *testing.T, s store.Pending, key string, data []byte, rev uint64) uint64 {
	t.Helper()
	rev, err := s.Update(ctx, key, data, rev)
	if err != nil {
		t.Fatalf("Update(%s) at its current revision: %v", key, err)
	}
	return rev
}

// wantEntry checks that key holds data at rev.
func wantEntry(ctx context.Context, t *testing.T, s store.Pending, key string, data []byte, rev uint64) {
	t.Helper()
	e, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	if e.Key != key || !bytes.Equal(e.Data, data) || e.Revision != rev {
		t.Fatalf("Get(%s) = %s, want %s", key, show(e), show(store.Entry{Key: key, Data: data, Revision: rev}))
	}
}

func show(es ...store.Entry) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte(' ')
		}
		if e.Data == nil {
			fmt.Fprintf(&b, "{%s nil rev %d}", e.Key, e.Revision)
		} else {
			fmt.Fprintf(&b, "{%s %q rev %d}", e.Key, e.Data, e.Revision)
		}
	}
	return b.String()
}

func sameEntry(a, b store.Entry) bool {
	return a.Key == b.Key && a.Revision == b.Revision && bytes.Equal(a.Data, b.Data) && (a.Data == nil) == (b.Data == nil)
}

func testCreate(ctx context.Context, t *testing.T, s store.Pending) {
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
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("Create on a taken key (%s) = %d, %v; want an error wrapping ErrExists", tt.name, got, err)
		}
		wantEntry(ctx, t, s, key, []byte(`{"v":1}`), rev)
	}
}

func testGetMissing(ctx context.Context, t *testing.T, s store.Pending) {
	mustCreate(ctx, t, s, newKey(), []byte(`{}`)) // another key exists
	key := newKey()
	e, err := s.Get(ctx, key)
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get on a missing key = %s, %v; want an error wrapping ErrNotFound", show(e), err)
	}
}

func testUpdate(ctx context.Context, t *testing.T, s store.Pending) {
	key := newKey()
	rev1 := mustCreate(ctx, t, s, key, []byte(`1`))
	rev2 := mustUpdate(ctx, t, s, key, []byte(`2`), rev1)
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
		if !errors.Is(err, store.ErrChanged) {
			t.Errorf("Update (%s) = %d, %v; want an error wrapping ErrChanged", tt.name, got, err)
		}
	}
	wantEntry(ctx, t, s, key, []byte(`2`), rev2)
	if e, err := s.Get(ctx, missing); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused Update of a missing key stored something: Get = %s, %v", show(e), err)
	}
}

func testRevisions(ctx context.Context, t *testing.T, s store.Pending) {
	keys := []string{newKey(), newKey()}
	last := map[string]uint64{}
	for _, k := range keys {
		last[k] = mustCreate(ctx, t, s, k, []byte(`0`))
	}
	for i := range 10 {
		k := keys[i%2]
		rev := mustUpdate(ctx, t, s, k, fmt.Appendf(nil, "%d", i), last[k])
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

func testConcurrentUpdates(ctx context.Context, t *testing.T, s store.Pending) {
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
			case !errors.Is(r.err, store.ErrChanged):
				t.Fatalf("round %d: the losing Update returned %v; want an error wrapping ErrChanged", round, r.err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d of 2 Updates from the same revision succeeded; exactly one must", round, len(won))
		}
		wantEntry(ctx, t, s, key, won[0].data, won[0].rev)
	}
}

func testNotAliased(ctx context.Context, t *testing.T, s store.Pending) {
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

	es, err := s.List(ctx, strings.SplitAfter(key, ".")[0])
	if err != nil || len(es) != 1 {
		t.Fatalf("List of the key's prefix = %s, %v; want the one entry", show(es...), err)
	}
	copy(es[0].Data, "MUTATED!")
	wantEntry(ctx, t, s, key, []byte(`original`), rev)

	buf = []byte(`updated`)
	rev = mustUpdate(ctx, t, s, key, buf, rev)
	copy(buf, "MUTATED")
	wantEntry(ctx, t, s, key, []byte(`updated`), rev)
}

// testList: List reads the entries under one prefix, as they are now, in
// revision order, and nothing else: not a prefix that only begins the
// same, nor another session's; the empty prefix lists every key.
func testList(ctx context.Context, t *testing.T, s store.Pending) {
	session, other := newToken("s"), newToken("s")
	longer := session + "0" // a session whose name begins with the first's
	a, b, c := session+"."+newToken("c"), session+"."+newToken("a"), session+"."+newToken("c")
	revA := mustCreate(ctx, t, s, a, []byte(`a1`))
	revB := mustCreate(ctx, t, s, b, []byte(`b1`))
	kOther, kLonger := other+"."+newToken("c"), longer+"."+newToken("c")
	mustCreate(ctx, t, s, kOther, []byte(`other`))
	mustCreate(ctx, t, s, kLonger, []byte(`longer`))
	revC := mustCreate(ctx, t, s, c, []byte(`c1`))
	revA = mustUpdate(ctx, t, s, a, []byte(`a2`), revA) // now the newest
	if _, err := s.Update(ctx, b, []byte(`lost`), revB+1000); !errors.Is(err, store.ErrChanged) {
		t.Fatalf("Update at a wrong revision: %v; want ErrChanged", err)
	}

	got, err := s.List(ctx, session+".")
	if err != nil {
		t.Fatalf("List(%s.): %v", session, err)
	}
	want := []store.Entry{{Key: b, Data: []byte(`b1`), Revision: revB}, {Key: c, Data: []byte(`c1`), Revision: revC}, {Key: a, Data: []byte(`a2`), Revision: revA}}
	if !slices.EqualFunc(got, want, sameEntry) {
		t.Errorf("List(%s.) = %s\nwant the session's entries as they are now, in revision order: %s", session, show(got...), show(want...))
	}
	for _, prefix := range []string{newToken("s") + ".", a + "."} {
		if got, err := s.List(ctx, prefix); err != nil || len(got) != 0 {
			t.Errorf("List(%s) of a prefix no key has = %s, %v; want nothing", prefix, show(got...), err)
		}
	}
	// The empty prefix lists every key: an operator's view of every session.
	all, err := s.List(ctx, "")
	if err != nil {
		t.Fatalf(`List(""): %v`, err)
	}
	keys := map[string]bool{}
	for i, e := range all {
		keys[e.Key] = true
		if i > 0 && e.Revision <= all[i-1].Revision {
			t.Errorf(`List("") is not in revision order: %s`, show(all...))
		}
	}
	for _, k := range []string{a, b, c, kOther, kLonger} {
		if !keys[k] {
			t.Errorf(`List("") = %s; want every key, %s among them`, show(all...), k)
		}
	}
}

// changes runs Changes in a goroutine and hands over what f gets.
type changes struct {
	got    chan store.Entry
	done   chan error
	cancel context.CancelFunc
}

func startChanges(ctx context.Context, s store.Pending) *changes {
	ctx, cancel := context.WithCancel(ctx)
	w := &changes{got: make(chan store.Entry, 1024), done: make(chan error, 1), cancel: cancel}
	go func() {
		w.done <- s.Changes(ctx, func(e store.Entry) {
			e.Data = slices.Clone(e.Data) // the test keeps it past f
			select {
			case w.got <- e:
			case <-ctx.Done():
			}
		})
	}()
	return w
}

func (w *changes) next(t *testing.T, what string) store.Entry {
	t.Helper()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	select {
	case e := <-w.got:
		return e
	case err := <-w.done:
		t.Fatalf("Changes returned %v while the test waited for %s", err, what)
	case <-timeout.C:
		t.Fatalf("Changes delivered nothing in %v while the test waited for %s", wait, what)
	}
	panic("unreachable")
}

// stop ends the feed and checks that Changes returns ctx's error.
func (w *changes) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	select {
	case err := <-w.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Changes returned %v when its context was cancelled; want context.Canceled", err)
		}
	case <-timeout.C:
		t.Fatalf("Changes had not returned %v after its context was cancelled", wait)
	}
}

func testChanges(ctx context.Context, t *testing.T, s store.Pending) {
	a, b := newKey(), newKey()
	revA := mustCreate(ctx, t, s, a, []byte(`a1`))
	revB := mustCreate(ctx, t, s, b, []byte(`b1`))
	revA = mustUpdate(ctx, t, s, a, []byte(`a2`), revA)
	w := startChanges(ctx, s)
	defer w.cancel()
	if e := w.next(t, "the mark that the feed is in place"); e.Key != "" || e.Data != nil || e.Revision != 0 {
		t.Fatalf("Changes first delivered %s; want an empty Entry, the mark that it is in place (it reads nothing written before it started)", show(e))
	}

	// Every write after the mark reaches f, in revision order; a change
	// that a newer write to its key replaced may be passed over, and a
	// refused write is no change.
	var made []store.Entry
	write := func(key string, data []byte, rev uint64) uint64 {
		t.Helper()
		var err error
		if rev == 0 {
			rev, err = s.Create(ctx, key, data)
		} else {
			rev, err = s.Update(ctx, key, data, rev)
		}
		if err != nil {
			t.Fatalf("writing %s: %v", key, err)
		}
		made = append(made, store.Entry{Key: key, Data: data, Revision: rev})
		return rev
	}
	c := newKey()
	write(b, []byte(`b2`), revB)
	revC := write(c, []byte(`c1`), 0)
	write(a, []byte(`a3`), revA)
	if _, err := s.Update(ctx, a, []byte(`lost`), revA); !errors.Is(err, store.ErrChanged) {
		t.Fatalf("stale Update: %v; want ErrChanged", err)
	}
	if _, err := s.Create(ctx, c, []byte(`lost`)); !errors.Is(err, store.ErrExists) {
		t.Fatalf("Create on a taken key: %v; want ErrExists", err)
	}
	write(c, []byte(`c2`), revC)
	// The last change, to a key of its own: once it has come, every
	// key's latest change has, since they come in revision order.
	last := newKey()
	write(last, []byte(`last`), 0)

	lastOf := map[string]uint64{}
	for _, ch := range made {
		lastOf[ch.Key] = ch.Revision
	}
	var delivered []store.Entry
	for {
		got := w.next(t, fmt.Sprintf("the last change of %d keys", len(lastOf)))
		delivered = append(delivered, got)
		if !slices.ContainsFunc(made, func(ch store.Entry) bool { return sameEntry(got, ch) }) {
			t.Fatalf("Changes delivered %s, which is no change the test made after the feed was in place (a refused write is none, and the feed reads nothing written before it started); the changes: %s", show(got), show(made...))
		}
		if len(delivered) > 1 && got.Revision <= delivered[len(delivered)-2].Revision {
			t.Fatalf("Changes delivered %s; want them in revision order", show(delivered...))
		}
		if lastOf[got.Key] == got.Revision {
			delete(lastOf, got.Key)
		}
		if got.Key == last {
			break
		}
	}
	if len(lastOf) > 0 {
		t.Fatalf("Changes delivered %s; want every key's latest change before the last one: %s", show(delivered...), show(made...))
	}
	w.stop(t)
}

func testChangesEnded(ctx context.Context, t *testing.T, s store.Pending) {
	mustCreate(ctx, t, s, newKey(), []byte(`x`))
	done, cancel := context.WithCancel(ctx)
	cancel()
	res := make(chan error, 1)
	go func() { res <- s.Changes(done, func(store.Entry) {}) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Changes with an ended context returned %v; want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatalf("Changes with an ended context had not returned after %v", wait)
	}
}

// A call is one call of a Due's f, as the timer cases record it.
type call struct {
	key        string
	caller     int
	start, end time.Time // end is zero while f runs
	err        error
}

// A recorder records the calls of the fs it makes, across Due callers,
// and the times a key was with two fs at once.
type recorder struct {
	mu       sync.Mutex
	calls    []*call
	holding  map[string]int // key → the caller whose f has it
	overlaps []string
	changed  chan struct{} // holds a token after a change
}

func newRecorder() *recorder {
	return &recorder{holding: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (r *recorder) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// f returns a Due callback for caller that records its calls and does
// what do says; n counts the calls of key before this one, across callers.
// It calls no method of t: a broken store may call it after the test.
func (r *recorder) f(caller int, do func(ctx context.Context, key string, n int) error) func(context.Context, string) error {
	return func(ctx context.Context, key string) error {
		r.mu.Lock()
		n := 0
		for _, c := range r.calls {
			if c.key == key {
				n++
			}
		}
		if other, ok := r.holding[key]; ok {
			r.overlaps = append(r.overlaps, fmt.Sprintf("%s went to caller %d while caller %d's f had it", key, caller, other))
		}
		r.holding[key] = caller
		c := &call{key: key, caller: caller, start: time.Now()}
		r.calls = append(r.calls, c)
		r.mu.Unlock()
		r.signal()

		err := do(ctx, key, n)

		r.mu.Lock()
		c.end, c.err = time.Now(), err
		if r.holding[key] == caller {
			delete(r.holding, key)
		}
		r.mu.Unlock()
		r.signal()
		return err
	}
}

// succeed is f's behaviour when it has nothing else to do.
func succeed(context.Context, string, int) error { return nil }

// waitFor waits until cond holds of the calls so far.
func (r *recorder) waitFor(t *testing.T, what string, cond func(calls []call) bool) []call {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		calls := r.snapshot()
		if cond(calls) {
			return calls
		}
		select {
		case <-r.changed:
		case <-deadline.C:
			t.Fatalf("waited %v for %s; f was called %s", wait, what, showCalls(calls))
		}
	}
}

func (r *recorder) snapshot() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]call, len(r.calls))
	for i, c := range r.calls {
		out[i] = *c
	}
	return out
}

// quiet checks that f is not called again for a while.
func (r *recorder) quiet(t *testing.T, why string) {
	t.Helper()
	n := len(r.snapshot())
	time.Sleep(quiet)
	if calls := r.snapshot(); len(calls) > n {
		t.Errorf("f was called again within %v (%s): %s", quiet, why, showCalls(calls[n:]))
	}
}

func (r *recorder) checkOverlaps(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.overlaps {
		t.Errorf("a key was with two fs at once: %s", o)
	}
}

func showCalls(calls []call) string {
	if len(calls) == 0 {
		return "never"
	}
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "\n\t%s by caller %d at %s", c.key, c.caller, c.start.Format("15:04:05.000"))
		if !c.end.IsZero() {
			fmt.Fprintf(&b, " until %s (%v)", c.end.Format("15:04:05.000"), c.err)
		}
	}
	return b.String()
}

// callsOf counts the calls of each key.
func callsOf(calls []call) map[string]int {
	n := map[string]int{}
	for _, c := range calls {
		n[c.key]++
	}
	return n
}

// A due is one Due call running in a goroutine.
type due struct {
	done   chan error
	cancel context.CancelFunc
}

func startDue(ctx context.Context, s store.Pending, f func(context.Context, string) error) *due {
	ctx, cancel := context.WithCancel(ctx)
	d := &due{done: make(chan error, 1), cancel: cancel}
	go func() { d.done <- s.Due(ctx, f) }()
	return d
}

// stop ends the Due call and checks that it returns ctx's error.
func (d *due) stop(t *testing.T) {
	t.Helper()
	d.cancel()
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	select {
	case err := <-d.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Due returned %v when its context was cancelled; want context.Canceled", err)
		}
	case <-timeout.C:
		t.Fatalf("Due had not returned %v after its context was cancelled", wait)
	}
}

func mustSchedule(ctx context.Context, t *testing.T, s store.Pending, key string, at time.Time) {
	t.Helper()
	if err := s.Schedule(ctx, key, at); err != nil {
		t.Fatalf("Schedule(%s, %s): %v", key, at.Format(time.RFC3339Nano), err)
	}
}

// testDueAtTime: each key scheduled reaches Due once, at or after its
// time and not before; a time already past comes at once.
func testDueAtTime(ctx context.Context, t *testing.T, s store.Pending) {
	now := time.Now()
	at := map[string]time.Time{
		newKey(): now.Add(lead),
		newKey(): now.Add(2 * lead),
		newKey(): now.Add(-time.Hour),
	}
	for k, when := range at {
		mustSchedule(ctx, t, s, k, when)
	}
	r := newRecorder()
	d := startDue(ctx, s, r.f(0, succeed))
	defer d.stop(t)
	calls := r.waitFor(t, "each key scheduled", func(calls []call) bool { return len(callsOf(calls)) == len(at) })
	for _, c := range calls {
		when, ok := at[c.key]
		if !ok {
			t.Fatalf("Due delivered %s, which nobody scheduled", c.key)
		}
		if c.start.Before(when) {
			t.Errorf("Due delivered %s at %s, before its time %s", c.key, c.start.Format("15:04:05.000"), when.Format("15:04:05.000"))
		}
	}
	r.quiet(t, "every key was acked")
}

// testScheduleReplaces: a second Schedule of a key replaces the time of the
// first, later or earlier; a key acked can be scheduled again.
func testScheduleReplaces(ctx context.Context, t *testing.T, s store.Pending) {
	later, earlier := newKey(), newKey()
	now := time.Now()
	mustSchedule(ctx, t, s, later, now.Add(lead))
	mustSchedule(ctx, t, s, earlier, now.Add(time.Hour))
	mustSchedule(ctx, t, s, later, now.Add(4*lead))
	mustSchedule(ctx, t, s, earlier, now.Add(lead))
	r := newRecorder()
	d := startDue(ctx, s, r.f(0, succeed))
	defer d.stop(t)
	calls := r.waitFor(t, "both keys", func(calls []call) bool { return len(callsOf(calls)) == 2 })
	for _, c := range calls {
		if c.key == later && c.start.Before(now.Add(4*lead)) {
			t.Errorf("Due delivered %s at %s, at the time it was first scheduled for; want the later time it was then scheduled for, %s", later, c.start.Format("15:04:05.000"), now.Add(4*lead).Format("15:04:05.000"))
		}
	}
	r.quiet(t, "the times replaced do not fire, and both keys were acked")

	again := time.Now().Add(lead)
	mustSchedule(ctx, t, s, later, again)
	calls = r.waitFor(t, "a key acked, then scheduled again", func(calls []call) bool { return callsOf(calls)[later] == 2 })
	if c := calls[len(calls)-1]; c.key != later || c.start.Before(again) {
		t.Errorf("the key scheduled again came %s; want %s at or after %s", showCalls(calls[len(calls)-1:]), later, again.Format("15:04:05.000"))
	}
}

// A NewScheduler is a store that can set a key's timer only where none
// is scheduled, as store.Memory and natsstore's asks do; the orchestrator
// sets a new ask's first timer with it when the store has it.
type NewScheduler interface {
	// ScheduleNew is Schedule, save that when key has a time scheduled
	// (set and not come due yet) it changes nothing and returns an error
	// wrapping store.ErrExists.
	ScheduleNew(ctx context.Context, key string, at time.Time) error
}

// testScheduleNew, for a store that is a NewScheduler: ScheduleNew sets a
// key's first time; a second one is refused with ErrExists and moves
// nothing; Schedule still replaces the time; once the key came due it
// takes a new time again. A store without ScheduleNew passes.
func testScheduleNew(ctx context.Context, t *testing.T, s store.Pending) {
	ns, ok := s.(NewScheduler)
	if !ok {
		return
	}
	key, other := newKey(), newKey()
	now := time.Now()
	if err := ns.ScheduleNew(ctx, key, now.Add(2*lead)); err != nil {
		t.Fatalf("ScheduleNew of a key never scheduled: %v", err)
	}
	if err := ns.ScheduleNew(ctx, key, now.Add(time.Hour)); !errors.Is(err, store.ErrExists) {
		t.Fatalf("ScheduleNew of a key with a time scheduled: %v; want ErrExists", err)
	}
	if err := ns.ScheduleNew(ctx, other, now.Add(time.Hour)); err != nil {
		t.Fatalf("ScheduleNew of a second key: %v", err)
	}
	mustSchedule(ctx, t, s, other, now.Add(lead)) // Schedule replaces what ScheduleNew set
	r := newRecorder()
	d := startDue(ctx, s, r.f(0, succeed))
	defer d.stop(t)
	calls := r.waitFor(t, "both keys, at their first times", func(calls []call) bool { return len(callsOf(calls)) == 2 })
	for _, c := range calls {
		if c.key == key && c.start.Before(now.Add(2*lead)) {
			t.Errorf("Due delivered %s at %s, before its time %s", key, c.start.Format("15:04:05.000"), now.Add(2*lead).Format("15:04:05.000"))
		}
	}
	r.quiet(t, "the refused ScheduleNew set no time, and both keys were acked")
	again := time.Now().Add(lead)
	if err := ns.ScheduleNew(ctx, key, again); err != nil {
		t.Fatalf("ScheduleNew of a key whose time came: %v; want it set again", err)
	}
	calls = r.waitFor(t, "the key scheduled anew", func(calls []call) bool { return callsOf(calls)[key] == 2 })
	if c := calls[len(calls)-1]; c.key != key || c.start.Before(again) {
		t.Errorf("the key scheduled anew came %s; want %s at or after %s", showCalls(calls[len(calls)-1:]), key, again.Format("15:04:05.000"))
	}
}

// testDueWaitsForCaller: a key whose time comes while nobody calls Due
// reaches the next caller.
func testDueWaitsForCaller(ctx context.Context, t *testing.T, s store.Pending) {
	key := newKey()
	mustSchedule(ctx, t, s, key, time.Now().Add(lead/3))
	time.Sleep(2 * lead)
	r := newRecorder()
	d := startDue(ctx, s, r.f(0, succeed))
	defer d.stop(t)
	r.waitFor(t, "a key that came due before anyone called Due", func(calls []call) bool { return callsOf(calls)[key] == 1 })
}

// testDueRetries: a key whose f fails comes again, until an f succeeds.
func testDueRetries(ctx context.Context, t *testing.T, s store.Pending) {
	key := newKey()
	mustSchedule(ctx, t, s, key, time.Now())
	r := newRecorder()
	d := startDue(ctx, s, r.f(0, func(_ context.Context, _ string, n int) error {
		if n == 0 {
			return errors.New("not yet")
		}
		return nil
	}))
	defer d.stop(t)
	r.waitFor(t, "the key to come again after a failed call", func(calls []call) bool {
		return len(calls) >= 2 && !calls[1].end.IsZero()
	})
	r.quiet(t, "the second call succeeded")
}

// testDueOneAtATime: two callers share the keys that come due; a key is
// with one f at a time, each comes until its f succeeds, and none after.
func testDueOneAtATime(ctx context.Context, t *testing.T, s store.Pending) {
	const n = 12
	keys := make([]string, n)
	at := time.Now().Add(lead)
	for i := range keys {
		keys[i] = newKey()
		mustSchedule(ctx, t, s, keys[i], at)
	}
	failFirst := map[string]bool{}
	for _, k := range keys[:n/2] {
		failFirst[k] = true
	}
	r := newRecorder()
	do := func(ctx context.Context, key string, calls int) error {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
		if failFirst[key] && calls == 0 {
			return errors.New("not yet")
		}
		return nil
	}
	d0 := startDue(ctx, s, r.f(0, do))
	defer d0.stop(t)
	d1 := startDue(ctx, s, r.f(1, do))
	defer d1.stop(t)
	succeeded := func(calls []call) map[string]bool {
		done := map[string]bool{}
		for _, c := range calls {
			if !c.end.IsZero() && c.err == nil {
				done[c.key] = true
			}
		}
		return done
	}
	r.waitFor(t, "an f to succeed for every key", func(calls []call) bool { return len(succeeded(calls)) == n })
	r.quiet(t, "every key was acked")
	r.checkOverlaps(t)
	calls := r.snapshot()
	for _, k := range keys {
		want := 1
		if failFirst[k] {
			want = 2
		}
		if got := callsOf(calls)[k]; got != want {
			t.Errorf("f was called %d times for %s; want %d (its f failed %d times)", got, k, want, want-1)
		}
	}
	callers := map[int]bool{}
	for _, c := range calls {
		callers[c.caller] = true
	}
	if !callers[0] || !callers[1] {
		t.Logf("only one of two callers got keys: %s", showCalls(calls))
	}
}

// testDueEndedMidF: a key whose Due's context ends while f has it comes
// again, to another caller; that Due returns ctx's error.
func testDueEndedMidF(ctx context.Context, t *testing.T, s store.Pending) {
	key := newKey()
	mustSchedule(ctx, t, s, key, time.Now())
	r := newRecorder()
	first := startDue(ctx, s, r.f(0, func(ctx context.Context, _ string, _ int) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
			return errors.New("f's context did not end with Due's")
		}
	}))
	defer first.cancel()
	r.waitFor(t, "the first caller to get the key", func(calls []call) bool { return len(calls) == 1 })
	second := startDue(ctx, s, r.f(1, succeed))
	defer second.stop(t)
	time.Sleep(lead) // the second caller must not get the key meanwhile
	first.stop(t)
	calls := r.waitFor(t, "the key to come to the second caller", func(calls []call) bool {
		return len(calls) == 2 && !calls[1].end.IsZero()
	})
	r.checkOverlaps(t)
	if calls[1].caller != 1 {
		t.Errorf("the key came again to caller %d after caller 0's Due ended: %s", calls[1].caller, showCalls(calls))
	}
	if calls[0].err == nil {
		t.Errorf("the first f returned nil; its context did not end with its Due's")
	}
}

func testDueEnded(ctx context.Context, t *testing.T, s store.Pending) {
	key := newKey()
	mustSchedule(ctx, t, s, key, time.Now())
	done, cancel := context.WithCancel(ctx)
	cancel()
	r := newRecorder()
	res := make(chan error, 1)
	go func() { res <- s.Due(done, r.f(0, succeed)) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Due with an ended context returned %v; want context.Canceled", err)
		}
	case <-time.After(wait):
		t.Fatalf("Due with an ended context had not returned after %v", wait)
	}
	// The key was not taken: the next caller gets it.
	d := startDue(ctx, s, r.f(1, succeed))
	defer d.stop(t)
	calls := r.waitFor(t, "the key, by a caller whose context is alive", func(calls []call) bool { return len(calls) > 0 && calls[len(calls)-1].caller == 1 })
	if calls[0].caller == 0 {
		t.Errorf("Due with an ended context called f: %s", showCalls(calls))
	}
}
