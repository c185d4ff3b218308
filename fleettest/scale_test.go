//go:build linux

package fleettest

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
)

// Sizes of the scale test.
const (
	latencyAsks    = 1000 // asks timed, on the empty fleet and again with the asks pending (the p99 is the 10th slowest)
	scaleClients   = 64   // concurrent clients creating the pending asks
	scaleSession   = 10   // asks a session holds
	scaleDeadline  = 7200 // timeout_seconds of every ask: none ends during the test
	scaleTestLimit = 40 * time.Minute
)

// scaleFigures are what TestFleetScale measures.
type scaleFigures struct {
	Asks int `json:"asks_pending"`

	EmptyLatencyP50 float64 `json:"empty_answer_to_outcome_p50_s"`
	EmptyLatencyP99 float64 `json:"empty_answer_to_outcome_p99_s"`

	FleetCreateRate     float64 `json:"fleet_create_asks_per_s"`
	FleetCreateSeconds  float64 `json:"fleet_create_s"`
	InProcessCreateRate float64 `json:"in_process_create_asks_per_s"`
	CreateRateRatio     float64 `json:"in_process_over_fleet_create_rate"`
	CaughtUpSeconds     float64 `json:"replicas_caught_up_after_create_s"`

	// The CPU time the six processes, and the test's client, spent while
	// the asks were created, and what that makes per ask: a rate that does
	// not depend on how many CPUs the machine has.
	CreateCPUSeconds       map[string]float64 `json:"create_cpu_s"`
	CreateFleetCPUSeconds  float64            `json:"create_fleet_cpu_s"`
	CreateClientCPUSeconds float64            `json:"create_client_cpu_s"`
	CreateCPUMsPerAsk      float64            `json:"create_fleet_cpu_ms_per_ask"`
	CPUsFor3000PerSecond   float64            `json:"fleet_cpus_for_3000_asks_per_s"`

	RSSTotalMiB float64            `json:"rss_total_mib"`
	RSSMiB      map[string]float64 `json:"rss_mib"`

	RestartServingSeconds float64 `json:"restart_start_to_serving_s"`
	RestartStatusSeconds  float64 `json:"restart_start_to_first_status_s"`

	FullLatencyP50  float64 `json:"full_answer_to_outcome_p50_s"`
	FullLatencyP99  float64 `json:"full_answer_to_outcome_p99_s"`
	LatencyP99Ratio float64 `json:"full_over_empty_p99"`
}

// TestFleetScale measures a fleet of three NATS nodes and three replicas
// with ASKUSER_SCALE_ASKS asks pending: how fast it creates them (beside
// one orchestrator in memory), how much memory it holds, how long a
// replica SIGKILLed takes to serve again, and how the latency from a
// card's submit to the waiting long poll grows from the empty fleet. It
// asserts no timing: it reports. See doc.go.
func TestFleetScale(t *testing.T) {
	if os.Getenv("ASKUSER_SCALE") != "1" {
		t.Skip("the fleet scale test runs with ASKUSER_SCALE=1 (see doc.go)")
	}
	n := envInt(t, "ASKUSER_SCALE_ASKS", 100000)
	ctx := testContext(t, scaleTestLimit)
	f := newFleet(t, ctx)
	fig := scaleFigures{Asks: n}
	step := func(name string, limit time.Duration, run func(ctx context.Context) error) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		start := time.Now()
		if err := run(sctx); err != nil {
			t.Fatalf("%s, after %v: %v", name, time.Since(start).Round(time.Millisecond), err)
		}
		t.Logf("%s: %v", name, time.Since(start).Round(time.Millisecond))
	}

	step("1. answer-to-outcome latency, empty fleet", 10*time.Minute, func(ctx context.Context) error {
		var err error
		fig.EmptyLatencyP50, fig.EmptyLatencyP99, err = f.latency(ctx, "empty")
		return err
	})
	step(fmt.Sprintf("2. creating %d pending asks", n), 20*time.Minute, func(ctx context.Context) error {
		before, err := f.cpuSeconds()
		if err != nil {
			return err
		}
		took, err := f.createPending(ctx, n)
		fig.FleetCreateSeconds, fig.FleetCreateRate = seconds(took), round3(float64(n)/took.Seconds())
		if err != nil {
			return err
		}
		caught, err := f.caughtUp(ctx, n)
		fig.CaughtUpSeconds = seconds(caught)
		if err != nil {
			return err
		}
		// The CPU time is read once every replica has taken the changes
		// the creates made, so that it holds the whole work of creating.
		after, err := f.cpuSeconds()
		if err != nil {
			return err
		}
		fig.CreateCPUSeconds = map[string]float64{}
		fleetCPU := 0.0
		for name, v := range after {
			d := v - before[name]
			fig.CreateCPUSeconds[name] = round3(d)
			if name == clientProc {
				fig.CreateClientCPUSeconds = round3(d)
			} else {
				fleetCPU += d
			}
		}
		fig.CreateFleetCPUSeconds = round3(fleetCPU)
		fig.CreateCPUMsPerAsk = round3(fleetCPU * 1000 / float64(n))
		fig.CPUsFor3000PerSecond = round3(3000 * fleetCPU / float64(n))
		return nil
	})
	step(fmt.Sprintf("2b. %d Begins on one orchestrator in memory", n), 10*time.Minute, func(ctx context.Context) error {
		took, err := inProcessCreate(ctx, n)
		fig.InProcessCreateRate = round3(float64(n) / took.Seconds())
		fig.CreateRateRatio = round3(fig.InProcessCreateRate / fig.FleetCreateRate)
		return err
	})
	step("3. resident memory", time.Minute, func(context.Context) error {
		var err error
		fig.RSSMiB, err = f.rssMiB()
		for name, v := range fig.RSSMiB {
			fig.RSSMiB[name] = round3(v)
			fig.RSSTotalMiB += v
		}
		fig.RSSTotalMiB = round3(fig.RSSTotalMiB)
		return err
	})
	step("4. a replica SIGKILLed and started again", 10*time.Minute, func(ctx context.Context) error {
		// A final call's status is served at once; a pending one's waits
		// a quarter of a second at least.
		serving, status, err := f.restartTimed(ctx, f.serve[0], "empty-0", "c")
		fig.RestartServingSeconds, fig.RestartStatusSeconds = seconds(serving), seconds(status)
		return err
	})
	step("5. answer-to-outcome latency, asks pending", 10*time.Minute, func(ctx context.Context) error {
		var err error
		fig.FullLatencyP50, fig.FullLatencyP99, err = f.latency(ctx, "full")
		fig.LatencyP99Ratio = round3(fig.FullLatencyP99 / fig.EmptyLatencyP99)
		return err
	})
	writeFigures(t, "ASKUSER_SCALE_OUT", fig)
}

// latency times latencyAsks asks, one after another: ask i is posted on
// replica i%3 and answered on the card of replica (i+1)%3, and a long poll
// already waiting on replica i%3 hears of it. It returns the p50 and p99,
// in seconds, of the time from sending the submit to the long poll's
// return.
func (f *fleet) latency(ctx context.Context, name string) (p50, p99 float64, err error) {
	var ds []time.Duration
	for i := range latencyAsks {
		d, err := f.answerToOutcome(ctx, f.serve[i%3], f.serve[(i+1)%3], fmt.Sprintf("%s-%d", name, i))
		if err != nil {
			return 0, 0, fmt.Errorf("ask %d of %d: %w", i+1, latencyAsks, err)
		}
		ds = append(ds, d)
	}
	// To the microsecond: at the millisecond, a p99 of 10 ms against 20 ms
	// makes a ratio of exactly 2 out of anything between 1.9 and 2.1.
	micro := func(s float64) float64 { return math.Round(s*1e6) / 1e6 }
	return micro(quantile(ds, 0.50).Seconds()), micro(quantile(ds, 0.99).Seconds()), nil
}

// answerToOutcome posts a call in its own session on asker, waits until
// answerer's card lists it, starts a long poll on asker, and times the
// answer on answerer's card until the long poll returns the result.
func (f *fleet) answerToOutcome(ctx context.Context, asker, answerer *replica, session string) (time.Duration, error) {
	a, err := f.c.post(ctx, asker.base, session, "c", choiceCall(scaleDeadline))
	if err != nil {
		return 0, err
	}
	ck, err := f.c.openCard(ctx, answerer.base, a.CardURL)
	if err != nil {
		return 0, err
	}
	l, err := f.c.waitListed(ctx, answerer.base, session, a.AskID, ck)
	if err != nil {
		return 0, err
	}
	type polled struct {
		r   reply
		err error
		at  time.Time
	}
	done := make(chan polled, 1)
	wrote := make(chan struct{})
	var once sync.Once
	pctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(func() { close(wrote) }) },
	})
	go func() {
		r, err := f.c.status(pctx, asker.base, session, "c", 30)
		done <- polled{r, err, time.Now()}
	}()
	select {
	case <-wrote:
	case p := <-done:
		return 0, fmt.Errorf("the long poll on %s returned before the answer: %v %v", asker.base, p.r, p.err)
	}
	// The request is written; give the replica a moment to be waiting.
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	r, err := f.c.submit(ctx, answerer.base, a.AskID, l.CSRFToken, ck, answerProduction)
	if err != nil {
		return 0, err
	}
	if r.code != 200 {
		return 0, fmt.Errorf("submit on %s: %v", answerer.base, r)
	}
	p := <-done
	switch {
	case p.err != nil:
		return 0, fmt.Errorf("the long poll on %s: %w", asker.base, p.err)
	case p.r.code != 200 || p.r.body != answeredResult:
		return 0, fmt.Errorf("the long poll on %s: %v; want 200 and %s", asker.base, p.r, answeredResult)
	}
	return p.at.Sub(start), nil
}

// clientProc names the test's own process, the client, among cpuSeconds'.
const clientProc = "client"

// cpuSeconds returns the CPU time (user and system) each process of the
// fleet, and this one (clientProc), has spent since it started.
func (f *fleet) cpuSeconds() (map[string]float64, error) {
	m := map[string]float64{}
	read := func(name, path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		// The command's name, in parentheses, may hold spaces: the fields
		// are counted from the last parenthesis. utime and stime are the
		// 14th and 15th fields, in clock ticks of 1/100 s (USER_HZ).
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 13 {
			return fmt.Errorf("%s: %s has %d fields after the name", name, path, len(fields))
		}
		var ticks float64
		for _, v := range fields[11:13] {
			t, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", name, path, err)
			}
			ticks += t
		}
		m[name] = ticks / 100
		return nil
	}
	for _, p := range f.procs() {
		if err := read(p.name, fmt.Sprintf("/proc/%d/stat", p.pid())); err != nil {
			return nil, err
		}
	}
	return m, read(clientProc, "/proc/self/stat")
}

// pendingCall is the session and tool call of the k-th pending ask.
func pendingCall(k int) (session, toolCall string) {
	return fmt.Sprintf("pending-%d", k/scaleSession), fmt.Sprintf("c%d", k%scaleSession)
}

// createPending posts n calls that nobody answers, round-robin across the
// replicas from scaleClients clients, and returns how long it took.
func (f *fleet) createPending(ctx context.Context, n int) (time.Duration, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	args := choiceCall(scaleDeadline)
	start := time.Now()
	for range scaleClients {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n && ctx.Err() == nil; k = int(next.Add(1) - 1) {
				session, call := pendingCall(k)
				if _, err := f.c.post(ctx, f.serve[k%3].base, session, call, args); err != nil {
					cancel(fmt.Errorf("ask %d (%s/%s): %w", k, session, call, err))
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := context.Cause(ctx); err != nil {
		return took, err
	}
	return took, nil
}

// caughtUp waits until every replica knows the last asks created as
// pending (a status's ask id comes from the replica's own view of the
// store), and returns how long that took. The statuses are read at once:
// each waits a quarter of a second while its ask is pending.
func (f *fleet) caughtUp(ctx context.Context, n int) (time.Duration, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	var wg sync.WaitGroup
	for _, r := range f.serve {
		for k := max(0, n-scaleClients); k < n; k++ {
			wg.Go(func() {
				if err := f.knowsPending(ctx, r, k); err != nil {
					cancel(err)
				}
			})
		}
	}
	wg.Wait()
	return time.Since(start), context.Cause(ctx)
}

// knowsPending waits until r's status of the k-th pending ask is 202 with
// its ask id.
func (f *fleet) knowsPending(ctx context.Context, r *replica, k int) error {
	session, call := pendingCall(k)
	for {
		res, err := f.c.status(ctx, r.base, session, call, 0)
		if err != nil {
			return err
		}
		var a asyncJSON
		if res.code == http.StatusAccepted && decodeJSON(res.body, &a) && a.AskID != "" {
			return nil
		}
		if res.code != http.StatusAccepted && res.code != http.StatusNotFound {
			return fmt.Errorf("status of %s/%s on %s: %v; want it pending", session, call, r.base, res)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s never listed %s/%s as pending: %w", r.base, session, call, ctx.Err())
		}
	}
}

// idle is a responder that shows nothing and waits: the orchestrator's own
// cost, without a person or a page.
type idle struct{}

func (idle) Asked(*askuser.Ask) {}

func (idle) Respond(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return nil
}

// inProcessCreate begins n asks, as createPending posts them, on one
// orchestrator with its pending asks in memory, and returns how long it
// took: the fleet's creation rate over this one is the cost of HTTP, NATS
// and three replicas.
func inProcessCreate(ctx context.Context, n int) (time.Duration, error) {
	o := &askuser.Orchestrator{Responder: idle{}, Limits: dialect.Limits{MaxTimeoutSeconds: scaleDeadline}} // its asks in this process's memory
	defer o.Close()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	args := []byte(choiceCall(scaleDeadline))
	start := time.Now()
	for range scaleClients {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n && ctx.Err() == nil; k = int(next.Add(1) - 1) {
				session, call := pendingCall(k)
				if _, err := o.Begin(ctx, askuser.Request{Session: session, ToolCallID: call, Arguments: args}); err != nil {
					cancel(fmt.Errorf("Begin %d: %w", k, err))
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), context.Cause(ctx)
}

// restartTimed SIGKILLs the replica, starts it again with the same flags,
// and returns the time from its start to its serving, and to the first
// status request that succeeds (of a call final from before).
func (f *fleet) restartTimed(ctx context.Context, r *replica, session, call string) (serving, status time.Duration, err error) {
	r.kill()
	start := time.Now()
	if err := r.start(); err != nil {
		return 0, 0, err
	}
	at, err := r.serving(ctx)
	if err != nil {
		return 0, 0, err
	}
	serving = at.Sub(start)
	for {
		res, err := f.c.status(ctx, r.base, session, call, 0)
		if err == nil && res.code == http.StatusOK {
			return serving, time.Since(start), nil
		}
		if ctx.Err() != nil {
			return serving, 0, fmt.Errorf("no status of %s/%s on %s succeeded (last: %v %v)", session, call, r.base, res, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
