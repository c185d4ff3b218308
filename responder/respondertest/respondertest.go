// Package respondertest checks that an [askuser.Responder] keeps its side of
// askuser's contract, as testing/slogtest does for slog handlers. It puts
// forms of every kind to the responder through an [askuser.Orchestrator],
// ends them in every way that does not need a person — at the deadline, by
// superseding them, by the caller going away, before the responder has even
// looked — and checks what the responder does: that it ends each ask once
// and without a fault, returns promptly once its context ends, lets several
// asks be pending at once, leaves the form as it was given, and puts no
// secret value in its errors. Each case is one rule of one sentence (see
// [Cases]). The kit cannot play the person, so a case that needs something
// the responder never did (reach Respond at all, end an ask itself, hand
// over a secret) is skipped with the reason, and [Run] and [Check] fail when
// no case reached Respond.
//
// Approvals (askuser.ApprovalForm) get cases of their own. A responder that
// does not declare it can take them (askuser.ApprovalCapable) must never be
// handed one. One that does is given approvals of every risk, and since the
// kit plays no person, none of them may end approved: a responder that
// approves by itself — picking the first option, taking a draft, treating
// the deadline as consent — fails, while one that leaves them to the
// deadline, or ends them as denied or dismissed because its person (or
// script) did so, passes. A responder author runs it from a test:
//
//	func TestConformance(t *testing.T) {
//		respondertest.Run(t, func(t *testing.T) askuser.Responder {
//			r := myresponder.New()
//			t.Cleanup(func() { r.Close() })
//			return r
//		}, &respondertest.Options{Synctest: true})
//	}
package respondertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// Options configures Run and Check. A nil *Options, and the zero Options,
// run every case in real time, in parallel, with the default grace.
type Options struct {
	// Grace is how long, after an ask has ended, the kit waits for Respond
	// to return before it reports the responder as not returning (zero:
	// 3 s). In a synctest bubble it is measured on the bubble's clock.
	Grace time.Duration

	// Synctest runs the cases in testing/synctest bubbles, where time
	// passes only while every goroutine is blocked: the kit then uses
	// deadlines of minutes, which pass in microseconds, and waits for the
	// responder to settle instead of sleeping. Set it for a responder that
	// does no real I/O (an io.Pipe is fine; a terminal on a pty, a socket
	// or a process is not, and neither is an input that never blocks, which
	// stops the bubble's clock). Run makes a bubble per case. Check must
	// then be called inside a bubble (in synctest.Test) and runs the cases
	// there one after another. A Respond that blocks for ever on something
	// of the bubble is reported (Run) or deadlocks the bubble (Check); one
	// that blocks on a sync.Mutex held for ever stops the bubble's clock,
	// and the test times out.
	Synctest bool

	// IgnorePresence has the kit answer Reachable with true for every
	// session, so that Respond is called even where the responder's
	// Presence reports nobody there. A person can leave between Reachable
	// and Respond, so Respond must keep the contract then too; set it for
	// a responder that is never reachable in a test (one that reports
	// nobody, or one reachable only while a person is connected), which
	// would otherwise be checked by no case.
	IgnorePresence bool

	// Serial runs the cases one after another. By default they run at
	// the same time, each with a responder of its own from newResponder;
	// set Serial when those responders share something only one can use at
	// a time (one terminal). The asks within a case are always pending at
	// the same time.
	Serial bool
}

func (o *Options) resolve() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Grace <= 0 {
		r.Grace = 3 * time.Second
	}
	return r
}

// ErrNotReached is what Check returns, and Run reports, when no case
// reached the responder's Respond: nothing was checked.
var ErrNotReached = errors.New("respondertest: no case reached Respond: the responder reported nobody reachable for every ask, so nothing was checked")

// A Case is one rule of the contract that the kit checks.
type Case struct {
	// Name names the case: the subtest's name in Run, the prefix of its
	// failure in Check.
	Name string
	// Rule is the sentence the case checks.
	Rule string

	run func(e *env) error
}

// Cases returns the kit's cases, in the order they are reported.
func Cases() []Case { return append([]Case(nil), cases...) }

// Run runs every case as a subtest of t, each with a fresh responder from
// newResponder (which may register cleanups on the t it is given); opts may
// be nil. A case that fails reports its rule and what the responder did; a
// case that could not be checked is skipped with the reason. Run fails t
// with ErrNotReached when no case that ran reached Respond. It returns once
// every case has finished.
func Run(t *testing.T, newResponder func(t *testing.T) askuser.Responder, opts *Options) {
	t.Helper()
	o := opts.resolve()
	var ran, reached atomic.Bool
	one := func(c Case) {
		t.Run(c.Name, func(t *testing.T) {
			ran.Store(true)
			res := runIn(t, c, newResponder, o)
			if res.reached {
				reached.Store(true)
			}
			switch {
			case res.err != nil:
				t.Errorf("respondertest: %s: %s\n%v", c.Name, c.Rule, res.err)
			case res.skip != "":
				t.Skip(res.skip)
			}
		})
	}
	if o.Serial {
		for _, c := range cases {
			one(c)
		}
	} else {
		var wg sync.WaitGroup
		for _, c := range cases {
			wg.Go(func() { one(c) })
		}
		wg.Wait()
	}
	if ran.Load() && !reached.Load() {
		t.Error(ErrNotReached)
	}
}

// Check runs every case, each with a fresh responder from newResponder, and
// returns the failures joined, each naming its case and rule, or nil; opts
// may be nil. Cases that could not be checked are left out. Check returns
// ErrNotReached (joined with any failures) when no case reached Respond.
// With Options.Synctest it must be called inside a synctest bubble.
func Check(newResponder func() askuser.Responder, opts *Options) error {
	o := opts.resolve()
	results := make([]result, len(cases))
	if o.Synctest || o.Serial {
		for i, c := range cases {
			results[i] = runCase(c, newResponder, o, o.Synctest)
		}
	} else {
		var wg sync.WaitGroup
		for i, c := range cases {
			wg.Go(func() { results[i] = runCase(c, newResponder, o, false) })
		}
		wg.Wait()
	}
	var errs []error
	reached := false
	for i, res := range results {
		reached = reached || res.reached
		if res.err != nil {
			errs = append(errs, fmt.Errorf("respondertest: %s: %s\n%w", cases[i].Name, cases[i].Rule, res.err))
		}
	}
	if !reached {
		errs = append(errs, ErrNotReached)
	}
	return errors.Join(errs...)
}

// result is what one case found.
type result struct {
	err     error
	skip    string // why the case could not be checked
	reached bool   // some ask reached Respond
}

// runIn runs one case for Run, in a bubble of its own with Synctest.
func runIn(t *testing.T, c Case, newResponder func(*testing.T) askuser.Responder, o Options) (res result) {
	if !o.Synctest {
		return runCase(c, func() askuser.Responder { return newResponder(t) }, o, false)
	}
	defer func() {
		// synctest.Test panics when the bubble's goroutines are still
		// blocked, with nothing left to wake them, once the case is done:
		// a Respond the case has already reported, or something the
		// responder left behind.
		p := recover()
		if p == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(p), "deadlock") {
			panic(p)
		}
		if res.err == nil {
			res.skip = ""
			res.err = fmt.Errorf("a goroutine of the responder was still blocked when the case ended, with nothing left that could wake it (%v); nothing the responder starts may outlive Respond and the cleanups newResponder registered", p)
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		res = runCase(c, func() askuser.Responder { return newResponder(t) }, o, true)
	})
	return res
}

func runCase(c Case, newResponder func() askuser.Responder, o Options, bubble bool) result {
	e := &env{newResponder: newResponder, opts: o, bubble: bubble}
	err := c.run(e)
	e.close()
	res := result{reached: e.reached.Load()}
	var s skipError
	if errors.As(err, &s) {
		res.skip = string(s)
	} else {
		res.err = err
	}
	return res
}

// skipError says why a case could not be checked.
type skipError string

func (s skipError) Error() string { return string(s) }

func skipf(format string, args ...any) error { return skipError(fmt.Sprintf(format, args...)) }

// The skips every case may give.
var (
	errNotReached = skipError("no ask of this case reached Respond: the responder reported nobody reachable (set Options.IgnorePresence to check its Respond all the same)")
	errNoSecrets  = skipError("the responder cannot collect secrets (its CanCollectSecrets reports false), so the orchestrator never hands it a form with a sealed question")
	errNoApproval = skipError("the responder does not take approvals (it does not implement askuser.ApprovalCapable, or its CanTakeApprovals reports false), so the orchestrator never hands it one; approval-not-taken checks that")
)

// env is one case's run: its orchestrator, its asks, and what the kit saw
// of them.
type env struct {
	newResponder func() askuser.Responder
	opts         Options
	bubble       bool

	reached atomic.Bool
	log     lockedBuffer
	store   *sealedStore
	r       askuser.Responder
	o       *askuser.Orchestrator

	mu    sync.Mutex
	asks  []*pend
	byKey map[string]*pend
	seq   int
	// before, when set, runs in Respond before the responder is called.
	before func(ctx context.Context, a *askuser.Ask)
}

// Deadlines: short ones are meant to pass, long ones to be ended another
// way first.
func (e *env) short() int {
	if e.bubble {
		return 120
	}
	return 1
}

const long = 300

// settle gives the responder time to get to where it waits.
func (e *env) settle() {
	if e.bubble {
		synctest.Wait()
		return
	}
	time.Sleep(100 * time.Millisecond)
}

// orchestrator makes the case's orchestrator, over a fresh responder.
func (e *env) orchestrator() (*askuser.Orchestrator, error) {
	r := e.newResponder()
	if r == nil {
		return nil, errors.New("newResponder returned nil")
	}
	e.r = r
	e.store = &sealedStore{Store: secretstore.NewMemory(nil)}
	e.byKey = map[string]*pend{}
	e.o = &askuser.Orchestrator{
		Responder: &probe{e: e, r: r},
		Logger:    slog.New(slog.NewTextHandler(&e.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Secrets:   e.store,
	}
	return e.o, nil
}

// canCollectSecrets reports whether the orchestrator would hand the
// responder a form with a sealed question.
func (e *env) canCollectSecrets() bool {
	if s, ok := findOptional[askuser.SecretCapable](e.r); ok {
		return s.CanCollectSecrets()
	}
	return true
}

// canTakeApprovals reports whether the orchestrator would hand the
// responder an approval.
func (e *env) canTakeApprovals() bool {
	c, ok := findOptional[askuser.ApprovalCapable](e.r)
	return ok && c.CanTakeApprovals()
}

// A pend is one ask the kit made.
type pend struct {
	name    string // what the form is, for messages
	session string
	id      string // the tool call id
	cancel  context.CancelFunc

	entered chan struct{} // closed when Respond is called
	c       *call         // set before entered is closed

	handled chan struct{} // closed when Handle has returned
	out     *askuser.Outcome
	err     error
}

// ask asks f in session, in a goroutine.
func (e *env) ask(o *askuser.Orchestrator, session string, f namedForm) *pend {
	ctx, cancel := context.WithCancel(context.Background())
	e.mu.Lock()
	e.seq++
	p := &pend{name: f.name, session: session, id: fmt.Sprint("respondertest-", e.seq), cancel: cancel,
		entered: make(chan struct{}), handled: make(chan struct{})}
	e.asks = append(e.asks, p)
	e.byKey[p.session+"\x00"+p.id] = p
	e.mu.Unlock()
	go func() {
		defer close(p.handled)
		p.out, p.err = o.Handle(ctx, askuser.Request{Session: session, ToolCallID: p.id, Form: f.form})
	}()
	return p
}

// askAll asks each form in a session of its own.
func (e *env) askAll(o *askuser.Orchestrator, fs []namedForm) []*pend {
	var ps []*pend
	for i, f := range fs {
		ps = append(ps, e.ask(o, fmt.Sprint("respondertest-", i+1), f))
	}
	return ps
}

// responded reports whether Respond was called for the ask. It is reliable
// once the ask has ended and Respond has returned (finish).
func (p *pend) responded() bool {
	select {
	case <-p.entered:
		return true
	default:
		return false
	}
}

// waitEntered waits until Respond is called for the ask, or the ask ends
// without it (nobody reachable).
func (p *pend) waitEntered() bool {
	select {
	case <-p.entered:
		return true
	case <-p.handled:
		return p.responded()
	}
}

func (p *pend) ended() bool {
	select {
	case <-p.handled:
		return true
	default:
		return false
	}
}

// outcome is the ask's final outcome, once Handle has returned; for an ask
// whose caller went away, read from the ask itself.
func (p *pend) outcome() *askuser.Outcome {
	if p.out != nil {
		return p.out
	}
	if p.responded() {
		<-p.c.ask.Done()
		return p.c.ask.Outcome()
	}
	return nil
}

// finish waits for the asks to end, and then up to Grace for every Respond
// to return. It fails for each Respond still running.
func (e *env) finish(o *askuser.Orchestrator, ps ...*pend) error {
	for _, p := range ps {
		<-p.handled
	}
	done := make(chan struct{})
	go func() { o.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(e.opts.Grace):
	}
	var errs []error
	for _, p := range ps {
		if !p.responded() || p.c.hasReturned() {
			continue
		}
		errs = append(errs, fmt.Errorf("%s: Respond had not returned %v after the ask ended (%s); it must return promptly once its context ends", p.name, e.opts.Grace, p.outcome().Reason))
	}
	if len(errs) == 0 {
		return fmt.Errorf("Respond had not returned %v after the case's asks ended; it must return promptly once its context ends", e.opts.Grace)
	}
	return errors.Join(errs...)
}

// close ends whatever the case left pending and waits for every Respond
// to return: up to Grace, or in a bubble up to a day of its clock, so that
// a responder that ignores its context but returns in the end (after a
// sleep, say) leaves nothing behind in the bubble.
func (e *env) close() {
	e.mu.Lock()
	ps := e.asks
	e.mu.Unlock()
	for _, p := range ps {
		p.cancel()
	}
	for _, p := range ps {
		<-p.handled
	}
	if e.o == nil {
		return
	}
	wait := e.opts.Grace
	if e.bubble {
		wait = 24 * time.Hour
	}
	done := make(chan struct{})
	go func() { e.o.Wait(); close(done) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// A call is one Respond call, as the kit's probe saw it.
type call struct {
	ask      *askuser.Ask
	given    *askuser.Form // a copy of the form as it was given
	returned chan struct{} // closed when Respond has returned
	err      error         // what Respond returned
	panicked bool
	panicVal any
}

func (c *call) hasReturned() bool {
	select {
	case <-c.returned:
		return true
	default:
		return false
	}
}

// wayOut checks what Respond did once the ask had ended from outside.
func (c *call) wayOut() error {
	switch {
	case c.panicked:
		return fmt.Errorf("Respond panicked after the ask had ended: %v", c.panicVal)
	case c.err != nil && !errors.Is(c.err, askuser.ErrClosed) && !errors.Is(c.err, context.Canceled) && !errors.Is(c.err, context.DeadlineExceeded):
		return fmt.Errorf("Respond returned %q after the ask had ended; on its way out it returns nil, the context's error or ErrClosed", c.err)
	}
	return nil
}

// probe is the responder the kit's orchestrator holds: it records each
// Respond call and hands it to the responder under test. It unwraps to that
// responder and answers to its name, so that it hides no capability and is
// never named in a fault.
type probe struct {
	e *env
	r askuser.Responder
}

func (p *probe) Respond(ctx context.Context, a *askuser.Ask) (err error) {
	e := p.e
	e.reached.Store(true)
	c := &call{ask: a, given: cloneForm(a.Form()), returned: make(chan struct{})}
	e.mu.Lock()
	pd := e.byKey[a.Session()+"\x00"+a.ToolCallID()]
	before := e.before
	e.mu.Unlock()
	if pd != nil {
		pd.c = c
		close(pd.entered)
	}
	defer func() {
		v := recover()
		c.err, c.panicked, c.panicVal = err, v != nil, v
		close(c.returned)
		if v != nil {
			panic(v)
		}
	}()
	if before != nil {
		before(ctx, a)
	}
	return p.r.Respond(ctx, a)
}

func (p *probe) Unwrap() askuser.Responder { return p.r }

// ResponderName names the responder under test, as the orchestrator would
// without the probe.
func (p *probe) ResponderName() string {
	if n, ok := findOptional[askuser.Named](p.r); ok {
		return n.ResponderName()
	}
	return fmt.Sprintf("%T", p.r)
}

// Reachable answers for the responder under test, or says yes with
// IgnorePresence.
func (p *probe) Reachable(ctx context.Context, session string) bool {
	if p.e.opts.IgnorePresence {
		return true
	}
	if pr, ok := findOptional[askuser.Presence](p.r); ok {
		return pr.Reachable(ctx, session)
	}
	return true
}

// findOptional finds an optional interface on r or down its Unwrap chain,
// as the orchestrator does.
func findOptional[T any](r askuser.Responder) (T, bool) {
	for range 64 {
		if r == nil {
			break
		}
		if t, ok := r.(T); ok {
			return t, true
		}
		w, ok := r.(askuser.Wrapper)
		if !ok {
			break
		}
		r = w.Unwrap()
	}
	var zero T
	return zero, false
}

// cloneForm copies a form deeply enough to see any change a responder
// makes to it.
func cloneForm(f *askuser.Form) *askuser.Form {
	c := *f
	if f.Approval != nil {
		ap := *f.Approval
		c.Approval = &ap
	}
	c.Questions = append([]askuser.Question(nil), f.Questions...)
	for i := range c.Questions {
		c.Questions[i].Options = append([]askuser.Option(nil), f.Questions[i].Options...)
	}
	return &c
}

// sealedStore keeps every secret value the orchestrator seals, so that the
// kit can look for it where it must not be.
type sealedStore struct {
	secretstore.Store
	mu   sync.Mutex
	puts []sealedValue
}

type sealedValue struct {
	name  string
	value string
}

func (s *sealedStore) Put(ctx context.Context, session, name string, v secret.Value) error {
	b := v.Reveal()
	s.mu.Lock()
	s.puts = append(s.puts, sealedValue{name: name, value: string(b)})
	s.mu.Unlock()
	clear(b)
	return s.Store.Put(ctx, session, name, v)
}

func (s *sealedStore) values() []sealedValue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sealedValue(nil), s.puts...)
}

// lockedBuffer is the orchestrator's log.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// selfEnded reports whether an ask was ended by its responder.
func selfEnded(r askuser.Reason) bool {
	switch r {
	case askuser.ReasonSubmitted, askuser.ReasonDeclined, askuser.ReasonDismissed, askuser.ReasonUnattended:
		return true
	}
	return false
}

// faults lists the asks that ended as a responder fault.
func faults(ps []*pend) error {
	var errs []error
	for _, p := range ps {
		if !p.responded() {
			continue
		}
		if out := p.outcome(); out != nil && out.Reason == askuser.ReasonFault {
			errs = append(errs, fmt.Errorf("%s: the responder failed (an error, a panic, or a return without an ending while the ask was open): %v", p.name, out.Fault))
		}
	}
	return errors.Join(errs...)
}

func anyResponded(ps []*pend) bool {
	for _, p := range ps {
		if p.responded() {
			return true
		}
	}
	return false
}

var cases = []Case{
	{
		Name: "every-kind",
		Rule: "A responder handles every kind of form — single choice, multi-select, closed choice, text, multi-line text, four questions — without an error, a panic or a return without an ending while the ask is open, and returns promptly once the ask has ended, however it ended.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			ps := e.askAll(o, forms(e.short()))
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			return errors.Join(faults(ps), herr)
		},
	},
	{
		Name: "secret-forms",
		Rule: "A responder that can collect secrets handles a secret question and sensitive ones without an error, a panic or a return without an ending while the ask is open.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if !e.canCollectSecrets() {
				return errNoSecrets
			}
			ps := e.askAll(o, secretForms(e.short()))
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			return errors.Join(faults(ps), herr)
		},
	},
	{
		Name: "secret-not-in-errors",
		Rule: "No secret value a responder hands over appears in an error Respond returns, in a panic, in the outcome's Fault or in what the orchestrator logs.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if !e.canCollectSecrets() {
				return errNoSecrets
			}
			ps := e.askAll(o, secretForms(e.short()))
			if err := e.finish(o, ps...); err != nil {
				return err
			}
			if !anyResponded(ps) {
				return errNotReached
			}
			vals := e.store.values()
			if len(vals) == 0 {
				return skipError("the responder handed over no secret value (nothing answered a sealed question), so there was none to look for")
			}
			var places []struct{ where, text string }
			add := func(where, text string) { places = append(places, struct{ where, text string }{where, text}) }
			for _, p := range ps {
				if !p.responded() {
					continue
				}
				if p.c.err != nil {
					add(p.name+": the error Respond returned", p.c.err.Error())
				}
				if p.c.panicked {
					add(p.name+": the value Respond panicked with", fmt.Sprint(p.c.panicVal))
				}
				if out := p.outcome(); out != nil && out.Fault != nil {
					add(p.name+": the outcome's Fault", out.Fault.Error())
				}
			}
			add("the orchestrator's log", e.log.String())
			var errs []error
			for _, v := range vals {
				for _, needle := range needles(v.value) {
					for _, pl := range places {
						if strings.Contains(pl.text, needle) {
							errs = append(errs, fmt.Errorf("the secret value handed over for %q appears in %s", v.name, pl.where))
						}
					}
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "deadline",
		Rule: "A responder returns promptly once its context ends at the form's deadline, with nil, the context's error or ErrClosed.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			p := e.ask(o, "respondertest", forms(e.short())[0])
			herr := e.finish(o, p)
			if !p.responded() {
				return errNotReached
			}
			if r := p.outcome().Reason; r != askuser.ReasonDeadline {
				return skipf("the responder's ask ended (%s) before its deadline, so its context never ended there", r)
			}
			if herr != nil {
				return herr
			}
			return p.c.wayOut()
		},
	},
	{
		Name: "superseded",
		Rule: "A responder returns promptly once the ask is superseded, with nil, the context's error or ErrClosed.",
		run: func(e *env) error {
			return endFromOutside(e, askuser.ReasonSuperseded, "it was superseded", func(o *askuser.Orchestrator, p *pend) { o.Supersede(p.session) })
		},
	},
	{
		Name: "caller-gone",
		Rule: "A responder returns promptly once the caller stops waiting for the ask, with nil, the context's error or ErrClosed.",
		run: func(e *env) error {
			return endFromOutside(e, askuser.ReasonCaller, "its caller went away", func(_ *askuser.Orchestrator, p *pend) { p.cancel() })
		},
	},
	{
		Name: "ended-before-start",
		Rule: "A responder handed an ask that has already ended — its context done, every report refused with ErrClosed — returns promptly, without a panic, with nil, the context's error or ErrClosed.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			e.before = func(ctx context.Context, a *askuser.Ask) {
				o.Supersede(a.Session())
				<-ctx.Done()
			}
			fs := append(forms(long), secretForms(long)...)
			if e.canTakeApprovals() {
				fs = append(fs, approvalForms(long)...)
			}
			ps := e.askAll(o, fs)
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			errs := []error{herr}
			for _, p := range ps {
				if p.responded() && p.c.hasReturned() {
					if err := p.c.wayOut(); err != nil {
						errs = append(errs, fmt.Errorf("%s: %w", p.name, err))
					}
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "several-pending",
		Rule: "Several asks may be pending at once, in one session or in several: a responder that shows one at a time queues them, and a queued ask whose context ends returns promptly while the ask in front of it is still open.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			same := queued(e, o, "in one session", "respondertest-a", "respondertest-a", func(p *pend) { p.cancel() })
			other := queued(e, o, "in two sessions", "respondertest-b", "respondertest-c", func(p *pend) { o.Supersede(p.session) })
			var skip skipError
			if errors.As(same, &skip) && errors.As(other, &skip) {
				return skip
			}
			var errs []error
			for _, err := range []error{same, other} {
				if !errors.As(err, &skip) {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "form-unchanged",
		Rule: "A responder does not modify the Form it is given.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			fs := forms(e.short())
			if e.canCollectSecrets() {
				fs = append(fs, secretForms(e.short())...)
			}
			if e.canTakeApprovals() {
				fs = append(fs, approvalForms(e.short())...)
			}
			ps := e.askAll(o, fs)
			if err := e.finish(o, ps...); err != nil {
				return fmt.Errorf("the form could not be compared: %w", err)
			}
			if !anyResponded(ps) {
				return errNotReached
			}
			var errs []error
			for _, p := range ps {
				if !p.responded() {
					continue
				}
				if d := cmp.Diff(p.c.given, p.c.ask.Form()); d != "" {
					errs = append(errs, fmt.Errorf("%s: the form changed while the responder had it (-given +after):\n%s", p.name, d))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "ends-once",
		Rule: "A responder ends an ask once and reports nothing after its own ending: Respond does not come back with the ErrClosed that refused a later report or ending.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			ps := e.askAll(o, forms(e.short()))
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			var errs []error
			own := false
			for _, p := range ps {
				if !p.responded() || !selfEnded(p.outcome().Reason) {
					continue
				}
				own = true
				if p.c.hasReturned() && errors.Is(p.c.err, askuser.ErrClosed) {
					errs = append(errs, fmt.Errorf("%s: the responder ended the ask (%s), then made another report or ending, which was refused: Respond returned %q", p.name, p.outcome().Reason, p.c.err))
				}
			}
			if !own {
				if herr != nil {
					return herr
				}
				return skipError("the responder ended no ask itself (each ended at its deadline), so there was no ending of its own to follow")
			}
			return errors.Join(append(errs, herr)...)
		},
	},
	{
		Name: "approval-not-taken",
		Rule: "A responder that does not declare it can take approvals (askuser.ApprovalCapable) is never handed one: the approval ends unresolved, with nobody asked, and Respond is not called for it.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if e.canTakeApprovals() {
				return skipError("the responder takes approvals (its CanTakeApprovals reports true); the approval cases after this one check how")
			}
			ps := e.askAll(o, approvalForms(long))
			if err := e.finish(o, ps...); err != nil {
				return err
			}
			var errs []error
			for _, p := range ps {
				if p.responded() {
					errs = append(errs, fmt.Errorf("%s: Respond was called with an approval, though the responder does not take approvals", p.name))
				}
				if p.err != nil {
					errs = append(errs, fmt.Errorf("%s: Handle failed: %w", p.name, p.err))
					continue
				}
				if v, _ := askuser.ApprovalVerdict(p.out); v.Status != askuser.Unresolved || v.Ended != askuser.ReasonUnattended {
					errs = append(errs, fmt.Errorf("%s: the approval ended %s (%s), want unresolved with nobody to ask (unattended)", p.name, v.Status, p.out.Reason))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "approval-forms",
		Rule: "A responder that takes approvals handles an approval of every risk, with and without details, without an error, a panic or a return without an ending while the ask is open, and returns promptly once it has ended.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if !e.canTakeApprovals() {
				return errNoApproval
			}
			ps := e.askAll(o, approvalForms(e.short()))
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			return errors.Join(faults(ps), herr)
		},
	},
	{
		Name: "approval-not-approved",
		Rule: "With nobody to decide (the kit plays no person), a responder that takes approvals never ends one approved — not at once, not from a draft or a default, not at the deadline — and an approval it leaves open ends unresolved at its deadline.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if !e.canTakeApprovals() {
				return errNoApproval
			}
			ps := e.askAll(o, approvalForms(e.short()))
			herr := e.finish(o, ps...)
			if !anyResponded(ps) {
				return errNotReached
			}
			errs := []error{herr}
			for _, p := range ps {
				if !p.responded() {
					continue
				}
				out := p.outcome()
				v, _ := askuser.ApprovalVerdict(out)
				switch {
				case v.Status == askuser.Approved:
					errs = append(errs, fmt.Errorf("%s: the approval ended approved (%s, decided by %s) with no person to approve it; a responder approves only what its person approved", p.name, out.Reason, v.DecidedBy))
				case out.Reason == askuser.ReasonDeadline && (v.Status != askuser.Unresolved || v.Ended != askuser.ReasonDeadline):
					errs = append(errs, fmt.Errorf("%s: at the deadline the approval ended %s, want unresolved", p.name, v.Status))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "approval-superseded",
		Rule: "A responder that takes approvals returns promptly once an approval it shows is superseded, with nil, the context's error or ErrClosed, and the approval ends unresolved.",
		run: func(e *env) error {
			o, err := e.orchestrator()
			if err != nil {
				return err
			}
			if !e.canTakeApprovals() {
				return errNoApproval
			}
			p := e.ask(o, "respondertest", approvalForms(long)[1])
			if !p.waitEntered() {
				return errNotReached
			}
			e.settle()
			o.Supersede(p.session)
			herr := e.finish(o, p)
			out := p.outcome()
			if out.Reason != askuser.ReasonSuperseded {
				if v, _ := askuser.ApprovalVerdict(out); v.Status == askuser.Approved {
					return fmt.Errorf("%s: the approval ended approved (%s) with no person to approve it", p.name, out.Reason)
				}
				return skipf("the responder's approval ended (%s) before it was superseded", out.Reason)
			}
			if v, _ := askuser.ApprovalVerdict(out); v.Status != askuser.Unresolved {
				return fmt.Errorf("%s: a superseded approval ended %s, want unresolved", p.name, v.Status)
			}
			if herr != nil {
				return herr
			}
			return p.c.wayOut()
		},
	},
}

// endFromOutside asks a form that waits for minutes, ends it with end once
// Respond is waiting, and checks that Respond returns. how says what end
// does, for a skip.
func endFromOutside(e *env, want askuser.Reason, how string, end func(*askuser.Orchestrator, *pend)) error {
	o, err := e.orchestrator()
	if err != nil {
		return err
	}
	p := e.ask(o, "respondertest", forms(long)[0])
	if !p.waitEntered() {
		return errNotReached
	}
	e.settle()
	end(o, p)
	herr := e.finish(o, p)
	if r := p.outcome().Reason; r != want {
		return skipf("the responder's ask ended (%s) before %s", r, how)
	}
	if herr != nil {
		return herr
	}
	return p.c.wayOut()
}

// queued asks two forms, the second once the first is waiting, ends the
// second with end, and checks that its Respond returns while the first is
// still open.
func queued(e *env, o *askuser.Orchestrator, how, first, second string, end func(*pend)) error {
	fs := forms(long)
	a := e.ask(o, first, fs[0])
	defer func() {
		o.Supersede(first)
		o.Supersede(second)
		<-a.handled
	}()
	if !a.waitEntered() {
		return errNotReached
	}
	e.settle()
	b := e.ask(o, second, fs[1])
	if !b.waitEntered() {
		return errNotReached
	}
	e.settle()
	if a.ended() {
		return skipf("%s: the responder's first ask ended (%s) before a second was pending, so no ask waited behind another", how, a.outcome().Reason)
	}
	end(b)
	<-b.handled
	select {
	case <-b.c.returned:
	case <-time.After(e.opts.Grace):
		return fmt.Errorf("%s: with another ask pending in front of it, Respond for the second ask had not returned %v after that ask ended (%s); a queued ask must return once its context ends", how, e.opts.Grace, b.outcome().Reason)
	}
	if err := b.c.wayOut(); err != nil {
		return fmt.Errorf("%s: the second ask: %w", how, err)
	}
	return nil
}

// A namedForm is a form the kit asks, with what it is for messages.
type namedForm struct {
	name string
	form *askuser.Form
}

// forms are the forms of every kind without a sealed question.
func forms(timeout int) []namedForm {
	return []namedForm{
		{"single choice", &askuser.Form{TimeoutSeconds: timeout, Title: "Deploy", HumanIntent: "Deploying the login fix", Questions: []askuser.Question{{
			ID: "env", Header: "Env", Text: "Which environment?", AllowOther: true,
			Options: []askuser.Option{
				{Label: "staging", Description: "Safe to break"},
				{Label: "production", Description: "Real users", Preview: "kubectl apply -f prod.yaml\nkubectl rollout status deploy/login\n", Default: true},
			},
		}}}},
		{"multi-select", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, AllowOther: true, OnDeadline: askuser.DeadlineDraft,
			Options: []askuser.Option{
				{Label: "eu", Description: "Europe", Default: true},
				{Label: "us", Description: "America", Default: true},
				{Label: "ap", Description: "Asia"},
			},
		}}}},
		{"closed choice", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "size", Header: "Size", Text: "Which size?", NoDefault: true,
			Options: []askuser.Option{{Value: "s", Label: "small", Description: "1 CPU"}, {Value: "l", Label: "large", Description: "8 CPUs"}},
		}}}},
		{"text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "branch", Kind: askuser.KindText, Header: "Branch", Text: "Which branch name?", Prefill: "fix/login",
		}}}},
		{"multi-line text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "notes", Kind: askuser.KindText, Header: "Notes", Text: "Release notes?", Multiline: true, OnDeadline: askuser.DeadlineNothing,
		}}}},
		{"four questions", &askuser.Form{TimeoutSeconds: timeout, Title: "Release", Questions: []askuser.Question{
			{ID: "a", Header: "A", Text: "First?", AllowOther: true, OtherExclusive: true, OtherLabel: "Another way",
				Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y"}}},
			{ID: "b", Header: "B", Text: "Second?", MultiSelect: true, Optional: true,
				Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y"}}},
			{ID: "c", Kind: askuser.KindText, Header: "C", Text: "Third?", Optional: true},
			{ID: "d", Header: "D", Text: "Fourth?", Options: []askuser.Option{{Label: "x", Description: "x"}, {Label: "y", Description: "y", Default: true}}},
		}}},
	}
}

// approvalForms are approvals of every risk, with and without details.
func approvalForms(timeout int) []namedForm {
	mk := func(name string, a askuser.Approval, intent string) namedForm {
		f, err := askuser.ApprovalForm(a, timeout)
		if err != nil {
			panic("respondertest: an approval of the kit's own is not valid: " + err.Error())
		}
		f.HumanIntent = intent
		return namedForm{name, f}
	}
	return []namedForm{
		mk("approval, low risk", askuser.Approval{Action: "Read the file config/prod.yaml", Reason: "To see which replicas are set", Risk: askuser.RiskLow}, ""),
		mk("approval, medium risk, with details", askuser.Approval{Action: "Restart the login service", Reason: "It holds a stale certificate", Risk: askuser.RiskMedium,
			Details: "kubectl rollout restart deploy/login -n prod\nkubectl rollout status deploy/login -n prod\n"}, "Fixing the login outage"),
		mk("approval, high risk", askuser.Approval{Action: "Force-push main", Reason: "To drop a commit that leaked a key", Risk: askuser.RiskHigh,
			Details: "git push --force origin main"}, ""),
		mk("approval, irreversible, with details", askuser.Approval{Action: "Delete the bucket logs-2019", Reason: "It is past its retention and costs money", Risk: askuser.RiskIrreversible,
			Details: "gsutil rm -r gs://logs-2019\n\n1,204 objects, 88 GiB:\n  2019-01/…\n  2019-02/…\n"}, "Cleaning up old storage"),
	}
}

// The labels of the sensitive options: a secret handed over for them holds
// one of these, which the kit looks for where no secret may be.
var canaries = []string{"respondertest-canary-amber-4c1f9e", "respondertest-canary-teal-8d27b3", "respondertest-canary-plum-e05a61"}

// needles are what the kit looks for of a sealed value: the canaries it
// holds, or else the value itself when it is long enough not to turn up
// in ordinary text by chance.
func needles(v string) []string {
	var ns []string
	for _, c := range canaries {
		if strings.Contains(v, c) {
			ns = append(ns, c)
		}
	}
	if ns == nil && len(strings.TrimSpace(v)) >= 8 {
		ns = append(ns, v)
	}
	return ns
}

// secretForms are the forms with a sealed question.
func secretForms(timeout int) []namedForm {
	opts := func() []askuser.Option {
		var os []askuser.Option
		for _, c := range canaries {
			os = append(os, askuser.Option{Label: c, Description: "a sensitive option"})
		}
		return os
	}
	return []namedForm{
		{"secret", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "token", Kind: askuser.KindSecret, Header: "Token", Text: "Paste the deploy token", SecretName: "DEPLOY_TOKEN", Purpose: "to deploy the login fix",
		}}}},
		{"sensitive choice", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "pin", Header: "Recovery", Text: "Which recovery word?", Sensitive: true, Options: opts(),
		}}}},
		{"sensitive multi-select", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{{
			ID: "words", Header: "Words", Text: "Which words?", Sensitive: true, MultiSelect: true, AllowOther: true, SecretName: "WORDS", Options: opts(),
		}}}},
		{"sensitive text", &askuser.Form{TimeoutSeconds: timeout, Questions: []askuser.Question{
			{ID: "user", Kind: askuser.KindText, Header: "User", Text: "Which user?"},
			{ID: "pass", Kind: askuser.KindText, Header: "Password", Text: "Their password?", Sensitive: true, SecretName: "PASSWORD"},
		}}},
	}
}
