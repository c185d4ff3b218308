package askuser

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// recJournal keeps the records it is given.
type recJournal struct {
	mu   sync.Mutex
	recs []*record
}

func (j *recJournal) Append(_ context.Context, sr store.Record) error {
	r, err := decodeStored(sr)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, old := range j.recs {
		if old.AskID == r.AskID {
			return nil // a second write of one record is a no-op
		}
	}
	j.recs = append(j.recs, r)
	return nil
}

func (j *recJournal) count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.recs)
}

// TestRouteStepToldAfterTellerDies: the replica whose timer begins a
// route's second step writes steps_begun and its claim to tell it, then
// dies before telling it (testHookStepClaimed, then Close). The step is
// not lost: once the claim's lease has run out, a surviving replica
// claims it and tells it, once; the third step is told once too; the
// deadline still ends the ask, journaled once.
func TestRouteStepToldAfterTellerDies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		j := &recJournal{}
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		escalation := route.Route{Name: "oncall", Steps: []route.Step{
			{Responders: []string{"card"}},
			{Responders: []string{"slack:#ops"}, After: route.Duration(time.Minute)},
			{Responders: []string{"email"}, After: route.Duration(2 * time.Minute)},
		}}
		var orch []*Orchestrator
		var ops, lead []*followingCard
		for i := range 3 {
			o1, l1 := &followingCard{}, &followingCard{}
			ops, lead = append(ops, o1), append(lead, l1)
			o := &Orchestrator{Asks: st, Journal: j, Logger: quiet,
				Routes:   func(route.Request) (route.Route, bool) { return escalation, true },
				Channels: map[string]Responder{"slack:#ops": plainCard{o1}, "email": plainCard{l1}}}
			if i == 0 {
				o.Responder = plainCard{&followingCard{}}
			}
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			orch = append(orch, o)
		}
		var mu sync.Mutex
		var dead *Orchestrator
		testHookStepClaimed = func(o *Orchestrator, step int) error {
			mu.Lock()
			defer mu.Unlock()
			if step == 1 && (dead == nil || dead == o) {
				dead = o
				return errors.New("this replica died before telling the step")
			}
			return nil
		}
		defer func() { testHookStepClaimed = nil }()
		closed := map[*Orchestrator]bool{}
		defer func() {
			for _, o := range orch {
				if !closed[o] {
					o.Close()
					o.WaitResponders()
				}
			}
		}()
		if _, err := orch[0].Begin(context.Background(), Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(heldCall)}); err != nil {
			t.Fatal(err)
		}
		count := func(cs []*followingCard) int {
			n := 0
			for _, c := range cs {
				c.mu.Lock()
				n += len(c.asks)
				c.mu.Unlock()
			}
			return n
		}
		time.Sleep(61 * time.Second)
		synctest.Wait()
		mu.Lock()
		d := dead
		mu.Unlock()
		if d == nil {
			t.Fatal("at 61s no replica had claimed the second step")
		}
		if n := count(ops); n != 0 {
			t.Fatalf("at 61s the second step was told %d times by a replica that died before telling it", n)
		}
		d.Close()
		d.WaitResponders()
		closed[d] = true
		pe, err := st.Get(context.Background(), pendingKeyOf(t, st))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := decodeRecord(pe.Data)
		if err != nil {
			t.Fatal(err)
		}
		if rec.StepsBegun != 2 || rec.told() != 1 || rec.Telling == nil || rec.Telling.Step != 1 {
			t.Fatalf("after the teller died the record says begun %d, told %d, claim %+v; want begun 2, told 1, claimed", rec.StepsBegun, rec.told(), rec.Telling)
		}
		time.Sleep(tellLease)
		synctest.Wait()
		if n := count(ops); n != 1 {
			t.Fatalf("once the dead replica's claim ran out the second step was told %d times; want once", n)
		}
		for i, o := range orch {
			if o == d && len(ops[i].asks) != 0 {
				t.Errorf("the dead replica told the step")
			}
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n, m := count(ops), count(lead); n != 1 || m != 1 {
			t.Fatalf("at 191s the second step was told %d times and the third %d; want once each", n, m)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n := j.count(); n != 1 {
			t.Fatalf("the deadline journaled %d records; want 1", n)
		}
		if r := j.recs[0]; r.Reason != ReasonDeadline || r.Step == nil || r.Step.Step != 2 {
			t.Errorf("journal: reason %s, step %+v; want the deadline in step 2", r.Reason, r.Step)
		}
	})
}

// pendingKeyOf is the one key st holds.
func pendingKeyOf(t *testing.T, st store.Pending) string {
	t.Helper()
	es, err := st.List(context.Background(), "")
	if err != nil || len(es) != 1 {
		t.Fatalf("the store holds %d asks (%v); want 1", len(es), err)
	}
	return es[0].Key
}

// TestStepsToldOfOlderRecords: a record written before steps_told reads
// as told up to what has begun, so an upgrade tells no step again.
func TestStepsToldOfOlderRecords(t *testing.T) {
	rec, err := decodeRecord([]byte(`{"v":1,"ask_id":"a","session":"s","dialect":"askuser","form":{"questions":[]},"steps_begun":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.told(); got != 2 {
		t.Errorf("an older record with steps_begun 2 reads as told %d; want 2", got)
	}
	rec.StepsTold = 1
	if got := rec.told(); got != 1 {
		t.Errorf("steps_told 1 reads as %d", got)
	}
}

// TestDecodeStoredOlderVersion: a journal record written before version 3
// keeps its drafts when a replay reads it: "source": "draft" is Draft.
func TestDecodeStoredOlderVersion(t *testing.T) {
	data := `{"v":2,"ask_id":"a","session":"s","answers":[` +
		`{"question_id":"env","selected":["prod"],"answered_by":"user","source":"person"},` +
		`{"question_id":"regions","selected":["us"],"answered_by":"timeout","source":"draft"}]}`
	rec, err := decodeStored(store.Record{AskID: "a", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Answers) != 2 || rec.Answers[0].Draft || !rec.Answers[1].Draft {
		t.Errorf("answers = %+v; want env not a draft, regions a draft", rec.Answers)
	}
}
