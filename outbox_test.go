package askuser_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// downJournal refuses the first fails appends, as a journal that is down
// does, and keeps the records it takes (one per ask id: a second write of
// one record is a no-op, as in NATS JetStream's journal).
type downJournal struct {
	mu      sync.Mutex
	fails   int
	tries   int
	written map[string]*journal.Record
}

func (j *downJournal) Append(_ context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.tries++
	if j.fails > 0 {
		j.fails--
		return errors.New("journal: no response from stream")
	}
	if j.written == nil {
		j.written = map[string]*journal.Record{}
	}
	if _, ok := j.written[r.AskID]; !ok {
		j.written[r.AskID] = r
	}
	return nil
}

func (j *downJournal) records() (written, tries int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.written), j.tries
}

// TestJournalDownInMemory: a journal that refuses records delays them and
// loses none. The caller gets its result at once, with JournalErr; the
// orchestrator writes the record again, with a backoff, until the journal
// takes it, and says so in the log each time it fails.
func TestJournalDownInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := &downJournal{fails: 4}
		var logs syncLog
		o := &askuser.Orchestrator{Responder: newEvents(), Journal: j, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
		defer o.Close()
		r := o.Responder.(*events)
		res := handleAsync(context.Background(), o, "s1", choiceCall)
		answerChoice(t, <-r.asked)
		out := <-res
		if out == nil || string(out.Result) != answeredChoice || out.JournalErr == nil {
			t.Fatalf("outcome %+v; want the answer, with the journal's failure on JournalErr", out)
		}
		if n, _ := j.records(); n != 0 {
			t.Fatalf("the journal holds %d records while it is down", n)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n, tries := j.records(); n != 1 || tries != 5 {
			t.Errorf("after the journal came back: %d records in %d tries; want 1 in 5", n, tries)
		}
		if got := strings.Count(logs.String(), "journal"); got < 4 {
			t.Errorf("the log names the journal %d times, want every failure:\n%s", got, logs.String())
		}
	})
}

// TestJournalDownOnSharedStore: with a shared store, the final result is
// the outbox. The caller gets its result once it is stored; the record the journal
// refused is written again from the ask's timer, on whichever replica it
// reaches, until the journal takes it: one record, none lost.
func TestJournalDownOnSharedStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := &downJournal{fails: 3}
		st := store.NewMemory(0)
		var orch []*askuser.Orchestrator
		var cards []*events
		for range 2 {
			r := newEvents()
			o := &askuser.Orchestrator{Responder: r, Asks: st, Journal: j, Logger: newDiscardLogger()}
			defer func() { o.Close(); o.WaitResponders() }()
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			follow(t, r, "s1")
			orch, cards = append(orch, o), append(cards, r)
		}
		res := handleAsync(context.Background(), orch[0], "s1", choiceCall)
		answerChoice(t, <-cards[0].asked)
		out := <-res
		if out == nil || string(out.Result) != answeredChoice || out.JournalErr != nil {
			t.Fatalf("outcome %+v; want the answer, given once it is stored, before its record is written", out)
		}
		orch[0].Close() // the replica that finalized goes away: the other's timers take over
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n, tries := j.records(); n != 1 || tries != 4 {
			t.Errorf("after the journal came back: %d records in %d tries; want 1 in 4", n, tries)
		}
	})
}

// syncLog is a log destination safe for concurrent writers.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stuckFinal is a store through which a replica's write of a final result
// never returns, as a process that dies between an ending and its final
// result: until release is closed, when it fails.
type stuckFinal struct {
	*store.Memory
	release chan struct{}
}

func (s stuckFinal) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if bytes.Contains(data, []byte(`"final":`)) {
		<-s.release
		return 0, errors.New("the process is gone")
	}
	return s.Memory.Update(ctx, key, data, rev)
}

// TestSharedFinalizerGone: the replica whose ending won goes away before
// it writes the final result. The ask's timer, set at the ending, reaches
// another replica ten seconds later, which finalizes it: the caller
// waiting there gets the answer, and the journal has one record.
func TestSharedFinalizerGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := store.NewMemory(0)
		stuck := stuckFinal{mem, make(chan struct{})}
		r, took, records := answeredOnAAwaitedOnB(t, mem, stuck, func() { close(stuck.release) })
		if r.err != nil || string(r.out.Result) != answeredChoice {
			t.Fatalf("B's caller got %+v, want %s", r, answeredChoice)
		}
		// Not before the ended ask's timer (10 s); and well before the
		// deadline (300 s): the timer may first reach A's callers of Due,
		// which give it back while A's finalization hangs.
		if took < 10*time.Second || took > time.Minute {
			t.Errorf("the answer reached B after %v, want once the ended ask's timer came due (10 s), at most a minute", took)
		}
		if records != 1 {
			t.Errorf("the journal has %d records, want 1", records)
		}
	})
}

// answeredOnAAwaitedOnB begins an ask on replica A (over aStore, a view of
// mem), has A's responder answer it, and waits for the outcome through
// replica B (over mem itself). It returns B's result, how long it took
// from the answer, and how many records the journal holds. release, if
// not nil, runs before A closes.
func answeredOnAAwaitedOnB(t *testing.T, mem *store.Memory, aStore store.Pending, release func()) (result, time.Duration, int) {
	t.Helper()
	j := &downJournal{}
	ra, rb := newEvents(), newEvents()
	a := &askuser.Orchestrator{Responder: ra, Asks: aStore, Journal: j, Logger: newDiscardLogger()}
	b := &askuser.Orchestrator{Responder: rb, Asks: mem, Journal: j, Logger: newDiscardLogger()}
	for _, o := range []*askuser.Orchestrator{a, b} {
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { b.Close(); b.WaitResponders() })
	t.Cleanup(func() {
		if release != nil {
			release()
		}
		a.Close()
		a.WaitResponders()
	})
	follow(t, ra, "s1")
	if _, err := a.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)}); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan result, 1)
	go func() {
		out, err := b.Await(context.Background(), "s1", "call-1")
		waiting <- result{out, err}
	}()
	start := time.Now()
	answerChoice(t, <-ra.asked)
	r := <-waiting
	took := time.Since(start)
	synctest.Wait() // the record follows the final result
	n, _ := j.records()
	return r, took, n
}

// slowCreateStore takes longer to create a record than the ask's deadline
// leaves: the ask's timer comes due before its record is in the store.
type slowCreateStore struct {
	*store.Memory
	delay time.Duration
}

func (s slowCreateStore) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	time.Sleep(s.delay)
	return s.Memory.Create(ctx, key, data)
}

// TestSharedDeadlinePassesWhileCreating: an ask whose deadline passes
// while its record is being created still ends at its deadline: the timer
// that came due before the record was there is set again. (It once stayed
// pending for good: the timer found nothing and was spent.)
func TestSharedDeadlinePassesWhileCreating(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := slowCreateStore{store.NewMemory(0), 3 * time.Second}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		call := strings.Replace(choiceCall, `"timeout_seconds":300`, `"timeout_seconds":1`, 1)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(call)})
		if err != nil {
			t.Fatalf("the ask had not ended a minute after its 1 s deadline: %v", err)
		}
		if out.Reason != askuser.ReasonDeadline {
			t.Errorf("the ask ended %s, want at its deadline", out.Reason)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the ask ended %v after it began, want as soon as it was created (3 s)", took)
		}
	})
}

// goneAfterEnding is a replica's view of the store that goes away the
// moment an ending it wrote has landed: the process died between writing
// the ending and anything after it (the ended ask's timer, its final
// result).
type goneAfterEnding struct {
	*store.Memory
	gone chan struct{}
	once *sync.Once
}

var errGone = errors.New("the process is gone")

func (s goneAfterEnding) dead() bool {
	select {
	case <-s.gone:
		return true
	default:
		return false
	}
}

func (s goneAfterEnding) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if s.dead() {
		return 0, errGone
	}
	r, err := s.Memory.Update(ctx, key, data, rev)
	if err == nil && bytes.Contains(data, []byte(`"ending":`)) {
		s.once.Do(func() { close(s.gone) })
	}
	return r, err
}

func (s goneAfterEnding) Schedule(ctx context.Context, key string, at time.Time) error {
	if s.dead() {
		return errGone
	}
	return s.Memory.Schedule(ctx, key, at)
}

// TestSharedEnderGoneBeforeTimer: the replica whose person's answer ended
// the ask dies right after the ending lands, before it sets the ended
// ask's timer or writes the final result. Another replica finalizes it
// within finalizeGrace, not at the ask's deadline. (It once waited for
// the deadline: the timer was set only after the ending had landed.)
func TestSharedEnderGoneBeforeTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := store.NewMemory(0)
		r, took, records := answeredOnAAwaitedOnB(t, mem, goneAfterEnding{mem, make(chan struct{}), &sync.Once{}}, nil)
		if r.err != nil || string(r.out.Result) != answeredChoice {
			t.Fatalf("B's caller got %+v, want %s", r, answeredChoice)
		}
		// The ask's deadline is 300 s away; its ended timer, 10 s.
		if took > time.Minute {
			t.Errorf("the answer reached B after %v, want by the ended ask's timer (10 s), at most a minute", took)
		}
		if records != 1 {
			t.Errorf("the journal has %d records, want 1", records)
		}
	})
}

// Due takes no timer once the process is gone: a dead process is not
// among the store's callers of Due.
func (s goneAfterEnding) Due(ctx context.Context, f func(ctx context.Context, key string) error) error {
	select {
	case <-s.gone:
		<-ctx.Done()
		return ctx.Err()
	default:
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.gone:
			cancel()
		case <-dctx.Done():
		}
	}()
	err := s.Memory.Due(dctx, f)
	if s.dead() {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

// TestSharedDeadlineJournalDownAtTimer: an ask begun and not awaited (an
// agent that asked with respond-async) reaches its deadline through the
// store's timer while the journal refuses records. The timer that ended
// and finalized it comes again until the journal takes the record: one
// record, none lost. (The timer used to be acknowledged once the final
// result was written, journaled or not, and the record was never written.)
func TestSharedDeadlineJournalDownAtTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := &downJournal{fails: 2}
		st := store.NewMemory(0)
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: st, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(envCall)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if _, tries := j.records(); tries == 0 {
			t.Fatal("the deadline's timer did not journal the ask: the test did not reach the journal")
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n, tries := j.records(); n != 1 || tries != 3 {
			t.Errorf("after the journal came back: %d records in %d tries; want 1 in 3", n, tries)
		}
		out, err := o.Await(context.Background(), "s1", "c1")
		if err != nil || out.Reason != askuser.ReasonDeadline {
			t.Errorf("Await: %v, %v; want the deadline's outcome", out, err)
		}
	})
}

// timersDown is a store that refuses to set timers until back, as a NATS
// timers stream electing a leader does.
type timersDown struct {
	*store.Memory
	mu      sync.Mutex
	back    time.Time
	refused int
}

func (s *timersDown) down(d time.Duration) {
	s.mu.Lock()
	s.back = time.Now().Add(d)
	s.mu.Unlock()
}

func (s *timersDown) Schedule(ctx context.Context, key string, at time.Time) error {
	s.mu.Lock()
	down := time.Now().Before(s.back)
	if down {
		s.refused++
	}
	s.mu.Unlock()
	if down {
		return errors.New("nats: no response from stream")
	}
	return s.Memory.Schedule(ctx, key, at)
}

// TestSharedAnsweredJournalAndTimersDown: an answer ends an ask while
// the store's timers and the journal both fail (one NATS node led both
// streams). The record waits on the ask's timer, which is set once the
// store takes it again, and the record is written within a minute, not
// at the ask's deadline five minutes later. (The timer used to be given
// up after one try, leaving only the deadline's.)
func TestSharedAnsweredJournalAndTimersDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := &downJournal{fails: 1}
		st := &timersDown{Memory: store.NewMemory(0)}
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r, Asks: st, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		follow(t, r, "s1")
		res := handleAsync(context.Background(), o, "s1", choiceCall)
		a := <-r.asked
		st.down(15 * time.Second) // longer than a change of the ask is retried
		answerChoice(t, a)
		out := <-res
		if out == nil || string(out.Result) != answeredChoice || out.JournalErr != nil {
			t.Fatalf("outcome %+v; want the answer, given once it is stored, before its record is written", out)
		}
		st.mu.Lock()
		refused := st.refused
		st.mu.Unlock()
		if refused == 0 {
			t.Fatal("no timer was refused: the test did not fail the timers over")
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n, tries := j.records(); n != 1 || tries != 2 {
			t.Errorf("a minute after the answer: %d records in %d tries; want 1 in 2", n, tries)
		}
	})
}

// hungJournal does not answer until a time: an Append before then waits
// until its context ends, as a journal stream without a leader does.
// After, it keeps the first record of each ask.
type hungJournal struct {
	until time.Time
	mu    sync.Mutex
	kept  map[string]*journal.Record
	tries int
}

func (j *hungJournal) Append(ctx context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	if time.Now().Before(j.until) {
		t := time.NewTimer(time.Until(j.until))
		defer t.Stop()
		select {
		case <-ctx.Done():
			j.mu.Lock()
			j.tries++
			j.mu.Unlock()
			return errors.New("journal: no response from stream")
		case <-t.C:
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.tries++
	if j.kept == nil {
		j.kept = map[string]*journal.Record{}
	}
	if _, ok := j.kept[r.AskID]; !ok {
		j.kept[r.AskID] = r
	}
	return nil
}

// TestSharedDeadlinesWhileJournalHangs: many asks reach their deadline
// on a shared store while the journal answers nothing (its leader was
// killed). Each is ended at its deadline — the store's timers are not
// held waiting on the journal — and every record is written once the
// journal is back. (Each timer's worker once waited up to 5 s on the
// journal before it stored the final result, so that the deadlines after
// the first eight were kept seconds late.)
func TestSharedDeadlinesWhileJournalHangs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const asks = 40
		j := &hungJournal{until: time.Now().Add(20 * time.Second)}
		o := &askuser.Orchestrator{Responder: newEvents(), Asks: store.NewMemory(0), Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		call := strings.Replace(choiceCall, `"timeout_seconds":300`, `"timeout_seconds":2`, 1)
		for i := range asks {
			if _, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: fmt.Sprintf("call-%d", i), Arguments: []byte(call)}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		j.mu.Lock()
		defer j.mu.Unlock()
		if len(j.kept) != asks {
			t.Fatalf("the journal has %d records after it came back, want %d", len(j.kept), asks)
		}
		var late int
		for _, r := range j.kept {
			if d := r.FinalizedAt.Sub(r.ExpiresAt); d > time.Second {
				late++
				t.Errorf("ask %s was finalized %v after its deadline, want within a second", r.AskID, d)
			}
		}
		if late > 0 {
			t.Logf("%d of %d deadlines late; the journal was tried %d times", late, asks, j.tries)
		}
	})
}
