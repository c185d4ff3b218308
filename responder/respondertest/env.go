package respondertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
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
	// before, when set, runs in Respond (or Asked) before the responder is
	// called; Respond is called once the ask's context is done.
	before func(e *env, a *askuser.Ask)
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

// start makes the case's orchestrator, over a fresh responder, before the
// case runs.
func (e *env) start() error {
	r := e.newResponder()
	if r == nil {
		return errors.New("newResponder returned nil")
	}
	e.r = r
	e.store = &sealedStore{Store: secretstore.NewMemory(nil)}
	e.byKey = map[string]*pend{}
	var kit askuser.Responder = &probe{e: e, r: r}
	if ev, ok := responder.Optional[askuser.EventDriven](r); ok {
		kit = &eventProbe{probe{e: e, r: r}, ev}
	}
	e.o = &askuser.Orchestrator{
		Responder: kit,
		Logger:    slog.New(slog.NewTextHandler(&e.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Secrets:   e.store,
	}
	return nil
}

// canCollectSecrets reports whether the orchestrator would hand the
// responder a form with a sealed question.
func (e *env) canCollectSecrets() bool {
	if s, ok := responder.Optional[askuser.SecretCapable](e.r); ok {
		return s.CanCollectSecrets()
	}
	return true
}

// canTakeApprovals reports whether the orchestrator would hand the
// responder an approval.
func (e *env) canTakeApprovals() bool {
	c, ok := responder.Optional[askuser.ApprovalCapable](e.r)
	return ok && c.CanTakeApprovals()
}

// everyForm is every form the orchestrator hands the responder, due at
// timeout: the plain ones, the sealed ones if it collects secrets, and the
// approvals if it takes them.
func (e *env) everyForm(timeout int) []namedForm {
	fs := forms(timeout)
	if e.canCollectSecrets() {
		fs = append(fs, secretForms(timeout)...)
	}
	if e.canTakeApprovals() {
		fs = append(fs, approvalForms(timeout)...)
	}
	return fs
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
func (e *env) ask(session string, f namedForm) *pend {
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
		p.out, p.err = e.o.Handle(ctx, askuser.Request{Session: session, ToolCallID: p.id, Form: f.form})
	}()
	return p
}

// askAll asks each form in a session of its own.
func (e *env) askAll(fs []namedForm) []*pend {
	var ps []*pend
	for i, f := range fs {
		ps = append(ps, e.ask(fmt.Sprint("respondertest-", i+1), f))
	}
	return ps
}

// responded reports whether Respond was called for the ask. It is reliable
// once the ask has ended and Respond has returned (finish).
func (p *pend) responded() bool { return closed(p.entered) }

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

// ended reports whether Handle has returned for the ask.
func (p *pend) ended() bool { return closed(p.handled) }

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
func (e *env) finish(ps ...*pend) error {
	for _, p := range ps {
		<-p.handled
	}
	done := make(chan struct{})
	go func() { e.o.WaitResponders(); close(done) }()
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
	go func() { e.o.WaitResponders(); close(done) }()
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

// hasReturned reports whether Respond has returned.
func (c *call) hasReturned() bool { return closed(c.returned) }

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
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
	case c.err != nil && !errors.Is(c.err, askuser.ErrAskEnded) && !errors.Is(c.err, context.Canceled) && !errors.Is(c.err, context.DeadlineExceeded):
		return fmt.Errorf("Respond returned %q after the ask had ended; on its way out it returns nil, the context's error or ErrAskEnded", c.err)
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
	c, before := p.enter(a)
	defer c.leave(&err)
	if before != nil {
		before(p.e, a)
		<-ctx.Done()
	}
	return p.r.Respond(ctx, a)
}

// enter records a call for the ask and returns the case's before.
func (p *probe) enter(a *askuser.Ask) (*call, func(*env, *askuser.Ask)) {
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
	return c, before
}

// leave records how the call returned, and panics again with a panic.
// It is deferred.
func (c *call) leave(err *error) {
	v := recover()
	c.err, c.panicked, c.panicVal = *err, v != nil, v
	close(c.returned)
	if v != nil {
		panic(v)
	}
}

// eventProbe is the probe of a responder driven by events: the
// orchestrator calls its Asked, which it records as a call (returned when
// Asked has) and hands to the responder's.
type eventProbe struct {
	probe
	ev askuser.EventDriven
}

func (p *eventProbe) Asked(a *askuser.Ask) {
	var err error
	c, before := p.enter(a)
	defer c.leave(&err)
	if before != nil {
		before(p.e, a)
	}
	p.ev.Asked(a)
}

func (p *probe) Unwrap() askuser.Responder { return p.r }

// ResponderName names the responder under test, as the orchestrator would
// without the probe.
func (p *probe) ResponderName() string {
	if n, ok := responder.Optional[askuser.Named](p.r); ok {
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
	if pr, ok := responder.Optional[askuser.Presence](p.r); ok {
		return pr.Reachable(ctx, session)
	}
	return true
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
