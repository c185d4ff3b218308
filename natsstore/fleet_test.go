package natsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secretstore"
)

// The orchestrator-level tests: three orchestrators, each with its own
// connection to a node of a three-node JetStream cluster, sharing one
// Store (pending asks, journal, secrets, consents), as the replicas of a
// service do. Each replica's responder is a card: EventDriven, and a
// SessionFollower that follows "s1" and every session a test looks up a
// tool call in, so that it is told about those sessions' asks wherever they
// began.

// card is an EventDriven responder that keeps the handles it is told
// about, by ask id and by tool call, for the test to answer through.
type card struct {
	sessions *askuser.Sessions
	followed map[string]bool

	mu     sync.Mutex
	asks   map[string]*askuser.Ask
	byCall map[string]*askuser.Ask
	last   *askuser.Ask
	cond   chan struct{} // closed and replaced on every new ask
}

func newCard() *card {
	return &card{asks: map[string]*askuser.Ask{}, byCall: map[string]*askuser.Ask{}, cond: make(chan struct{}), followed: map[string]bool{}}
}

// FollowSessions keeps what the orchestrator hands over.
func (c *card) FollowSessions(s *askuser.Sessions) { c.sessions = s }

// follow follows session until the test ends, once.
func (c *card) follow(t testing.TB, session string) {
	c.mu.Lock()
	done := c.followed[session]
	c.followed[session] = true
	c.mu.Unlock()
	if done {
		return
	}
	stop, err := c.sessions.Follow(ctxFor(t), session)
	if err != nil {
		t.Errorf("following session %s: %v", session, err)
		return
	}
	t.Cleanup(stop)
}

func (c *card) Asked(a *askuser.Ask) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.asks[a.ID()]; !ok {
		c.asks[a.ID()] = a
		c.byCall[a.Session()+"/"+a.ToolCallID()] = a
		c.last = a
	}
	close(c.cond)
	c.cond = make(chan struct{})
}

func (c *card) Respond(ctx context.Context, a *askuser.Ask) error {
	c.Asked(a)
	<-ctx.Done()
	return nil
}

// lookup returns the handle find picks, waiting a bounded time for the
// card to be told of it; nil (and the test marked failed) if it never is.
// It may be called from any goroutine.
func (c *card) lookup(t testing.TB, what string, find func() *askuser.Ask) *askuser.Ask {
	deadline := time.After(readyWait)
	for {
		c.mu.Lock()
		a := find()
		ch := c.cond
		c.mu.Unlock()
		if a != nil {
			return a
		}
		select {
		case <-ch:
		case <-deadline:
			t.Errorf("the card was never told of %s", what)
			return nil
		}
	}
}

// wait returns the handle of the ask with the given id (the latest ask,
// for ""), and fails the test if the card is never told of it.
func (c *card) wait(t testing.TB, id string) *askuser.Ask {
	t.Helper()
	a := c.lookup(t, "ask "+id, func() *askuser.Ask {
		if id == "" {
			return c.last
		}
		return c.asks[id]
	})
	if a == nil {
		t.FailNow()
	}
	return a
}

// byToolCall is lookup by a session's tool call.
func (c *card) byToolCall(t testing.TB, session, toolCall string) *askuser.Ask {
	c.follow(t, session)
	return c.lookup(t, session+"/"+toolCall, func() *askuser.Ask { return c.byCall[session+"/"+toolCall] })
}

type replica struct {
	o     *askuser.Orchestrator
	card  *card
	store *Store
}

var fleetKeys = func() *secretstore.KeyRing {
	k, err := secretstore.RandomKey("k1")
	if err != nil {
		panic(err)
	}
	r, err := secretstore.NewKeyRing(k)
	if err != nil {
		panic(err)
	}
	return r
}()

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newReplica starts an orchestrator on its own connection to node i.
func newReplica(t testing.TB, c *cluster, i int, prefix string) *replica {
	t.Helper()
	js := c.connect(t, i)
	s := open(t, js, Config{Prefix: prefix, Replicas: 3, Keys: fleetKeys})
	r := &replica{card: newCard(), store: s}
	r.o = &askuser.Orchestrator{
		Responder: r.card, Asks: s.Asks(), Journal: s.Journal(), Secrets: s.Secrets(), Consents: s.Consents(),
		Logger: quiet(),
		// An hour, so that an ask a test answers cannot reach its
		// deadline while a loaded machine runs the test slowly.
		Limits: dialect.Limits{MaxTimeoutSeconds: manyAsksTimeout},
	}
	t.Cleanup(r.stop)
	if err := r.o.Ready(ctxFor(t)); err != nil {
		t.Fatalf("replica %d never caught up with the store: %v", i, err)
	}
	r.card.follow(t, "s1")
	return r
}

// stop closes the orchestrator as a process going away would: pending
// asks stay pending.
func (r *replica) stop() {
	r.o.Close()
	r.o.WaitResponders()
}

// manyAsksTimeout is the deadline, in seconds, of the asks that
// TestFleetManyAsks answers: far longer than the test takes even on a
// loaded machine (it once took 7 minutes under a load of 28, and asks
// with 5-minute deadlines ended before the cards were told of them).
const manyAsksTimeout = 3600

func fleetOf(t testing.TB, c *cluster, prefix string) []*replica {
	return []*replica{newReplica(t, c, 0, prefix), newReplica(t, c, 1, prefix), newReplica(t, c, 2, prefix)}
}

type outcome struct {
	out *askuser.Outcome
	err error
}

func (r *replica) handle(ctx context.Context, session, toolCall, call string) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		out, err := r.o.Handle(ctx, askuser.Request{Session: session, ToolCallID: toolCall, Arguments: []byte(call)})
		ch <- outcome{out, err}
	}()
	return ch
}

func receive(t testing.TB, ch <-chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(readyWait):
		t.Fatal("no outcome")
		return outcome{}
	}
}

const fleetCall = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break"},
   {"label":"production","description":"Real users","default":true}]},
 {"id":"region","header":"Region","question":"Which region?","options":[
   {"label":"eu","description":"Europe"},
   {"label":"us","description":"America"}]}],
 "timeout_seconds":%d}`

func call(timeout int) string { return fmt.Sprintf(fleetCall, timeout) }

const fleetAnswered = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["us"],"other_text":null}]}`

func answer(t testing.TB, a *askuser.Ask) {
	t.Helper()
	for _, ans := range []askuser.Answer{{QuestionID: "env", Selected: []string{"staging"}}, {QuestionID: "region", Selected: []string{"us"}}} {
		if err := a.Report(ans); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Submit(); err != nil {
		t.Fatal(err)
	}
}

// records reads a session's journal records, waiting up to readyWait for
// the first: a record follows its final result, which is the outbox.
func records(t testing.TB, r *replica, session string) []*journal.Record {
	t.Helper()
	return journalRecords(t, r.store, session)
}

func journalRecords(t testing.TB, s *Store, session string) []*journal.Record {
	t.Helper()
	deadline := time.Now().Add(readyWait)
	for {
		recs, err := s.Journal().Records(ctxFor(t), session)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 0 || time.Now().After(deadline) {
			return recs
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFleetAnswerOnAnotherReplica: the person answers on B's card an ask
// whose caller waits on A; the caller gets the answer, C's card learns of
// the end, and the journal stream has one record.
func TestFleetAnswerOnAnotherReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	f := fleetOf(t, c, "answer")
	res := f[0].handle(context.Background(), "s1", "call-1", call(300))
	b := f[1].card.wait(t, "")
	onC := f[2].card.wait(t, b.ID())
	answer(t, b)
	got := receive(t, res)
	if got.err != nil || string(got.out.Result) != fleetAnswered {
		t.Fatalf("A's caller got %v, %v; want %s", got.out, got.err, fleetAnswered)
	}
	select {
	case <-onC.Done():
	case <-time.After(readyWait):
		t.Fatal("C's card never learned that the ask ended")
	}
	if recs := records(t, f[2], "s1"); len(recs) != 1 || recs[0].AskID != b.ID() {
		t.Errorf("journal: %d records, want 1 for %s", len(recs), b.ID())
	}
}

// TestFleetReplicaGoneRetryElsewhere: A's orchestrator is closed mid-ask
// (its process went away without finalizing), after an answer was given
// on its card; the call retried on C joins the same ask, with that answer
// kept, and the person's submit on C reaches the retry. One record.
func TestFleetReplicaGoneRetryElsewhere(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	f := fleetOf(t, c, "gone")
	res := f[0].handle(context.Background(), "s1", "call-1", call(300))
	a := f[0].card.wait(t, "")
	if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
		t.Fatal(err)
	}
	f[0].stop()
	if got := receive(t, res); !errors.Is(got.err, askuser.ErrOrchestratorClosed) {
		t.Fatalf("A's caller got %v, %v; want ErrOrchestratorClosed", got.out, got.err)
	}
	retry := f[2].handle(context.Background(), "s1", "call-1", call(300))
	onC := f[2].card.wait(t, a.ID())
	// The answer given on A is in the store, so C's handle has it once its
	// watch has brought it.
	deadline := time.Now().Add(readyWait)
	for len(onC.Accepted()) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("C's handle never showed the answer given on A")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := onC.Report(askuser.Answer{QuestionID: "region", Selected: []string{"us"}}); err != nil {
		t.Fatal(err)
	}
	if err := onC.Submit(); err != nil {
		t.Fatal(err)
	}
	got := receive(t, retry)
	if got.err != nil || string(got.out.Result) != fleetAnswered || got.out.AskID != a.ID() {
		t.Fatalf("the retry got %v, %v; want %s for ask %s", got.out, got.err, fleetAnswered, a.ID())
	}
	if recs := records(t, f[1], "s1"); len(recs) != 1 {
		t.Errorf("journal: %d records, want 1", len(recs))
	}
}

// TestFleetDeadlineNobodyWaiting: the caller leaves and the replica that
// asked goes away; a surviving replica's sweep finalizes the ask at its
// deadline with the declared defaults and journals it; the retry on
// another replica replays that result without asking anyone.
func TestFleetDeadlineNobodyWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	f := fleetOf(t, c, "deadline")
	ctx, cancel := context.WithCancel(context.Background())
	res := f[0].handle(ctx, "s1", "call-1", call(2))
	a := f[0].card.wait(t, "")
	cancel()
	if got := receive(t, res); !errors.Is(got.err, context.Canceled) {
		t.Fatalf("the caller got %v, %v; want its context's error", got.out, got.err)
	}
	f[0].stop()
	want := `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`
	recs := records(t, f[1], "s1") // waits for the record, as for the deadline
	if len(recs) != 1 || string(recs[0].Result) != want || recs[0].AskID != a.ID() {
		t.Fatalf("journal after the deadline: %d records (%v); want one with %s", len(recs), recs, want)
	}
	if recs[0].FinalizedAt.Before(recs[0].ExpiresAt) {
		t.Errorf("finalized at %v, before the deadline %v", recs[0].FinalizedAt, recs[0].ExpiresAt)
	}
	got := receive(t, f[2].handle(context.Background(), "s1", "call-1", call(2)))
	if got.err != nil || string(got.out.Result) != want || !got.out.Replayed {
		t.Fatalf("the retry got %v, %v; want the replayed %s", got.out, got.err, want)
	}
	if recs := records(t, f[1], "s1"); len(recs) != 1 {
		t.Errorf("journal after the replay: %d records, want 1", len(recs))
	}
}

// TestFleetClusterRestart: every replica and every NATS node stop with an
// ask pending; the cluster restarts from its files, new replicas catch up,
// list the ask, and an answer through one of them reaches Await on
// another.
func TestFleetClusterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	f := fleetOf(t, c, "restart")
	id, err := f[0].o.Begin(ctxFor(t), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(call(300))})
	if err != nil {
		t.Fatal(err)
	}
	f[0].card.wait(t, id)
	for _, r := range f {
		r.stop()
	}
	c.restartAll(t)
	g := fleetOf(t, c, "restart")
	if p := g[1].o.Pending("s1"); len(p) != 1 || p[0].AskID != id {
		t.Fatalf("after the restart B lists %+v; want ask %s pending", p, id)
	}
	res := make(chan outcome, 1)
	go func() {
		out, err := g[2].o.Await(ctxFor(t), "s1", "call-1")
		res <- outcome{out, err}
	}()
	answer(t, g[1].card.wait(t, id))
	got := receive(t, res)
	if got.err != nil || string(got.out.Result) != fleetAnswered {
		t.Fatalf("Await after the restart got %v, %v", got.out, got.err)
	}
}

// TestFleetNodeDown: the NATS node that replica A is connected to dies
// mid-ask; A's connection moves to another node, and the answer given on
// B's card still reaches A's caller.
func TestFleetNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	c := newCluster(t, 3)
	f := fleetOf(t, c, "nodedown")
	res := f[0].handle(context.Background(), "s1", "call-1", call(300))
	b := f[1].card.wait(t, "")
	c.kill(0)
	c.waitReady(t)
	answer(t, b)
	got := receive(t, res)
	if got.err != nil || string(got.out.Result) != fleetAnswered {
		t.Fatalf("A's caller got %v, %v; want %s", got.out, got.err, fleetAnswered)
	}
	if recs := records(t, f[1], "s1"); len(recs) != 1 {
		t.Errorf("journal: %d records, want 1", len(recs))
	}
}

// TestFleetManyAsks: many concurrent asks across three replicas, each
// ended by two replicas racing with different endings, or left to a short
// deadline. Every ask gets exactly one ending — the one acknowledged, or
// the deadline when none was — and one journal record; every answer a
// replica acknowledged is in the outcome.
func TestFleetManyAsks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-node cluster")
	}
	n := 1000
	c := newCluster(t, 3)
	f := fleetOf(t, c, "many")
	type plan struct {
		session, toolCall string
		timeout           int
		caller            int
	}
	plans := make([]plan, n)
	results := make([]<-chan outcome, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range plans {
		plans[i] = plan{session: fmt.Sprintf("s%d", i%7), toolCall: fmt.Sprintf("call-%d", i), timeout: manyAsksTimeout, caller: rng.IntN(3)}
		if rng.IntN(5) == 0 {
			plans[i].timeout = 1 + rng.IntN(3)
		}
	}
	for i, p := range plans {
		results[i] = f[p.caller].handle(context.Background(), p.session, p.toolCall, call(p.timeout))
	}

	type acked struct {
		ending  askuser.Reason // the ending acknowledged, if any
		answers int            // answers acknowledged
	}
	acks := make([]acked, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range plans {
		if plans[i].timeout != manyAsksTimeout {
			continue // left to its deadline
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r1, r2 := rng2(i)
			a1 := f[r1].card.byToolCall(t, plans[i].session, plans[i].toolCall)
			a2 := f[r2].card.byToolCall(t, plans[i].session, plans[i].toolCall)
			if a1 == nil || a2 == nil {
				return
			}
			if err := a1.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err == nil {
				acks[i].answers++
			} else if !errors.Is(err, askuser.ErrAskEnded) {
				t.Errorf("ask %d: report: %v", i, err)
			}
			if err := a1.Report(askuser.Answer{QuestionID: "region", Selected: []string{"eu"}}); err == nil {
				acks[i].answers++
			} else if !errors.Is(err, askuser.ErrAskEnded) {
				t.Errorf("ask %d: report: %v", i, err)
			}
			var e1, e2 error
			var inner sync.WaitGroup
			inner.Go(func() { e1 = a1.Submit() })
			inner.Go(func() { e2 = a2.Decline() })
			inner.Wait()
			switch {
			case e1 == nil && e2 == nil:
				t.Errorf("ask %d: both endings were acknowledged", i)
			case e1 == nil:
				acks[i].ending = askuser.ReasonSubmitted
			case e2 == nil:
				acks[i].ending = askuser.ReasonDeclined
			default:
				t.Errorf("ask %d: neither ending was acknowledged: %v, %v", i, e1, e2)
			}
		})
	}
	wg.Wait()
	for i, p := range plans {
		var got outcome
		select {
		case got = <-results[i]:
		case <-time.After(readyWait):
			// Say what the store holds of the ask, for whoever reads the failure.
			var held []string
			for _, rc := range f {
				for _, pa := range rc.o.Pending(p.session) {
					if pa.ToolCallID == p.toolCall {
						held = append(held, fmt.Sprintf("pending (answered %v)", pa.Answered))
					}
				}
			}
			t.Fatalf("ask %d (%+v, acknowledged %+v): no outcome after %v; the replicas list it as %v", i, p, acks[i], readyWait, held)
		}
		if got.err != nil {
			t.Errorf("ask %d: %v", i, got.err)
			continue
		}
		want := acks[i].ending
		if p.timeout != manyAsksTimeout {
			want = askuser.ReasonDeadline
		}
		if got.out.Reason != want {
			t.Errorf("ask %d: ended %s, want %s (the acknowledged ending)", i, got.out.Reason, want)
		}
		if want == askuser.ReasonSubmitted && len(got.out.Answers) != acks[i].answers {
			t.Errorf("ask %d: %d answers in the outcome, %d acknowledged", i, len(got.out.Answers), acks[i].answers)
		}
	}
	// A record follows its final result: the replicas' Close waits for
	// the records under way.
	for _, rc := range f {
		rc.o.Close()
	}
	perAsk := map[string]int{}
	calls := map[string]bool{}
	for s := range 7 {
		for _, rec := range records(t, f[0], fmt.Sprintf("s%d", s)) {
			perAsk[rec.AskID]++
			calls[rec.Session+"/"+rec.ToolCallID] = true
		}
	}
	if len(calls) != n {
		t.Errorf("the journal has records for %d tool calls, want %d", len(calls), n)
	}
	for id, k := range perAsk {
		if k != 1 {
			t.Errorf("ask %s has %d journal records, want 1", id, k)
		}
	}
}

// rng2 picks two different replicas for ask i.
func rng2(i int) (int, int) {
	a := i % 3
	return a, (a + 1 + i/3%2) % 3
}
