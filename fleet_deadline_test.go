package askuser_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// electingStore is a store whose timers never come (a timers stream with
// no leader) and whose writes fail, as a NATS stream electing a leader
// refuses them, until writesBack.
type electingStore struct{ writesDownStore }

func (s *electingStore) Due(ctx context.Context, _ func(context.Context, string) error) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestSharedDeadlineEndedWhereTheCallerWaits: the store's timers never
// come and its writes fail for the two seconds after the deadline (a NATS
// failover); the replica where the caller waits ends the ask itself,
// retrying the write until the store takes it: journaled once, timed out
// at its deadline. A store that refuses the writes is written within a
// tenth of a second of taking them again; one that leaves them unanswered,
// as a NATS stream with no leader does (and a try that set no deadline of
// its own would wait as long as its client does), within a try (a second)
// and a tenth.
func TestSharedDeadlineEndedWhereTheCallerWaits(t *testing.T) {
	tests := []struct {
		name    string
		hang    bool
		maxLate time.Duration
	}{
		{"writes refused", false, 2*time.Second + 100*time.Millisecond},
		{"writes unanswered", true, 3*time.Second + 100*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := &electingStore{writesDownStore{Memory: store.NewMemory(0), hang: tt.hang}}
				j := &approvalJournal{}
				o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Journal: j, Logger: newDiscardLogger()}
				defer func() { o.Close(); o.WaitResponders() }()
				if err := o.Ready(context.Background()); err != nil {
					t.Fatal(err)
				}
				st.mu.Lock()
				st.writesBack = time.Now().Add(32 * time.Second)
				st.mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				out, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(envCall)})
				if err != nil {
					t.Fatalf("Handle: %v; want the deadline's outcome", err)
				}
				if out.Reason != askuser.ReasonDeadline {
					t.Fatalf("reason %s, want deadline", out.Reason)
				}
				if late := out.FinalizedAt.Sub(out.Form.ExpiresAt); late < 2*time.Second || late > tt.maxLate {
					t.Errorf("finalized %v after the deadline; want from 2s (the store taking writes again) to %v", late, tt.maxLate)
				}
				st.mu.Lock()
				failed := st.refused
				st.mu.Unlock()
				if failed == 0 {
					t.Error("no write was refused or left unanswered: the test did not fail the store over")
				}
				synctest.Wait()
				if recs := j.records(); len(recs) != 1 || recs[0].AskID != out.AskID {
					t.Errorf("journal has %d records, want the ask's one", len(recs))
				}
			})
		})
	}
}

// TestSharedAnswerJustBeforeDeadlineKept: an answer that lands just
// before the deadline on another replica is the outcome, although the
// replica where the caller waits ends asks at their deadline itself.
func TestSharedAnswerJustBeforeDeadlineKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		res := f.handle(context.Background(), 0, "s1", "call-1", envCall)
		b := f.asked(t, 1)
		if err := b.Report(askuser.Answer{QuestionID: "env", Selected: []string{"b"}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(b.Form().ExpiresAt) - time.Nanosecond)
		if err := b.Submit(); err != nil {
			t.Fatalf("submit a nanosecond before the deadline: %v", err)
		}
		r := <-res
		if r.err != nil || r.out.Reason != askuser.ReasonSubmitted {
			t.Fatalf("outcome %v, %v; want the submitted answer", r.out, r.err)
		}
		synctest.Wait()
		if recs := f.journal.records(); len(recs) != 1 {
			t.Errorf("journal has %d records, want 1", len(recs))
		}
	})
}

// writesDownStore is a store whose writes fail, as a NATS stream electing
// a leader refuses them, until writesBack; its timers come as the
// memory store's do.
type writesDownStore struct {
	*store.Memory
	mu         sync.Mutex
	writesBack time.Time // writes fail until then
	hang       bool      // a write while down waits for its context, as one to a stream without a leader does
	refused    int
}

func (s *writesDownStore) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	s.mu.Lock()
	down := time.Now().Before(s.writesBack)
	if down {
		s.refused++
	}
	hang := s.hang
	s.mu.Unlock()
	if down && hang {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	if down {
		return 0, errors.New("nats: no response from stream")
	}
	return s.Memory.Update(ctx, key, data, rev)
}

// TestSharedDeadlineByTimerThroughLongElection: nobody waits on the ask,
// so the store's timer ends it at its deadline; the store's writes fail
// for 18 s from the deadline (a NATS stream electing a leader for longer
// than a change to an ask keeps trying). The timer keeps trying, and the
// ask is ended and finalized within a fraction of a second of the store
// taking writes again, journaled once.
func TestSharedDeadlineByTimerThroughLongElection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &writesDownStore{Memory: store.NewMemory(0)}
		j := &approvalJournal{}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(envCall)}); err != nil {
			t.Fatal(err)
		}
		st.mu.Lock()
		st.writesBack = time.Now().Add(30*time.Second + 18*time.Second)
		st.mu.Unlock()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		recs := j.records()
		if len(recs) != 1 {
			t.Fatalf("journal has %d records, want the ask's one", len(recs))
		}
		r := recs[0]
		if r.Reason != askuser.ReasonDeadline {
			t.Fatalf("reason %s, want deadline", r.Reason)
		}
		if late := r.FinalizedAt.Sub(r.ExpiresAt); late < 18*time.Second || late > 18*time.Second+500*time.Millisecond {
			t.Errorf("finalized %v after the deadline; want within half a second of the store taking writes again, 18s after it", late)
		}
		st.mu.Lock()
		refused := st.refused
		st.mu.Unlock()
		if refused == 0 {
			t.Error("no write was refused: the test did not fail the store over")
		}
	})
}
