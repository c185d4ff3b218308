// Package otelask reports an orchestrator's asks to OpenTelemetry: a span
// per ask, following the GenAI semantic conventions for a tool's
// execution, and metrics on how asks end and how long people take. It
// plugs into the orchestrator's Observer hooks, so the root package, and a
// program that does not import this one, depend on no telemetry library;
// this package depends only on the OpenTelemetry API (the program chooses
// the SDK and the exporters).
//
//	obs, err := otelask.New(otelask.Options{TracerProvider: tp, MeterProvider: mp})
//	o := &askuser.Orchestrator{Responder: r, Observer: obs.Hooks()}
//
// # Spans
//
// Each finalized ask is one span named "execute_tool {tool}" (the tool is
// the contract the call came in: ask_user, request_approval, pi-ask, pi;
// "go" for a form built in Go), of kind INTERNAL, from the ask's start
// (Form.AskedAt) to its finalization, with the attributes
// gen_ai.operation.name ("execute_tool"), gen_ai.tool.name,
// gen_ai.tool.call.id and gen_ai.conversation.id (the session), and the
// askuser.* attributes below. Its parent is the span context in the
// caller's context — put there by serve from a request's traceparent
// header, or by the MCP tool from a call's params._meta — kept from the
// ask's beginning, so that an ask finalized after its caller has gone
// (begun with Begin, or ended through a shared store) keeps it. With a
// shared store another replica may finalize the ask: its span then starts
// a trace of its own, with the same gen_ai.tool.call.id. A span whose ask
// ended by a responder's fault has status Error and error.type
// "responder_fault".
//
//	askuser.status                 answered, declined, cancelled, timed_out
//	askuser.answered_by            user, timeout, unattended, policy, remembered
//	askuser.reason                 submitted, declined, dismissed, superseded, deadline, unattended, responder_fault, caller, policy, remembered
//	askuser.responder              the responder's name
//	askuser.question.count         how many questions the form asked
//	askuser.question.recommended   how many questions that recommend an option were answered with it
//	askuser.approval.decision      approved, denied, unresolved (approvals only)
//	askuser.votes                  how many people voted (reserved: set once asks can be voted on)
//
// Span events: "askuser.nudge" at the form's NudgeAt, when the ask was
// still pending then (the moment a responder shows its countdown). An
// escalation step ("askuser.escalation") and a vote ("askuser.vote") are
// reserved names, for when the orchestrator reports them.
//
// The span is started once its ask has ended, with the ask's start as its
// start time, and its attributes are set once it has started: a sampler
// sees its name (which names the tool), its kind and its parent, not its
// attributes.
//
// A span never carries an answer's text, a question's or option's text, a
// note, a secret or its reference, the principal, or the ask's id.
//
// # Metrics
//
//	askuser.asks                      counter        finalized asks, by askuser.status, askuser.answered_by, askuser.reason, askuser.responder, gen_ai.tool.name
//	askuser.ask.duration              histogram (s)  from the ask's start to its finalization, by the same attributes
//	askuser.asks.pending              up-down        asks begun here less asks finalized here, by gen_ai.tool.name
//	askuser.questions.recommended     counter        answered questions that recommend an option, by askuser.answered_by (of the answer) and askuser.recommended.taken (true, false)
//	askuser.approvals                 counter        finalized approvals, by askuser.approval.decision and askuser.answered_by
//	askuser.journal.append.failures   counter        journal writes that failed, by askuser.journal.retry (true, false)
//	askuser.journal.append.retries    counter        journal writes of a record an earlier write failed to keep
//	askuser.spans.dropped             counter        spans dropped, the queue full (with Options.Queue only)
//
// askuser.asks, askuser.asks.pending, askuser.questions.recommended and
// askuser.approvals are counted in the Observer and reported when a reader
// collects (asynchronous instruments, which cost an ask an atomic add):
// they carry no exemplars; askuser.ask.duration, a synchronous histogram,
// does. Past
// 1,024 combinations of attributes (askuser's own values, the responders'
// names and the tools do not come near it), an instrument's further
// combinations are counted in the set {askuser.overflow=true}.
//
// With a shared store (a fleet), an ask may begin on one replica and be
// finalized on another: askuser.asks.pending is then right summed over
// the replicas, and each replica's own figure is what it began less what
// it finalized.
//
// # Off the ask's path
//
// Most of what the Observer costs an ask is the SDK's span. With
// Options.Queue, an ask's metrics are still recorded as it is finalized,
// but its span is queued for the Observer's goroutine, which, woken by
// the first ask queued, waits 10 ms for more (or until a quarter of the
// queue is taken) and makes their spans, with the times, the parent and
// the events they would have had. The ask's caller no longer waits for its
// span; the process spends about as much CPU on it. Past Options.Queue
// spans waiting, an ask's span is dropped and counted in
// askuser.spans.dropped (its metrics are not: they are counted before).
// Close the Observer before the providers are shut down: Close makes the
// spans that wait and stops the goroutine; Flush makes them without
// stopping it.
package otelask

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/recommend"
	"github.com/askuser-go/askuser/store"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/askuser-go/askuser/otelask"

// The askuser.* attribute keys.
const (
	StatusKey           = attribute.Key("askuser.status")
	AnsweredByKey       = attribute.Key("askuser.answered_by")
	ReasonKey           = attribute.Key("askuser.reason")
	ResponderKey        = attribute.Key("askuser.responder")
	QuestionCountKey    = attribute.Key("askuser.question.count")
	RecommendedKey      = attribute.Key("askuser.question.recommended")
	RecommendedTakenKey = attribute.Key("askuser.recommended.taken")
	DecisionKey         = attribute.Key("askuser.approval.decision")
	VotesKey            = attribute.Key("askuser.votes")
	JournalRetryKey     = attribute.Key("askuser.journal.retry")
)

// The span event names.
const (
	NudgeEvent      = "askuser.nudge"
	EscalationEvent = "askuser.escalation"
	VoteEvent       = "askuser.vote"
)

// durationBuckets are the histogram's bounds, in seconds: a person takes
// from a second to an hour.
var durationBuckets = []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600}

// Options configures an Observer. The zero value uses the global providers.
type Options struct {
	// TracerProvider makes the spans (nil: otel.GetTracerProvider()).
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics (nil: otel.GetMeterProvider()).
	MeterProvider metric.MeterProvider
	// Queue, when above 0, takes the spans off the ask's path: a
	// finalized ask is queued, up to Queue of them, for one goroutine of
	// the Observer's to make its span (see the package doc), and the
	// Observer must be closed. 0 makes each span on the goroutine that
	// finalizes the ask.
	Queue int
}

// An Observer turns an orchestrator's asks into spans and metrics: set
// its Hooks as the Orchestrator's Observer. It is safe for concurrent use.
type Observer struct {
	tracer    trace.Tracer
	duration  metric.Float64Histogram
	jfailures metric.Int64Counter
	jretries  metric.Int64Counter

	// q holds the finalized asks whose span and duration wait for the
	// Observer's goroutine (nil: recorded on the ask's goroutine).
	q *queue

	// The counts of askuser.asks, askuser.asks.pending,
	// askuser.questions.recommended and askuser.approvals, and the
	// attribute sets of every
	// metric an ask records, each made once for each combination seen
	// (their number is small: a few statuses, responders and tools) and
	// read without a lock or an allocation. The counts are kept here and
	// reported when a reader collects (observable instruments): an ask
	// then adds to an integer where a synchronous measurement would have
	// the SDK check, look up and aggregate its set each time.
	ends  cache[endedKey, endedSets]
	tools cache[toolKey, *count]
	recs  cache[recKey, *count]
	apprs cache[apprKey, *count]

	// The span contexts of the asks begun here whose caller carried one,
	// for their end: an ask finalized after its caller has gone (begun
	// with Begin, or ended through a shared store) is told of without the
	// caller's context. An ask finalized on another replica is forgotten
	// once its deadline is well past.
	mu       sync.Mutex
	parents  map[string]parent // by ask id
	pruneLen int               // prune when parents grows past this
	nparents atomic.Int64      // len(parents), read without mu
}

type parent struct {
	sc       trace.SpanContext
	forgetAt time.Time
}

// forgetAfter is how long past an ask's deadline its caller's span context
// is kept, for a finalization that comes late.
const forgetAfter = 10 * time.Minute

// remember keeps the span context of the ask that began, if its caller's
// context carries one.
func (t *Observer) remember(ctx context.Context, ev *askuser.PendingAsk) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || ev.AskID == "" || ev.Form == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.parents == nil {
		t.parents, t.pruneLen = map[string]parent{}, 1024
	}
	t.parents[ev.AskID] = parent{sc, ev.Form.ExpiresAt.Add(forgetAfter)}
	if len(t.parents) > t.pruneLen {
		now := time.Now()
		for id, p := range t.parents {
			if now.After(p.forgetAt) {
				delete(t.parents, id)
			}
		}
		t.pruneLen = max(1024, 2*len(t.parents))
	}
	t.nparents.Store(int64(len(t.parents)))
}

// parentOf returns ctx with the span context the ask's caller carried,
// when ctx carries none, and forgets it.
func (t *Observer) parentOf(ctx context.Context, askID string) context.Context {
	if t.nparents.Load() == 0 {
		return ctx // no caller carried a span context: nothing to look up
	}
	t.mu.Lock()
	p, ok := t.parents[askID]
	if ok {
		delete(t.parents, askID)
		t.nparents.Store(int64(len(t.parents)))
	}
	t.mu.Unlock()
	if ok && !trace.SpanContextFromContext(ctx).IsValid() {
		return trace.ContextWithSpanContext(ctx, p.sc)
	}
	return ctx
}

// maxSets bounds each cache of attribute sets. Past it, an ask's metrics
// go to the set {askuser.overflow=true} (the combinations come from
// askuser's enumerations, the responders' names and the contracts: they do
// not reach it). It is not the SDK's own {otel.metric.overflow=true}: once
// the SDK has seen that set in a collection, it files every set new to it
// there, which would merge combinations this cache holds.
const maxSets = 1024

// OverflowKey is the attribute of the set an instrument's measurements go
// to past 1,024 combinations of attributes.
const OverflowKey = attribute.Key("askuser.overflow")

// A key names an attribute set in a cache; over is the key of the
// overflow set.
type key[K any] interface {
	comparable
	over() K
}

// A cache maps a key to what is made from it once: its reads take no lock
// and allocate nothing (the map is replaced, never changed, and read
// through an atomic pointer); its writes, one per key, copy it.
type cache[K key[K], V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

// get returns k's value, made by build when k is new, or the overflow
// key's when the cache is full.
func (c *cache[K, V]) get(k K, build func(K) V) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
		if len(*m) > maxSets { // full, and holding the overflow set
			return (*m)[k.over()]
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var old map[K]V
	if m := c.m.Load(); m != nil {
		old = *m
		if v, ok := old[k]; ok {
			return v
		}
	}
	if len(old) >= maxSets {
		k = k.over()
		if v, ok := old[k]; ok {
			return v
		}
	}
	v := build(k)
	m := make(map[K]V, len(old)+1)
	maps.Copy(m, old)
	m[k] = v
	c.m.Store(&m)
	return v
}

// each calls f for every value in the cache.
func (c *cache[K, V]) each(f func(V)) {
	if m := c.m.Load(); m != nil {
		for _, v := range *m {
			f(v)
		}
	}
}

// A count is an observable counter's value for one attribute set.
type count struct {
	n   atomic.Int64
	obs []metric.ObserveOption
}

// newCount returns a zero count of the set of kvs.
func newCount(kvs ...attribute.KeyValue) *count {
	return &count{obs: []metric.ObserveOption{withSet(kvs...)}}
}

// observe reports every count of c to o.
func observe[K key[K]](c *cache[K, *count], o metric.Int64Observer) {
	c.each(func(n *count) { o.Observe(n.n.Load(), n.obs...) })
}

// endedKey names how an ask ended, as its metrics count it.
type endedKey struct {
	status    askuser.Status
	by        askuser.Provenance
	reason    askuser.Reason
	responder string
	tool      string
	overflow  bool
}

func (endedKey) over() endedKey { return endedKey{overflow: true} }

// endedSets are the counts and attribute sets of an ended ask's metrics.
type endedSets struct {
	asks   *count                // askuser.asks
	record []metric.RecordOption // askuser.ask.duration
}

// toolKey names the tool an ask came in.
type toolKey struct {
	tool     string
	overflow bool
}

func (toolKey) over() toolKey { return toolKey{overflow: true} }

// recKey names an answered question that recommends an option.
type recKey struct {
	by       askuser.Provenance
	taken    bool
	overflow bool
}

func (recKey) over() recKey { return recKey{overflow: true} }

// apprKey names a finalized approval.
type apprKey struct {
	decision string
	by       askuser.Provenance
	overflow bool
}

func (apprKey) over() apprKey { return apprKey{overflow: true} }

// withSet is the measurement option of the set of kvs.
func withSet(kvs ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(kvs...))
}

// newEnded makes the counts and sets of an ask that ended as k says.
func newEnded(k endedKey) endedSets {
	kvs := []attribute.KeyValue{StatusKey.String(string(k.status)), AnsweredByKey.String(string(k.by)), ReasonKey.String(string(k.reason)),
		ResponderKey.String(k.responder), semconv.GenAIToolName(k.tool)}
	if k.overflow {
		kvs = []attribute.KeyValue{OverflowKey.Bool(true)}
	}
	return endedSets{asks: newCount(kvs...), record: []metric.RecordOption{withSet(kvs...)}}
}

// newTool makes the pending count of k's tool.
func newTool(k toolKey) *count {
	if k.overflow {
		return newCount(OverflowKey.Bool(true))
	}
	return newCount(semconv.GenAIToolName(k.tool))
}

// newRec makes the count of the recommending questions k names.
func newRec(k recKey) *count {
	if k.overflow {
		return newCount(OverflowKey.Bool(true))
	}
	return newCount(AnsweredByKey.String(string(k.by)), RecommendedTakenKey.Bool(k.taken))
}

// newAppr makes the count of the approvals k names.
func newAppr(k apprKey) *count {
	if k.overflow {
		return newCount(OverflowKey.Bool(true))
	}
	return newCount(DecisionKey.String(k.decision), AnsweredByKey.String(string(k.by)))
}

// New returns an Observer on the providers opts names. It fails only when
// the meter provider refuses an instrument, or when opts.Queue is below 0.
// With opts.Queue above 0 it starts the Observer's goroutine, which Close
// stops.
func New(opts Options) (*Observer, error) {
	if opts.Queue < 0 {
		return nil, fmt.Errorf("otelask: Options.Queue is %d: give 0 to record on the ask's goroutine, or the number of finalized asks that may wait for the Observer's", opts.Queue)
	}
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := mp.Meter(ScopeName)
	t := &Observer{tracer: tp.Tracer(ScopeName)}
	var err error
	if _, err = m.Int64ObservableCounter("askuser.asks", metric.WithUnit("{ask}"),
		metric.WithDescription("Finalized asks, by how they ended."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			t.ends.each(func(s endedSets) { o.Observe(s.asks.n.Load(), s.asks.obs...) })
			return nil
		})); err != nil {
		return nil, err
	}
	if t.duration, err = m.Float64Histogram("askuser.ask.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from an ask's start to its finalization."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableUpDownCounter("askuser.asks.pending", metric.WithUnit("{ask}"),
		metric.WithDescription("Asks begun in this process less asks finalized in it: summed over a fleet, the asks pending."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			observe(&t.tools, o)
			return nil
		})); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableCounter("askuser.questions.recommended", metric.WithUnit("{question}"),
		metric.WithDescription("Answered questions that recommend an option, by whether the answer took it."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			observe(&t.recs, o)
			return nil
		})); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableCounter("askuser.approvals", metric.WithUnit("{approval}"),
		metric.WithDescription("Finalized approvals, by decision."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			observe(&t.apprs, o)
			return nil
		})); err != nil {
		return nil, err
	}
	if t.jfailures, err = m.Int64Counter("askuser.journal.append.failures", metric.WithUnit("{write}"),
		metric.WithDescription("Journal writes that failed.")); err != nil {
		return nil, err
	}
	if t.jretries, err = m.Int64Counter("askuser.journal.append.retries", metric.WithUnit("{write}"),
		metric.WithDescription("Journal writes of a record an earlier write failed to keep.")); err != nil {
		return nil, err
	}
	if opts.Queue > 0 {
		q := newQueue(opts.Queue)
		if _, err = m.Int64ObservableCounter("askuser.spans.dropped", metric.WithUnit("{span}"),
			metric.WithDescription("Spans of finalized asks the Observer dropped, its queue full."),
			metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
				o.Observe(q.dropped.Load())
				return nil
			})); err != nil {
			return nil, err
		}
		t.q = q
		go t.run()
	}
	return t, nil
}

// Hooks returns the hooks that report an orchestrator's asks to t, to be
// set as the Orchestrator's Observer; see the package doc. Every call
// returns hooks on the same t.
func (t *Observer) Hooks() *askuser.Observer {
	return &askuser.Observer{Began: t.began, Ended: t.endedHook, Journaled: t.journaled}
}

// began counts an ask that began and remembers its caller's span context.
func (t *Observer) began(ctx context.Context, ask askuser.PendingAsk) {
	t.tools.get(toolKey{tool: toolName(ask.Form)}, newTool).n.Add(1)
	t.remember(ctx, &ask)
}

// endedHook records a finalized ask under its caller's span context.
func (t *Observer) endedHook(ctx context.Context, out *askuser.Outcome) {
	if out != nil {
		t.ended(t.parentOf(ctx, out.AskID), out)
	}
}

// journaled counts a journal write's failures and retries.
func (t *Observer) journaled(ctx context.Context, _ store.Record, retry bool, err error) {
	if err != nil {
		t.jfailures.Add(ctx, 1, metric.WithAttributes(JournalRetryKey.Bool(retry)))
	}
	if retry {
		t.jretries.Add(ctx, 1)
	}
}

// A finished ask is what its span is made of, copied from its outcome when
// it is finalized.
type finished struct {
	ctx                                        context.Context
	tool, session, callID, responder, decision string
	status                                     askuser.Status
	by                                         askuser.Provenance
	reason                                     askuser.Reason
	questions, took                            int
	approval                                   bool
	started, nudge, finalized                  time.Time
}

// ended records a finalized ask: its metrics at once, and its span at once
// or, with a queue, on the Observer's goroutine.
func (t *Observer) ended(ctx context.Context, out *askuser.Outcome) {
	tool := toolName(out.Form)
	sets := t.ends.get(endedKey{status: out.Status, by: out.AnsweredBy, reason: out.Reason, responder: out.Responder, tool: tool}, newEnded)
	sets.asks.n.Add(1)
	t.tools.get(toolKey{tool: tool}, newTool).n.Add(-1)
	e := finished{
		ctx: ctx, tool: tool, session: out.Session, callID: out.ToolCallID, responder: out.Responder,
		status: out.Status, by: out.AnsweredBy, reason: out.Reason,
		finalized: out.FinalizedAt,
	}
	if f := out.Form; f != nil {
		e.questions, e.started, e.nudge = len(f.Questions), f.AskedAt, f.NudgeAt
		if !e.started.IsZero() {
			t.duration.Record(ctx, e.finalized.Sub(e.started).Seconds(), sets.record...)
		}
		for i := range out.Answers {
			a := &out.Answers[i]
			q := f.Question(a.QuestionID)
			if q == nil {
				continue
			}
			if rec, ok := recommend.Took(f, q, a); rec {
				if ok {
					e.took++
				}
				t.recs.get(recKey{by: a.By, taken: ok}, newRec).n.Add(1)
			}
		}
	}
	if v, ok := approvaltool.VerdictOf(out); ok {
		e.approval, e.decision = true, v.Status
		t.apprs.get(apprKey{decision: v.Status, by: out.AnsweredBy}, newAppr).n.Add(1)
	}
	if t.q != nil && t.q.put(&e) {
		return
	}
	sc := scratchPool.Get().(*scratch)
	t.span(&e, sc)
	sc.put()
}

// span records e's span, from its start to its finalization, with sc's
// slices. It starts the span when the ask has ended, at the ask's start,
// and sets its attributes once: the SDK then copies them once, where
// attributes given to Start are copied twice (into the start config, then
// into the span).
func (t *Observer) span(e *finished, sc *scratch) {
	sc.start[0], sc.start[1] = internalKind, trace.WithTimestamp(e.started)
	start := sc.start[:]
	if e.started.IsZero() {
		start = start[:1]
	}
	_, span := t.tracer.Start(e.ctx, spanName(e.tool), start...)
	if !span.IsRecording() {
		span.End()
		return
	}
	attrs := append(sc.attrs[:0],
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(e.tool),
		semconv.GenAIConversationID(e.session),
	)
	if e.callID != "" {
		attrs = append(attrs, semconv.GenAIToolCallID(e.callID))
	}
	attrs = append(attrs,
		StatusKey.String(string(e.status)),
		AnsweredByKey.String(string(e.by)),
		ReasonKey.String(string(e.reason)),
		ResponderKey.String(e.responder),
		QuestionCountKey.Int(e.questions),
		RecommendedKey.Int(e.took),
	)
	if e.approval {
		attrs = append(attrs, DecisionKey.String(e.decision))
	}
	if e.reason == askuser.ReasonFault {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(askuser.ReasonFault)))
	}
	span.SetAttributes(attrs...)
	sc.attrs = attrs
	if !e.nudge.IsZero() && e.nudge.Before(e.finalized) && e.reason != askuser.ReasonUnattended && e.reason != askuser.ReasonPolicy && e.reason != askuser.ReasonRemembered {
		span.AddEvent(NudgeEvent, trace.WithTimestamp(e.nudge))
	}
	if e.reason == askuser.ReasonFault {
		span.SetStatus(codes.Error, "the responder failed")
	}
	sc.end[0] = trace.WithTimestamp(e.finalized)
	span.End(sc.end[:]...)
}

// A scratch holds a span's attributes and its start and end options while
// the SDK copies them: reused, it spares the allocation of their slices.
type scratch struct {
	attrs []attribute.KeyValue
	start [2]trace.SpanStartOption
	end   [1]trace.SpanEndOption
}

// empty lets go of what sc held: the SDK has copied what it needs.
func (sc *scratch) empty() {
	clear(sc.attrs)
	*sc = scratch{attrs: sc.attrs[:0]}
}

// put empties sc and returns it to the pool.
func (sc *scratch) put() {
	sc.empty()
	scratchPool.Put(sc)
}

var (
	internalKind = trace.WithSpanKind(trace.SpanKindInternal)
	scratchPool  = sync.Pool{New: func() any { return newScratch() }}
)

func newScratch() *scratch { return &scratch{attrs: make([]attribute.KeyValue, 0, 16)} }

// spanName is the span's name for tool, made once for the contracts
// askuser knows.
func spanName(tool string) string {
	switch tool {
	case "ask_user":
		return "execute_tool ask_user"
	case "request_approval":
		return "execute_tool request_approval"
	case "go":
		return "execute_tool go"
	}
	return "execute_tool " + tool
}

// toolName is the tool the ask came in: its form's contract.
func toolName(f *askuser.Form) string {
	if f == nil || f.Contract == "" {
		return "go"
	}
	return f.Contract
}
