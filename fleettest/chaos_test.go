//go:build linux

package fleettest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sizes and bounds of the chaos test.
const (
	chaosInFlight    = 100              // calls in flight
	chaosGrace       = time.Minute      // for the calls in flight to end once the chaos stops
	chaosRestartWait = 2 * time.Minute  // for a process started again to be ready
	chaosLongTimeout = 600              // timeout_seconds of a call answered or superseded: far
	chaosSubmitWait  = 30 * time.Second // for an answer to be taken, on any replica
	chaosExamples    = 5                // calls shown for each kind of fault
)

// A call's fates.
const (
	fateAnswered   = "answered"   // answered on a random replica's card after 0-5 s
	fateDeadline   = "deadline"   // left to its deadline, 2-6 s
	fateSuperseded = "superseded" // superseded on a random replica after 0-5 s
)

var fates = []string{fateAnswered, fateDeadline, fateSuperseded}

// A chaosCall is one tool call of the chaos test and everything seen of
// it. Its worker alone writes it until the calls are checked.
type chaosCall struct {
	session, toolCall string
	fate              string
	timeout           int       // seconds
	label             string    // fateAnswered: the option chosen
	posted            time.Time // the first POST sent
	since             time.Time // when the chaos began, for String

	askIDs       map[string]bool // every ask id seen: POSTs' and statuses' 202s, the card, the journal
	submitted    bool            // a submit got 200
	submitUnsure bool            // a submit got no reply
	result       string          // the first final result seen
	resultAt     time.Time
	changed      []string // later reads of the status that said otherwise
	failures     int      // requests that got no reply, or a 503, each followed by the POST again
	notFound     int      // statuses that knew no ask, each followed by the POST again
	records      int      // the journal's records of the call
	notes        []string // what went wrong on the way
}

func (c *chaosCall) String() string {
	seen := "no result"
	if c.result != "" {
		seen = fmt.Sprintf("result %s %.1fs after", c.result, c.resultAt.Sub(c.posted).Seconds())
	}
	s := fmt.Sprintf("%s/%s (%s, posted at %.1fs, timeout %ds, asks %v, %s, notes %q",
		c.session, c.toolCall, c.fate, c.posted.Sub(c.since).Seconds(), c.timeout, keys(c.askIDs), seen, c.notes)
	if len(c.changed) > 0 {
		s += fmt.Sprintf(", read again %q", c.changed)
	}
	return s + ")"
}

func (c *chaosCall) note(format string, args ...any) {
	if len(c.notes) < 20 {
		c.notes = append(c.notes, fmt.Sprintf(format, args...))
	}
}

// A chaosEvent is one process killed and started again.
type chaosEvent struct {
	Victim   string  `json:"victim"`
	KilledAt float64 `json:"killed_at_s"`         // since the chaos began
	DownFor  float64 `json:"down_s"`              // killed to started again
	ReadyIn  float64 `json:"ready_after_start_s"` // started again to ready (serving, or healthy)
	Error    string  `json:"restart_error,omitempty"`
	// Led is what the NATS node led when it was killed: streams and
	// consumers whose writes wait for a new leader (an election of 4 to
	// 9 s in nats-server's Raft).
	Led []string `json:"led,omitempty"`
}

// chaosFigures are what TestFleetChaos measures.
type chaosFigures struct {
	Duration        float64        `json:"chaos_s"`
	LoadAverage     string         `json:"load_average_1m"` // at the start → at the end
	Calls           int            `json:"calls"`
	ByFate          map[string]int `json:"calls_by_fate"`
	Kills           []chaosEvent   `json:"kills"`
	RestartFailures int            `json:"restart_failures"`
	ReplicaErrors   map[string]int `json:"replica_error_lines"`
	RequestFailures int            `json:"requests_without_reply"`
	StatusNotFound  int            `json:"statuses_not_found"`
	SubmitsAccepted int            `json:"submits_accepted"`
	SubmitsUnsure   int            `json:"submits_without_reply"`

	LostAnswers        int            `json:"lost_answers"`
	DoubleAsks         int            `json:"double_asks"`
	ChangedResults     int            `json:"changed_results"`
	RereadTransient    int            `json:"reads_again_retried"` // see reread
	MissingOutcomes    int            `json:"calls_without_outcome"`
	UnexpectedOutcomes map[string]int `json:"unexpected_outcomes_by_fate"`

	JournalRecords    int `json:"journal_records"`
	JournalMissing    int `json:"finalized_calls_without_record"`
	JournalDuplicates int `json:"calls_with_several_records"`

	DeadlineRecords   int       `json:"deadline_asks_journaled"`
	LatenessP50       float64   `json:"deadline_lateness_p50_s"`
	LatenessP99       float64   `json:"deadline_lateness_p99_s"`
	LatenessMax       float64   `json:"deadline_lateness_max_s"`
	SeenLatenessP99   float64   `json:"deadline_seen_late_p99_s"`
	SeenLatenessMax   float64   `json:"deadline_seen_late_max_s"`
	PastDeadlineOver5 int       `json:"deadline_calls_seen_over_5s_late_or_never"`
	Late              []lateAsk `json:"deadline_asks_over_1s_late,omitempty"`
}

// A lateAsk is a deadline kept more than a second late, beside the kill
// that came last before its deadline, so that a run shows which failover
// each late ask waited on.
type lateAsk struct {
	AskID      string   `json:"ask_id"`
	ExpiresAt  float64  `json:"expires_at_s"` // since the chaos began
	Late       float64  `json:"late_s"`       // finalized_at - expires_at
	SeenLate   float64  `json:"seen_late_s"`  // the caller's result - posted+timeout
	LastKill   string   `json:"last_kill,omitempty"`
	KillBefore float64  `json:"kill_before_deadline_s,omitempty"` // how long before the deadline
	Logs       []string `json:"replica_log_lines,omitempty"`      // the replicas' lines naming the ask
}

// TestFleetChaos keeps chaosInFlight calls in flight on the fleet, each
// with a fate of its own, while it SIGKILLs a random NATS node or replica
// every 10-30 s and starts it again 2-5 s later; then it checks that no
// answer was lost, no call was asked twice, every call has an outcome and
// the journal has one record per finalized ask, and reports how late the
// deadlines were kept (checked with ASKUSER_CHAOS_STRICT=1). See doc.go.
func TestFleetChaos(t *testing.T) {
	if os.Getenv("ASKUSER_CHAOS") != "1" {
		t.Skip("the fleet chaos test runs with ASKUSER_CHAOS=1 (see doc.go)")
	}
	dur := envDuration(t, "ASKUSER_CHAOS_DURATION", 3*time.Minute)
	ctx := testContext(t, dur+15*time.Minute)
	f := newFleet(t, ctx)
	run := &chaosRun{f: f, start: time.Now()}
	loadStart := loadAverage()

	chaosCtx, stop := context.WithTimeout(ctx, dur)
	defer stop()
	grace, endGrace := context.WithCancel(ctx)
	defer endGrace()
	var kills []chaosEvent
	chaosDone := make(chan struct{})
	go func() {
		defer close(chaosDone)
		kills = run.chaos(chaosCtx, ctx)
	}()
	var wg sync.WaitGroup
	for w := range chaosInFlight {
		wg.Go(func() {
			for n := 0; chaosCtx.Err() == nil; n++ {
				run.call(grace, run.newCall(w, n))
			}
		})
	}
	<-chaosDone
	t.Logf("the chaos stopped after %v; every process is up; %v for the calls in flight to end", time.Since(run.start).Round(time.Second), chaosGrace)
	time.AfterFunc(chaosGrace, endGrace)
	wg.Wait()
	endGrace()

	transient := run.reread(ctx)
	recs, err := f.journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fig := run.check(recs)
	if fig.JournalMissing > 0 {
		// A record may lag its outcome: read again before calling it lost.
		time.Sleep(10 * time.Second)
		if recs, err = f.journal(ctx); err != nil {
			t.Fatal(err)
		}
		fig = run.check(recs)
	}
	fig.Duration, fig.Kills, fig.ReplicaErrors, fig.RereadTransient = seconds(dur), kills, map[string]int{}, transient
	run.explainLate(&fig, kills)
	run.explainMissing()
	for _, rep := range f.serve {
		n, first := rep.logLines("level=ERROR", chaosExamples)
		fig.ReplicaErrors[rep.name] = n
		if n > 0 {
			t.Logf("%s logged %d errors; the first:\n%s", rep.name, n, strings.Join(first, "\n"))
		}
	}
	for _, k := range kills {
		if k.Error != "" {
			fig.RestartFailures++
		}
	}
	fig.LoadAverage = loadStart + " → " + loadAverage()
	writeFigures(t, "ASKUSER_CHAOS_OUT", fig)
	for _, k := range kills {
		t.Logf("killed %s at %.1fs, started again %.1fs later, ready %.1fs after; %s", k.Victim, k.KilledAt, k.DownFor, k.ReadyIn, cmp.Or(k.Error, "no error"))
	}

	run.fail(t, "answers lost (a submit got 200; the outcome is not that answer)", func(c *chaosCall) bool { return c.submitted && c.result != answeredWith(c.label) })
	run.fail(t, "calls asked twice (two ask ids)", func(c *chaosCall) bool { return len(c.askIDs) > 1 })
	run.fail(t, "calls whose result changed once seen", func(c *chaosCall) bool { return len(c.changed) > 0 })
	run.fail(t, "calls without an outcome", func(c *chaosCall) bool { return c.result == "" })
	run.fail(t, "finalized calls without a journal record", func(c *chaosCall) bool { return c.result != "" && c.records == 0 })
	run.fail(t, "calls with several journal records", func(c *chaosCall) bool { return c.records > 1 })
	if fig.RestartFailures > 0 {
		t.Errorf("%d processes did not come back after they were killed", fig.RestartFailures)
	}
	if os.Getenv("ASKUSER_CHAOS_STRICT") == "1" && (fig.LatenessP99 > 1 || fig.LatenessMax > 5) {
		t.Errorf("deadlines kept late: p99 %.3fs, max %.3fs; want at most 1s and 5s", fig.LatenessP99, fig.LatenessMax)
	}
}

// A chaosRun is the fleet under chaos and every call made on it.
type chaosRun struct {
	f     *fleet
	start time.Time
	mu    sync.Mutex
	calls []*chaosCall
}

// newCall makes the n-th call of worker w, with a random fate.
func (r *chaosRun) newCall(w, n int) *chaosCall {
	c := &chaosCall{
		session:  fmt.Sprintf("chaos-%d-%d", w, n), // a session of its own: a supersede ends only this call
		toolCall: "call",
		fate:     fates[rand.IntN(len(fates))],
		timeout:  chaosLongTimeout,
		label:    []string{"staging", "production"}[rand.IntN(2)],
		askIDs:   map[string]bool{},
		since:    r.start,
	}
	if c.fate == fateDeadline {
		c.timeout = 2 + rand.IntN(5)
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return c
}

// pick returns a random replica's index, not avoid's (-1: any).
func (r *chaosRun) pick(avoid int) int {
	for {
		if i := rand.IntN(len(r.f.serve)); i != avoid {
			return i
		}
	}
}

// call runs a call's life: posted, its fate, its result collected. It
// gives up when ctx ends (the grace after the chaos is over).
func (r *chaosRun) call(ctx context.Context, c *chaosCall) {
	c.posted = time.Now()
	a, ok := r.post(ctx, c, -1)
	if !ok {
		return
	}
	switch c.fate {
	case fateAnswered:
		if sleep(ctx, randDuration(0, 5*time.Second)) {
			r.answer(ctx, c, a)
		}
	case fateSuperseded:
		if sleep(ctx, randDuration(0, 5*time.Second)) {
			r.supersede(ctx, c)
		}
	}
	r.collect(ctx, c)
}

// post posts the call on a random replica (not avoid), and on another
// while a POST fails, until one takes it.
func (r *chaosRun) post(ctx context.Context, c *chaosCall, avoid int) (asyncJSON, bool) {
	for ctx.Err() == nil {
		base := r.f.serve[r.pick(avoid)].base
		a, err := r.f.c.post(ctx, base, c.session, c.toolCall, choiceCall(c.timeout))
		if err == nil {
			c.askIDs[a.AskID] = true
			return a, true
		}
		if ctx.Err() == nil {
			c.failures++
			c.note("POST on %s: %v", base, err)
		}
		avoid = -1
		sleep(ctx, randDuration(50*time.Millisecond, 300*time.Millisecond))
	}
	return asyncJSON{}, false
}

// answer answers the call on a random replica's card, and on another
// while that fails, for up to chaosSubmitWait.
func (r *chaosRun) answer(ctx context.Context, c *chaosCall, a asyncJSON) {
	ctx, cancel := context.WithTimeout(ctx, chaosSubmitWait)
	defer cancel()
	for ctx.Err() == nil {
		base := r.f.serve[r.pick(-1)].base
		ck, err := r.f.c.openCard(ctx, base, a.CardURL)
		if err != nil {
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
		l, _ := r.f.c.waitListed(lctx, base, c.session, a.AskID, ck)
		lcancel()
		for _, x := range l.Asks {
			if x.ToolCallID == c.toolCall {
				c.askIDs[x.ID] = true
			}
		}
		if l.CSRFToken == "" {
			continue
		}
		// Not listed within 10 s: submit anyway, and hear why not.
		res, err := r.f.c.submit(ctx, base, a.AskID, l.CSRFToken, ck, answerWith(c.label))
		switch {
		case err != nil:
			c.submitUnsure = true
			c.note("submit on %s: %v", base, err)
		case res.code == http.StatusOK:
			c.submitted = true
			return
		case res.code == http.StatusConflict:
			c.note("submit on %s: the ask had ended (unsure %v)", base, c.submitUnsure)
			return
		default:
			c.note("submit on %s: %v", base, res)
		}
		sleep(ctx, 200*time.Millisecond)
	}
	c.note("no submit was taken within %v", chaosSubmitWait)
}

// supersede supersedes the call's session on a random replica, and on
// another until one ends the ask (or its status is final).
func (r *chaosRun) supersede(ctx context.Context, c *chaosCall) {
	ctx, cancel := context.WithTimeout(ctx, chaosSubmitWait)
	defer cancel()
	for ctx.Err() == nil {
		base := r.f.serve[r.pick(-1)].base
		n, err := r.f.c.supersede(ctx, base, c.session)
		if err == nil && n > 0 {
			return
		}
		// This replica does not know the ask yet, or it has ended.
		if res, err := r.f.c.status(ctx, base, c.session, c.toolCall, 0); err == nil && res.code == http.StatusOK {
			return
		}
		sleep(ctx, 200*time.Millisecond)
	}
	c.note("no supersede ended the ask within %v", chaosSubmitWait)
}

// collect long-polls the call's status on random replicas until it is
// final. A status that gets no reply, a 503 or a 404 is followed by the
// same call posted on another replica, as an agent retries.
func (r *chaosRun) collect(ctx context.Context, c *chaosCall) {
	for ctx.Err() == nil {
		i := r.pick(-1)
		res, err := r.f.c.status(ctx, r.f.serve[i].base, c.session, c.toolCall, 10)
		switch {
		case ctx.Err() != nil:
		case err == nil && res.code == http.StatusOK:
			c.result, c.resultAt = res.body, time.Now()
			return
		case err == nil && res.code == http.StatusAccepted:
			var a asyncJSON
			if decodeJSON(res.body, &a) && a.AskID != "" {
				c.askIDs[a.AskID] = true
			}
		case err == nil && res.code == http.StatusNotFound:
			c.notFound++
			c.note("status on %s: %v", r.f.serve[i].base, res)
			r.post(ctx, c, i)
		case err != nil || res.code == http.StatusServiceUnavailable:
			c.failures++
			r.post(ctx, c, i)
		default:
			c.note("status on %s: %v", r.f.serve[i].base, res)
			sleep(ctx, 200*time.Millisecond)
		}
	}
}

// Reads again of a final call's status (see reread).
const (
	rereadTries = 5
	rereadPause = 500 * time.Millisecond
)

// reread reads every final call's status once more on every replica: a
// result once seen never changes. A read that gets no reply, a 503, or a
// 202 (the replica's store did not answer within the status's wait of a
// quarter of a second, on this loaded machine) says nothing of the result
// and is tried again, up to rereadTries, as an agent polls again; it is
// counted (transient) and noted. A 200 with another body, a 404, or a
// failure on every try is a changed result.
func (r *chaosRun) reread(ctx context.Context) (transient int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, 32)
	for _, c := range r.calls {
		if c.result == "" {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, rep := range r.f.serve {
				for try := 1; ; try++ {
					res, err := r.f.c.status(ctx, rep.base, c.session, c.toolCall, 0)
					if err == nil && res.code == http.StatusOK && res.body == c.result {
						break
					}
					again := err != nil || res.code == http.StatusServiceUnavailable || res.code == http.StatusAccepted
					if !again || try == rereadTries {
						c.changed = append(c.changed, fmt.Sprintf("on %s (try %d): %v %v", rep.base, try, res, err))
						break
					}
					mu.Lock()
					transient++
					mu.Unlock()
					c.note("read again on %s: %v %v; trying again", rep.base, res, err)
					sleep(ctx, rereadPause)
				}
			}
		})
	}
	wg.Wait()
	return transient
}

// chaos kills a random process every 10-30 s until ctx ends, and starts
// it again 2-5 s later, waiting (within outer) until it is ready. The
// victims are a random NATS node and a random replica by turns (which
// first is random), so that a short run loses both kinds.
func (r *chaosRun) chaos(ctx, outer context.Context) []chaosEvent {
	var events []chaosEvent
	for turn := rand.IntN(2); sleep(ctx, randDuration(10*time.Second, 30*time.Second)); turn++ {
		victim := rand.IntN(len(r.f.nats))
		if turn%2 == 1 {
			victim = len(r.f.nats) + rand.IntN(len(r.f.serve))
		}
		p := r.f.procs()[victim]
		var led []string
		if victim < len(r.f.nats) {
			led = r.f.ledBy(outer, fmt.Sprintf("n%d", victim)) // its server_name
		}
		p.kill()
		killed := time.Now()
		time.Sleep(randDuration(2*time.Second, 5*time.Second)) // not cut short: it comes back
		ev := chaosEvent{Victim: p.name, KilledAt: seconds(killed.Sub(r.start)), DownFor: seconds(time.Since(killed)), Led: led}
		started := time.Now()
		err := p.start()
		if err == nil {
			rctx, cancel := context.WithTimeout(outer, chaosRestartWait)
			if victim < len(r.f.nats) {
				err = r.f.natsReady(rctx, r.f.nats[victim])
			} else {
				_, err = r.f.serve[victim-len(r.f.nats)].serving(rctx)
			}
			cancel()
		}
		ev.ReadyIn = seconds(time.Since(started))
		if err != nil {
			ev.Error = err.Error()
		}
		events = append(events, ev)
	}
	return events
}

// ledBy lists the streams and consumers whose Raft leader is the NATS
// node named server, as the cluster says (within a second; nil if it
// does not answer).
func (f *fleet) ledBy(ctx context.Context, server string) []string {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	nc, err := nats.Connect(f.natsURL, nats.Token(f.natsToken))
	if err != nil {
		return nil
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil
	}
	var led []string
	for _, n := range f.nats {
		var jsz struct {
			Meta struct {
				Leader string `json:"leader"`
			} `json:"meta_cluster"`
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://127.0.0.1:%d/jsz", n.monitor), nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			b, _ := readBody(res)
			if decodeJSON(b, &jsz) && jsz.Meta.Leader != "" {
				if jsz.Meta.Leader == server {
					led = append(led, "meta")
				}
				break
			}
		}
	}
	for info := range js.ListStreams(ctx).Info() {
		if info.Cluster != nil && info.Cluster.Leader == server {
			led = append(led, info.Config.Name)
		}
		st, err := js.Stream(ctx, info.Config.Name)
		if err != nil {
			continue
		}
		for ci := range st.ListConsumers(ctx).Info() {
			if ci.Cluster != nil && ci.Cluster.Leader == server {
				led = append(led, info.Config.Name+"/"+ci.Name)
			}
		}
	}
	return led
}

// check counts what the calls and the journal's records show.
func (r *chaosRun) check(recs []journalRecord) chaosFigures {
	fig := chaosFigures{Calls: len(r.calls), ByFate: map[string]int{}, UnexpectedOutcomes: map[string]int{}, JournalRecords: len(recs)}
	byCall := map[string][]journalRecord{}
	for _, rec := range recs {
		byCall[rec.Session+"/"+rec.ToolCallID] = append(byCall[rec.Session+"/"+rec.ToolCallID], rec)
	}
	var late, seenLate []time.Duration
	fig.Late = nil
	for _, c := range r.calls {
		fig.ByFate[c.fate]++
		fig.RequestFailures += c.failures
		fig.StatusNotFound += c.notFound
		if c.submitted {
			fig.SubmitsAccepted++
		}
		if c.submitUnsure {
			fig.SubmitsUnsure++
		}
		journaled := byCall[c.session+"/"+c.toolCall]
		c.records = len(journaled)
		for _, rec := range journaled {
			c.askIDs[rec.AskID] = true
		}
		if c.submitted && c.result != answeredWith(c.label) {
			fig.LostAnswers++
		}
		if len(c.askIDs) > 1 {
			fig.DoubleAsks++
		}
		if len(c.changed) > 0 {
			fig.ChangedResults++
		}
		if c.result == "" {
			fig.MissingOutcomes++
		} else if !expected(c) {
			fig.UnexpectedOutcomes[c.fate]++
		}
		if c.result != "" && len(journaled) == 0 {
			fig.JournalMissing++
		}
		if c.records > 1 {
			fig.JournalDuplicates++
		}
		if c.fate != fateDeadline {
			continue
		}
		for _, rec := range journaled {
			if rec.Status == "timed_out" {
				late = append(late, rec.FinalizedAt.Sub(rec.ExpiresAt))
			}
		}
		due := c.posted.Add(time.Duration(c.timeout) * time.Second)
		for _, rec := range journaled {
			if l := rec.FinalizedAt.Sub(rec.ExpiresAt); rec.Status == "timed_out" && l > time.Second {
				fig.Late = append(fig.Late, lateAsk{AskID: rec.AskID, ExpiresAt: seconds(rec.ExpiresAt.Sub(r.start)),
					Late: seconds(l), SeenLate: seconds(c.resultAt.Sub(due))})
			}
		}
		if c.result == "" || c.resultAt.Sub(due) > 5*time.Second {
			fig.PastDeadlineOver5++
		}
		if c.result != "" {
			seenLate = append(seenLate, c.resultAt.Sub(due))
		}
	}
	fig.DeadlineRecords = len(late)
	fig.LatenessP50, fig.LatenessP99, fig.LatenessMax = percentile(late, 0.5), percentile(late, 0.99), percentile(late, 1)
	fig.SeenLatenessP99, fig.SeenLatenessMax = percentile(seenLate, 0.99), percentile(seenLate, 1)
	return fig
}

// explainLate names, for each late deadline, the kill that came last
// before it and the replicas' log lines that name its ask.
func (r *chaosRun) explainLate(fig *chaosFigures, kills []chaosEvent) {
	for i := range fig.Late {
		l := &fig.Late[i]
		for _, k := range kills {
			if k.KilledAt <= l.ExpiresAt+l.Late {
				l.LastKill, l.KillBefore = k.Victim, round3(l.ExpiresAt-k.KilledAt)
			}
		}
		for _, rep := range r.f.serve {
			_, lines := rep.logLines(l.AskID, chaosExamples)
			for _, line := range lines {
				l.Logs = append(l.Logs, rep.name+": "+line)
			}
		}
	}
}

// explainMissing adds to each finalized call without a journal record,
// and each whose result changed, the replicas' log lines that name its
// asks, so that a run shows why.
func (r *chaosRun) explainMissing() {
	for _, c := range r.calls {
		if !(c.result != "" && c.records == 0) && len(c.changed) == 0 {
			continue
		}
		for id := range c.askIDs {
			for _, rep := range r.f.serve {
				_, lines := rep.logLines(id, chaosExamples)
				for _, line := range lines {
					c.note("%s: %s", rep.name, line)
				}
			}
		}
	}
}

// expected reports whether the call ended as its fate says it should.
func expected(c *chaosCall) bool {
	switch c.fate {
	case fateAnswered:
		return c.result == answeredWith(c.label)
	case fateDeadline:
		return strings.HasPrefix(c.result, `{"status":"timed_out"`)
	default:
		return c.result == `{"status":"cancelled","answered_by":"unattended","answers":[]}`
	}
}

// fail reports the calls that match a fault, with a few of them.
func (r *chaosRun) fail(t *testing.T, what string, fault func(*chaosCall) bool) {
	t.Helper()
	var n int
	var shown []string
	for _, c := range r.calls {
		if fault(c) {
			n++
			if len(shown) < chaosExamples {
				shown = append(shown, c.String())
			}
		}
	}
	if n > 0 {
		t.Errorf("%d %s; for example:\n%s", n, what, strings.Join(shown, "\n"))
	}
}

// sleep waits d, and reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// randDuration is a random duration in [lo, hi).
func randDuration(lo, hi time.Duration) time.Duration {
	return lo + rand.N(hi-lo)
}

// loadAverage is the machine's load average over the last minute, as
// /proc/loadavg says ("?" if it cannot be read).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
