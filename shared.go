package askuser

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrOrchestratorClosed is what a caller waiting on an ask gets when the
// orchestrator is closed: with a shared PendingStore the ask stays pending,
// and a retry of the same tool call, here after a restart or on another
// replica, joins it.
var ErrOrchestratorClosed = errors.New("askuser: the orchestrator was closed; the ask stays pending in its store, and a retry of the tool call joins it")

// pendingVersion is the format version of the values askuser keeps in a
// PendingStore.
const pendingVersion = 1

// maxFinals is how many final keys a mirror remembers (see
// shared.finals).
var maxFinals = 100_000 // a variable for the tests

// finalizeGrace is how long an ask may sit ended but not final before any
// replica finalizes it: the replica that ended it does at once, and the
// others step in only when it is gone.
const finalizeGrace = 10 * time.Second

// pendingRecord is what a PendingStore keeps of an ask: everything another
// process needs to show it, take answers for it, end it and finalize it.
// Sealed answers are references and staging ids only.
type pendingRecord struct {
	V          int             `json:"v"`
	AskID      string          `json:"ask_id"`
	Session    string          `json:"session"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Dialect    string          `json:"dialect"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Form       *Form           `json:"form"`
	Responder  string          `json:"responder,omitempty"`
	Accepted   []storedAnswer  `json:"accepted,omitempty"`
	Drafts     []storedAnswer  `json:"drafts,omitempty"`
	Principal  string          `json:"principal,omitempty"`
	Ending     *storedEnding   `json:"ending,omitempty"`
	Final      *Record         `json:"final,omitempty"`
	// Write is a random id of the write that stored this version, so
	// that a writer whose answer was lost knows its write on the next read.
	Write string `json:"write,omitempty"`
}

type storedAnswer struct {
	Set         bool              `json:"set,omitempty"`
	QuestionID  string            `json:"id,omitempty"`
	Selected    []string          `json:"selected,omitempty"`
	Other       string            `json:"other,omitempty"`
	Note        string            `json:"note,omitempty"`
	OptionNotes map[string]string `json:"option_notes,omitempty"`
	Ref         string            `json:"ref,omitempty"`
	Stage       string            `json:"stage,omitempty"`
	Items       int               `json:"items,omitempty"`
}

type storedEnding struct {
	Reason         Reason    `json:"reason"`
	Fault          string    `json:"fault,omitempty"`
	CancelledOn    string    `json:"cancelled_on,omitempty"`
	Decision       string    `json:"decision,omitempty"`
	RememberedFrom string    `json:"remembered_from,omitempty"`
	At             time.Time `json:"at"`
}

func storeHeld(hs []held) []storedAnswer {
	if hs == nil {
		return nil
	}
	out := make([]storedAnswer, len(hs))
	for i, h := range hs {
		if !h.set {
			continue
		}
		out[i] = storedAnswer{Set: true, QuestionID: h.ans.QuestionID, Selected: h.ans.Selected, Other: h.ans.Other, Note: h.ans.Note,
			OptionNotes: h.ans.OptionNotes, Ref: h.ref, Stage: h.stage, Items: h.items}
	}
	return out
}

// heldRef is a pointer to hs, or nil for none.
func heldRef(hs []held) *[]held {
	if hs == nil {
		return nil
	}
	return &hs
}

func loadHeld(ss []storedAnswer, n int) []held {
	if ss == nil {
		return nil
	}
	out := make([]held, n)
	for i, s := range ss {
		if i >= n || !s.Set {
			continue
		}
		out[i] = held{set: true, ans: Answer{QuestionID: s.QuestionID, Selected: s.Selected, Other: s.Other, Note: s.Note, OptionNotes: s.OptionNotes},
			ref: s.Ref, stage: s.Stage, items: s.Items}
	}
	return out
}

func storeEnding(e *ending) *storedEnding {
	s := &storedEnding{Reason: e.reason, CancelledOn: e.cancelledOn, Decision: e.decision, RememberedFrom: e.rememberedFrom, At: time.Now().UTC()}
	if e.fault != nil {
		s.Fault = e.fault.Error()
	}
	return s
}

func (s *storedEnding) ending() *ending {
	e := &ending{reason: s.Reason, cancelledOn: s.CancelledOn, decision: s.Decision, rememberedFrom: s.RememberedFrom}
	if s.Fault != "" {
		e.fault = errors.New(s.Fault)
	}
	return e
}

// pendingKey is the store key of an ask: its tool call's, so that a retry
// finds it, or its own id when it has no tool call.
func pendingKey(session, toolCallID, askID string) string {
	if toolCallID == "" {
		return "ask." + askID
	}
	h := sha256.Sum256([]byte(session + "\x00" + toolCallID))
	return "call." + hex.EncodeToString(h[:16])
}

// shared runs an orchestrator's side of a shared PendingStore: a mirror of
// every ask the store holds (kept by a watch), a deadline timer for each
// pending one (every replica sweeps: compare-and-set lets the first one
// win), the local handles of the asks this process shows, and the callers
// waiting here.
type shared struct {
	o  *Orchestrator
	st PendingStore

	ctx      context.Context // ends at Close
	cancel   context.CancelFunc
	watching chan struct{} // closed when the watch loop has returned
	caughtUp chan struct{} // closed when the watch first caught up
	caught   sync.Once

	mu      sync.Mutex
	closed  bool
	wg      sync.WaitGroup // timer callbacks and finalizations under way
	entries map[string]*sharedEntry
	// finals remembers, for keys whose final record made their entry
	// leave the mirror, the revision of that record, so that an older
	// read of the key (a Get that raced the watch) does not bring the ask
	// back as pending. The oldest are forgotten past maxFinals.
	finals     map[string]uint64
	finalOrder []finalMark // oldest first; a mark whose revision finals no longer holds is stale
	byID       map[string]*sharedEntry
}

// A sharedEntry is one ask of the store, as this process knows it.
type sharedEntry struct {
	key   string
	rec   *pendingRecord
	rev   uint64
	ask   *Ask          // the local handle, when this process shows the ask or waits on it
	final chan struct{} // closed when the final result is known here
	out   *Outcome
	timer *time.Timer // the deadline sweep, or the finalize grace

	finalizing bool     // this process is finalizing the ask
	local      *Outcome // the outcome this process is finalizing, with its Go-only fields (Fault, JournalErr)
}

func newShared(o *Orchestrator, st PendingStore) *shared {
	ctx, cancel := context.WithCancel(context.Background())
	s := &shared{
		o: o, st: st, ctx: ctx, cancel: cancel,
		watching: make(chan struct{}), caughtUp: make(chan struct{}),
		entries: map[string]*sharedEntry{}, byID: map[string]*sharedEntry{}, finals: map[string]uint64{},
	}
	go s.watch()
	return s
}

// watch keeps the mirror, restarting the store's watch after a failure.
func (s *shared) watch() {
	defer close(s.watching)
	backoff := 100 * time.Millisecond
	for {
		err := s.st.Watch(s.ctx, s.onEntry)
		if s.ctx.Err() != nil {
			return
		}
		s.o.logger().Error("askuser: watching the pending-ask store failed; retrying", "err", err, "retry_in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// goTracked runs f in a goroutine that Close waits for, unless Close has
// begun.
func (s *shared) goTracked(f func()) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		f()
	}()
}

func (s *shared) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	for _, e := range s.entries {
		if e.timer != nil {
			e.timer.Stop()
		}
	}
	s.mu.Unlock()
	// What is under way (a finalization, a sweep) finishes first, with
	// the store still in reach; nothing new starts.
	s.wg.Wait()
	s.cancel()
	<-s.watching
}

func decodeRecord(data []byte) (*pendingRecord, error) {
	var r pendingRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.V != pendingVersion {
		return nil, fmt.Errorf("format version %d, this askuser reads version %d", r.V, pendingVersion)
	}
	if r.Form == nil || r.AskID == "" {
		return nil, errors.New("the record has no form or no ask id")
	}
	return &r, nil
}

// A finalMark is a key and the revision of its final record, in the order
// the mirror saw them.
type finalMark struct {
	key string
	rev uint64
}

// rememberFinal remembers that key's record at rev is final, and forgets
// the oldest such records past maxFinals. A key made final again (after
// its removal, or with a newer record) gets a new mark; its older marks go
// stale, and forgetting one leaves the newer revision alone.
func (s *shared) rememberFinal(key string, rev uint64) {
	s.finals[key] = rev
	s.finalOrder = append(s.finalOrder, finalMark{key, rev})
	for len(s.finalOrder) > maxFinals {
		if m := s.finalOrder[0]; s.finals[m.key] == m.rev {
			delete(s.finals, m.key)
		}
		s.finalOrder = s.finalOrder[1:]
	}
}

// onEntry takes one change from the store's watch.
func (s *shared) onEntry(pe PendingEntry) {
	if pe.Key == "" {
		s.caught.Do(func() { close(s.caughtUp) })
		return
	}
	if pe.Data == nil {
		s.mu.Lock()
		delete(s.finals, pe.Key) // its mark in finalOrder goes stale
		if e := s.entries[pe.Key]; e != nil {
			if e.timer != nil {
				e.timer.Stop()
			}
			delete(s.entries, pe.Key)
			delete(s.byID, e.rec.AskID)
		}
		s.mu.Unlock()
		return
	}
	rec, err := decodeRecord(pe.Data)
	if err != nil {
		s.o.logger().Error("askuser: the pending-ask store holds a record this orchestrator cannot read; it is left alone", "key", pe.Key, "err", err)
		return
	}
	if _, adopted := s.apply(pe.Key, rec, pe.Revision); adopted != nil {
		s.o.running.Add(1)
		adopted.notify(s.o.events)
	}
}

// apply brings the mirror up to a record the store holds, and returns the
// ask to tell the EventDriven responder about, when this process should
// show an ask it has not shown yet.
func (s *shared) apply(key string, rec *pendingRecord, rev uint64) (*sharedEntry, *Ask) {
	s.mu.Lock()
	e := s.entries[key]
	if e != nil && rev <= e.rev {
		s.mu.Unlock()
		return e, nil
	}
	if e == nil && rev <= s.finals[key] {
		// An older read of an ask already final here.
		s.mu.Unlock()
		return nil, nil
	}
	if e == nil || e.rec.AskID != rec.AskID {
		e = &sharedEntry{key: key, final: make(chan struct{})}
		s.entries[key] = e
		s.byID[rec.AskID] = e
	}
	e.rec, e.rev = rec, rev
	var adopt *Ask
	switch {
	case rec.Final != nil:
		if e.timer != nil {
			e.timer.Stop()
			e.timer = nil
		}
		// A final ask leaves the mirror: a retry finds it in the store,
		// and the callers waiting here hold their entry.
		delete(s.entries, key)
		delete(s.byID, rec.AskID)
		s.rememberFinal(key, rev)
		s.mu.Unlock()
		s.deliver(e, outcomeFromRecord(rec.Final, false))
		return e, nil
	case rec.Ending != nil:
		if e.timer != nil {
			e.timer.Stop()
		}
		if !s.closed {
			e.timer = time.AfterFunc(finalizeGrace, func() { s.goTracked(func() { s.finalize(e, nil) }) })
		}
	default:
		if e.timer == nil && !s.closed {
			e.timer = time.AfterFunc(time.Until(rec.Form.ExpiresAt), func() { s.goTracked(func() { s.expire(e) }) })
		}
		if e.ask == nil && s.o.events != nil && !s.closed {
			if a, err := s.newAsk(e, rec); err != nil {
				s.o.logger().Error("askuser: an ask in the pending-ask store cannot be shown here", "ask", rec.AskID, "err", err)
			} else {
				e.ask, adopt = a, a
			}
		}
	}
	a := e.ask
	s.mu.Unlock()
	if a != nil {
		a.sync(rec)
	}
	return e, adopt
}

// sync brings a local handle up to the store's record.
func (a *Ask) sync(rec *pendingRecord) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.form.Questions)
	a.accepted = loadHeld(rec.Accepted, n)
	a.drafts = heldRef(loadHeld(rec.Drafts, n))
	if rec.Principal != "" {
		a.principal = rec.Principal
	}
	if rec.Ending != nil && a.end == nil {
		a.endLocked(rec.Ending.ending())
	}
}

// dialect finds a contract by name: ask_user, request_approval, or one of
// Orchestrator.Dialects.
func (o *Orchestrator) dialect(name string) (Dialect, error) {
	for _, d := range append([]Dialect{AskUser(), RequestApproval()}, o.Dialects...) {
		if d != nil && d.Name() == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("the ask came in the %q contract, which this orchestrator does not know (add it to Orchestrator.Dialects)", name)
}

// newAsk makes a local handle for an ask another process began: its form
// as the store holds it, with the contract's own data decoded again from
// the call's arguments.
func (s *shared) newAsk(e *sharedEntry, rec *pendingRecord) (*Ask, error) {
	d, err := s.o.dialect(rec.Dialect)
	if err != nil {
		return nil, err
	}
	form := new(Form)
	*form = *rec.Form // the record is the mirror's, read by others
	if len(rec.Arguments) > 0 {
		if f, err := d.Decode(rec.Arguments, s.o.limits()); err == nil {
			form.DialectData = f.DialectData
		}
	}
	return sharedAsk(s.o, e, rec, form, d, rec.Responder, s.ctx), nil
}

// sharedAsk makes the local handle of a shared ask, whose changes go
// through its entry. base's values reach the stores; its cancellation
// does not.
func sharedAsk(o *Orchestrator, e *sharedEntry, rec *pendingRecord, form *Form, d Dialect, responder string, base context.Context) *Ask {
	a := &Ask{
		o: o, sh: e, id: rec.AskID, session: rec.Session, toolCallID: rec.ToolCallID,
		form: form, dialect: d, responder: responder,
		base:  context.WithoutCancel(base),
		endCh: make(chan struct{}),
	}
	for i := range form.Questions {
		if form.Questions[i].Sealed() {
			a.sealing = make(chan struct{}, 1)
			break
		}
	}
	return a
}

// deliver publishes an ask's final outcome here: to the callers waiting,
// and to the local handle.
func (s *shared) deliver(e *sharedEntry, out *Outcome) {
	s.mu.Lock()
	if e.out != nil {
		s.mu.Unlock()
		return
	}
	if e.local != nil && e.local.AskID == out.AskID {
		// This process wrote the final result: its callers get the
		// outcome with what only this process knows (the fault as it
		// was, a journal failure).
		out = e.local
	}
	e.out = out
	a := e.ask
	s.mu.Unlock()
	if a != nil {
		a.mu.Lock()
		if a.end == nil {
			a.endLocked(&ending{reason: out.Reason})
		}
		a.mu.Unlock()
		// AfterEnd functions are counted in Wait before any caller is
		// released, as finish does.
		a.setFinal(out)
	}
	close(e.final)
}

// mutate changes an ask's record with compare-and-set: f edits a fresh
// copy of the latest record, and a conflict reads the store again and
// retries. f's error stops it. A store that fails or does not answer (a
// NATS cluster electing a leader) is tried again for up to storeRetry; a
// write whose answer was lost is recognized on the next read, so that it
// is not applied twice.
func (s *shared) mutate(e *sharedEntry, f func(r *pendingRecord) error) (*pendingRecord, error) {
	s.mu.Lock()
	rec, rev := e.rec, e.rev
	s.mu.Unlock()
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	retry := s.retrier()
	for range 64 {
		r, err := decodeRecord(data)
		if err != nil {
			return nil, err
		}
		if err := f(r); err != nil {
			return nil, err
		}
		r.Write = newWriteID()
		next, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		nrev, err := s.st.Update(s.ctx, e.key, next, rev)
		if err == nil {
			s.apply(e.key, r, nrev)
			return r, nil
		}
		if !errors.Is(err, ErrPendingChanged) {
			if err := retry(err); err != nil {
				return nil, err
			}
		}
		var pe PendingEntry
		for {
			pe, err = s.st.Get(s.ctx, e.key)
			if err == nil {
				break
			}
			if err := retry(err); err != nil {
				return nil, err
			}
		}
		if bytes.Equal(pe.Data, next) {
			// The write landed; its answer was lost.
			s.apply(e.key, r, pe.Revision)
			return r, nil
		}
		data, rev = pe.Data, pe.Revision
		if cur, err := decodeRecord(data); err == nil {
			s.apply(e.key, cur, rev)
		}
	}
	return nil, errors.New("askuser: the pending ask kept changing under this write (64 tries); try again")
}

// newWriteID returns 64 random bits in hex.
func newWriteID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// storeRetry is how long a change to a pending ask keeps trying a store
// that fails.
const storeRetry = 10 * time.Second

// retrier returns a function that waits before the next try at the store
// after err (a backoff from 10 ms to half a second), or returns the error
// to give up with: once storeRetry has passed, or at Close.
func (s *shared) retrier() func(err error) error {
	deadline := time.Now().Add(storeRetry)
	backoff := 10 * time.Millisecond
	return func(err error) error {
		if s.ctx.Err() != nil {
			return ErrOrchestratorClosed
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("askuser: the pending-ask store failed (for %v): %w", storeRetry, err)
		}
		t := time.NewTimer(backoff)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.ctx.Done():
			return ErrOrchestratorClosed
		}
		backoff = min(2*backoff, 500*time.Millisecond)
		return nil
	}
}

// end writes an ending into the record unless it has one; the deadline
// wins over an ending at or after ExpiresAt. When this process's ending
// took effect, it finalizes the ask.
func (s *shared) end(e *sharedEntry, end *ending, submit bool) error {
	won := end
	principal := e.principal(s)
	_, err := s.mutate(e, func(r *pendingRecord) error {
		if r.Ending != nil || r.Final != nil {
			return ErrClosed
		}
		if principal != "" {
			r.Principal = principal
		}
		won = end
		if end.reason != ReasonDeadline && !time.Now().Before(r.Form.ExpiresAt) {
			won = &ending{reason: ReasonDeadline}
		} else if submit {
			var missing []string
			for i, q := range r.Form.Questions {
				if !q.Optional && (i >= len(r.Accepted) || !r.Accepted[i].Set) {
					missing = append(missing, q.ID)
				}
			}
			if missing != nil {
				return &UnansweredError{QuestionIDs: missing}
			}
		}
		r.Ending = storeEnding(won)
		return nil
	})
	if err != nil {
		return err
	}
	s.goTracked(func() { s.finalize(e, won) })
	if won != end {
		return ErrClosed
	}
	return nil
}

// principal is who this process's handle says is answering (see
// Ask.SetPrincipal), carried into the record with the next change.
func (e *sharedEntry) principal(s *shared) string {
	s.mu.Lock()
	a := e.ask
	s.mu.Unlock()
	if a == nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.principal
}

// expire ends a pending ask at its deadline (any replica's timer may).
func (s *shared) expire(e *sharedEntry) {
	err := s.end(e, &ending{reason: ReasonDeadline}, false)
	if err != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, ErrOrchestratorClosed) {
		s.o.logger().Error("askuser: ending an ask at its deadline failed; another replica's sweep will", "ask", e.rec.AskID, "err", err)
	}
}

// finalize builds the outcome of an ended ask from its record, settles its
// secrets, journals it and writes the final result into the store, where
// every replica's watch delivers it. local is the ending this process
// wrote, with its fault as it was, or nil.
func (s *shared) finalize(e *sharedEntry, local *ending) {
	s.mu.Lock()
	rec := e.rec
	if rec.Final != nil || rec.Ending == nil || e.finalizing {
		s.mu.Unlock()
		return
	}
	e.finalizing = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		e.finalizing = false
		s.mu.Unlock()
	}()
	o := s.o
	d, err := o.dialect(rec.Dialect)
	if err != nil {
		o.logger().Error("askuser: this orchestrator cannot finalize an ask; a replica that knows its contract will", "ask", rec.AskID, "err", err)
		return
	}
	// The outcome is built on a handle of its own, from the record; this
	// process's handle, where it has one, lends the form as decoded here,
	// so that the call is not decoded again.
	s.mu.Lock()
	own := e.ask
	s.mu.Unlock()
	var a *Ask
	if own != nil {
		a = sharedAsk(o, nil, rec, own.form, d, rec.Responder, s.ctx)
	} else if a, err = s.newAsk(e, rec); err != nil {
		return
	}
	a.sh = nil
	a.accepted = loadHeld(rec.Accepted, len(a.form.Questions))
	a.drafts = heldRef(loadHeld(rec.Drafts, len(a.form.Questions)))
	a.principal = rec.Principal
	a.end = rec.Ending.ending()
	if local != nil && local.reason == a.end.reason {
		a.end = local
	}
	out := a.buildOutcome(time.Now())
	if a.sealing != nil {
		a.settleSecrets(out)
	}
	if a.form.Approval != nil {
		o.rememberConsent(a.base, out)
	}
	res, crec, err := d.Encode(out, o.Journal != nil)
	if err != nil {
		o.logger().Error("askuser: encoding the result failed", "ask", a.id, "dialect", d.Name(), "err", err)
		out.Fault = errors.Join(out.Fault, err)
		res = nil
	}
	out.Result = res
	out.ContractRecord = crec
	if err := o.appendRecord(a.base, out); err != nil {
		o.logger().Error("askuser: writing the journal record failed", "ask", a.id, "session", a.session, "tool_call", a.toolCallID, "err", err)
		out.JournalErr = err
	}
	if out.Fault != nil && local != nil {
		o.logger().Warn("askuser: responder fault; the ask ends as cancelled",
			"ask", a.id, "session", a.session, "tool_call", a.toolCallID, "responder", a.responder, "err", out.Fault)
	}
	final := newRecord(out)
	s.mu.Lock()
	e.local = out
	s.mu.Unlock()
	_, err = s.mutate(e, func(r *pendingRecord) error {
		if r.Final != nil {
			return errAlreadyFinal
		}
		r.Final = final
		return nil
	})
	switch {
	case errors.Is(err, errAlreadyFinal):
		// Another replica finalized first; the watch brings its result.
		return
	case err != nil:
		o.logger().Error("askuser: storing the final result failed; another replica will finalize the ask", "ask", a.id, "err", err)
		return
	}
	s.deliver(e, out)
}

var errAlreadyFinal = errors.New("already final")

// outcomeFromRecord rebuilds an outcome from a journal record.
func outcomeFromRecord(rec *Record, replayed bool) *Outcome {
	return &Outcome{
		AskID:          rec.AskID,
		Session:        rec.Session,
		ToolCallID:     rec.ToolCallID,
		Form:           &Form{Questions: rec.Questions, AskedAt: rec.AskedAt, ExpiresAt: rec.ExpiresAt, Contract: rec.Contract, HumanIntent: rec.HumanIntent, Approval: rec.Approval},
		Status:         rec.Status,
		AnsweredBy:     rec.AnsweredBy,
		Reason:         rec.Reason,
		Answers:        rec.Answers,
		CancelledOn:    rec.CancelledOn,
		RememberedFrom: rec.RememberedFrom,
		Principal:      rec.Principal,
		Responder:      rec.Responder,
		FinalizedAt:    rec.FinalizedAt,
		Result:         []byte(rec.Result),
		ContractRecord: rec.ContractRecord,
		Replayed:       replayed,
	}
}

// handleShared is Handle with a shared PendingStore: the ask is created in
// the store (or found there: joined while pending, replayed once final),
// shown by this process's responder, and waited for until its final
// result arrives — from this process or any other. The caller going away
// leaves it pending.
func (o *Orchestrator) handleShared(ctx context.Context, req Request, d Dialect) (*Outcome, error) {
	e, joined, out, err := o.beginShared(ctx, req, d, ctx)
	if err != nil || out != nil {
		return out, err
	}
	return o.sh.await(ctx, e, joined)
}

// beginShared finds or creates the request's ask in the store and has it
// shown: it returns the entry to wait on (joined when another request
// began it), or the replayed outcome of a tool call already final. A
// responder that is called per ask runs under respondCtx.
func (o *Orchestrator) beginShared(ctx context.Context, req Request, d Dialect, respondCtx context.Context) (e *sharedEntry, joined bool, replay *Outcome, err error) {
	s := o.sh
	if req.ToolCallID != "" {
		e, replay, err := s.find(ctx, req.Session, req.ToolCallID)
		if e != nil || replay != nil || !errors.Is(err, ErrUnknownCall) {
			return e, true, replay, err
		}
	}
	form, err := o.formOf(req, d)
	if err != nil {
		return nil, false, nil, err
	}
	now := time.Now()
	if !req.AskedAt.IsZero() && req.AskedAt.Before(now) {
		now = req.AskedAt
	}
	stamp(form, now)
	rec := &pendingRecord{
		V: pendingVersion, AskID: newID(), Session: req.Session, ToolCallID: req.ToolCallID,
		Dialect: d.Name(), Form: form, Responder: o.respName,
	}
	if req.Form == nil {
		rec.Arguments = json.RawMessage(req.Arguments)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, false, nil, fmt.Errorf("askuser: the ask cannot be stored: %w", err)
	}
	key := pendingKey(req.Session, req.ToolCallID, rec.AskID)

	// The entry, with this process's handle (its form as decoded here,
	// with the contract's own data), is in the mirror before the record is
	// in the store: the watch may bring the ask's every change — up to its
	// final result — before Create has returned.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, false, nil, ErrOrchestratorClosed
	}
	if s.entries[key] != nil {
		// The mirror knows an ask for this tool call: another request
		// came first.
		s.mu.Unlock()
		e, replay, err := s.find(ctx, req.Session, req.ToolCallID)
		return e, true, replay, err
	}
	e = &sharedEntry{key: key, rec: rec, final: make(chan struct{})}
	a := sharedAsk(o, e, rec, form, d, o.respName, ctx)
	e.ask = a
	s.entries[key] = e
	s.byID[rec.AskID] = e
	s.mu.Unlock()

	rev, err := s.st.Create(ctx, key, data)
	if err != nil {
		s.mu.Lock()
		if s.entries[key] == e {
			delete(s.entries, key)
			delete(s.byID, rec.AskID)
		}
		s.mu.Unlock()
		if errors.Is(err, ErrPendingExists) {
			// Another request for the same tool call came first.
			e, replay, err := s.find(ctx, req.Session, req.ToolCallID)
			return e, true, replay, err
		}
		return nil, false, nil, fmt.Errorf("askuser: the pending-ask store failed: %w", err)
	}
	s.mu.Lock()
	if e.rev < rev {
		e.rev = rev
	}
	if e.timer == nil && e.out == nil && e.rec.Ending == nil && !s.closed {
		e.timer = time.AfterFunc(time.Until(form.ExpiresAt), func() { s.goTracked(func() { s.expire(e) }) })
	}
	s.mu.Unlock()

	var decided *ending
	if form.Approval != nil {
		decided = o.decideWithoutAsking(ctx, a)
	}
	switch {
	case decided != nil:
		a.tryEnd(decided)
	case !o.reachable(ctx, o.Responder, a):
		a.tryEnd(&ending{reason: ReasonUnattended})
	case o.events != nil:
		o.running.Add(1)
		a.notify(o.events)
	default:
		rctx, cancel := context.WithDeadline(respondCtx, form.ExpiresAt)
		a.AfterEnd(cancel)
		stop := context.AfterFunc(s.ctx, cancel)
		a.AfterEnd(func() { stop() })
		o.running.Add(1)
		go a.run(rctx, o.Responder)
	}
	return e, false, nil, nil
}

// find looks up a session's tool call: the entry of a pending ask (shown
// here, for an EventDriven responder, if it was not yet), the replayed
// outcome of a final one — from the store, or past its retention from a
// journal that finds results — or ErrUnknownCall.
func (s *shared) find(ctx context.Context, session, toolCallID string) (*sharedEntry, *Outcome, error) {
	for {
		pe, err := s.st.Get(ctx, pendingKey(session, toolCallID, ""))
		switch {
		case errors.Is(err, ErrPendingNotFound):
			if out, ok := s.o.journalReplay(ctx, session, toolCallID); ok {
				return nil, out, nil
			}
			return nil, nil, ErrUnknownCall
		case err != nil:
			return nil, nil, fmt.Errorf("askuser: the pending-ask store failed: %w", err)
		}
		rec, err := decodeRecord(pe.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("askuser: the pending-ask store holds a record this orchestrator cannot read: %w", err)
		}
		if rec.Final != nil {
			return nil, outcomeFromRecord(rec.Final, true), nil
		}
		e, adopted := s.apply(pe.Key, rec, pe.Revision)
		if adopted != nil {
			s.o.running.Add(1)
			adopted.notify(s.o.events)
		}
		if e != nil {
			return e, nil, nil
		}
		// The ask became final while the store was read: read it again.
	}
}

// ErrUnknownCall is what Await returns for a tool call that no ask
// answers: never asked, or its result gone past the store's retention.
var ErrUnknownCall = errors.New("askuser: no ask is known for this tool call (never asked, or its result is past retention)")

// Begin starts an ask without waiting for it, and returns the ask's id:
// a service answers a request at once and lets its client come back for
// the result with Await. A request whose tool call is already pending or
// final returns that ask's id and starts nothing. An invalid call returns
// a *CallError, as Handle does. Begin needs a shared PendingStore (Asks),
// which keeps the ask while nobody waits for it; without one it returns an
// error. The ask is shown by this orchestrator's responder, which is not
// stopped when ctx ends.
func (o *Orchestrator) Begin(ctx context.Context, req Request) (askID string, err error) {
	o.init()
	if o.sh == nil {
		return "", errors.New("askuser: Begin needs a shared pending-ask store (Orchestrator.Asks): without one, nobody would hold the ask while nobody waits for it")
	}
	e, _, out, err := o.beginShared(ctx, req, req.dialect(), context.WithoutCancel(ctx))
	switch {
	case err != nil:
		return "", err
	case out != nil:
		return out.AskID, nil
	}
	o.sh.mu.Lock()
	defer o.sh.mu.Unlock()
	return e.rec.AskID, nil
}

// Await waits for the result of a session's tool call that a Begin or a
// Handle (here or in any process on the same store) began, and returns it
// as a replay once the ask is final; ctx's error while it is still
// pending when ctx ends; ErrUnknownCall when no ask answers the tool call.
// Await needs a shared PendingStore (Asks).
func (o *Orchestrator) Await(ctx context.Context, session, toolCallID string) (*Outcome, error) {
	o.init()
	if o.sh == nil {
		return nil, errors.New("askuser: Await needs a shared pending-ask store (Orchestrator.Asks); without one, Handle waits for the ask")
	}
	if toolCallID == "" {
		return nil, ErrUnknownCall
	}
	e, out, err := o.sh.find(ctx, session, toolCallID)
	if err != nil || out != nil {
		return out, err
	}
	return o.sh.await(ctx, e, true)
}

// await waits for an entry's final result, the caller's going away, or
// Close.
func (s *shared) await(ctx context.Context, e *sharedEntry, replayed bool) (*Outcome, error) {
	select {
	case <-e.final:
		out := *e.out
		out.Replayed = replayed
		return &out, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.ctx.Done():
		return nil, ErrOrchestratorClosed
	}
}

// pendingShared lists a session's pending asks from the mirror.
func (s *shared) pending(session string) []*pendingRecord {
	s.mu.Lock()
	var rs []*pendingRecord
	for _, e := range s.entries {
		if e.rec.Session == session && e.rec.Ending == nil && e.rec.Final == nil {
			rs = append(rs, e.rec)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(rs, func(x, y *pendingRecord) int {
		if c := x.Form.AskedAt.Compare(y.Form.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(x.AskID, y.AskID)
	})
	return rs
}

func (s *shared) supersede(session string) int {
	n := 0
	for _, r := range s.pending(session) {
		s.mu.Lock()
		e := s.byID[r.AskID]
		s.mu.Unlock()
		if e != nil && s.end(e, &ending{reason: ReasonSuperseded}, false) == nil {
			n++
		}
	}
	return n
}

// reportShared keeps an accepted answer (or a draft) in the store's record.
func (a *Ask) reportShared(idx int, h held, draft bool) error {
	s := a.o.sh
	principal := a.sh.principal(s)
	_, err := s.mutate(a.sh, func(r *pendingRecord) error {
		if r.Ending != nil || r.Final != nil {
			return ErrClosed
		}
		if principal != "" {
			r.Principal = principal
		}
		if !time.Now().Before(r.Form.ExpiresAt) {
			return errDeadlinePassed
		}
		slot := &r.Accepted
		if draft {
			slot = &r.Drafts
		}
		if *slot == nil {
			*slot = make([]storedAnswer, len(r.Form.Questions))
		}
		(*slot)[idx] = storeHeld([]held{h})[0]
		return nil
	})
	if errors.Is(err, errDeadlinePassed) {
		s.goTracked(func() { s.expire(a.sh) })
		return ErrClosed
	}
	return err
}

var errDeadlinePassed = errors.New("the deadline has passed")
