package askuser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// A SecretStore keeps sealed answers under (session, name). The orchestrator
// puts each accepted secret or sensitive answer and deletes the ones a final
// result does not carry. secretstore.Memory and secretstore.Dir implement
// it.
type SecretStore interface {
	Put(ctx context.Context, session, name string, v secret.Value) error
	Delete(ctx context.Context, session, name string) error
}

// An Orchestrator asks people questions on a model's behalf and keeps the
// contract whatever its responder does: it validates and normalizes the
// call, runs the responder under a context that ends at the deadline, holds
// every accepted answer, finalizes at the ending or at the deadline —
// whichever comes first, the deadline winning a tie — applies the rules of
// SPEC §2, seals secrets, and encodes the result the model reads.
//
// The zero Orchestrator is ready to use: it has no responder (every ask is
// unattended), a 300-second ceiling, a 64 KiB cap on calls, slog.Default,
// and an in-memory secret store with a key made up for the life of the
// process. Set the fields before the first ask and do not change them after.
type Orchestrator struct {
	// Responder shows calls to a person. Nil means nobody can be asked.
	Responder Responder
	// MaxTimeoutSeconds is the ceiling on a call's wait, and its default
	// (zero: 300).
	MaxTimeoutSeconds int
	// MaxCallBytes caps the size of a call's arguments (zero: 64 KiB).
	MaxCallBytes int
	// Logger receives responder faults and store failures (nil:
	// slog.Default()). No answer and no secret is ever logged.
	Logger *slog.Logger
	// Secrets keeps sealed answers (nil: an in-memory store).
	Secrets SecretStore
	// ReplayLimit is how many finalized results are kept in memory for
	// replay by tool-call id (zero: 10,000; negative: none).
	ReplayLimit int
	// Journal records every finalized ask (nil: none). A journal that
	// implements ResultFinder also replays tool calls across restarts.
	Journal Journal

	initOnce sync.Once
	store    SecretStore
	respName string

	mu      sync.Mutex
	pending map[string]*Ask      // by ask id
	byCall  map[callKey]*Ask     // pending asks by tool call
	replay  map[callKey]*Outcome // finalized, for replay
	order   []callKey            // replay eviction order
}

type callKey struct{ session, toolCallID string }

// A Request is one tool call to answer.
type Request struct {
	// Session owns the ask and its secrets.
	Session string
	// ToolCallID is the model's tool-call id. An ask whose id was already
	// finalized in this session returns the same result again.
	ToolCallID string
	// Arguments are the call as the model sent it, decoded by Dialect.
	Arguments []byte
	// Dialect is the contract of Arguments and of the result (nil:
	// AskUser).
	Dialect Dialect
}

func (o *Orchestrator) init() {
	o.initOnce.Do(func() {
		o.store = o.Secrets
		o.respName = responderName(o.Responder)
		if o.store == nil {
			o.store = secretstore.NewMemory(nil)
		}
		o.pending = map[string]*Ask{}
		o.byCall = map[callKey]*Ask{}
		o.replay = map[callKey]*Outcome{}
	})
}

func (o *Orchestrator) secrets() SecretStore { o.init(); return o.store }

// SecretStore returns the store sealed answers go to: Secrets, or the
// in-memory default (a *secretstore.Memory), from which tools resolve
// references with secretstore.Resolve.
func (o *Orchestrator) SecretStore() SecretStore { return o.secrets() }

func (o *Orchestrator) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// Limits returns the limits calls are decoded under.
func (o *Orchestrator) Limits() Limits {
	return Limits{MaxTimeoutSeconds: o.MaxTimeoutSeconds, MaxCallBytes: o.MaxCallBytes}.withDefaults()
}

// Handle decodes a model's call and asks it. It returns the finalized
// Outcome, whose Result the model reads; or a *CallError for an invalid call
// (nobody is asked; the error's message, or its Result where the contract
// has one, goes back to the model); or, when ctx ends before the ask does,
// ctx's error and no result.
func (o *Orchestrator) Handle(ctx context.Context, req Request) (*Outcome, error) {
	d := req.Dialect
	if d == nil {
		d = AskUser
	}
	if out, ok := o.replayed(req.Session, req.ToolCallID); ok {
		return out, nil
	}
	call, err := d.Decode(req.Arguments, o.Limits())
	if err != nil {
		return nil, err
	}
	return o.ask(ctx, req.Session, req.ToolCallID, call, d)
}

// Ask asks a call built in Go. The call is checked and normalized by
// Normalize (c itself is not changed) and the deadlines are stamped; the
// result is encoded in the ask_user contract. A call that breaks the
// model's rules returns Normalize's error and nobody is asked.
func (o *Orchestrator) Ask(ctx context.Context, session, toolCallID string, call *Call) (*Outcome, error) {
	if out, ok := o.replayed(session, toolCallID); ok {
		return out, nil
	}
	c, err := Normalize(call, o.Limits())
	if err != nil {
		return nil, err
	}
	return o.ask(ctx, session, toolCallID, c, AskUser)
}

func (o *Orchestrator) replayed(session, toolCallID string) (*Outcome, bool) {
	if toolCallID == "" {
		return nil, false
	}
	o.init()
	o.mu.Lock()
	out, ok := o.replay[callKey{session, toolCallID}]
	o.mu.Unlock()
	if !ok {
		return o.journalReplay(context.Background(), session, toolCallID)
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

func (o *Orchestrator) ask(ctx context.Context, session, toolCallID string, call *Call, d Dialect) (*Outcome, error) {
	o.init()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, other, replay := o.register(ctx, session, toolCallID, call, d)
	switch {
	case replay != nil:
		return replay, nil
	case other != nil:
		return o.join(ctx, other, call, d)
	}
	if !o.reachable(ctx, o.Responder, a) {
		a.tryEnd(&ending{reason: ReasonUnattended})
		return o.finish(ctx, a)
	}
	return o.wait(ctx, a)
}

// register stamps the call and makes it a pending ask — or, for a tool
// call already finalized or pending, returns that instead. The check and
// the registration happen under one lock, so one tool call is asked once.
//
//go:noinline
func (o *Orchestrator) register(ctx context.Context, session, toolCallID string, call *Call, d Dialect) (a, other *Ask, replay *Outcome) {
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
	Stamp(call, time.Now())
	a = &Ask{
		o:          o,
		id:         newID(),
		session:    session,
		toolCallID: toolCallID,
		call:       call,
		dialect:    d,
		responder:  o.respName,
		base:       context.WithoutCancel(ctx),
		endCh:      make(chan struct{}),
		done:       make(chan struct{}),
	}
	o.pending[a.id] = a
	if toolCallID != "" {
		o.byCall[key] = a
	}
	return a, nil, nil
}

// join waits for the pending ask of the same tool call and returns its
// outcome as a replay; when that ask's caller went away, it asks anew.
//
//go:noinline
func (o *Orchestrator) join(ctx context.Context, p *Ask, call *Call, d Dialect) (*Outcome, error) {
	select {
	case <-p.done:
		if p.outcome.Reason == ReasonCaller {
			return o.ask(ctx, p.session, p.toolCallID, call, d)
		}
		r := *p.outcome
		r.Replayed = true
		return &r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wait runs the responder under a context that ends at the deadline and
// finalizes at the first ending. It keeps its frame small: a pending ask
// parks here, and the caller's stack should not grow for it.
func (o *Orchestrator) wait(ctx context.Context, a *Ask) (*Outcome, error) {
	rctx, cancel := context.WithDeadline(ctx, a.call.ExpiresAt)
	go a.run(rctx, o.Responder)
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

func (o *Orchestrator) reachable(ctx context.Context, r Responder, a *Ask) bool {
	if r == nil {
		return false
	}
	if p, ok := r.(Presence); ok && !p.Reachable(ctx, a.session) {
		return false
	}
	for i := range a.call.Questions {
		if a.call.Questions[i].Sealed() {
			if s, ok := findOptional[SecretCapable](r); ok && !s.CanCollectSecrets() {
				return false
			}
			break
		}
	}
	return true
}

// findOptional finds an optional interface on r or on what it wraps.
func findOptional[T any](r Responder) (T, bool) {
	for r != nil {
		if t, ok := r.(T); ok {
			return t, true
		}
		w, ok := r.(Wrapper)
		if !ok {
			break
		}
		r = w.Unwrap()
	}
	var zero T
	return zero, false
}

// run calls the responder and turns a return without an ending, an error or
// a panic into a fault.
func (a *Ask) run(ctx context.Context, r Responder) {
	var err error
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
		if ctx.Err() != nil {
			// The ask's context ended (deadline, caller, or the ask itself
			// ended): the orchestrator finalizes it; what the responder did
			// on its way out is no fault.
			if err != nil && !errors.Is(err, ctx.Err()) {
				a.o.logger().Debug("askuser: the responder failed after its context ended", "ask", a.id, "responder", a.responder, "err", err)
			}
			return
		}
		if err == nil {
			err = ErrNoEnding
		} else if !errors.As(err, new(*PanicError)) {
			err = fmt.Errorf("askuser: responder %s failed: %w", a.responder, err)
		}
		a.tryEnd(&ending{reason: ReasonFault, fault: err})
	}()
	err = r.Respond(ctx, a)
}

// finish builds, encodes and publishes the outcome once the ask has an
// ending.
func (o *Orchestrator) finish(ctx context.Context, a *Ask) (*Outcome, error) {
	out := a.buildOutcome(time.Now())
	for _, name := range a.unreferenced(out) {
		if err := o.store.Delete(a.base, a.session, name); err != nil {
			o.logger().Error("askuser: deleting an unreferenced secret failed", "ask", a.id, "name", name, "err", err)
		}
	}
	out.Journaled = o.Journal != nil
	if dr, ok := a.dialect.(DecisionRecorder); ok {
		out.Decisions = dr.Decisions(out)
	}
	if out.Reason != ReasonCaller {
		res, err := a.dialect.Encode(out)
		if err != nil {
			// An encoder failure is a bug in the dialect; the model gets
			// nothing it could misread.
			o.logger().Error("askuser: encoding the result failed", "ask", a.id, "err", err)
			out.Fault = errors.Join(out.Fault, err)
		}
		out.Result = res
	}
	if err := o.appendRecord(a.base, out); err != nil {
		o.logger().Error("askuser: writing the journal record failed", "ask", a.id, "session", a.session, "tool_call", a.toolCallID, "err", err)
		out.JournalErr = err
	}
	if out.Fault != nil {
		o.logger().Warn("askuser: responder fault; the ask ends as cancelled",
			"ask", a.id, "session", a.session, "tool_call", a.toolCallID, "responder", a.responder, "err", out.Fault)
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
	a.outcome = out
	close(a.done)

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
	n := 0
	for _, a := range o.Pending(session) {
		if a.tryEnd(&ending{reason: ReasonSuperseded}) {
			n++
		}
	}
	return n
}

// Pending returns the session's pending asks, oldest first.
func (o *Orchestrator) Pending(session string) []*Ask {
	o.init()
	o.mu.Lock()
	defer o.mu.Unlock()
	var as []*Ask
	for _, a := range o.pending {
		if a.session == session {
			as = append(as, a)
		}
	}
	sortAsks(as)
	return as
}

// sortAsks orders asks oldest first, by id among equals.
func sortAsks(as []*Ask) {
	slices.SortFunc(as, func(x, y *Ask) int {
		if c := x.call.AskedAt.Compare(y.call.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(x.id, y.id)
	})
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
