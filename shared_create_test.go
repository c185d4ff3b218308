package askuser_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// countingStore counts the reads of keys and the timers set.
type countingStore struct {
	*store.Memory
	gets, schedules atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) (store.Entry, error) {
	s.gets.Add(1)
	return s.Memory.Get(ctx, key)
}

func (s *countingStore) Schedule(ctx context.Context, key string, at time.Time) error {
	s.schedules.Add(1)
	return s.Memory.Schedule(ctx, key, at)
}

func (s *countingStore) ScheduleNew(ctx context.Context, key string, at time.Time) error {
	s.schedules.Add(1)
	return s.Memory.ScheduleNew(ctx, key, at)
}

// TestSharedBeginReadsNothing: beginning a new ask on a store that sets a
// first timer only where none is scheduled writes its timer and its record
// and reads no key: the create is the read.
func TestSharedBeginReadsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &countingStore{Memory: store.NewMemory(0)}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		gets, schedules := st.gets.Load(), st.schedules.Load()
		for i, call := range []string{"call-1", "call-2", "call-3"} {
			if _, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: call, Arguments: []byte(choiceCall)}); err != nil {
				t.Fatalf("Begin %d: %v", i+1, err)
			}
		}
		if n := st.gets.Load() - gets; n != 0 {
			t.Errorf("3 new asks read %d keys from the store; want none", n)
		}
		if n := st.schedules.Load() - schedules; n != 3 {
			t.Errorf("3 new asks set %d timers; want 3", n)
		}
	})
}

// TestSharedRetryKeepsTimer: a tool call retried on another replica while
// its ask is pending joins the ask and leaves its timer as it was (the
// ask ends at its own deadline, not the retry's); retried once final, it
// replays the result, and the timer the retry set finds nothing to do.
func TestSharedRetryKeepsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		var reps []*askuser.Orchestrator
		for range 2 {
			o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Logger: newDiscardLogger()}
			defer func() { o.Close(); o.WaitResponders() }()
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			reps = append(reps, o)
		}
		short := strings.Replace(choiceCall, `"timeout_seconds":300`, `"timeout_seconds":10`, 1)
		req := askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(short)}
		ctx := context.Background()
		start := time.Now()
		id, err := reps[0].Begin(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		retry := req
		retry.Arguments = []byte(choiceCall) // 300 s: a new ask's timer would be set for then
		if again, err := reps[1].Begin(ctx, retry); err != nil || again != id {
			t.Fatalf("the retry on the other replica began %q, %v; want it to join %q", again, err, id)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		out, err := reps[1].Await(wctx, "s1", "call-1")
		if err != nil {
			t.Fatalf("the ask had not ended 50 s after its 10 s deadline: %v", err)
		}
		if out.AskID != id || out.Reason != askuser.ReasonDeadline {
			t.Fatalf("the ask ended as %s (%s); want %s at its deadline", out.AskID, out.Reason, id)
		}
		if took := time.Since(start); took > 12*time.Second {
			t.Errorf("the ask ended %v after it began; want at its 10 s deadline", took)
		}

		// Final now: a retry replays it, and sets a timer that comes to
		// nothing.
		if again, err := reps[0].Begin(ctx, retry); err != nil || again != id {
			t.Fatalf("the retry of the final call began %q, %v; want its replay, %q", again, err, id)
		}
		time.Sleep(400 * time.Second)
		out2, err := reps[0].Await(ctx, "s1", "call-1")
		if err != nil || out2.AskID != id || out2.Reason != askuser.ReasonDeadline || !out2.Replayed {
			t.Fatalf("past the retry's timer the call replays %+v, %v; want ask %s's result, at its deadline", out2, err, id)
		}
	})
}

// lookupJournal finds no result; its FindResult notes whether the store
// had a timer set for the ask when it was called, waiting up to a minute
// for one.
type lookupJournal struct {
	st         *countingStore
	sawTimer   atomic.Bool
	lookedUpAt atomic.Int64
}

func (j *lookupJournal) Append(context.Context, store.Record) error { return nil }

func (j *lookupJournal) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	return storedFound(j.find(ctx, session, toolCallID))
}

func (j *lookupJournal) find(ctx context.Context, _, _ string) (*journal.Record, bool, error) {
	j.lookedUpAt.Add(1)
	t := time.NewTimer(time.Minute)
	defer t.Stop()
	for j.st.schedules.Load() == 0 {
		select {
		case <-t.C:
			return nil, false, nil
		case <-ctx.Done():
			return nil, false, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	j.sawTimer.Store(true)
	return nil, false, nil
}

// TestSharedLookupBesideTimer: a new ask's look-up in the journal runs
// while its timer is set, not before it: one round trip fewer per ask.
func TestSharedLookupBesideTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &countingStore{Memory: store.NewMemory(0)}
		j := &lookupJournal{st: st}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)}); err != nil {
			t.Fatalf("Begin: %v", err)
		}
		if j.lookedUpAt.Load() != 1 {
			t.Fatalf("Begin looked the tool call up %d times in the journal; want once", j.lookedUpAt.Load())
		}
		if !j.sawTimer.Load() {
			t.Error("the journal was asked before the ask's timer was set; want the look-up beside the timer's write")
		}
	})
}

// TestSharedJournalResultCreatesNothing: a tool call whose result only the
// journal still holds is replayed from it, and no ask is created for it,
// though its timer was set meanwhile.
func TestSharedJournalResultCreatesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &countingStore{Memory: store.NewMemory(0)}
		j := &approvalJournal{recs: []*journal.Record{{Version: 1, AskID: "ask-old", Session: "s1", ToolCallID: "call-1", Result: []byte(answeredChoice)}}}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			id, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)})
			if err != nil || id != "ask-old" {
				t.Fatalf("Begin %d = %q, %v; want the journal's ask-old", i+1, id, err)
			}
		}
		if es, err := st.List(context.Background(), ""); err != nil || len(es) != 0 {
			t.Errorf("the store holds %d asks (%v); want none", len(es), err)
		}
	})
}
