package askuser_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// countingJournal counts the records appended for each tool call and finds
// results like a file journal would after a restart. It panics on Append
// for the tool calls in panicOn, after counting.
type countingJournal struct {
	mu      sync.Mutex
	appends map[string][]*journal.Record // by tool call
	panicOn map[string]bool
	written map[string]*journal.Record // what FindResult finds
}

func newCountingJournal() *countingJournal {
	return &countingJournal{appends: map[string][]*journal.Record{}, panicOn: map[string]bool{}, written: map[string]*journal.Record{}}
}

func (c *countingJournal) Append(_ context.Context, sr store.Record) error {
	rec, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.appends[rec.ToolCallID] = append(c.appends[rec.ToolCallID], rec)
	if c.panicOn[rec.ToolCallID] {
		panic("the journal's writer panicked")
	}
	if rec.Result != nil {
		c.written[rec.Session+"\x00"+rec.ToolCallID] = rec
	}
	return nil
}

func (c *countingJournal) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	return storedFound(c.find(ctx, session, toolCallID))
}

func (c *countingJournal) find(_ context.Context, session, toolCallID string) (*journal.Record, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, ok := c.written[session+"\x00"+toolCallID]
	return rec, ok, nil
}

func (c *countingJournal) records(toolCallID string) []*journal.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.appends[toolCallID]
}

func (c *countingJournal) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, rs := range c.appends {
		n += len(rs)
	}
	return n
}

// A one-second call whose question has a declared default.
const journalRaceCall = `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[
 {"label":"staging","description":"Safe to break"},{"label":"production","description":"Real users","default":true}]}],
 "timeout_seconds":1}`

// A journalRacePlan is what happens around the deadline in one round.
type journalRacePlan struct {
	action      string        // what the responder does: submit, decline, fail, panic
	reply       time.Duration // when, relative to the deadline
	cancel      time.Duration // when the caller goes away, relative to the deadline
	callerStays bool          // the caller does not go away
}

// TestJournalExactlyOnceUnderRaces: whatever the order of the deadline, a
// reply at the deadline and the caller going away at the same instant (and
// a journal that panics), each ask is recorded exactly once, a caller that
// went away is recorded as such, and a replayed tool call — from memory or,
// after a restart, from the journal — adds no record.
func TestJournalExactlyOnceUnderRaces(t *testing.T) {
	const rounds = 1000
	var plans []journalRacePlan
	for _, action := range []string{"submit", "decline", "fail", "panic"} {
		for _, reply := range []time.Duration{-time.Nanosecond, 0, 0, time.Nanosecond} {
			for _, cancel := range []time.Duration{-time.Nanosecond, 0, 0} {
				plans = append(plans, journalRacePlan{action: action, reply: reply, cancel: cancel})
			}
			plans = append(plans, journalRacePlan{action: action, reply: reply, callerStays: true})
		}
	}
	synctest.Test(t, func(t *testing.T) {
		j := newCountingJournal()
		var planMu sync.Mutex // a responder of an earlier round may still run
		planOf := map[string]journalRacePlan{}
		responder := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			planMu.Lock()
			p := planOf[a.ToolCallID()]
			planMu.Unlock()
			time.Sleep(time.Until(a.Form().ExpiresAt.Add(p.reply)))
			switch p.action {
			case "submit":
				_ = a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}})
				return a.Submit()
			case "decline":
				return a.Decline()
			case "fail":
				return errors.New("the responder's connection dropped")
			default:
				panic("the responder panicked")
			}
		})
		o := &askuser.Orchestrator{Journal: j, Responder: responder, Logger: newDiscardLogger()}
		defer o.Close() // stops the outbox, which tries the records the journal panicked on again
		reasons := map[askuser.Reason]int{}
		var finalized []string // tool calls with a result
		for i := range rounds {
			tc := fmt.Sprintf("tc-%04d", i)
			p := plans[i%len(plans)]
			planMu.Lock()
			planOf[tc] = p
			planMu.Unlock()
			if i%10 == 0 {
				j.mu.Lock()
				j.panicOn[tc] = true
				j.mu.Unlock()
			}
			ctx, cancel := context.WithCancel(context.Background())
			if !p.callerStays {
				time.AfterFunc(time.Second+p.cancel, cancel)
			}
			req := askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(journalRaceCall)}
			out, err := o.Handle(ctx, req)
			recs := j.records(tc)
			if len(recs) != 1 {
				t.Fatalf("round %d (%+v): %d records, want 1", i, p, len(recs))
			}
			rec := recs[0]
			reasons[rec.Reason]++
			switch {
			case err != nil:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("round %d: Handle: %v", i, err)
				}
				got := []string{string(rec.Status), string(rec.AnsweredBy), string(rec.Reason), string(rec.Result)}
				if diff := cmp.Diff([]string{"cancelled", "unattended", "caller", ""}, got); diff != "" {
					t.Errorf("round %d: the record of a caller gone (-want +got):\n%s", i, diff)
				}
			default:
				if diff := cmp.Diff(string(out.Result), string(rec.Result)); diff != "" {
					t.Errorf("round %d: the record's result (-want +got):\n%s", i, diff)
				}
				if rec.Reason != out.Reason || rec.Reason == askuser.ReasonCaller {
					t.Errorf("round %d: recorded reason %s, outcome's %s", i, rec.Reason, out.Reason)
				}
				if (out.JournalErr != nil) != (i%10 == 0) {
					t.Errorf("round %d: JournalErr = %v; the journal panicked: %v", i, out.JournalErr, i%10 == 0)
				}
				again, err := o.Handle(context.Background(), req)
				if err != nil || !again.Replayed {
					t.Fatalf("round %d: the replay: %v, %v", i, again, err)
				}
				if n := len(j.records(tc)); n != 1 {
					t.Errorf("round %d: %d records after a replay, want 1", i, n)
				}
				if i%10 != 0 {
					finalized = append(finalized, tc)
				}
			}
			cancel()
			synctest.Wait() // the round's goroutines have returned or sleep past its deadline
		}

		// A restart: a new orchestrator replays from the journal.
		before := j.total()
		o2 := &askuser.Orchestrator{Journal: j, Responder: responder, Logger: newDiscardLogger()}
		for _, tc := range finalized {
			out, err := o2.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(journalRaceCall)})
			if err != nil || !out.Replayed {
				t.Fatalf("%s after a restart: %v, %v; want a replay", tc, out, err)
			}
		}
		if after := j.total(); after != before {
			t.Errorf("replays after a restart added %d records", after-before)
		}

		// Every way an ask ends here was seen.
		var seen []string
		for r := range reasons {
			seen = append(seen, string(r))
		}
		sort.Strings(seen)
		want := []string{"caller", "deadline", "declined", "responder_fault", "submitted"}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("the endings seen over %d rounds (-want +got):\n%s", rounds, diff)
		}
		t.Logf("endings over %d rounds: %v", rounds, reasons)
	})
}
