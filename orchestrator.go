package askuser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/deadline"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// An Orchestrator asks people questions on a model's behalf and keeps the
// contract whatever its responder does: it validates and normalizes the
// call, runs the responder under a context that ends at the deadline, holds
// every accepted answer, finalizes at the ending or at the deadline —
// whichever comes first, the deadline winning a tie — applies the outcome
// rules (declared defaults, declines, answers kept), seals secrets, records
// the ask in the journal, and encodes the result the model reads.
//
// The zero Orchestrator is ready to use: it has no responder (every ask is
// unattended), a 300-second ceiling, a 64 KiB cap on calls, slog.Default,
// its pending asks in its own memory, and an in-memory secret store with a
// key made up for the life of the process. Set the fields before the first
// ask and do not change them after. One given a shared store (Asks)
// is closed with Close.
type Orchestrator struct {
	// Responder shows forms to a person. Nil means nobody can be asked.
	Responder Responder
	// Limits bound a model's call: the ceiling on its wait, and its
	// default (zero: 300 s), and the size of its arguments (zero: 64 KiB).
	Limits dialect.Limits
	// Logger receives responder faults and store failures (nil:
	// slog.Default()). No answer and no secret is ever logged.
	Logger *slog.Logger
	// Secrets keeps sealed answers. Tools resolve references through the
	// same store (secretstore.ResolveFor), so a program that collects
	// secrets sets it: secretstore.NewMemory(nil) keeps them in memory,
	// secretstore.Dir across restarts. Nil seals them in a memory store of
	// the orchestrator's own, which nothing outside it reads.
	Secrets secretstore.Store
	// ReplayLimit is how many finalized results are kept in memory for
	// replay by tool-call id (zero: 10,000; negative: none).
	ReplayLimit int
	// Journal records every finalized ask (nil: none). A journal that
	// implements store.ResultFinder also replays tool calls across restarts.
	Journal store.Journal
	// ApprovalPolicy decides approvals without asking where the embedding
	// program has a rule (nil: a person decides every approval).
	ApprovalPolicy approval.Policy
	// Consents keeps the approval decisions a person made for the rest of
	// their session; the embedding program lists and revokes them through
	// the same store, so it sets one to do that (&store.MemoryConsents{}
	// forgets at exit, journal.Consents keeps them in a file). Nil keeps
	// them in a memory store of the orchestrator's own.
	Consents store.Consents
	// Asks keeps pending asks (nil: this process's memory, as fast as a
	// map). Given a shared store (a store.Memory shared by several
	// orchestrators, or the natsstore package's NATS JetStream store), a
	// pending ask is data: it outlives its caller, this process and a
	// restart; any orchestrator on the store takes answers for it, the
	// store's timers end it at its deadline on exactly one of them, and
	// its result is replayed from the store; a retried tool call joins it
	// wherever it lands. The caller going away, or Close, leaves it
	// pending: only the person, a supersede or the deadline end it. An
	// orchestrator holds in memory only the asks it serves, follows the
	// store's changes from its first use (or Ready) until Close, and reads
	// nothing of the store's history when it starts.
	Asks store.Pending
	// Dialects are the contracts, besides ask_user and request_approval,
	// in which asks found in Asks may have come (another replica's pi
	// calls, say): an orchestrator shows, ends and encodes asks other
	// processes began in the contract they began in.
	Dialects []Dialect
	// Observer is told how asks begin and end and how their journal
	// records are written, for telemetry (nil: nobody); see Observer, and
	// the otelask package, whose Hooks make OpenTelemetry spans and
	// metrics of them.
	Observer *Observer
	// Routes chooses, once, when an ask begins, the route it takes (nil:
	// none): who is asked, who is asked next, and for an approval the
	// quorum that decides it (see package route, and docs/routing.md).
	// It is given the tool (the contract's name), the session and the
	// approval's risk. The route is snapshotted on the ask — in its
	// pending record, with a shared store — so a restart or another
	// replica goes on with it whatever Routes says by then. A route that
	// fails its Check, or a Routes that panics, refuses the ask with an
	// error. routefile.File.Select is a Routes.
	Routes route.Selector
	// Channels are the responders a route's later steps tell, by the
	// channel names the steps give: "slack:#ops" is looked up as it is,
	// then by its kind ("slack"). A route's first step is Responder, as
	// without routes; when a later step begins with the ask still open,
	// each responder of its channels is given the ask — with what was
	// answered, and the votes, so far — as Responder is (Asked, or
	// Respond until the ask ends), adding to those already asked. With a
	// shared store, the replica whose store timer begins the step tells
	// its own Channels, once across the fleet. A name not here is logged
	// and passed over. A channel that is a SessionFollower is handed a
	// Sessions at the orchestrator's first use, as Responder is.
	Channels map[string]Responder

	initOnce     sync.Once
	store        secretstore.Store
	consentStore store.Consents
	stager       secretstore.Stager // store, staging sealed answers until their ask is final
	respName     string
	events       EventDriven    // Responder's, when it is driven by events
	fl           *fleet         // with Asks: the asks of the store served here, its feed and its timers
	outbox       outbox         // journal records a failing journal has not taken yet
	running      sync.WaitGroup // Respond and Asked calls and AfterEnd functions that have not returned
	deadlines    deadlines      // the deadlines of an EventDriven responder's pending asks

	mu      sync.Mutex
	pending map[string]*Ask      // by ask id
	byCall  map[callKey]*Ask     // pending asks by tool call
	replay  map[callKey]*Outcome // finalized, for replay
	order   []callKey            // replay eviction order
}

type callKey struct{ session, toolCallID string }

// A Request is one ask to make: a tool call a model sent (Arguments, in
// the contract of Dialect), or a form built in Go (Form).
type Request struct {
	// Session owns the ask and its secrets.
	Session string
	// ToolCallID is the model's tool-call id. A request whose tool call
	// was already finalized in this session returns the same result again
	// without asking anyone: from memory (see ReplayLimit) or, with a
	// journal that implements store.ResultFinder, across restarts. A request
	// whose tool call is still pending joins it.
	ToolCallID string
	// Dialect is the contract of Arguments and of the result (nil:
	// askusertool.Dialect(), or approvaltool.Dialect() for a Form with an Approval).
	Dialect Dialect
	// Arguments are the call as the model sent it, decoded by Dialect.
	Arguments []byte
	// Form is a form built in Go, asked instead of Arguments when set. It
	// is checked and normalized by Normalize (Form itself is not changed).
	Form *Form
	// AskedAt is when the ask began (zero: now). The deadlines are stamped
	// from it, so an ask resumed from elsewhere — a pending ask another
	// process began, carried here in its own form — keeps the deadline it
	// had. A time after now counts as now.
	AskedAt time.Time
	// Approvers, for an approval, says who decides it (nil: the route's
	// quorum, if any; without one, the first person who decides).
	Approvers *route.Approvers
}

func (o *Orchestrator) init() {
	o.initOnce.Do(func() {
		o.store = o.Secrets
		o.respName = responderName(o.Responder)
		o.events, _ = findOptional[EventDriven](o.Responder)
		if o.store == nil {
			o.store = secretstore.NewMemory(nil)
		}
		o.stager = secretstore.Staging(o.store)
		o.consentStore = o.Consents
		if o.consentStore == nil {
			o.consentStore = &store.MemoryConsents{}
		}
		o.pending = map[string]*Ask{}
		o.byCall = map[callKey]*Ask{}
		o.replay = map[callKey]*Outcome{}
		if o.Asks != nil {
			o.fl = newFleet(o, o.Asks)
		}
		o.handSessions()
	})
}

// handSessions hands a Sessions to the Responder and to each of Channels
// that is a SessionFollower, once to each: a Slack or email channel finds
// through it the asks another replica began.
func (o *Orchestrator) handSessions() {
	rs := []Responder{o.Responder}
	for _, name := range slices.Sorted(maps.Keys(o.Channels)) {
		rs = append(rs, o.Channels[name])
	}
	var handed []SessionFollower
	for _, r := range rs {
		f, ok := findOptional[SessionFollower](r)
		if !ok || slices.ContainsFunc(handed, func(g SessionFollower) bool { return sameFollower(f, g) }) {
			continue
		}
		handed = append(handed, f)
		f.FollowSessions(&Sessions{o: o})
	}
}

// sameFollower reports whether f and g are one responder (never true for
// values of a type that cannot be compared).
func sameFollower(f, g SessionFollower) bool {
	tf := reflect.TypeOf(f)
	return tf == reflect.TypeOf(g) && tf.Comparable() && any(f) == any(g)
}

func (o *Orchestrator) secrets() secretstore.Store { o.init(); return o.store }

func (o *Orchestrator) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

func (o *Orchestrator) limits() dialect.Limits { return o.Limits.WithDefaults() }

// Handle asks a request and returns the finalized Outcome, whose Result the
// model reads. An invalid call (or Form) returns a *dialect.CallError and nobody is
// asked: its Message, or its Result where the contract has one, goes back
// to the model. When ctx ends before the ask does, Handle returns ctx's
// error and no outcome.
//
// Handle returns when the outcome is final, which may be before the
// responder's Respond has returned (the deadline does not wait for a
// responder). WaitResponders waits for those.
func (o *Orchestrator) Handle(ctx context.Context, req Request) (*Outcome, error) {
	o.init()
	d := req.dialect()
	if o.fl != nil {
		fa, joined, out, err := o.fl.begin(ctx, req, d, ctx)
		if err != nil || out != nil {
			return out, err
		}
		return o.fl.await(ctx, fa, joined)
	}
	b := o.start(&begun{ctx: ctx, req: req, d: d})
	for b.other != nil {
		b = o.join(b)
	}
	switch {
	case b.a == nil:
		return b.out, b.err
	case b.evented:
		return o.waitEvents(ctx, b.a, b.stop)
	}
	return o.wait(ctx, b.a, b.rctx, b.cancel)
}

// formOf returns the request's form, checked and normalized: its Form, or
// its Arguments decoded in d.
func (o *Orchestrator) formOf(req Request, d Dialect) (*Form, error) {
	if req.Form == nil {
		return o.decode(d, req.Arguments)
	}
	form, err := Normalize(req.Form, o.limits())
	if err == nil {
		err = contractFits(d, form)
	}
	return form, err
}

// dialect is the request's contract: Dialect, or by default askusertool.Dialect(), or
// approvaltool.Dialect() for a Form with an Approval.
func (req *Request) dialect() Dialect {
	switch {
	case req.Dialect != nil:
		return req.Dialect
	case req.Form != nil && req.Form.Approval != nil:
		return approvalDialect{}
	}
	return askUserDialect{}
}

// contractFits refuses a Go-built form asked in a contract that cannot
// answer it: an approval in one of the question contracts, whose results
// cannot say approved, denied or unresolved, or a question form in the
// request_approval contract.
func contractFits(d Dialect, f *Form) error {
	switch name := d.Name(); {
	case f.Approval != nil && (name == askUserDialect{}.Name() || name == "pi-ask" || name == "pi"):
		return formError("an approval is asked in the request_approval contract (approvalDialect{}, or no Dialect), whose result says approved, denied or unresolved; the " + name + " contract cannot say that")
	case f.Approval == nil && name == approvalDialect{}.Name():
		return formError("the request_approval contract asks only approvals; build the form with approvaltool.Form")
	}
	return nil
}

// decode decodes a call as Decode does, and logs a dialect's bug.
func (o *Orchestrator) decode(d Dialect, args []byte) (*Form, error) {
	form, err, bug := decode(d, args, o.limits())
	if bug {
		o.logger().Error("askuser: a dialect produced an invalid form; this is a bug in the dialect", "dialect", d.Name(), "err", err)
	}
	return form, err
}

// Decode decodes a model's call as Handle does, without asking anyone: the
// dialect (nil: askusertool.Dialect()) validates and normalizes it, and the form it
// returns is held to the model's rules (see Normalize), so that no
// responder ever sees a form Normalize would refuse. An invalid call, and a
// dialect that breaks those rules, return a *dialect.CallError. The deadlines are
// not stamped.
func Decode(d Dialect, data []byte, lim dialect.Limits) (*Form, error) {
	form, err, _ := decode(d, data, lim)
	return form, err
}

func decode(d Dialect, data []byte, lim dialect.Limits) (form *Form, err error, bug bool) {
	if d == nil {
		d = askUserDialect{}
	}
	lim = lim.WithDefaults()
	form, err = d.Decode(data, lim)
	if err != nil {
		return nil, err, false
	}
	if form == nil {
		err = errors.New("Decode returned neither a form nor an error")
	} else {
		err = checkForm(form, lim, false)
	}
	if err != nil {
		return nil, &dialect.CallError{Message: "askuser: the " + d.Name() + " contract could not read this call (an internal error, not a problem with the call): " + err.Error()}, true
	}
	return compact(form), nil, false
}

func (o *Orchestrator) replayed(ctx context.Context, session, toolCallID string) (*Outcome, bool) {
	if toolCallID == "" {
		return nil, false
	}
	o.mu.Lock()
	out, ok := o.replay[callKey{session, toolCallID}]
	o.mu.Unlock()
	if !ok {
		return o.journalReplay(ctx, session, toolCallID)
	}
	r := *out
	r.Replayed = true
	return &r, true
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// A begun is an ask being begun: what Handle was given, and how the ask
// began, as the goroutine that began it hands it to Handle's caller: final
// already (out, err); pending (a, with what ends it at its deadline or
// when the caller goes away); or a tool call already pending in another
// ask (other), which the caller joins.
type begun struct {
	ctx  context.Context
	req  Request
	d    Dialect
	form *Form          // decoded already (asking anew after a join), or nil
	done sync.WaitGroup // begin has returned, when start runs it on a goroutine of its own

	out   *Outcome
	err   error
	a     *Ask
	other *Ask

	// A responder run in a goroutine of its own: its context, which ends
	// at the deadline or when the caller's does.
	rctx   context.Context
	cancel context.CancelFunc
	// An EventDriven responder: the ask is in o.deadlines, and stop ends
	// the callback on the caller's context (nil when it cannot end).
	evented bool
	stop    func() bool

	panicked any // a panic of begin's, raised again on the caller
}

// start runs begin: for an EventDriven responder on a goroutine of its
// own, so that Handle's caller waits, for as long as the ask is pending, on
// a stack of the runtime's minimum size (2 KiB), and a pending ask holds no
// more than that. A goroutine grows its stack when a call goes deeper than
// about 1 KiB into it, and the runtime shrinks a parked goroutine's stack
// only when it uses less than a quarter of it: decoding a call, reading
// random bytes for the ask's id, or a responder's Asked would leave every
// pending ask's caller holding a 4 KiB stack
// (BenchmarkPendingAskMemoryEventDriven shows it). So Handle, start, join
// and waitEvents keep small frames, allocate little and call nothing deep
// before they park. The hand-off costs a few microseconds per ask; a
// responder run per ask has a goroutine of its own anyway, and its asks
// are begun on the caller's. A panic in begin is raised again on the
// caller. b is not kept while the caller waits.
//
//go:noinline
func (o *Orchestrator) start(b *begun) *begun {
	if o.events == nil {
		o.begin(b)
	} else {
		b.done.Add(1)
		go o.beginAndSignal(b)
		b.done.Wait()
	}
	if b.panicked != nil {
		panic(b.panicked)
	}
	return b
}

// beginAndSignal runs begin and tells start that it has returned.
func (o *Orchestrator) beginAndSignal(b *begun) {
	defer b.done.Done()
	o.begin(b)
}

// begin does all of Handle but the wait, and reports to b: it replays a
// finalized tool call, decodes the call (unless b holds it decoded
// already), registers the ask and starts its responder, or decides it at
// once (an approval's policy or remembered decision, or no responder that
// can take it).
func (o *Orchestrator) begin(b *begun) {
	// checking is the ask while the responder's checks (Presence and the
	// like) and the consent store run: their panic is the responder's
	// fault, and ends the ask as a panicking Respond would.
	var checking *Ask
	defer func() {
		if p := recover(); p != nil {
			if checking == nil {
				b.panicked = p
				return
			}
			o.checkPanicked(b, checking, p)
		}
	}()
	ctx, req, d, form := b.ctx, &b.req, b.d, b.form
	if form == nil {
		if out, ok := o.replayed(ctx, req.Session, req.ToolCallID); ok {
			b.out = out
			return
		}
		var err error
		if form, err = o.formOf(*req, d); err != nil {
			b.err = err
			return
		}
	}
	if err := ctx.Err(); err != nil {
		b.err = err
		return
	}
	rt, err := o.routeFor(req, d, form)
	if err != nil {
		b.err = err
		return
	}
	a, other, replay := o.register(ctx, req.Session, req.ToolCallID, form, d, req.AskedAt, rt)
	switch {
	case replay != nil:
		b.out = replay
		return
	case other != nil:
		b.other, b.form = other, form
		return
	}
	checking = a
	o.observeBegan(ctx, a)
	if form.Approval != nil {
		if e := o.decideWithoutAsking(ctx, a); e != nil {
			checking = nil
			a.tryEnd(e)
			b.out, b.err = o.finish(ctx, a)
			return
		}
	}
	if !o.reachable(ctx, o.Responder, a) {
		checking = nil
		a.tryEnd(&ending{reason: ReasonUnattended})
		b.out, b.err = o.finish(ctx, a)
		return
	}
	checking = nil
	b.a = a
	o.running.Add(1)
	if o.events != nil {
		// No goroutine waits for the ask but its caller's: the deadline
		// (one timer for all such asks) and the caller's going away are
		// callbacks that end it. A context that cannot end (Done is nil)
		// needs no callback.
		b.evented = true
		o.deadlines.add(a)
		if ctx.Done() != nil {
			b.stop = context.AfterFunc(ctx, a.callerGone)
		}
		a.notify(o.events)
		if rt != nil && rt.Route != nil {
			o.escalate(a)
		}
		return
	}
	b.rctx, b.cancel = context.WithDeadline(ctx, form.ExpiresAt)
	go a.run(b.rctx, o.Responder)
	if rt != nil && rt.Route != nil {
		o.escalate(a)
	}
}

// checkPanicked ends a, whose responder's checks panicked with p, as a
// fault, and finalizes it into b; a panic while finalizing is raised again
// on Handle's caller.
func (o *Orchestrator) checkPanicked(b *begun, a *Ask, p any) {
	defer func() {
		if p := recover(); p != nil {
			b.panicked = p
		}
	}()
	a.tryEnd(&ending{reason: ReasonFault, fault: &panicError{value: p, stack: debug.Stack()}})
	b.out, b.err = o.finish(b.ctx, a)
}

// register stamps the form and makes it a pending ask — or, for a tool
// call already finalized or pending, returns that instead. The check and
// the registration happen under one lock, so one tool call is asked once.
func (o *Orchestrator) register(ctx context.Context, session, toolCallID string, call *Form, d Dialect, askedAt time.Time, rt *routing) (a, other *Ask, replay *Outcome) {
	key := callKey{session, toolCallID}
	o.mu.Lock()
	defer o.mu.Unlock()
	if toolCallID != "" {
		if out, ok := o.replay[key]; ok {
			r := *out
			r.Replayed = true
			return nil, nil, &r
		}
		if p, ok := o.byCall[key]; ok {
			return nil, p, nil
		}
	}
	now := time.Now()
	if !askedAt.IsZero() && askedAt.Before(now) {
		now = askedAt
	}
	stamp(call, now)
	a = &Ask{
		o:          o,
		id:         newID(),
		session:    session,
		toolCallID: toolCallID,
		form:       call,
		dialect:    d,
		responder:  o.respName,
		base:       uncancelled(ctx),
		rt:         rt,
		endCh:      make(chan struct{}),
	}
	for i := range call.Questions {
		if call.Questions[i].sealed() {
			a.sealing = make(chan struct{}, 1)
			break
		}
	}
	o.pending[a.id] = a
	if toolCallID != "" {
		o.byCall[key] = a
	}
	return a, nil, nil
}

// join waits for the pending ask of the same tool call, which b holds,
// and returns its outcome as a replay; when that ask's caller went away,
// the call is asked anew.
//
//go:noinline
func (o *Orchestrator) join(b *begun) *begun {
	p := b.other
	select {
	case <-p.Done():
		out := p.Outcome()
		if out.Reason == ReasonCaller {
			req := b.req
			req.AskedAt = time.Time{}
			return o.start(&begun{ctx: b.ctx, req: req, d: b.d, form: b.form})
		}
		r := *out
		r.Replayed = true
		return &begun{out: &r}
	case <-b.ctx.Done():
		return &begun{err: b.ctx.Err()}
	}
}

// wait parks the caller until the ask ends — by its responder, run in a
// goroutine of its own under rctx, or at the deadline, or when the caller
// goes away — and finalizes it.
//
//go:noinline
func (o *Orchestrator) wait(ctx context.Context, a *Ask, rctx context.Context, cancel context.CancelFunc) (*Outcome, error) {
	select {
	case <-a.endCh:
	case <-rctx.Done():
		if ctx.Err() != nil {
			a.tryEnd(&ending{reason: ReasonCaller})
		} else {
			a.tryEnd(&ending{reason: ReasonDeadline})
		}
	}
	cancel()
	return o.finish(ctx, a)
}

// waitEvents is wait for an EventDriven responder's ask: the deadline (see
// deadlines) and the caller's going away are callbacks that end it (stop
// is nil when the caller's context cannot end), so the caller waits on the
// ending alone.
//
//go:noinline
func (o *Orchestrator) waitEvents(ctx context.Context, a *Ask, stop func() bool) (*Outcome, error) {
	<-a.endCh
	o.deadlines.remove(a)
	if stop != nil {
		stop()
	}
	return o.finish(ctx, a)
}

// uncancelled is ctx without its cancellation: ctx itself when it cannot
// be cancelled (Done is nil), which spares an allocation per ask.
func uncancelled(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

func (a *Ask) callerGone() { a.tryEnd(&ending{reason: ReasonCaller}) }

func (o *Orchestrator) reachable(ctx context.Context, r Responder, a *Ask) bool {
	if r == nil {
		return false
	}
	if p, ok := findOptional[Presence](r); ok && !p.Reachable(ctx, a.session) {
		return false
	}
	if a.form.Approval != nil {
		if c, ok := findOptional[ApprovalCapable](r); !ok || !c.CanTakeApprovals() {
			return false
		}
	}
	for i := range a.form.Questions {
		if a.form.Questions[i].sealed() {
			if s, ok := findOptional[SecretCapable](r); ok && !s.CanCollectSecrets() {
				return false
			}
			break
		}
	}
	return true
}

// Ready waits until the orchestrator follows its store's changes (Asks),
// so that an answer given on another replica reaches the asks it serves: a
// service calls it before it takes requests, and its readiness check calls
// it again: while a feed the store broke off (a NATS server gone) is not
// in place again, Ready waits. It reads nothing the store already holds,
// so it is quick however much that is. Without Asks it returns at once. It
// returns ctx's error if ctx ends first, and ErrOrchestratorClosed after
// Close.
func (o *Orchestrator) Ready(ctx context.Context) error {
	o.init()
	if o.fl == nil {
		return nil
	}
	select {
	case <-o.fl.following():
		return nil
	case <-o.fl.ctx.Done():
		return ErrOrchestratorClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the orchestrator's work on its store (Asks): it takes no
// more of the store's timers and starts no finalization, lets those under
// way finish, with the journal records that follow them (a store that
// fails is retried for up to 10 seconds, a journal for 5), and
// stops following the store's changes. Callers still waiting get
// ErrOrchestratorClosed, and their asks stay pending in the store for
// another process (or this one restarted) to serve. It also stops trying
// journal records a failing journal has not taken (they are logged). Close
// does not close the responder or the stores. It does not wait for the
// responders either: WaitResponders does. It returns nil.
func (o *Orchestrator) Close() error {
	o.init()
	if o.fl != nil {
		o.fl.close()
	}
	o.outbox.close(o)
	return nil
}

// WaitResponders blocks until every Respond the orchestrator has started has
// returned, and, for an EventDriven responder, every Asked call and every
// function registered with Ask.AfterEnd whose ask is final. Handle returns
// as soon as an ask's outcome is final, which may be before its responder
// is done unwinding (the deadline does not wait for a responder); a test,
// or a program shutting down, calls WaitResponders before it reads a responder's
// state or releases what the responder uses. A responder that ignores its
// context keeps WaitResponders waiting. An EventDriven responder's pending asks do
// not: WaitResponders waits for their AfterEnd functions only once they have ended.
func (o *Orchestrator) WaitResponders() { o.running.Wait() }

// run calls the responder and turns a return without an ending, an error or
// a panic into a fault. It runs in a goroutine of its own and counts in
// Orchestrator.WaitResponders until it returns.
func (a *Ask) run(ctx context.Context, r Responder) {
	var err error
	defer a.o.running.Done()
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{value: p, stack: debug.Stack()}
		}
		if ctx.Err() != nil {
			// The ask's context ended (deadline, caller, or the ask itself
			// ended): the orchestrator finalizes it, and what the responder
			// does on its way out changes nothing. ctx's error and ErrAskEnded
			// are the expected way out; any other error is logged.
			if err != nil && !errors.Is(err, ctx.Err()) && !errors.Is(err, ErrAskEnded) {
				a.o.logger().Warn("askuser: the responder failed after the ask ended; the outcome stands", "ask", a.id, "responder", a.responder, "err", err)
			}
			return
		}
		if err == nil && a.voted.Load() {
			// A person voted on a routed approval here (or left it): the
			// others, and the deadline, decide it.
			return
		}
		if err == nil {
			err = errNoEnding
		} else if !errors.As(err, new(*panicError)) {
			err = fmt.Errorf("askuser: responder %s failed: %w", a.responder, err)
		}
		a.tryEnd(&ending{reason: ReasonFault, fault: err})
	}()
	err = r.Respond(ctx, a)
}

// notify tells an EventDriven responder about the ask, on the goroutine
// that begins the ask, and turns a panic into a fault. It counts in
// Orchestrator.WaitResponders (begin has added it) until it returns.
func (a *Ask) notify(ev EventDriven) {
	defer a.o.running.Done()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		err := &panicError{value: p, stack: debug.Stack()}
		if !a.tryEnd(&ending{reason: ReasonFault, fault: err}) {
			a.o.logger().Warn("askuser: the responder failed after the ask ended; the outcome stands", "ask", a.id, "responder", a.responder, "err", err)
		}
	}()
	ev.Asked(a)
}

// settle builds an ended ask's outcome and readies it for the model: it
// settles the ask's secrets, remembers an approval's consent and encodes
// the result. Finalizing, in memory or on a store, starts with it.
func (o *Orchestrator) settle(a *Ask) *Outcome {
	out := a.buildOutcome(time.Now())
	// A seal still under way finishes first, so that what it staged is
	// settled below: before the result goes out, so that its references
	// resolve once Handle returns.
	if a.sealing != nil {
		a.sealing <- struct{}{}
		a.settleSecrets(out)
		<-a.sealing
	}
	if a.form.Approval != nil {
		o.rememberConsent(a.base, out)
	}
	res, rec, err := a.dialect.Encode(out, o.Journal != nil)
	if err != nil {
		// An encoder failure is a bug in the dialect; the model gets
		// nothing it could misread.
		o.logger().Error("askuser: encoding the result failed", "ask", a.id, "dialect", a.dialect.Name(), "err", err)
		out.Fault = errors.Join(out.Fault, err)
		res = nil
	}
	if out.Reason != ReasonCaller {
		out.Result = res
	}
	out.contractRecord = rec
	if out.Fault != nil {
		args := []any{"ask", a.id, "session", a.session, "tool_call", a.toolCallID, "responder", a.responder, "err", out.Fault}
		if pe := (*panicError)(nil); errors.As(out.Fault, &pe) {
			args = append(args, "stack", string(pe.stack))
		}
		o.logger().Warn("askuser: responder fault; the ask ends as cancelled", args...)
	}
	return out
}

// finish finalizes an ask held in this process's memory once it has an
// ending: it settles the outcome, journals it (a journal that fails gets
// the record again from the outbox until it takes it), keeps it for
// replay and publishes it.
func (o *Orchestrator) finish(ctx context.Context, a *Ask) (*Outcome, error) {
	out := o.settle(a)
	if o.Journal != nil {
		rec := newRecord(out)
		if err := o.journalTry(a.base, rec, false); err != nil {
			o.logger().Error("askuser: writing the journal record failed; it is written again until the journal takes it", "ask", a.id, "session", a.session, "tool_call", a.toolCallID, "err", err)
			out.JournalErr = err
			o.outbox.add(o, a.base, rec)
		}
	}

	o.mu.Lock()
	delete(o.pending, a.id)
	key := callKey{a.session, a.toolCallID}
	if a.toolCallID != "" {
		delete(o.byCall, key)
		if out.Reason != ReasonCaller {
			o.remember(key, out)
		}
	}
	o.mu.Unlock()
	o.observeEnded(a.base, out)
	a.setFinal(out)

	if out.Reason == ReasonCaller {
		return nil, ctx.Err()
	}
	return out, nil
}

func (o *Orchestrator) remember(key callKey, out *Outcome) {
	limit := o.ReplayLimit
	if limit == 0 {
		limit = 10000
	}
	if limit < 0 {
		return
	}
	if _, ok := o.replay[key]; !ok {
		o.order = append(o.order, key)
	}
	o.replay[key] = out
	for len(o.order) > limit {
		delete(o.replay, o.order[0])
		o.order = o.order[1:]
	}
}

// Supersede ends every pending ask of a session as superseded (the person
// wrote a chat message instead): each result is cancelled / unattended with
// the answers given so far. It returns how many asks it ended.
func (o *Orchestrator) Supersede(session string) int {
	if o.init(); o.fl != nil {
		ctx, cancel := context.WithTimeout(o.fl.ctx, storeRetry)
		defer cancel()
		n, err := o.fl.supersede(ctx, session)
		if err != nil {
			o.logger().Error("askuser: superseding a session's asks failed", "session", session, "err", err)
		}
		return n
	}
	n := 0
	for _, a := range o.pendingAsks(session) {
		if a.tryEnd(&ending{reason: ReasonSuperseded}) {
			n++
		}
	}
	return n
}

// A PendingAsk describes an ask that is still pending, as a snapshot for
// the embedding program (a supervisor page, a test waiting for an ask to
// appear). It is not a handle: answers go through the responder.
type PendingAsk struct {
	// AskID identifies the ask.
	AskID string
	// Session and ToolCallID are the correlation data the caller gave.
	Session    string
	ToolCallID string
	// Form is the normalized form. It must not be modified.
	Form *Form
	// Answered lists the questions with an accepted answer, in question
	// order.
	Answered []string
}

// Pending returns the session's pending asks, oldest first. With a shared
// store (Asks) it reads them from the store, wherever they began; a store
// that fails is logged and lists nothing.
func (o *Orchestrator) Pending(session string) []PendingAsk {
	if o.init(); o.fl != nil {
		ctx, cancel := context.WithTimeout(o.fl.ctx, storeRetry)
		defer cancel()
		_, rs, err := o.fl.list(ctx, session)
		if err != nil {
			o.logger().Error("askuser: listing a session's pending asks failed", "session", session, "err", err)
		}
		var out []PendingAsk
		for _, r := range rs {
			p := PendingAsk{AskID: r.AskID, Session: r.Session, ToolCallID: r.ToolCallID, Form: r.Form}
			for _, a := range r.Accepted {
				if a.Set {
					p.Answered = append(p.Answered, a.QuestionID)
				}
			}
			out = append(out, p)
		}
		return out
	}
	as := o.pendingAsks(session)
	out := make([]PendingAsk, 0, len(as))
	for _, a := range as {
		p := PendingAsk{AskID: a.id, Session: a.session, ToolCallID: a.toolCallID, Form: a.form}
		for _, ans := range a.Accepted() {
			p.Answered = append(p.Answered, ans.QuestionID)
		}
		out = append(out, p)
	}
	return out
}

func (o *Orchestrator) pendingAsks(session string) []*Ask {
	o.init()
	o.mu.Lock()
	defer o.mu.Unlock()
	var as []*Ask
	for _, a := range o.pending {
		if a.session == session {
			as = append(as, a)
		}
	}
	slices.SortFunc(as, func(x, y *Ask) int {
		if c := x.form.AskedAt.Compare(y.form.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
	return as
}

// stamp writes the form's deadlines: AskedAt is now in UTC, ExpiresAt is
// AskedAt plus TimeoutSeconds, and NudgeAt is ExpiresAt less
// min(60, ceil(TimeoutSeconds/5)) seconds, when a responder shows a
// countdown.
func stamp(f *Form, now time.Time) {
	f.AskedAt, f.NudgeAt, f.ExpiresAt = deadline.Stamps(now, f.TimeoutSeconds)
}

// Begin starts an ask without waiting for it, and returns the ask's id: a
// service answers a request at once and lets its client come back for the
// result with Await. A request whose tool call is already pending or final
// returns that ask's id and starts nothing. An invalid call returns a
// *dialect.CallError, as Handle does. The ask is shown by this orchestrator's
// responder, which is not stopped when ctx ends. In this process's memory
// (no Asks) the ask lives as long as the process does; in a shared store
// it outlives it, and Await finds it on any replica.
func (o *Orchestrator) Begin(ctx context.Context, req Request) (askID string, err error) {
	o.init()
	if o.fl != nil {
		fa, _, out, err := o.fl.begin(ctx, req, req.dialect(), context.WithoutCancel(ctx))
		switch {
		case err != nil:
			return "", err
		case out != nil:
			return out.AskID, nil
		}
		defer o.fl.release(fa)
		o.fl.mu.Lock()
		defer o.fl.mu.Unlock()
		return fa.rec.AskID, nil
	}
	bctx := context.WithoutCancel(ctx)
	b := o.start(&begun{ctx: bctx, req: req, d: req.dialect()})
	switch {
	case b.other != nil:
		return b.other.id, nil
	case b.err != nil:
		return "", b.err
	case b.a == nil:
		return b.out.AskID, nil
	}
	// Nobody waits for the ask: a goroutine of its own finalizes it when
	// it ends (WaitResponders waits for it), and Await finds it until then.
	o.running.Add(1)
	go func() {
		defer o.running.Done()
		if b.evented {
			_, _ = o.waitEvents(bctx, b.a, b.stop)
		} else {
			_, _ = o.wait(bctx, b.a, b.rctx, b.cancel)
		}
	}()
	return b.a.id, nil
}

// Await waits for the result of a session's tool call that a Begin or a
// Handle began (here, or with a shared store in any process on it), and
// returns it as a replay once the ask is final; ctx's error while it is
// still pending when ctx ends; ErrUnknownAsk when no ask answers the tool
// call.
func (o *Orchestrator) Await(ctx context.Context, session, toolCallID string) (*Outcome, error) {
	o.init()
	if toolCallID == "" {
		return nil, ErrUnknownAsk
	}
	if o.fl != nil {
		fa, out, err := o.fl.find(ctx, session, toolCallID)
		if err != nil || out != nil {
			return out, err
		}
		return o.fl.await(ctx, fa, true)
	}
	key := callKey{session, toolCallID}
	o.mu.Lock()
	a, out := o.byCall[key], o.replay[key]
	o.mu.Unlock()
	switch {
	case out != nil:
		r := *out
		r.Replayed = true
		return &r, nil
	case a == nil:
		if out, ok := o.journalReplay(ctx, session, toolCallID); ok {
			return out, nil
		}
		return nil, ErrUnknownAsk
	}
	select {
	case <-a.Done():
		out := a.Outcome()
		if out.Reason == ReasonCaller {
			// Its caller went away: the call has no result to give.
			return nil, ErrUnknownAsk
		}
		r := *out
		r.Replayed = true
		return &r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
