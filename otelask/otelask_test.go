package otelask_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/otelask"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Two choice questions: env recommends production (marked), region
// recommends eu (the first option of a multi-select with none marked).
const choiceCall = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break"},
   {"label":"production","description":"Real users","default":true}]},
 {"id":"region","header":"Region","question":"Which regions?","multi_select":true,"options":[
   {"label":"eu","description":"Europe"},
   {"label":"us","description":"America"}]}],
 "timeout_seconds":300}`

const approvalCall = `{"action":"Delete the S3 bucket logs-2023","reason":"Archived","risk":"irreversible","details":"aws s3 rb s3://logs-2023 --force","timeout_seconds":60}`

// act is what the test's responder does with an ask.
type act func(ctx context.Context, a *askuser.Ask) error

// responder runs its act on every ask, and tells the test when it has an
// ask (asked).
type responder struct {
	act   act
	asked chan *askuser.Ask
}

func (r *responder) Respond(ctx context.Context, a *askuser.Ask) error {
	if r.asked != nil {
		r.asked <- a
	}
	return r.act(ctx, a)
}
func (r *responder) ResponderName() string  { return "test" }
func (r *responder) CanTakeApprovals() bool { return true }

func submit(answers ...askuser.Answer) act {
	return func(ctx context.Context, a *askuser.Ask) error {
		for _, ans := range answers {
			if err := a.Report(ans); err != nil {
				return err
			}
		}
		return a.Submit()
	}
}

func waitForEnd(ctx context.Context, _ *askuser.Ask) error { <-ctx.Done(); return nil }

// rig is an orchestrator observed into an in-memory span recorder and a
// manual metric reader.
type rig struct {
	o     *askuser.Orchestrator
	obs   *otelask.Observer
	spans *tracetest.SpanRecorder
	rd    *sdkmetric.ManualReader
}

// newRig is a rig whose Observer makes each span on the ask's goroutine.
func newRig(t *testing.T, r askuser.Responder) *rig {
	t.Helper()
	return newQueuedRig(t, r, 0)
}

// newQueuedRig is a rig whose Observer queues up to queue spans for its
// goroutine (0: none).
func newQueuedRig(t *testing.T, r askuser.Responder, queue int, procs ...sdktrace.SpanProcessor) *rig {
	t.Helper()
	g := &rig{spans: tracetest.NewSpanRecorder(), rd: sdkmetric.NewManualReader()}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(g.spans)}
	for _, p := range procs {
		topts = append(topts, sdktrace.WithSpanProcessor(p))
	}
	obs, err := otelask.New(otelask.Options{
		TracerProvider: sdktrace.NewTracerProvider(topts...),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(g.rd)),
		Queue:          queue,
	})
	if err != nil {
		t.Fatal(err)
	}
	g.obs = obs
	g.o = &askuser.Orchestrator{Responder: r, Observer: obs.Hooks(), Logger: slog.New(slog.DiscardHandler)}
	t.Cleanup(func() { g.o.Close(); g.o.WaitResponders(); obs.Close() })
	return g
}

// queues are the Observer's two ways, for the tests that run in both:
// spans made on the ask's goroutine (0), and queued for the Observer's.
var queues = []int{0, 64}

// inBoth runs f as a subtest for each of queues.
func inBoth(t *testing.T, f func(t *testing.T, queue int)) {
	for _, q := range queues {
		t.Run(fmt.Sprint("queue=", q), func(t *testing.T) { f(t, q) })
	}
}

// ended returns the spans ended, once the Observer has made those it
// queued.
func (g *rig) ended() []sdktrace.ReadOnlySpan {
	g.obs.Flush()
	return g.spans.Ended()
}

// metrics flattens what the reader holds: "name{k=v,…}" to a counter's
// or gauge's value, or for a histogram its count and sum
// ("name{…} count=1 sum=300").
func (g *rig) metrics(t *testing.T) map[string]string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := g.rd.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name+attrString(p.Attributes.ToSlice())] = fmt.Sprint(p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name+attrString(p.Attributes.ToSlice())] = fmt.Sprintf("count=%d sum=%g", p.Count, p.Sum)
				}
			default:
				t.Fatalf("metric %s has data of type %T, which the test does not read", m.Name, m.Data)
			}
		}
	}
	return out
}

func attrString(kvs []attribute.KeyValue) string {
	s := make([]string, len(kvs))
	for i, kv := range kvs {
		s[i] = string(kv.Key) + "=" + kv.Value.String()
	}
	sort.Strings(s)
	return "{" + strings.Join(s, ",") + "}"
}

// theSpan returns the one span recorded.
func (g *rig) theSpan(t *testing.T) sdktrace.ReadOnlySpan {
	t.Helper()
	ended := g.ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans recorded, want 1", len(ended))
	}
	return ended[0]
}

// endings are the ways an ask ends, with the span's askuser.* attributes
// and the metrics each one leaves.
var endings = []struct {
	name    string
	call    string
	approve bool
	act     act        // nil: no responder (unattended)
	during  func(*rig) // run while the ask is pending (the responder has it)
	attrs   map[string]string
	wait    time.Duration
	nudge   bool
	fault   bool
	metrics map[string]string
}{
	{
		name: "answered",
		call: choiceCall,
		act: submit(askuser.Answer{QuestionID: "env", Selected: []string{"production"}},
			askuser.Answer{QuestionID: "region", Selected: []string{"us"}}),
		attrs: map[string]string{"askuser.status": "answered", "askuser.answered_by": "user", "askuser.reason": "submitted", "askuser.question.recommended": "1"},
		metrics: map[string]string{
			"askuser.questions.recommended{askuser.answered_by=user,askuser.recommended.taken=true}":  "1",
			"askuser.questions.recommended{askuser.answered_by=user,askuser.recommended.taken=false}": "1",
		},
	},
	{
		name:  "declined",
		call:  choiceCall,
		act:   func(_ context.Context, a *askuser.Ask) error { return a.Decline() },
		attrs: map[string]string{"askuser.status": "declined", "askuser.answered_by": "user", "askuser.reason": "declined", "askuser.question.recommended": "0"},
	},
	{
		name:  "deadline",
		call:  choiceCall,
		act:   waitForEnd,
		wait:  300 * time.Second,
		nudge: true,
		attrs: map[string]string{"askuser.status": "timed_out", "askuser.answered_by": "timeout", "askuser.reason": "deadline", "askuser.question.recommended": "2"},
		metrics: map[string]string{
			"askuser.questions.recommended{askuser.answered_by=timeout,askuser.recommended.taken=true}": "2",
		},
	},
	{
		name:  "unattended",
		call:  choiceCall,
		attrs: map[string]string{"askuser.status": "answered", "askuser.answered_by": "unattended", "askuser.reason": "unattended", "askuser.responder": "none", "askuser.question.recommended": "2"},
		metrics: map[string]string{
			"askuser.questions.recommended{askuser.answered_by=unattended,askuser.recommended.taken=true}": "2",
		},
	},
	{
		name:  "fault",
		call:  choiceCall,
		act:   func(context.Context, *askuser.Ask) error { return errors.New("the card's socket closed") },
		fault: true,
		attrs: map[string]string{"askuser.status": "cancelled", "askuser.answered_by": "unattended", "askuser.reason": "responder_fault", "error.type": "responder_fault", "askuser.question.recommended": "0"},
	},
	{
		name: "supersede",
		call: choiceCall,
		act:  waitForEnd,
		during: func(g *rig) {
			if n := g.o.Supersede("s1"); n != 1 {
				panic(fmt.Sprintf("Supersede ended %d asks, want 1", n))
			}
		},
		attrs: map[string]string{"askuser.status": "cancelled", "askuser.answered_by": "unattended", "askuser.reason": "superseded", "askuser.question.recommended": "0"},
	},
	{
		name:    "approved",
		call:    approvalCall,
		approve: true,
		act:     submit(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.ApproveOnce}}),
		attrs:   map[string]string{"askuser.status": "answered", "askuser.answered_by": "user", "askuser.reason": "submitted", "askuser.approval.decision": "approved", "askuser.question.recommended": "0"},
		metrics: map[string]string{"askuser.approvals{askuser.answered_by=user,askuser.approval.decision=approved}": "1"},
	},
	{
		name:    "denied",
		call:    approvalCall,
		approve: true,
		act:     submit(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.DenyOnce}}),
		attrs:   map[string]string{"askuser.status": "answered", "askuser.answered_by": "user", "askuser.reason": "submitted", "askuser.approval.decision": "denied", "askuser.question.recommended": "0"},
		metrics: map[string]string{"askuser.approvals{askuser.answered_by=user,askuser.approval.decision=denied}": "1"},
	},
	{
		name:    "unresolved",
		call:    approvalCall,
		approve: true,
		act:     waitForEnd,
		wait:    60 * time.Second,
		nudge:   true,
		attrs:   map[string]string{"askuser.status": "timed_out", "askuser.answered_by": "timeout", "askuser.reason": "deadline", "askuser.approval.decision": "unresolved", "askuser.question.recommended": "0"},
		metrics: map[string]string{"askuser.approvals{askuser.answered_by=timeout,askuser.approval.decision=unresolved}": "1"},
	},
}

// TestEveryEnding: every way an ask ends is one span, named and
// attributed by the GenAI conventions, from the ask's start to its end,
// and counted in the metrics by how it ended, with the time it took; the
// pending gauge is 1 while it is pending and 0 once it has ended.
func TestEveryEnding(t *testing.T) { inBoth(t, testEveryEnding) }

func testEveryEnding(t *testing.T, queue int) {
	for _, tt := range endings {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r askuser.Responder
				asked := make(chan *askuser.Ask, 1)
				if tt.act != nil {
					r = &responder{act: tt.act, asked: asked}
				}
				g := newQueuedRig(t, r, queue)
				req := askuser.Request{Session: "s1", ToolCallID: "call_1", Arguments: []byte(tt.call)}
				tool := "ask_user"
				if tt.approve {
					req.Dialect, tool = approvaltool.Dialect(), "request_approval"
				}
				start := time.Now()
				res := make(chan *askuser.Outcome, 1)
				go func() {
					out, err := g.o.Handle(context.Background(), req)
					if err != nil {
						t.Error(err)
					}
					res <- out
				}()
				if tt.during != nil {
					<-asked
					synctest.Wait()
					if got := g.metrics(t)["askuser.asks.pending{gen_ai.tool.name="+tool+"}"]; got != "1" {
						t.Errorf("pending while the ask is pending: %q, want 1", got)
					}
					tt.during(g)
				}
				out := <-res
				g.o.WaitResponders()

				sp := g.theSpan(t)
				if want := "execute_tool " + tool; sp.Name() != want || sp.SpanKind() != trace.SpanKindInternal {
					t.Errorf("span %q of kind %v, want %q INTERNAL", sp.Name(), sp.SpanKind(), want)
				}
				got := map[string]string{}
				for _, kv := range sp.Attributes() {
					got[string(kv.Key)] = kv.Value.String()
				}
				want := map[string]string{
					"gen_ai.operation.name":  "execute_tool",
					"gen_ai.tool.name":       tool,
					"gen_ai.tool.call.id":    "call_1",
					"gen_ai.conversation.id": "s1",
					"askuser.responder":      "test",
					"askuser.question.count": "2",
				}
				if tt.approve {
					want["askuser.question.count"] = "1"
				}
				for k, v := range tt.attrs {
					want[k] = v
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("span attributes (-want +got):\n%s", diff)
				}
				if !sp.StartTime().Equal(start) || !sp.EndTime().Equal(out.FinalizedAt) || sp.EndTime().Sub(sp.StartTime()) != tt.wait {
					t.Errorf("span from %v to %v; want from the ask's start %v to its finalization %v (%v)", sp.StartTime(), sp.EndTime(), start, out.FinalizedAt, tt.wait)
				}
				var events []string
				for _, ev := range sp.Events() {
					events = append(events, ev.Name+"@"+ev.Time.Sub(start).String())
				}
				var wantEvents []string
				if tt.nudge {
					wantEvents = []string{otelask.NudgeEvent + "@" + out.Form.NudgeAt.Sub(start).String()}
				}
				if diff := cmp.Diff(wantEvents, events); diff != "" {
					t.Errorf("span events (-want +got):\n%s", diff)
				}
				if wantCode := map[bool]codes.Code{true: codes.Error, false: codes.Unset}[tt.fault]; sp.Status().Code != wantCode {
					t.Errorf("span status %v, want %v", sp.Status(), wantCode)
				}

				by := fmt.Sprintf("{askuser.answered_by=%s,askuser.reason=%s,askuser.responder=%s,askuser.status=%s,gen_ai.tool.name=%s}",
					want["askuser.answered_by"], want["askuser.reason"], want["askuser.responder"], want["askuser.status"], tool)
				wantM := map[string]string{
					"askuser.asks" + by:                                   "1",
					"askuser.ask.duration" + by:                           fmt.Sprintf("count=1 sum=%g", tt.wait.Seconds()),
					"askuser.asks.pending{gen_ai.tool.name=" + tool + "}": "0",
				}
				for k, v := range tt.metrics {
					wantM[k] = v
				}
				if queue > 0 {
					wantM["askuser.spans.dropped{}"] = "0"
				}
				if diff := cmp.Diff(wantM, g.metrics(t)); diff != "" {
					t.Errorf("metrics (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestTraceParent: the span of an ask whose caller's context carries a
// span context (a traceparent the service read) is that span's child.
func TestTraceParent(t *testing.T) { inBoth(t, testTraceParent) }

func testTraceParent(t *testing.T, queue int) {
	g := newQueuedRig(t, nil, queue)
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
		Remote:     true,
	})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
	if _, err := g.o.Handle(ctx, askuser.Request{Session: "s1", Arguments: []byte(choiceCall)}); err != nil {
		t.Fatal(err)
	}
	sp := g.theSpan(t)
	if !sp.Parent().Equal(parent) || sp.SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("span's parent %v in trace %v; want %v", sp.Parent(), sp.SpanContext().TraceID(), parent)
	}
}

// failingJournal refuses its first fails appends.
type failingJournal struct {
	mu    sync.Mutex
	fails int
}

func (j *failingJournal) Append(context.Context, store.Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fails > 0 {
		j.fails--
		return errors.New("journal: no response from stream")
	}
	return nil
}

// TestJournalMetrics: a journal that refuses a record twice counts two
// failures (the first write and a retry) and two retries (the second
// taking it).
func TestJournalMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		g.o.Journal = &failingJournal{fails: 2}
		if _, err := g.o.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: []byte(choiceCall)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		got := g.metrics(t)
		want := map[string]string{
			"askuser.journal.append.failures{askuser.journal.retry=false}": "1",
			"askuser.journal.append.failures{askuser.journal.retry=true}":  "1",
			"askuser.journal.append.retries{}":                             "2",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	})
}

// The canary: text no attribute, event or metric may carry.
const canary = "CANARY-7f3a"

// TestNoAnswerTextOrSecret: spans and metrics carry none of what the
// model or the person wrote — questions, options, intent, answers, notes,
// free text, a secret, its name — nor the principal or the ask's id.
func TestNoAnswerTextOrSecret(t *testing.T) { inBoth(t, testNoAnswerTextOrSecret) }

func testNoAnswerTextOrSecret(t *testing.T, queue int) {
	calls := []string{`{"human_intent":"` + canary + ` intent","questions":[
 {"id":"env","header":"` + canary + `h","question":"` + canary + ` q?","allow_other":true,"options":[
   {"label":"` + canary + `a","description":"` + canary + ` d","default":true},
   {"label":"b","description":"b"}]},
 {"id":"why","kind":"text","header":"Why","question":"Why ` + canary + `?"}]}`,
		`{"questions":[{"id":"tok","kind":"secret","header":"Token","question":"Paste ` + canary + `","secret_name":"` + canary + `_NAME","purpose":"` + canary + `"}]}`,
	}
	var mu sync.Mutex
	var askIDs []string
	g := newQueuedRig(t, &responder{act: func(_ context.Context, a *askuser.Ask) error {
		mu.Lock()
		askIDs = append(askIDs, a.ID())
		mu.Unlock()
		a.SetPrincipal(canary + "@example.com")
		for _, ans := range []askuser.Answer{
			{QuestionID: "env", Selected: []string{"b"}, Other: canary + " other", Note: canary + " note"},
			{QuestionID: "why", Other: canary + " because"},
			{QuestionID: "tok", Secret: secret.FromString(canary + "-secret-value")},
		} {
			if a.Form().Question(ans.QuestionID) == nil {
				continue
			}
			if err := a.Report(ans); err != nil {
				return err
			}
		}
		return a.Submit()
	}}, queue)
	for i, call := range calls {
		out, err := g.o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: fmt.Sprint("call_", i), Arguments: []byte(call)})
		if err != nil || out.Status != askuser.StatusAnswered {
			t.Fatalf("Handle: %v, %+v", err, out)
		}
	}
	g.o.WaitResponders()
	var seen []string
	for _, sp := range g.ended() {
		seen = append(seen, sp.Name(), sp.Status().Description)
		for _, kv := range sp.Attributes() {
			seen = append(seen, string(kv.Key)+"="+kv.Value.String())
		}
		for _, ev := range sp.Events() {
			seen = append(seen, ev.Name)
			for _, kv := range ev.Attributes {
				seen = append(seen, string(kv.Key)+"="+kv.Value.String())
			}
		}
	}
	for k, v := range g.metrics(t) {
		seen = append(seen, k+"="+v)
	}
	for _, s := range seen {
		if strings.Contains(s, canary) || strings.Contains(s, askIDs[0]) || strings.Contains(s, askIDs[1]) {
			t.Errorf("telemetry carries what it must not: %q", s)
		}
	}
	if n := len(g.ended()); n != 2 || !slices.ContainsFunc(seen, func(s string) bool { return strings.HasPrefix(s, "askuser.status=answered") }) {
		t.Errorf("%d spans, with no status attribute: the canary check read nothing: %q", n, seen)
	}
}

// unfollowed is a responder that follows sessions, and whose sessions
// nobody follows: an ask begun with Begin on a shared store is then not
// held in this process, and its end is read from the store.
type unfollowed struct{}

func (unfollowed) Asked(*askuser.Ask)                                {}
func (unfollowed) Respond(ctx context.Context, _ *askuser.Ask) error { <-ctx.Done(); return nil }
func (unfollowed) FollowSessions(*askuser.Sessions)                  {}
func (unfollowed) ResponderName() string                             { return "test" }

// TestTraceParentAfterTheCaller: an ask begun with Begin, whose caller is
// gone when it ends — in memory, or on a shared store that holds it where
// this process does not — still has the caller's span as its parent.
func TestTraceParentAfterTheCaller(t *testing.T) { inBoth(t, testTraceParentAfterTheCaller) }

func testTraceParentAfterTheCaller(t *testing.T, queue int) {
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprint("shared=", shared), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var r askuser.Responder = &responder{act: waitForEnd}
				if shared {
					r = unfollowed{}
				}
				g := newQueuedRig(t, r, queue)
				if shared {
					g.o.Asks = store.NewMemory(0)
				}
				parent := trace.NewSpanContext(trace.SpanContextConfig{
					TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true,
				})
				ctx, cancel := context.WithCancel(trace.ContextWithRemoteSpanContext(context.Background(), parent))
				if _, err := g.o.Begin(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(choiceCall)}); err != nil {
					t.Fatal(err)
				}
				cancel()
				synctest.Wait()
				if n := g.o.Supersede("s1"); n != 1 {
					t.Fatalf("superseded %d asks, want 1", n)
				}
				g.o.WaitResponders()
				synctest.Wait()
				sp := g.theSpan(t)
				if !sp.Parent().Equal(parent) {
					t.Errorf("span's parent %v; want the caller's %v", sp.Parent(), parent)
				}
			})
		})
	}
}
