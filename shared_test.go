package askuser_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// fleet is n orchestrators sharing one pending-ask store, one journal and
// one secret store, as the replicas of a service do; each has an
// EventDriven responder (a card, say) that follows the sessions "s1" and
// "s2", and so is told about every ask of theirs, wherever it began.
type fleet struct {
	store   *store.Memory
	journal *approvalJournal
	secrets secretstore.Store
	orch    []*askuser.Orchestrator
	resp    []*events
}

func newFleet(t *testing.T, n int) *fleet {
	f := &fleet{store: store.NewMemory(0), journal: &approvalJournal{}, secrets: secretstore.NewMemory(nil)}
	for range n {
		r := newEvents()
		r.asked = make(chan *askuser.Ask, 64)
		o := &askuser.Orchestrator{Responder: r, Asks: f.store, Journal: f.journal, Secrets: f.secrets, Logger: newDiscardLogger()}
		f.orch = append(f.orch, o)
		f.resp = append(f.resp, r)
	}
	t.Cleanup(f.close)
	for i, o := range f.orch {
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		follow(t, f.resp[i], "s1", "s2")
	}
	return f
}

// follow has r follow sessions until the test ends.
func follow(t *testing.T, r *events, sessions ...string) {
	t.Helper()
	for _, s := range sessions {
		stop, err := r.sessions.Follow(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
}

func (f *fleet) close() {
	for _, o := range f.orch {
		o.Close()
		o.WaitResponders()
	}
}

// handle asks a call on replica i in a goroutine.
func (f *fleet) handle(ctx context.Context, i int, session, toolCall, call string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := f.orch[i].Handle(ctx, askuser.Request{Session: session, ToolCallID: toolCall, Arguments: []byte(call)})
		ch <- result{out, err}
	}()
	return ch
}

type result struct {
	out *askuser.Outcome
	err error
}

// asked returns the next ask replica i's responder was told about.
func (f *fleet) asked(t *testing.T, i int) *askuser.Ask {
	t.Helper()
	select {
	case a := <-f.resp[i].asked:
		return a
	case <-time.After(time.Minute):
		t.Fatalf("replica %d was never told about the ask", i)
		return nil
	}
}

func answerChoice(t *testing.T, a *askuser.Ask) {
	t.Helper()
	if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Report(askuser.Answer{QuestionID: "region", Selected: []string{"us"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Submit(); err != nil {
		t.Fatal(err)
	}
}

const answeredChoice = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["us"],"other_text":null}]}`

// TestSharedAnswerOnAnotherReplica: the person answers on replica B an ask
// whose caller waits on replica A; A's caller gets the answer, every
// replica's responder was told about the ask and learns of its end, and
// the journal has one record.
func TestSharedAnswerOnAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 3)
		res := f.handle(context.Background(), 0, "s1", "call-1", choiceCall)
		onA := f.asked(t, 0)
		onB := f.asked(t, 1)
		onC := f.asked(t, 2)
		if onA.ID() != onB.ID() || onB.ID() != onC.ID() {
			t.Fatalf("the replicas were told of different asks: %s %s %s", onA.ID(), onB.ID(), onC.ID())
		}
		if got := f.orch[2].Pending("s1"); len(got) != 1 || got[0].AskID != onA.ID() {
			t.Fatalf("replica C lists %+v, want the one pending ask", got)
		}
		answerChoice(t, onB)
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		if got := string(r.out.Result); got != answeredChoice {
			t.Errorf("A's caller got %s, want %s", got, answeredChoice)
		}
		if r.out.Replayed {
			t.Error("the caller's own outcome is marked as a replay")
		}
		synctest.Wait()
		for i, a := range []*askuser.Ask{onA, onB, onC} {
			if a.Outcome() == nil || string(a.Outcome().Result) != answeredChoice {
				t.Errorf("replica %d's handle did not learn the final outcome", i)
			}
		}
		synctest.Wait() // a record follows its final result on a shared store
		if recs := f.journal.records(); len(recs) != 1 {
			t.Errorf("journal has %d records, want 1", len(recs))
		}
		if got := f.orch[0].Pending("s1"); len(got) != 0 {
			t.Errorf("still pending after the answer: %+v", got)
		}
	})
}

// TestSharedCloseLeavesAskPending: replica A is closed mid-ask (its
// process goes away without finalizing); its caller gets
// ErrOrchestratorClosed, the ask stays pending, the same tool call retried
// on replica C joins it, and the person's answer on C reaches the retry.
// Nobody is asked twice.
func TestSharedCloseLeavesAskPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 3)
		res := f.handle(context.Background(), 0, "s1", "call-1", choiceCall)
		first := f.asked(t, 0)
		if err := first.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
			t.Fatal(err)
		}
		f.orch[0].Close()
		if r := <-res; !errors.Is(r.err, askuser.ErrOrchestratorClosed) {
			t.Fatalf("A's caller got %v, %v; want ErrOrchestratorClosed", r.out, r.err)
		}
		retry := f.handle(context.Background(), 2, "s1", "call-1", choiceCall)
		onC := f.asked(t, 2)
		if onC.ID() != first.ID() {
			t.Fatalf("the retry made a new ask %s; want it to join %s", onC.ID(), first.ID())
		}
		synctest.Wait() // C's watch brings the answer given on A
		if got := onC.Accepted(); len(got) != 1 || got[0].QuestionID != "env" {
			t.Errorf("C's handle shows accepted %+v; want the answer given on A", got)
		}
		if err := onC.Report(askuser.Answer{QuestionID: "region", Selected: []string{"us"}}); err != nil {
			t.Fatal(err)
		}
		if err := onC.Submit(); err != nil {
			t.Fatal(err)
		}
		r := <-retry
		if r.err != nil {
			t.Fatal(r.err)
		}
		if got := string(r.out.Result); got != answeredChoice {
			t.Errorf("the retry got %s, want %s", got, answeredChoice)
		}
		synctest.Wait()
		if recs := f.journal.records(); len(recs) != 1 {
			t.Errorf("journal has %d records, want 1", len(recs))
		}
	})
}

// TestSharedDeadlineWithNobodyWaiting: the caller goes away (it gets its
// context's error), the ask stays pending; at the deadline a replica's
// sweep finalizes it with the declared defaults, journals it once, and a
// retry of the tool call on another replica replays the result without
// asking anyone.
func TestSharedDeadlineWithNobodyWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 3)
		ctx, cancel := context.WithCancel(context.Background())
		res := f.handle(ctx, 0, "s1", "call-1", choiceCall)
		a := f.asked(t, 0)
		cancel()
		if r := <-res; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("the caller got %v, %v; want its context's error", r.out, r.err)
		}
		synctest.Wait()
		if got := f.orch[1].Pending("s1"); len(got) != 1 {
			t.Fatalf("after the caller left, B lists %d pending asks, want 1", len(got))
		}
		synctest.Wait() // a record follows its final result on a shared store
		if recs := f.journal.records(); len(recs) != 0 {
			t.Fatalf("the journal has %d records while the ask is pending", len(recs))
		}
		f.orch[0].Close() // and the replica that asked is gone too
		time.Sleep(300*time.Second + time.Millisecond)
		synctest.Wait()
		recs := f.journal.records()
		if len(recs) != 1 {
			t.Fatalf("journal has %d records after the deadline, want 1", len(recs))
		}
		want := `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`
		if got := string(recs[0].Result); got != want {
			t.Errorf("journaled result %s, want %s", got, want)
		}
		if a.Outcome() != nil {
			t.Error("the closed replica's handle learned an outcome after Close")
		}
		r := <-f.handle(context.Background(), 2, "s1", "call-1", choiceCall)
		if r.err != nil || string(r.out.Result) != want || !r.out.Replayed {
			t.Errorf("retry on C: %v, %v; want the replayed result %s", r.out, r.err, want)
		}
		select {
		case a := <-f.resp[2].asked:
			if a.ID() != recs[0].AskID {
				t.Errorf("C was told of a new ask %s on replay", a.ID())
			}
		default:
		}
		synctest.Wait() // a record follows its final result on a shared store
		if recs := f.journal.records(); len(recs) != 1 {
			t.Errorf("journal has %d records after the replay, want 1", len(recs))
		}
	})
}

// TestSharedFirstEndingWins: two replicas end one ask at once; exactly one
// ending takes effect, the other gets ErrAskEnded, and there is one record.
func TestSharedFirstEndingWins(t *testing.T) {
	for round := range 20 {
		synctest.Test(t, func(t *testing.T) {
			f := newFleet(t, 2)
			res := f.handle(context.Background(), 0, "s1", "", choiceCall)
			a, b := f.asked(t, 0), f.asked(t, 1)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Go(func() { errs[0] = a.Decline() })
			wg.Go(func() { errs[1] = b.Cancel("") })
			wg.Wait()
			r := <-res
			won := 0
			for _, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, askuser.ErrAskEnded):
					t.Errorf("round %d: the losing ending got %v, want ErrAskEnded", round, err)
				}
			}
			if won != 1 {
				t.Fatalf("round %d: %d endings took effect, want 1", round, won)
			}
			if (errs[0] == nil) != (r.out.Reason == askuser.ReasonDeclined) {
				t.Errorf("round %d: outcome %s does not match the ending that won (%v, %v)", round, r.out.Reason, errs[0], errs[1])
			}
			synctest.Wait()
			if recs := f.journal.records(); len(recs) != 1 {
				t.Errorf("round %d: journal has %d records, want 1", round, len(recs))
			}
		})
	}
}

// TestSharedDeadlineWinsTie: a submit at exactly ExpiresAt, from another
// replica, is refused and the deadline applies.
func TestSharedDeadlineWinsTie(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		res := f.handle(context.Background(), 0, "s1", "", envCall)
		b := f.asked(t, 1)
		if err := b.Report(askuser.Answer{QuestionID: "env", Selected: []string{"b"}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(b.Form().ExpiresAt))
		if err := b.Submit(); !errors.Is(err, askuser.ErrAskEnded) {
			t.Errorf("submit at ExpiresAt: %v, want ErrAskEnded", err)
		}
		r := <-res
		if r.out.Reason != askuser.ReasonDeadline {
			t.Errorf("reason %s, want deadline", r.out.Reason)
		}
		// The person's accepted answer is kept, marked as theirs.
		if ans := r.out.Answer("env"); ans == nil || ans.By != askuser.ByUser {
			t.Errorf("answer %+v, want the person's", ans)
		}
	})
}

// TestSharedSupersedeFromAnotherReplica: Supersede on B ends A's pending
// ask as superseded.
func TestSharedSupersedeFromAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		res := f.handle(context.Background(), 0, "s1", "", choiceCall)
		f.asked(t, 1)
		if n := f.orch[1].Supersede("s1"); n != 1 {
			t.Fatalf("Supersede ended %d asks, want 1", n)
		}
		r := <-res
		if r.out.Reason != askuser.ReasonSuperseded {
			t.Errorf("reason %s, want superseded", r.out.Reason)
		}
	})
}

// TestSharedSecretOnAnotherReplica: a secret typed on replica B is sealed
// into the shared secret store and committed when the ask is final; the
// result carries only its reference.
func TestSharedSecretOnAnotherReplica(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		res := f.handle(context.Background(), 0, "s1", "", secretCall)
		b := f.asked(t, 1)
		if err := b.Report(askuser.Answer{QuestionID: b.Form().Questions[0].ID, Secret: secret.FromString("ghp_example")}); err != nil {
			t.Fatal(err)
		}
		if err := b.Submit(); err != nil {
			t.Fatal(err)
		}
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		ans := r.out.Answers[0]
		if ans.SecretRef != "session:GITHUB_TOKEN" {
			t.Errorf("secret ref %q", ans.SecretRef)
		}
		v, err := secretstore.ResolveFor(context.Background(), f.orch[0].Secrets, "s1", ans.SecretRef)
		if err != nil {
			t.Fatal(err)
		}
		if string(v.Reveal()) != "ghp_example" {
			t.Error("the reference does not resolve to the value typed on the other replica")
		}
	})
}

// TestSharedBeginAwait: Begin returns at once with the ask's id (and the
// same id for the same tool call again); Await on another replica waits
// while the ask is pending (ctx's error when ctx ends first) and returns
// the result once it is final; an unknown tool call is ErrUnknownAsk.
func TestSharedBeginAwait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		req := askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)}
		id, err := f.orch[0].Begin(context.Background(), req)
		if err != nil || id == "" {
			t.Fatalf("Begin: %q, %v", id, err)
		}
		again, err := f.orch[1].Begin(context.Background(), req)
		if err != nil || again != id {
			t.Fatalf("Begin again on B: %q, %v; want %q", again, err, id)
		}
		if _, err := f.orch[1].Await(context.Background(), "s1", "call-2"); !errors.Is(err, askuser.ErrUnknownAsk) {
			t.Errorf("Await of an unknown call: %v, want ErrUnknownAsk", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = f.orch[1].Await(ctx, "s1", "call-1")
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Await while pending: %v, want the context's deadline", err)
		}
		b := f.asked(t, 1)
		if b.ID() != id {
			t.Fatalf("B shows %s, want %s", b.ID(), id)
		}
		answerChoice(t, b)
		out, err := f.orch[1].Await(context.Background(), "s1", "call-1")
		if err != nil || string(out.Result) != answeredChoice || out.AskID != id {
			t.Errorf("Await after the answer: %v, %v", out, err)
		}
	})
}

// TestBeginAwaitInMemory: without a shared store, Begin starts an ask that
// nobody waits on and Await comes back for it, as on a store: while it is
// pending, once it is final (a replay), and for a tool call never asked.
func TestBeginAwaitInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r, Logger: newDiscardLogger()}
		defer o.WaitResponders()
		id, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)})
		if err != nil {
			t.Fatal(err)
		}
		a := <-r.asked
		if a.ID() != id {
			t.Fatalf("Begin returned %s, the responder was told about %s", id, a.ID())
		}
		again, err := o.Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)})
		if err != nil || again != id {
			t.Fatalf("Begin of the same tool call: %s, %v; want %s", again, err, id)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if _, err := o.Await(ctx, "s1", "call-1"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Await while pending, past its context: %v, want the context's error", err)
		}
		cancel()
		waited := make(chan result, 1)
		go func() {
			out, err := o.Await(context.Background(), "s1", "call-1")
			waited <- result{out, err}
		}()
		synctest.Wait()
		answerChoice(t, a)
		if r := <-waited; r.err != nil || string(r.out.Result) != answeredChoice || !r.out.Replayed {
			t.Errorf("Await waiting across the answer: %+v, want %s replayed", r, answeredChoice)
		}
		if out, err := o.Await(context.Background(), "s1", "call-1"); err != nil || string(out.Result) != answeredChoice {
			t.Errorf("Await once final: %v, %v", out, err)
		}
		if _, err := o.Await(context.Background(), "s1", "never"); !errors.Is(err, askuser.ErrUnknownAsk) {
			t.Errorf("Await of a tool call never asked: %v, want ErrUnknownAsk", err)
		}
	})
}

// slowCreate holds each Create after the record is in the store, until
// release is closed: the window in which the watch may bring the whole
// life of an ask before its creator has heard back from the store.
type slowCreate struct {
	*store.Memory
	release chan struct{}
}

func (s slowCreate) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	rev, err := s.Memory.Create(ctx, key, data)
	<-s.release
	return rev, err
}

// TestSharedFinalBeforeCreateReturns: another replica answers, ends and
// finalizes an ask before the store's Create has returned to the replica
// that asked; its caller still gets the result. (It once waited forever:
// the final result had come and gone before the caller's entry existed.)
func TestSharedFinalBeforeCreateReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := slowCreate{store.NewMemory(0), make(chan struct{})}
		orch, cards := twoOn(t, store)
		res := make(chan *askuser.Outcome, 1)
		go func() {
			out, _ := orch[0].Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)})
			res <- out
		}()
		start := time.Now()
		answerChoice(t, <-cards[1].asked)
		synctest.Wait() // final, and delivered to every watch
		close(store.release)
		out := <-res
		if out == nil || string(out.Result) != answeredChoice {
			t.Fatalf("the caller got %v, want %s", out, answeredChoice)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the caller got the result after %v (of the bubble's clock), want at once", waited)
		}
	})
}

// staleGet answers the next Get with an entry read earlier, once one is
// put in stale: a read that raced the watch. It keeps the key of the last
// Create.
type staleGet struct {
	*store.Memory
	stale   chan store.Entry
	created chan string
}

func (s staleGet) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	s.created <- key
	return s.Memory.Create(ctx, key, data)
}

func (s staleGet) Get(ctx context.Context, key string) (store.Entry, error) {
	select {
	case e := <-s.stale:
		return e, nil
	default:
		return s.Memory.Get(ctx, key)
	}
}

// TestSharedStaleReadAfterFinal: Await reads the store, gets the ask as it
// was while pending, but the watch has meanwhile brought its final result;
// the old read does not bring the ask back, and Await returns the result
// at once (it once waited for the deadline).
func TestSharedStaleReadAfterFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := store.NewMemory(0)
		store := staleGet{mem, make(chan store.Entry, 1), make(chan string, 1)}
		orch, cards := twoOn(t, store)
		if _, err := orch[0].Begin(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)}); err != nil {
			t.Fatal(err)
		}
		pendingRead, err := mem.Get(context.Background(), <-store.created)
		if err != nil {
			t.Fatal(err)
		}
		answerChoice(t, <-cards[1].asked)
		synctest.Wait() // final, and delivered to every watch
		store.stale <- pendingRead
		start := time.Now()
		out, err := orch[1].Await(context.Background(), "s1", "call-1")
		if err != nil || string(out.Result) != answeredChoice {
			t.Fatalf("Await: %v, %v; want %s", out, err, answeredChoice)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Await returned after %v (of the bubble's clock), want at once", waited)
		}
	})
}

// flakyStore loses the answer of the next Update that succeeds, and then
// fails the next Get as a store electing a leader would.
type flakyStore struct {
	*store.Memory
	loseUpdate, failGet chan struct{}
}

func (s flakyStore) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	nrev, err := s.Memory.Update(ctx, key, data, rev)
	select {
	case <-s.loseUpdate:
		return 0, errors.New("nats: timeout")
	default:
	}
	return nrev, err
}

func (s flakyStore) Get(ctx context.Context, key string) (store.Entry, error) {
	select {
	case <-s.failGet:
		return store.Entry{}, errors.New("nats: no responders available for request")
	default:
	}
	return s.Memory.Get(ctx, key)
}

// TestSharedStoreFailsAndRecovers: a submit whose write landed but whose
// answer was lost, followed by a failed read, still ends the ask once: the
// orchestrator tries the store again, recognizes its own write, and does
// not take it for another writer's ending.
func TestSharedStoreFailsAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := flakyStore{store.NewMemory(0), make(chan struct{}, 1), make(chan struct{}, 1)}
		r := newEvents()
		j := &approvalJournal{}
		o := &askuser.Orchestrator{Responder: r, Asks: store, Journal: j, Logger: newDiscardLogger()}
		defer func() { o.Close(); o.WaitResponders() }()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		follow(t, r, "s1")
		res := handleAsync(context.Background(), o, "s1", choiceCall)
		a := <-r.asked
		for _, ans := range []askuser.Answer{{QuestionID: "env", Selected: []string{"staging"}}, {QuestionID: "region", Selected: []string{"us"}}} {
			if err := a.Report(ans); err != nil {
				t.Fatal(err)
			}
		}
		store.loseUpdate <- struct{}{}
		store.failGet <- struct{}{}
		if err := a.Submit(); err != nil {
			t.Fatalf("submit through a flaky store: %v", err)
		}
		if out := <-res; out == nil || string(out.Result) != answeredChoice {
			t.Fatalf("outcome %v, want %s", out, answeredChoice)
		}
		synctest.Wait()
		if recs := j.records(); len(recs) != 1 {
			t.Errorf("journal has %d records, want 1", len(recs))
		}
	})
}

// twoOn starts two orchestrators on one store, each with an EventDriven
// responder, closed when the test ends.
func twoOn(t *testing.T, store store.Pending) ([]*askuser.Orchestrator, []*events) {
	var orch []*askuser.Orchestrator
	var cards []*events
	for range 2 {
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r, Asks: store, Logger: newDiscardLogger()}
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.Close(); o.WaitResponders() })
		follow(t, r, "s1")
		orch, cards = append(orch, o), append(cards, r)
	}
	return orch, cards
}

// TestSharedToldOnce: a responder that follows a session is told once of
// an ask begun on its own replica, although the store's feed brings that
// ask to it as well.
func TestSharedToldOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		const n = 50
		var results []<-chan result
		for i := range n {
			results = append(results, f.handle(context.Background(), 0, "s1", fmt.Sprintf("call-%d", i), choiceCall))
		}
		synctest.Wait()
		told := map[string]int{}
		var asks []*askuser.Ask
		for len(f.resp[0].asked) > 0 {
			a := <-f.resp[0].asked
			if told[a.ID()]++; told[a.ID()] == 1 {
				asks = append(asks, a)
			}
		}
		for _, a := range asks {
			answerChoice(t, a)
		}
		for _, res := range results {
			if r := <-res; r.err != nil || string(r.out.Result) != answeredChoice {
				t.Fatalf("outcome %+v, want %s", r, answeredChoice)
			}
		}
		if len(told) != n {
			t.Errorf("replica A was told of %d asks, want %d", len(told), n)
		}
		for id, k := range told {
			if k != 1 {
				t.Errorf("replica A was told of ask %s %d times, want once", id, k)
			}
		}
	})
}

// TestSharedFollowerToldOnce: a replica that follows a session and answers
// an ask there is told about the ask once. Its own writes end the ask
// before its feed has brought the revisions they made, and a revision the
// feed brings late (the ask still pending in it) must not show the ended
// ask to the responder again.
func TestSharedFollowerToldOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFleet(t, 2)
		for i := range 20 {
			res := f.handle(context.Background(), 0, "s1", fmt.Sprintf("call-%d", i), choiceCall)
			onA, onB := f.asked(t, 0), f.asked(t, 1)
			if onA.ID() != onB.ID() {
				t.Fatalf("ask %d: the replicas were told of different asks: %s %s", i, onA.ID(), onB.ID())
			}
			answerChoice(t, onB)
			if r := <-res; r.err != nil {
				t.Fatal(r.err)
			}
			synctest.Wait()
			for k, r := range f.resp {
				select {
				case a := <-r.asked:
					t.Fatalf("ask %d: replica %d was told again about %s/%s after it ended (final: %v)", i, k, a.Session(), a.ToolCallID(), a.Outcome() != nil)
				default:
				}
			}
		}
	})
}
