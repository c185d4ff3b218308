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

	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// ErrOrchestratorClosed is what a caller waiting on an ask gets when the
// orchestrator is closed: with a shared store the ask stays pending,
// and a retry of the same tool call, here after a restart or on another
// replica, joins it.
var ErrOrchestratorClosed = errors.New("askuser: the orchestrator was closed; the ask stays pending in its store, and a retry of the tool call joins it")

// pendingVersion is the format version of the values askuser keeps in a
// store.
const pendingVersion = 1

// finalizeGrace is how long an ask may sit ended but not final before any
// replica finalizes it: the replica that ended it does at once, and the
// others step in only when it is gone.
const finalizeGrace = 10 * time.Second

// tellLease is how long a replica's claim to tell a route's step holds:
// telling only hands the ask to the step's responders, so a claim still
// unfinished after it belongs to a replica that is gone, and another
// replica tells the step.
const tellLease = 10 * time.Second

// A stepClaim is a replica's claim, in an ask's record, to tell the step
// (the beginning of the route's plan) Step, until Until.
type stepClaim struct {
	Step  int       `json:"step"`
	Until time.Time `json:"until"`
}

// told is how many beginnings of the ask's route have been told: a
// record written before steps_told says nothing, and is read as told up
// to what has begun.
func (r *pendingRecord) told() int {
	if r.StepsTold == 0 {
		return r.StepsBegun
	}
	return r.StepsTold
}

// nextTimer is when the ask's timer comes due: when a begun step left
// untold can be claimed (at once, or when the claim on it runs out),
// else the earlier of the deadline and the next step not begun yet.
func (r *pendingRecord) nextTimer(now time.Time) time.Time {
	if r.Routing != nil && r.told() < r.StepsBegun {
		if r.Telling != nil && r.Telling.Until.After(now) {
			if r.Telling.Until.Before(r.Form.ExpiresAt) {
				return r.Telling.Until
			}
			return r.Form.ExpiresAt
		}
		return now
	}
	return r.Routing.nextTimer(r.Form, r.StepsBegun)
}

// pendingRecord is what a store keeps of an ask: everything another
// process needs to show it, take answers for it, end it and finalize it.
// Sealed answers are references and staging ids only.
type pendingRecord struct {
	V          int    `json:"v"`
	AskID      string `json:"ask_id"`
	Session    string `json:"session"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Dialect    string `json:"dialect"`
	// Arguments is the model's call, kept only for a contract whose form
	// carries data of its own (Form.DialectData, as pi's does).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Form      *Form           `json:"form"`
	Responder string          `json:"responder,omitempty"`
	Accepted  []storedAnswer  `json:"accepted,omitempty"`
	Drafts    []storedAnswer  `json:"drafts,omitempty"`
	Principal string          `json:"principal,omitempty"`
	// Routing is the ask's route and policy, snapshotted when it began
	// (groups expanded): every replica goes on with it. Votes are a
	// routed approval's votes, in the order they were accepted, each
	// appended with compare-and-set, so the quorum is decided again on
	// every vote whichever replica took it.
	Routing *routing     `json:"routing,omitempty"`
	Votes   []route.Vote `json:"votes,omitempty"`
	// StepsBegun is how many beginnings of the route's plan have begun
	// (1 from the start): written with compare-and-set by the replica
	// whose timer begins the next, so a step begins once across the
	// fleet.
	StepsBegun int `json:"steps_begun,omitempty"`
	// StepsTold is how many of the begun beginnings have been told to
	// their channels (1 from the start: the first step is the ask's
	// Responder). A step begun and not told — its replica died between
	// the two — is told by whichever replica the ask's timer reaches
	// next. Zero in a record written before this field: read as
	// StepsBegun (see told).
	StepsTold int `json:"steps_told,omitempty"`
	// Telling is the claim of the replica telling the step StepsTold:
	// written with compare-and-set with the beginning (or, for a step
	// whose teller died, alone), cleared with StepsTold's increment. A
	// claim whose Until has passed is taken over.
	Telling *stepClaim    `json:"telling,omitempty"`
	Ending  *storedEnding `json:"ending,omitempty"`
	Final   *record       `json:"final,omitempty"`
	// Journaled says the final record reached the journal. A final ask
	// that is not journaled is the journal's outbox: whichever replica
	// its timer reaches writes the record again until the journal takes
	// it (the ask id makes a second write of one record a no-op).
	Journaled bool `json:"journaled,omitempty"`
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
	Via            string    `json:"via,omitempty"` // the route step's channel a person's ending came by
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
	s := &storedEnding{Reason: e.reason, CancelledOn: e.cancelledOn, Decision: e.decision, RememberedFrom: e.rememberedFrom, Via: e.via, At: time.Now().UTC()}
	if e.fault != nil {
		s.Fault = e.fault.Error()
	}
	return s
}

func (s *storedEnding) ending() *ending {
	e := &ending{reason: s.Reason, cancelledOn: s.CancelledOn, decision: s.Decision, rememberedFrom: s.RememberedFrom, via: s.Via}
	if s.Fault != "" {
		e.fault = errors.New(s.Fault)
	}
	return e
}

// state is the record's askState, for a form of n questions.
func (r *pendingRecord) state(n int) askState {
	st := askState{
		accepted:  loadHeld(r.Accepted, n),
		drafts:    heldRef(loadHeld(r.Drafts, n)),
		principal: r.Principal,
		votes:     r.Votes,
	}
	if r.Ending != nil {
		st.end = r.Ending.ending()
	}
	return st
}

// setState writes what a change did to st into the record (the ending is
// written by the change itself, with its time).
func (r *pendingRecord) setState(st askState) {
	r.Accepted = storeHeld(st.accepted)
	r.Drafts = nil
	if st.drafts != nil {
		r.Drafts = storeHeld(*st.drafts)
	}
	r.Principal = st.principal
	r.Votes = st.votes
}

// pendingKey is the store key of an ask: a token of its session, so that
// a session's asks are one prefix (see sessionPrefix), then its tool
// call's, so that a retry finds it, or its own id when it has no tool
// call.
func pendingKey(session, toolCallID, askID string) string {
	if toolCallID == "" {
		return sessionPrefix(session) + "a" + askID
	}
	h := sha256.Sum256([]byte(session + "\x00" + toolCallID))
	return sessionPrefix(session) + "c" + hex.EncodeToString(h[:16])
}

// sessionPrefix is the prefix of every key of a session's asks.
func sessionPrefix(session string) string {
	h := sha256.Sum256([]byte(session))
	return "s" + hex.EncodeToString(h[:16]) + "."
}

// keyPrefix is the session prefix of a key.
func keyPrefix(key string) string {
	if i := strings.IndexByte(key, '.'); i >= 0 {
		return key[:i+1]
	}
	return ""
}

// fleet runs an orchestrator's side of a shared store. It holds in memory
// only the asks this process serves — a caller waiting on one, its
// responder showing one, a session a responder follows, a finalization
// under way — and reads the rest from the store when it needs them. The
// store's feed of changes keeps what it holds up to date (a change to any
// other key is passed over unread), and the store's timers end asks at
// their deadlines and hand a finalization that did not finish to another
// replica: no process keeps a timer per ask, and none reads the whole
// store.
type fleet struct {
	o  *Orchestrator
	st store.Pending

	ctx     context.Context // ends at Close
	cancel  context.CancelFunc
	loops   sync.WaitGroup // the feed and the timers
	feedMu  sync.Mutex
	inPlace chan struct{} // closed while the feed is in place; a new one while it is not
	placed  bool          // inPlace is closed

	mu      sync.Mutex
	closed  bool
	wg      sync.WaitGroup       // finalizations and sweeps under way
	asks    map[string]*fleetAsk // by key: the asks served here
	follows map[string]int       // session prefixes responders follow, and how many times
	// endedRevs holds, by key, the revision of the final result of each ask
	// that left this process final, until the feed brings that revision:
	// the feed may be behind, and an earlier revision (pending) it brings
	// after the ask left must not show the ask to a responder again.
	endedRevs map[string]uint64
	// byFollowing: the responder is a SessionFollower, shown the asks of
	// the sessions it follows only.
	byFollowing bool
}

// A fleetAsk is one ask of the store, as this process holds it while it
// serves it.
type fleetAsk struct {
	key   string
	rec   *pendingRecord
	rev   uint64
	fed   uint64        // the latest revision the feed brought while the entry was held
	ask   *Ask          // the local handle, when this process shows the ask or waits on it
	final chan struct{} // closed when the final result is known here
	out   *Outcome

	holds      int  // why it is held: callers waiting, a responder showing it, work under way
	shown      bool // a responder here shows it: held until its outcome is final
	finalizing bool
	expiring   bool     // a caller's deadline here is ending it (see expire)
	local      *Outcome // the outcome this process finalized, with its Go-only field Fault
	began      bool     // this process began the ask (see responder.BeganHere)
}

func newFleet(o *Orchestrator, st store.Pending) *fleet {
	ctx, cancel := context.WithCancel(context.Background())
	fl := &fleet{
		o: o, st: st, ctx: ctx, cancel: cancel, inPlace: make(chan struct{}),
		asks: map[string]*fleetAsk{}, follows: map[string]int{}, endedRevs: map[string]uint64{},
	}
	_, fl.byFollowing = findOptional[SessionFollower](o.Responder)
	fl.byFollowing = fl.byFollowing && !announces(o.Responder) // an Announcer is shown every ask where it began
	fl.loops.Add(1 + dueWorkers)
	go fl.feed()
	for range dueWorkers {
		go fl.timers()
	}
	return fl
}

// again runs f until ctx ends, waiting after each failure (from 100 ms,
// doubling, to maxBackoff) and logging it.
func (fl *fleet) again(what string, maxBackoff time.Duration, f func() error) {
	backoff := min(100*time.Millisecond, maxBackoff)
	for {
		err := f()
		if fl.ctx.Err() != nil {
			return
		}
		fl.o.logger().Error("askuser: "+what+" failed; retrying", "err", err, "retry_in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-fl.ctx.Done():
			t.Stop()
			return
		}
		backoff = min(backoff*2, maxBackoff)
	}
}

// feed keeps what this process holds up to date with the store's
// changes. After a failure the feed starts again from then, and what is
// held is read again, since a change may have come in between.
func (fl *fleet) feed() {
	defer fl.loops.Done()
	restarted := false
	fl.again("following the pending-ask store's changes", 5*time.Second, func() error {
		first := true
		err := fl.st.Changes(fl.ctx, func(e store.Entry) {
			if e.Key == "" && first {
				first = false
				fl.setPlaced(true)
				fl.mu.Lock()
				clear(fl.endedRevs) // a feed started again brings no revision older than now
				fl.mu.Unlock()
				if restarted {
					go fl.refresh()
				}
				restarted = true
				return
			}
			fl.onChange(e)
		})
		fl.setPlaced(false)
		return err
	})
}

// setPlaced records whether the feed is in place: Ready waits on it.
func (fl *fleet) setPlaced(placed bool) {
	fl.feedMu.Lock()
	defer fl.feedMu.Unlock()
	switch {
	case placed && !fl.placed:
		close(fl.inPlace)
	case !placed && fl.placed:
		fl.inPlace = make(chan struct{})
	}
	fl.placed = placed
}

// following returns a channel closed while the feed is in place.
func (fl *fleet) following() <-chan struct{} {
	fl.feedMu.Lock()
	defer fl.feedMu.Unlock()
	return fl.inPlace
}

// dueWorkers is how many of the store's timers a replica handles at once:
// each is a Due caller of its own, so that a slow store or journal on one
// ask does not hold back the deadlines of the others.
const dueWorkers = 8

// timersBackoff bounds the wait before a Due caller that failed (its
// consumer electing a leader) pulls again: the deadlines due meanwhile
// wait on it.
const timersBackoff = 250 * time.Millisecond

// timers ends asks at their deadlines and finishes what a replica that
// went away left, as the store's timers come due.
func (fl *fleet) timers() {
	defer fl.loops.Done()
	fl.again("taking the pending-ask store's timers", timersBackoff, func() error {
		return fl.st.Due(fl.ctx, fl.due)
	})
}

// refresh reads again every ask held here.
func (fl *fleet) refresh() {
	fl.mu.Lock()
	held := make([]*fleetAsk, 0, len(fl.asks))
	for _, fa := range fl.asks {
		held = append(held, fa)
	}
	fl.mu.Unlock()
	for _, fa := range held {
		fl.reread(fl.ctx, fa)
	}
}

// reread reads an ask held here from the store and applies it.
func (fl *fleet) reread(ctx context.Context, fa *fleetAsk) {
	pe, err := fl.st.Get(ctx, fa.key)
	if err != nil {
		return
	}
	if rec, err := decodeRecord(pe.Data); err == nil {
		fl.apply(fa, rec, pe.Revision)
	}
}

func (fl *fleet) close() {
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		return
	}
	fl.closed = true
	fl.mu.Unlock()
	// What is under way (a finalization) finishes first, with the store
	// still in reach; nothing new starts.
	fl.wg.Wait()
	fl.cancel()
	fl.loops.Wait()
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

// onChange takes one change from the store's feed: a change to an ask
// held here is applied, a new ask of a session a responder follows is
// shown, and any other is passed over without being read.
func (fl *fleet) onChange(pe store.Entry) {
	fl.mu.Lock()
	if rev, ok := fl.endedRevs[pe.Key]; ok {
		if pe.Revision >= rev {
			delete(fl.endedRevs, pe.Key) // the feed has caught up with the ask's end
		}
		if pe.Revision <= rev {
			fl.mu.Unlock()
			return // what the ask was before it ended here
		}
	}
	if pe.Data == nil {
		fl.mu.Unlock()
		return // retention ran out: nothing is waiting on it any more
	}
	fa := fl.asks[pe.Key]
	if fa != nil && pe.Revision > fa.fed {
		fa.fed = pe.Revision
	}
	followed := len(fl.follows) > 0 && fl.follows[keyPrefix(pe.Key)] > 0
	fl.mu.Unlock()
	if fa == nil && !followed {
		return
	}
	rec, err := decodeRecord(pe.Data)
	if err != nil {
		fl.o.logger().Error("askuser: the pending-ask store holds a record this orchestrator cannot read; it is left alone", "key", pe.Key, "err", err)
		return
	}
	if followed && rec.Ending == nil && rec.Final == nil {
		fl.adopt(pe.Key, rec, pe.Revision)
		return
	}
	if fa != nil {
		fl.apply(fa, rec, pe.Revision)
	}
}

// hold finds or makes the entry of key for rec, held once more.
func (fl *fleet) hold(key string, rec *pendingRecord, rev uint64) *fleetAsk {
	fl.mu.Lock()
	fa := fl.asks[key]
	if fa == nil || fa.rec.AskID != rec.AskID {
		fa = &fleetAsk{key: key, rec: rec, rev: rev, final: make(chan struct{})}
		fl.asks[key] = fa
	}
	fa.holds++
	fl.mu.Unlock()
	fl.apply(fa, rec, rev)
	return fa
}

// release lets go of one hold of an entry; one held for nothing more
// leaves this process.
func (fl *fleet) release(fa *fleetAsk) {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	fa.holds--
	fl.dropLocked(fa)
}

func (fl *fleet) dropLocked(fa *fleetAsk) {
	if fa.holds > 0 {
		return
	}
	if fl.asks[fa.key] == fa {
		delete(fl.asks, fa.key)
		if fa.out != nil && fa.fed < fa.rev {
			fl.endedRevs[fa.key] = fa.rev // the feed is behind: see onChange
		}
	}
}

// adopt shows a pending ask that began elsewhere to this process's
// EventDriven responder, which follows its session, unless it shows it
// already.
func (fl *fleet) adopt(key string, rec *pendingRecord, rev uint64) {
	if fl.o.events == nil {
		return
	}
	fl.mu.Lock()
	if end, ok := fl.endedRevs[key]; fl.closed || ok && rev <= end {
		// Closed, or the ask ended here after this revision was
		// written: it ended while the feed brought it.
		fl.mu.Unlock()
		return
	}
	fa := fl.asks[key]
	if fa != nil && (fa.shown || fa.out != nil || fa.rec.AskID != rec.AskID) {
		fl.mu.Unlock()
		fl.apply(fa, rec, rev)
		return
	}
	if fa == nil {
		fa = &fleetAsk{key: key, rec: rec, rev: rev, final: make(chan struct{})}
	}
	a := fa.ask
	if a == nil {
		var err error
		if a, err = fl.newAsk(fa, rec); err != nil {
			fl.mu.Unlock()
			fl.o.logger().Error("askuser: an ask in the pending-ask store cannot be shown here", "ask", rec.AskID, "err", err)
			return
		}
		fa.ask = a
	}
	fa.shown = true
	fa.holds++
	fl.asks[key] = fa
	fl.mu.Unlock()
	fl.apply(fa, rec, rev)
	a.sync(rec)
	fl.o.running.Add(1)
	a.notify(fl.o.events)
}

// apply brings an entry up to a record the store holds (a newer
// revision), and delivers a final result.
func (fl *fleet) apply(fa *fleetAsk, rec *pendingRecord, rev uint64) {
	fl.mu.Lock()
	if rev < fa.rev || fa.out != nil || rec.AskID != fa.rec.AskID {
		fl.mu.Unlock()
		return
	}
	fa.rec, fa.rev = rec, rev
	a := fa.ask
	fl.mu.Unlock()
	if a != nil {
		a.sync(rec)
	}
	if rec.Final != nil {
		fl.deliver(fa, outcomeFromRecord(rec.Final, false))
	}
}

// sync brings a local handle up to the store's record.
func (a *Ask) sync(rec *pendingRecord) {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := rec.state(len(a.form.Questions))
	if st.principal == "" {
		st.principal = a.principal
	}
	if st.end == nil {
		st.end = a.end // an ending is never undone
	}
	a.askState = st
	if a.end != nil && !isClosed(a.endCh) {
		close(a.endCh)
	}
}

// principalNow is who the handle says is answering (see SetPrincipal).
func (a *Ask) principalNow() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.principal
}

// dialect finds a contract by name: ask_user, request_approval, or one of
// Orchestrator.Dialects.
func (o *Orchestrator) dialect(name string) (Dialect, error) {
	for _, d := range append([]Dialect{askUserDialect{}, approvalDialect{}}, o.Dialects...) {
		if d != nil && d.Name() == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("the ask came in the %q contract, which this orchestrator does not know (add it to Orchestrator.Dialects)", name)
}

// newAsk makes a local handle for an ask another process began: its form
// as the store holds it, with the contract's own data decoded again from
// the call's arguments.
func (fl *fleet) newAsk(fa *fleetAsk, rec *pendingRecord) (*Ask, error) {
	d, err := fl.o.dialect(rec.Dialect)
	if err != nil {
		return nil, err
	}
	form := new(Form)
	*form = *rec.Form // the record is shared with other readers
	if len(rec.Arguments) > 0 {
		if f, err := d.Decode(rec.Arguments, fl.o.limits()); err == nil {
			form.DialectData = f.DialectData
		}
	}
	return sharedAsk(fl.o, fa, rec, form, d, rec.Responder, fl.ctx), nil
}

// sharedAsk makes the local handle of an ask in the store, whose changes
// go through its entry. base's values reach the stores; its cancellation
// does not.
func sharedAsk(o *Orchestrator, fa *fleetAsk, rec *pendingRecord, form *Form, d Dialect, responder string, base context.Context) *Ask {
	a := &Ask{
		o: o, fa: fa, id: rec.AskID, session: rec.Session, toolCallID: rec.ToolCallID,
		form: form, dialect: d, responder: responder, rt: rec.Routing,
		base:  context.WithoutCancel(base),
		endCh: make(chan struct{}),
	}
	for i := range form.Questions {
		if form.Questions[i].sealed() {
			a.sealing = make(chan struct{}, 1)
			break
		}
	}
	return a
}

// deliver publishes an ask's final outcome here: to the callers waiting,
// and to the local handle.
func (fl *fleet) deliver(fa *fleetAsk, out *Outcome) {
	fl.mu.Lock()
	if fa.out != nil {
		fl.mu.Unlock()
		return
	}
	if fa.local != nil && fa.local.AskID == out.AskID {
		// This process wrote the final result: its callers get the
		// outcome with what only this process knows (the fault as it
		// was, a journal failure).
		out = fa.local
	}
	fa.out = out
	a := fa.ask
	fl.mu.Unlock()
	if a != nil {
		a.mu.Lock()
		if a.end == nil {
			a.end = &ending{reason: out.Reason}
			close(a.endCh)
		}
		a.mu.Unlock()
		// AfterEnd functions are counted in WaitResponders before any caller is
		// released, as finish does.
		a.setFinal(out)
	}
	close(fa.final)
	fl.mu.Lock()
	if fa.shown {
		fa.shown = false
		fa.holds--
	}
	fl.dropLocked(fa)
	fl.mu.Unlock()
}

// mutate changes an ask's record with compare-and-set: f edits a fresh
// copy of the latest record and says whether to write it, and a conflict
// reads the store again and tries again. It reports whether a write
// landed, and f's error (which goes with a write f asked for). A store
// that fails or does not answer (a NATS cluster electing a leader) is
// tried again for up to storeRetry; a write whose answer was lost is
// recognized on the next read, so that it is not applied twice.
func (fl *fleet) mutate(fa *fleetAsk, f func(r *pendingRecord) (write bool, err error)) (bool, error) {
	return fl.mutateTry(fa, 0, f)
}

// mutateTry is mutate with each try at the store bounded by try (0: by
// the store's own timeout). Only the writes of a deadline's ending and of
// a final result bound their tries (see storeTry): a try cut off is a
// write whose answer was lost, and where another write follows it before
// the next read, it is not recognized. A deadline's ending not recognized
// is finalized by the store's timer after orphanGrace, and a final result
// not recognized is taken for another replica's, whose record the timer
// writes; a person's Submit not recognized would be refused though it
// won, so the changes a person makes keep the store's own timeout.
func (fl *fleet) mutateTry(fa *fleetAsk, try time.Duration, f func(r *pendingRecord) (write bool, err error)) (bool, error) {
	fl.mu.Lock()
	rec, rev := fa.rec, fa.rev
	fl.mu.Unlock()
	data, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	retry := fl.retrier()
	for range 64 {
		r, err := decodeRecord(data)
		if err != nil {
			return false, err
		}
		write, ferr := f(r)
		if !write {
			return false, ferr
		}
		r.Write = newWriteID()
		next, err := json.Marshal(r)
		if err != nil {
			return false, err
		}
		nrev, err := fl.tryStore(fl.ctx, try, func(ctx context.Context) (uint64, error) { return fl.st.Update(ctx, fa.key, next, rev) })
		if err == nil {
			fl.apply(fa, r, nrev)
			return true, ferr
		}
		if !errors.Is(err, store.ErrChanged) {
			if err := retry(err); err != nil {
				return false, err
			}
		}
		var pe store.Entry
		for {
			pe, err = fl.tryGet(fl.ctx, try, fa.key)
			if err == nil {
				break
			}
			if err := retry(err); err != nil {
				return false, err
			}
		}
		if bytes.Equal(pe.Data, next) {
			// The write landed; its answer was lost.
			fl.apply(fa, r, pe.Revision)
			return true, ferr
		}
		data, rev = pe.Data, pe.Revision
		if cur, err := decodeRecord(data); err == nil {
			fl.apply(fa, cur, rev)
		}
	}
	return false, errors.New("askuser: the pending ask kept changing under this write (64 tries); try again")
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
// after err (a backoff from 10 ms to retryMaxBackoff), or returns the
// error to give up with: once storeRetry has passed, or at Close.
func (fl *fleet) retrier() func(err error) error {
	deadline := time.Now().Add(storeRetry)
	backoff := 10 * time.Millisecond
	return func(err error) error {
		if fl.ctx.Err() != nil {
			return ErrOrchestratorClosed
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("askuser: the pending-ask store failed (for %v): %w", storeRetry, err)
		}
		t := time.NewTimer(backoff)
		defer t.Stop()
		select {
		case <-t.C:
		case <-fl.ctx.Done():
			return ErrOrchestratorClosed
		}
		backoff = min(2*backoff, retryMaxBackoff)
		return nil
	}
}

// storeTry bounds one try at the pending-ask store by a deadline's
// ending, a final result and a timer's read, which are tried again (see
// retrier and mutateTry). A NATS stream whose leader was killed answers no
// write until its followers have elected another (4 to 9 s), and a client
// that sets no deadline waits 5 s for each try, so a deadline's ending
// would land up to 5 s after the election; a try of storeTry lands within
// storeTry of it.
const storeTry = time.Second

// tryStore runs one try at the store, bounded by try (0: unbounded here).
func (fl *fleet) tryStore(ctx context.Context, try time.Duration, f func(ctx context.Context) (uint64, error)) (uint64, error) {
	if try <= 0 {
		return f(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, try)
	defer cancel()
	return f(tctx)
}

// tryGet reads key, bounded by try (0: unbounded here).
func (fl *fleet) tryGet(ctx context.Context, try time.Duration, key string) (store.Entry, error) {
	if try <= 0 {
		return fl.st.Get(ctx, key)
	}
	tctx, cancel := context.WithTimeout(ctx, try)
	defer cancel()
	return fl.st.Get(tctx, key)
}

// retryMaxBackoff bounds the wait between two tries at a store that
// fails: a NATS stream electing a leader takes its writes again the
// moment it has one, and a deadline's ending waiting on it should land
// within a tenth of a second of that.
const retryMaxBackoff = 100 * time.Millisecond

// change applies a change of the ask's state (see Ask.change) to its
// record in the store. An ending it writes is finalized by this process,
// and handed to the store's timers in case this process goes away first.
func (fl *fleet) change(fa *fleetAsk, f func(*askState) error, force bool) error {
	a := fa.ask
	principal := a.principalNow()
	n := len(a.form.Questions)
	var ended *ending
	timerSet := false
	landed, err := fl.mutate(fa, func(r *pendingRecord) (bool, error) {
		ended = nil
		if r.Final != nil || r.Ending != nil {
			return false, ErrAskEnded
		}
		st := r.state(n)
		if principal != "" {
			st.principal = principal
		}
		var write bool
		var err error
		if force {
			err = f(&st)
			write = err == nil
		} else {
			write, err = applyChange(&st, r.Form.ExpiresAt, time.Now(), f)
		}
		if write {
			r.setState(st)
			if st.end != nil {
				r.Ending = storeEnding(st.end)
				ended = st.end
				if ended.reason != ReasonDeadline && !timerSet {
					// The ended ask's timer is set before its ending is
					// written: a process that goes away between the two
					// would leave it ended and not final until its
					// deadline's timer, which may be hours away. A timer
					// that comes due on an ask whose ending did not land
					// finds it pending and sets it again.
					timerSet = fl.setEndedTimer(fa.key, r.Form.ExpiresAt) == nil
				}
			}
		}
		return write, err
	})
	if landed && ended != nil {
		fl.ended(fa, ended, timerSet)
	}
	return err
}

// setEndedTimer sets key's timer for an ask about to be ended: after
// finalizeGrace, or at its deadline if that comes first (a timer set is a
// timer replaced).
func (fl *fleet) setEndedTimer(key string, expires time.Time) error {
	at := time.Now().Add(finalizeGrace)
	if !expires.IsZero() && expires.Before(at) {
		at = expires
	}
	return fl.st.Schedule(fl.ctx, key, at)
}

// ended finalizes an ask whose ending this process wrote. Its timer is
// set to come due after finalizeGrace, so that if this process goes away
// before the ask is final, another finalizes it, and so that a journal
// that refused the record is tried again. An ending before the deadline
// sets it first. A deadline's ending does not wait for it: the deadline's
// own timer, due by then, finalizes an ask ended and not final, so the
// timer is set after the finalization, which a timers stream electing a
// leader does not hold back.
func (fl *fleet) ended(fa *fleetAsk, e *ending, timerSet bool) {
	fl.mu.Lock()
	fa.holds++ // until the finalization has run
	id := fa.rec.AskID
	fl.mu.Unlock()
	// setTimer sets the timer; when keep says so (a record waits on it),
	// it tries again for up to outboxTimerRetry, or until Close.
	setTimer := func(keep bool) bool {
		until := time.Now().Add(outboxTimerRetry)
		for backoff := 10 * time.Millisecond; ; backoff = min(2*backoff, retryMaxBackoff) {
			err := fl.st.Schedule(fl.ctx, fa.key, time.Now().Add(finalizeGrace))
			if err == nil {
				return true
			}
			if keep && time.Now().Before(until) && !fl.closing() && sleepCtx(fl.ctx, backoff) {
				continue
			}
			if fl.ctx.Err() == nil {
				fl.o.logger().Warn("askuser: setting an ended ask's timer failed; its deadline's timer finalizes it if this process cannot", "ask", id, "err", err)
			}
			return false
		}
	}
	atDeadline := e.reason == ReasonDeadline
	if !atDeadline && !timerSet {
		timerSet = setTimer(false)
	}
	fl.mu.Lock()
	closed := fl.closed
	if !closed {
		fl.wg.Add(1)
	}
	fl.mu.Unlock()
	if closed {
		fl.release(fa)
		return
	}
	go func() {
		defer fl.wg.Done()
		defer fl.release(fa)
		journal, err := fl.finalize(fa, e)
		if journal != nil {
			err = journal()
		}
		notJournaled := errors.Is(err, errNotJournaled)
		if err != nil && !notJournaled && !errors.Is(err, errFinalizing) {
			fl.o.logger().Error("askuser: finalizing an ask failed; the store's timer hands it to a replica that can", "ask", id, "err", err)
		}
		if atDeadline || (notJournaled && !timerSet) {
			// A record not journaled waits on the ask's timer, and
			// none may be set (the deadline's has fired, or setting
			// it failed): it is tried for longer.
			setTimer(notJournaled)
		}
	}()
}

// outboxTimerRetry is how long the replica that stored a final result the
// journal refused tries to set the ask's timer, which writes the record
// again: longer than a NATS stream's election (4 to 9 s), so that the
// record does not wait for the ask's deadline, which may be hours away.
const outboxTimerRetry = time.Minute

// closing reports whether close was called.
func (fl *fleet) closing() bool {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.closed
}

// sleepCtx waits d, and reports false when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// journalTry bounds one try at the journal once an ask is final: a
// journal that does not answer by then is tried again from the ask's
// timer.
const journalTry = 5 * time.Second

// finalize builds the outcome of an ended ask from its record, settles its
// secrets and writes the final result into the store, where every replica
// holding the ask sees it and its callers get it: the final result is the
// outbox of its journal record. local is the ending this process wrote,
// with its fault as it was, or nil. It returns the write of the journal
// record, which the caller runs next (see journalFinal), or nil when
// there is none to write here: no journal, or another replica's result.
func (fl *fleet) finalize(fa *fleetAsk, local *ending) (journal func() error, err error) {
	fl.mu.Lock()
	rec := fa.rec
	switch {
	case rec.Final != nil || rec.Ending == nil:
		fl.mu.Unlock()
		return nil, nil
	case fa.finalizing:
		// Under way here already: a timer that comes meanwhile must come
		// again, in case that finalization never finishes.
		fl.mu.Unlock()
		return nil, errFinalizing
	}
	fa.finalizing = true
	own := fa.ask
	fl.mu.Unlock()
	defer func() {
		fl.mu.Lock()
		fa.finalizing = false
		fl.mu.Unlock()
	}()
	o := fl.o
	d, err := o.dialect(rec.Dialect)
	if err != nil {
		return nil, err
	}
	// The outcome is built on a handle of its own, from the record; this
	// process's handle, where it has one, lends the form as decoded here,
	// so that the call is not decoded again.
	var a *Ask
	if own != nil {
		a = sharedAsk(o, nil, rec, own.form, d, rec.Responder, fl.ctx)
	} else if a, err = fl.newAsk(nil, rec); err != nil {
		return nil, err
	}
	a.fa = nil
	a.askState = rec.state(len(a.form.Questions))
	if local != nil && local.reason == a.end.reason {
		a.end = local
	}
	out := o.settle(a)
	final := newRecord(out)
	fl.mu.Lock()
	fa.local = out
	fl.mu.Unlock()
	_, err = fl.mutateTry(fa, storeTry, func(r *pendingRecord) (bool, error) {
		if r.Final != nil {
			return false, errAlreadyFinal
		}
		r.Final = final
		r.Journaled = o.Journal == nil
		return true, nil
	})
	switch {
	case errors.Is(err, errAlreadyFinal):
		// Another replica finalized first; its result is the one, and it
		// writes the record. If the record is not journaled yet, the
		// timer that brought this finalization must come again: that
		// replica may be gone.
		fl.reread(fl.ctx, fa)
		fl.mu.Lock()
		journaled := fa.rec.Final == nil || fa.rec.Journaled
		fl.mu.Unlock()
		if !journaled {
			return nil, fmt.Errorf("%w: ask %s was finalized by another replica", errNotJournaled, rec.AskID)
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("storing the final result: %w", err)
	}
	if own != nil {
		o.observeEnded(own.base, out)
	} else {
		o.observeEnded(a.base, out)
	}
	if o.Journal == nil {
		return nil, nil
	}
	return func() error { return fl.journalFinal(a.base, fa, final, false) }, nil
}

// journalFinal writes the journal record of a final result stored in the
// ask's entry, trying for up to journalTry, and then marks the entry
// journaled. An error says the record is not written yet (errNotJournaled):
// the ask's timer must come again, to write it until the journal takes
// it. The journal keeps one record per ask id, so a record written twice
// (a replica that wrote it and died before marking it) is kept once.
func (fl *fleet) journalFinal(base context.Context, fa *fleetAsk, final *record, retry bool) error {
	jctx, cancel := context.WithTimeout(base, journalTry)
	err := fl.o.journalTry(jctx, final, retry)
	cancel()
	if err != nil {
		fl.o.logger().Error("askuser: writing the journal record failed; it is written again from the ask's timer until the journal takes it", "ask", final.AskID, "session", final.Session, "tool_call", final.ToolCallID, "err", err)
		return fmt.Errorf("%w: ask %s: %w", errNotJournaled, final.AskID, err)
	}
	if _, err := fl.mutate(fa, func(r *pendingRecord) (bool, error) {
		if r.Journaled || r.Final == nil || r.Final.AskID != final.AskID {
			return false, nil
		}
		r.Journaled = true
		return true, nil
	}); err != nil {
		// The record is written; the ask's timer writes it once more,
		// which the journal keeps once, and marks it then.
		return fmt.Errorf("%w: ask %s: marking its record written: %w", errNotJournaled, final.AskID, err)
	}
	return nil
}

// journalAside runs journal, a write of a journal record, for a timer of
// the store's (see due) without holding the timer's worker for longer
// than journalWait: a journal electing a leader, which holds a write for
// seconds, does not hold back the deadlines of other asks. A write not
// done by then goes on in the background, and the ask's timer is set to
// come again after it, in case this process goes away before it is done.
func (fl *fleet) journalAside(ctx context.Context, fa *fleetAsk, journal func() error) error {
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		return journal()
	}
	fa.holds++ // until the write is done
	fl.wg.Add(1)
	fl.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		defer fl.wg.Done()
		defer fl.release(fa)
		done <- journal()
	}()
	t := time.NewTimer(journalWait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	case <-ctx.Done():
	}
	return fl.st.Schedule(ctx, fa.key, time.Now().Add(journalTry+time.Second))
}

// journalWait is how long a timer's worker waits for a journal record's
// write before it leaves the write to go on in the background.
const journalWait = 200 * time.Millisecond

var (
	errAlreadyFinal = errors.New("already final")
	errFinalizing   = errors.New("askuser: the ask is being finalized by this replica already")
	// errNotJournaled says an ask's final result is stored and its
	// journal record is not written yet: the ask's timer must come
	// again to write it.
	errNotJournaled = errors.New("askuser: the final result is stored and its journal record is not written yet")
)

// due takes a timer of the store's that came due for key: an ask pending
// past its deadline ends there, an ended one is finalized, and a final one
// that is not journaled yet is journaled. A store that fails (a NATS
// cluster electing a leader) is tried again quickly, as every change is;
// an error gives the timer back, to come again.
func (fl *fleet) due(ctx context.Context, key string) error {
	var pe store.Entry
	var err error
	for retry := fl.retrier(); ; {
		pe, err = fl.tryGet(ctx, storeTry, key)
		if err == nil || errors.Is(err, store.ErrNotFound) || ctx.Err() != nil {
			break
		}
		if rerr := retry(err); rerr != nil {
			break
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	rec, err := decodeRecord(pe.Data)
	if err != nil {
		fl.o.logger().Error("askuser: the pending-ask store holds a record this orchestrator cannot read; its timer is dropped", "key", key, "err", err)
		return nil
	}
	fa := fl.hold(key, rec, pe.Revision)
	defer fl.release(fa)
	fl.mu.Lock()
	rec = fa.rec
	fl.mu.Unlock()
	switch {
	case rec.Final != nil && rec.Journaled:
		return nil
	case rec.Final != nil:
		// The replica that stored the final result writes its record
		// within journalTry. A timer before then (two finalizations
		// raced, and this one lost) waits for it, rather than write the
		// record a second time to a journal that keeps both.
		if wait := time.Until(rec.Final.FinalizedAt.Add(journalTry + time.Second)); wait > 0 {
			return fl.st.Schedule(ctx, key, time.Now().Add(wait))
		}
		final := rec.Final
		return fl.journalAside(ctx, fa, func() error { return fl.journalFinal(fl.ctx, fa, final, true) })
	case rec.Ending != nil:
		// Ended and not final: the replica that wrote the ending is
		// finalizing it (a caller's deadline where it waits, say). Two
		// finalizations would each write the journal record, so the
		// timer waits orphanGrace from the ending; after that the writer
		// is taken to be gone, and the ask is finalized here.
		if wait := time.Until(rec.Ending.At.Add(orphanGrace)); wait > 0 {
			return fl.st.Schedule(ctx, key, time.Now().Add(wait))
		}
		return fl.finalizeDue(ctx, fa)
	case time.Now().Before(rec.Form.ExpiresAt):
		plan := rec.Routing.plan(rec.Form)
		if told := rec.told(); told < rec.StepsBegun && told < len(plan) {
			// A step begun and never told: its replica died between the
			// two.
			return fl.tellUntold(ctx, fa, told, plan[told])
		}
		if rec.StepsBegun < len(plan) && !time.Now().Before(plan[rec.StepsBegun].At) {
			return fl.beginStep(ctx, fa, rec.StepsBegun, plan[rec.StepsBegun])
		}
		// Early: a timer an ending replaced, or a clock ahead.
		return fl.st.Schedule(ctx, key, rec.nextTimer(time.Now()))
	}
	// The deadline's ending, unless another came first. An ending this
	// timer wrote is finalized here; one another replica wrote a moment
	// ago is left to it for orphanGrace, as above.
	wrote, err := fl.mutateTry(fa, storeTry, func(r *pendingRecord) (bool, error) {
		if r.Final != nil || r.Ending != nil {
			return false, nil
		}
		r.Ending = storeEnding(&ending{reason: ReasonDeadline})
		return true, nil
	})
	if err != nil {
		return err
	}
	if !wrote {
		fl.mu.Lock()
		r := fa.rec
		fl.mu.Unlock()
		if r.Final == nil && r.Ending != nil {
			if wait := time.Until(r.Ending.At.Add(orphanGrace)); wait > 0 {
				return fl.st.Schedule(ctx, key, time.Now().Add(wait))
			}
		}
	}
	return fl.finalizeDue(ctx, fa)
}

// finalizeDue finalizes an ended ask for a timer of the store's, and
// writes its journal record aside (see journalAside).
func (fl *fleet) finalizeDue(ctx context.Context, fa *fleetAsk) error {
	journal, err := fl.finalize(fa, nil)
	if err != nil || journal == nil {
		return err
	}
	return fl.journalAside(ctx, fa, journal)
}

// orphanGrace is how long an ask ended by another replica is left to that
// replica to finalize before a timer finalizes it here: long enough for a
// finalization under way to write the journal record once, short enough
// that the deadline of an ask whose replica died is kept within seconds.
const orphanGrace = 2 * time.Second

// beginStep begins the step b, the k-th beginning of an ask's route: it
// writes steps_begun = k+1 with compare-and-set, with this replica's
// claim to tell it, and only the replica whose write lands tells the
// step's channels (its own Channels), so a step begins once across the
// fleet; then it records the step told and sets the ask's timer to the
// next step or the deadline. A replica that dies before recording it
// leaves the step to the next replica the timer reaches (tellUntold).
func (fl *fleet) beginStep(ctx context.Context, fa *fleetAsk, k int, b route.Begin) error {
	landed, err := fl.mutate(fa, func(r *pendingRecord) (bool, error) {
		if r.Final != nil || r.Ending != nil || r.StepsBegun != k || r.told() != k {
			return false, nil
		}
		r.StepsBegun = k + 1
		r.StepsTold = k
		r.Telling = &stepClaim{Step: k, Until: time.Now().Add(tellLease).UTC()}
		return true, nil
	})
	if err != nil {
		return err
	}
	if landed {
		return fl.tellClaimed(ctx, fa, k, b)
	}
	return fl.scheduleNext(ctx, fa)
}

// tellUntold tells the step b, the k-th beginning of an ask's route,
// which another replica began and never told: it claims the telling with
// compare-and-set — when no other replica's claim still holds — and only
// the replica whose claim lands tells it. Its timer comes again when
// another's claim runs out.
func (fl *fleet) tellUntold(ctx context.Context, fa *fleetAsk, k int, b route.Begin) error {
	now := time.Now()
	landed, err := fl.mutate(fa, func(r *pendingRecord) (bool, error) {
		if r.Final != nil || r.Ending != nil || r.told() != k || r.StepsBegun <= k {
			return false, nil
		}
		if r.Telling != nil && r.Telling.Step == k && r.Telling.Until.After(now) {
			return false, nil // another replica is telling it
		}
		r.StepsTold = k
		r.Telling = &stepClaim{Step: k, Until: now.Add(tellLease).UTC()}
		return true, nil
	})
	if err != nil {
		return err
	}
	if landed {
		return fl.tellClaimed(ctx, fa, k, b)
	}
	return fl.scheduleNext(ctx, fa)
}

// tellClaimed tells the step b, the k-th beginning, that this replica
// claimed, records it told (steps_told = k+1, the claim cleared), and
// sets the ask's timer. A step this replica could not tell (it is
// closing) is left claimed: the claim runs out and another replica tells
// it.
func (fl *fleet) tellClaimed(ctx context.Context, fa *fleetAsk, k int, b route.Begin) error {
	if testHookStepClaimed != nil {
		if err := testHookStepClaimed(fl.o, k); err != nil {
			return err
		}
	}
	if !fl.tellStep(fa, b) {
		return fl.scheduleNext(ctx, fa)
	}
	if _, err := fl.mutate(fa, func(r *pendingRecord) (bool, error) {
		if r.told() != k || r.StepsBegun <= k {
			return false, nil // recorded already: another replica's claim ran out and it told it too
		}
		r.StepsTold = k + 1
		r.Telling = nil
		return true, nil
	}); err != nil {
		return err
	}
	return fl.scheduleNext(ctx, fa)
}

// testHookStepClaimed, set by tests only, is called when a replica's
// claim to tell a step (the step-th beginning) has landed, before it
// tells it; an error stops it there, as a replica that died between
// beginning a step and telling it.
var testHookStepClaimed func(o *Orchestrator, step int) error

// scheduleNext sets an ask's timer from its record as last read here,
// unless it has ended (its ending set the timer that finalizes it).
func (fl *fleet) scheduleNext(ctx context.Context, fa *fleetAsk) error {
	fl.mu.Lock()
	rec := fa.rec
	fl.mu.Unlock()
	if rec.Final != nil || rec.Ending != nil {
		return nil
	}
	return fl.st.Schedule(ctx, fa.key, rec.nextTimer(time.Now()))
}

// tellStep shows an ask to the responders of step b on this replica,
// holding it here until its outcome is final. It reports false when it
// could not (this replica is closing, or cannot rebuild the ask), so that
// another replica tells the step; an ask already final here has nothing
// left to tell.
func (fl *fleet) tellStep(fa *fleetAsk, b route.Begin) bool {
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		return false
	}
	if fa.out != nil {
		fl.mu.Unlock()
		return true
	}
	if fa.ask == nil {
		a, err := fl.newAsk(fa, fa.rec)
		if err != nil {
			fl.mu.Unlock()
			fl.o.logger().Error("askuser: an ask whose route's step began cannot be shown here", "ask", fa.rec.AskID, "err", err)
			return false
		}
		fa.ask = a
	}
	a := fa.ask
	rec := fa.rec
	fl.mu.Unlock()
	a.sync(rec)
	fl.o.tell(a, b, func() func() {
		fl.mu.Lock()
		fa.holds++
		fl.mu.Unlock()
		return func() { fl.release(fa) }
	})
	return true
}

// outcomeFromRecord rebuilds an outcome from a journal record.
func outcomeFromRecord(rec *record, replayed bool) *Outcome {
	out := &Outcome{
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
		contractRecord: rec.ContractRecord,
		Replayed:       replayed,
		AnsweredVia:    rec.AnsweredVia,
		Step:           rec.Step,
	}
	if q := rec.Quorum; q != nil {
		out.rt = &routing{Quorum: &q.Policy, Requester: q.Requester, Owner: q.Owner}
		if v, err := recordVerdict(rec); err == nil {
			out.Quorum = v
		} else {
			out.Quorum = &route.Verdict{Status: route.Unresolved, Ended: route.EndFault, Required: q.Required}
		}
	}
	return out
}

// createMargin is how close to its deadline an ask may be created before
// its timer is set again: a timer that comes due before the ask is in the
// store finds nothing, so one set for a deadline that passes while the
// create is under way may have been spent. The margin covers clocks that
// differ between this process and the store's servers.
const createMargin = 2 * time.Second

// begin finds or creates the request's ask in the store and has it shown:
// it returns the entry to wait on, held for the caller (joined when
// another request began it), or the replayed outcome of a tool call
// already final. A responder that is called per ask runs under
// respondCtx.
func (fl *fleet) begin(ctx context.Context, req Request, d Dialect, respondCtx context.Context) (fa *fleetAsk, joined bool, replay *Outcome, err error) {
	o := fl.o
	first, _ := fl.st.(newScheduler)
	replayed := func() *Outcome { return nil }
	switch {
	case req.ToolCallID == "":
	case first != nil:
		// The create is the read: a new ask's first timer and its record
		// are written only where the key holds none, and a key that holds
		// one is read then (see create). Only a result past the store's
		// retention is looked up, in the journal, while the timer is set:
		// the record is created once the journal has not found it.
		key := pendingKey(req.Session, req.ToolCallID, "")
		fl.mu.Lock()
		if fa := fl.asks[key]; fa != nil {
			fa.holds++
			fl.mu.Unlock()
			return fa, true, nil, nil
		}
		fl.mu.Unlock()
		if _, ok := o.Journal.(store.ResultFinder); ok {
			replayed = fl.lookUp(ctx, req.Session, req.ToolCallID)
		}
	default:
		fa, replay, err := fl.find(ctx, req.Session, req.ToolCallID)
		if fa != nil || replay != nil || !errors.Is(err, ErrUnknownAsk) {
			return fa, true, replay, err
		}
	}
	form, err := o.formOf(req, d)
	if err != nil {
		if out := replayed(); out != nil {
			return nil, true, out, nil
		}
		return nil, false, nil, err
	}
	now := time.Now()
	if !req.AskedAt.IsZero() && req.AskedAt.Before(now) {
		now = req.AskedAt
	}
	rt, err := o.routeFor(&req, d, form)
	if err != nil {
		if out := replayed(); out != nil {
			return nil, true, out, nil
		}
		return nil, false, nil, err
	}
	stamp(form, now)
	rec := &pendingRecord{
		V: pendingVersion, AskID: newID(), Session: req.Session, ToolCallID: req.ToolCallID,
		Dialect: d.Name(), Form: form, Responder: o.respName, Routing: rt,
	}
	if rt != nil && rt.Route != nil {
		rec.StepsBegun, rec.StepsTold = 1, 1
	}
	if req.Form == nil && form.DialectData != nil {
		// Another replica decodes the contract's own data again from the
		// call (newAsk); a contract that keeps none (ask_user,
		// request_approval) needs no copy of the call beside its form.
		rec.Arguments = json.RawMessage(req.Arguments)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		if out := replayed(); out != nil {
			return nil, true, out, nil
		}
		return nil, false, nil, fmt.Errorf("askuser: the ask cannot be stored: %w", err)
	}
	key := pendingKey(req.Session, req.ToolCallID, rec.AskID)

	// The entry, with this process's handle (its form as decoded here,
	// with the contract's own data), is held before the record is in the
	// store: the feed may bring the ask's every change — up to its final
	// result — before Create has returned.
	fl.mu.Lock()
	if fl.closed {
		fl.mu.Unlock()
		if out := replayed(); out != nil {
			return nil, true, out, nil
		}
		return nil, false, nil, ErrOrchestratorClosed
	}
	if fl.asks[key] != nil {
		// An ask for this tool call is held here: another request came
		// first.
		fl.mu.Unlock()
		_ = replayed() // the lookup ends before begin returns
		fa, replay, err := fl.find(ctx, req.Session, req.ToolCallID)
		return fa, true, replay, err
	}
	fa = &fleetAsk{key: key, rec: rec, final: make(chan struct{}), holds: 1, began: true}
	a := sharedAsk(o, fa, rec, form, d, o.respName, ctx)
	fa.ask = a
	fl.asks[key] = fa
	fl.mu.Unlock()

	// The deadline's timer is set before the ask exists, so that no ask
	// is ever in the store without one; a timer for a key that was never
	// created comes to nothing.
	rev, replay, err := fl.create(ctx, key, rec.AskID, data, rt.nextTimer(form, rec.StepsBegun), first, replayed)
	if err != nil && replay == nil {
		replay = replayed() // a store that failed before the lookup was awaited
	}
	if err != nil || replay != nil {
		fl.mu.Lock()
		fa.holds--
		fl.dropLocked(fa)
		fl.mu.Unlock()
		switch {
		case replay != nil:
			// The journal has the tool call's result: the timer set for
			// the key comes due for no ask, and comes to nothing.
			return nil, true, replay, nil
		case errors.Is(err, store.ErrExists):
			// Another request for the same tool call came first.
			fa, replay, err := fl.find(ctx, req.Session, req.ToolCallID)
			if fa != nil {
				fl.showFollowed(fa)
			}
			return fa, true, replay, err
		}
		return nil, false, nil, fmt.Errorf("askuser: the pending-ask store failed: %w", err)
	}
	fl.mu.Lock()
	if fa.rev < rev {
		fa.rev = rev
	}
	fl.mu.Unlock()
	o.observeBegan(ctx, a)
	if time.Until(form.ExpiresAt) < createMargin {
		// The deadline came, or nearly, while the ask was created: its
		// timer may have come due before the ask was there, and come to
		// nothing. It is set again (a timer set again replaces the first).
		if err := fl.st.Schedule(ctx, key, rt.nextTimer(form, rec.StepsBegun)); err != nil {
			o.logger().Error("askuser: setting again the timer of an ask whose deadline came while it was created failed", "ask", rec.AskID, "err", err)
		}
	}

	var decided *ending
	if form.Approval != nil {
		decided = o.decideWithoutAsking(ctx, a)
	}
	switch {
	case decided != nil:
		a.tryEnd(decided)
	case !o.reachable(ctx, o.Responder, a):
		a.tryEnd(&ending{reason: ReasonUnattended})
	default:
		fl.mu.Lock()
		// The feed may have shown it to a follower already; and a
		// responder that follows sessions is shown the ask when it follows
		// its session (a page open on it), here or on any replica, so an
		// ask nobody looks at is not held here.
		show := fa.out == nil && !fa.shown && (!fl.byFollowing || fl.follows[keyPrefix(key)] > 0)
		if show {
			fa.shown = true
			fa.holds++
		}
		fl.mu.Unlock()
		if !show {
			break
		}
		if o.events != nil {
			o.running.Add(1)
			a.notify(o.events)
			break
		}
		rctx, cancel := context.WithDeadline(respondCtx, form.ExpiresAt)
		a.AfterEnd(cancel)
		stop := context.AfterFunc(fl.ctx, cancel)
		a.AfterEnd(func() { stop() })
		o.running.Add(1)
		go a.run(rctx, o.Responder)
	}
	return fa, false, nil, nil
}

// showFollowed shows a pending ask that another request created to the
// responder here that follows its session. The feed shows it too, but
// not when it brought the ask while this process's own create of the key
// was in flight: the key then stood for the ask this process meant to
// create, and the change was passed over.
func (fl *fleet) showFollowed(fa *fleetAsk) {
	fl.mu.Lock()
	followed := fl.follows[keyPrefix(fa.key)] > 0
	rec, rev, shown := fa.rec, fa.rev, fa.shown
	fl.mu.Unlock()
	if followed && !shown && rec.Ending == nil && rec.Final == nil {
		fl.adopt(fa.key, rec, rev)
	}
}

// lookUp starts begin's look-up of a tool call's result in the journal,
// beside the writes that create its ask, and returns the function that
// waits for it: the replayed outcome, or nil when the journal has none (or
// failed, which journalReplay logs). The look-up ends with ctx.
func (fl *fleet) lookUp(ctx context.Context, session, toolCallID string) func() *Outcome {
	found := make(chan *Outcome, 1)
	go func() {
		out, _ := fl.o.journalReplay(ctx, session, toolCallID)
		found <- out
	}()
	var out *Outcome
	waited := false
	return func() *Outcome {
		if !waited {
			out, waited = <-found, true
		}
		return out
	}
}

// newScheduler is a store that sets a key's timer only where none is
// scheduled (store.Memory and natsstore's asks; see storetest.NewScheduler).
type newScheduler interface {
	ScheduleNew(ctx context.Context, key string, at time.Time) error
}

// create sets the ask's timer and creates its record, trying a store that
// fails (a NATS cluster electing a leader) again for up to storeRetry, as
// every change does. A create whose answer was lost is known by its ask
// id on the next try. It returns an error wrapping store.ErrExists when
// the key holds an ask.
//
// With first (the store's ScheduleNew), begin has not read the key: the
// timer is set only if the key has none, so that it never moves the timer
// of an ask that holds the key. A key with a timer is read: one that holds
// an ask is left to it, one that holds nothing (a timer an earlier create
// left, or one whose answer was lost) has its timer set as without first.
// A timer set where a final ask holds the key, which has none left, comes
// due for it later, and finds nothing to do.
//
// Once the timer is set, and before the record is created, create waits
// for replayed, begin's look-up in the journal: when it returns a result,
// create returns it, having created nothing.
func (fl *fleet) create(ctx context.Context, key, askID string, data []byte, expires time.Time, first newScheduler, replayed func() *Outcome) (uint64, *Outcome, error) {
	retry := fl.retrier()
	schedule := fl.st.Schedule
	if first != nil {
		schedule = first.ScheduleNew
	}
	for {
		err := schedule(ctx, key, expires)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		if errors.Is(err, store.ErrExists) {
			_, gerr := fl.st.Get(ctx, key)
			switch {
			case gerr == nil:
				return 0, nil, fmt.Errorf("askuser: creating pending ask %s: %w", key, store.ErrExists)
			case errors.Is(gerr, store.ErrNotFound):
				schedule = fl.st.Schedule
				continue
			}
			err = gerr
		}
		if err := retry(err); err != nil {
			return 0, nil, err
		}
	}
	if out := replayed(); out != nil {
		return 0, out, nil
	}
	for tried := false; ; tried = true {
		rev, err := fl.st.Create(ctx, key, data)
		switch {
		case err == nil:
			return rev, nil, nil
		case errors.Is(err, store.ErrExists) && tried:
			if pe, gerr := fl.st.Get(ctx, key); gerr == nil {
				if r, derr := decodeRecord(pe.Data); derr == nil && r.AskID == askID {
					return pe.Revision, nil, nil // this create landed before
				}
			}
			return 0, nil, err
		case errors.Is(err, store.ErrExists):
			return 0, nil, err
		case ctx.Err() != nil:
			return 0, nil, ctx.Err()
		}
		if err := retry(err); err != nil {
			return 0, nil, err
		}
	}
}

// find looks up a session's tool call: the entry of a pending ask, held
// for the caller, the replayed outcome of a final one — from the store,
// or past its retention from a journal that finds results — or
// ErrUnknownAsk.
func (fl *fleet) find(ctx context.Context, session, toolCallID string) (*fleetAsk, *Outcome, error) {
	key := pendingKey(session, toolCallID, "")
	fl.mu.Lock()
	if fa := fl.asks[key]; fa != nil {
		fa.holds++
		fl.mu.Unlock()
		return fa, nil, nil
	}
	fl.mu.Unlock()
	pe, err := fl.st.Get(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if out, ok := fl.o.journalReplay(ctx, session, toolCallID); ok {
			return nil, out, nil
		}
		return nil, nil, ErrUnknownAsk
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
	fa := fl.hold(key, rec, pe.Revision)
	// Held now, the ask's changes reach it from the feed; one made between
	// the read and the hold is read once more.
	fl.reread(ctx, fa)
	return fa, nil, nil
}

// await waits for an entry's final result, the caller's going away, or
// Close, and lets go of the caller's hold. At the ask's deadline this
// replica ends it itself (see expire), since it holds the ask anyway; the
// store's timer remains for when no replica waits. Past the deadline and
// the grace its finalization has, the store is read again, so that a
// result a stale read hid from this process still reaches the caller.
func (fl *fleet) await(ctx context.Context, fa *fleetAsk, replayed bool) (*Outcome, error) {
	defer fl.release(fa)
	fl.mu.Lock()
	expires := fa.rec.Form.ExpiresAt
	fl.mu.Unlock()
	deadline := time.NewTimer(time.Until(expires))
	defer deadline.Stop()
	check := time.NewTimer(time.Until(expires) + finalizeGrace)
	defer check.Stop()
	for {
		select {
		case <-fa.final:
			out := *fa.out
			out.Replayed = replayed
			return &out, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-fl.ctx.Done():
			return nil, ErrOrchestratorClosed
		case <-deadline.C:
			fl.startExpire(fa)
		case <-check.C:
			fl.reread(ctx, fa)
			check.Reset(finalizeGrace)
		}
	}
}

// startExpire ends fa at its deadline in a goroutine of its own, unless
// one is under way here already or the orchestrator is closing; the
// caller goes on waiting for the final result.
func (fl *fleet) startExpire(fa *fleetAsk) {
	fl.mu.Lock()
	if fl.closed || fa.expiring || fa.out != nil {
		fl.mu.Unlock()
		return
	}
	fa.expiring = true
	fa.holds++
	fl.wg.Add(1)
	fl.mu.Unlock()
	go func() {
		defer fl.wg.Done()
		defer fl.release(fa)
		err := fl.expire(fa)
		fl.mu.Lock()
		fa.expiring = false
		fl.mu.Unlock()
		if err != nil && !errors.Is(err, ErrOrchestratorClosed) {
			fl.o.logger().Warn("askuser: ending an ask at its deadline failed here; the store's timer ends it", "ask", fa.rec.AskID, "err", err)
		}
	}()
}

// expire writes the deadline's ending of an ask still pending at or past
// its deadline, with compare-and-set, and finalizes it here: the store
// decides the one ending, so an answer that landed first is kept, and a
// store electing a leader is tried again quickly (see retrier) until it
// takes the write. An ask not yet at its deadline by the store's clock
// of record (its ExpiresAt) is left to its timer.
func (fl *fleet) expire(fa *fleetAsk) error {
	e := &ending{reason: ReasonDeadline}
	landed, err := fl.mutateTry(fa, storeTry, func(r *pendingRecord) (bool, error) {
		if r.Final != nil || r.Ending != nil || time.Now().Before(r.Form.ExpiresAt) {
			return false, nil
		}
		r.Ending = storeEnding(e)
		return true, nil
	})
	if err != nil || !landed {
		return err
	}
	fl.ended(fa, e, false)
	return nil
}

// list reads a session's asks from the store, oldest first.
func (fl *fleet) list(ctx context.Context, session string) ([]store.Entry, []*pendingRecord, error) {
	es, err := fl.st.List(ctx, sessionPrefix(session))
	if err != nil {
		return nil, nil, fmt.Errorf("askuser: listing the session's asks in the pending-ask store failed: %w", err)
	}
	var keep []store.Entry
	var rs []*pendingRecord
	for _, e := range es {
		r, err := decodeRecord(e.Data)
		if err != nil || r.Session != session || r.Ending != nil || r.Final != nil {
			continue
		}
		keep = append(keep, e)
		rs = append(rs, r)
	}
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(x, y int) int {
		if c := rs[x].Form.AskedAt.Compare(rs[y].Form.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(rs[x].AskID, rs[y].AskID)
	})
	sortedE := make([]store.Entry, len(idx))
	sortedR := make([]*pendingRecord, len(idx))
	for i, j := range idx {
		sortedE[i], sortedR[i] = keep[j], rs[j]
	}
	return sortedE, sortedR, nil
}

// supersede ends every pending ask of a session as superseded.
func (fl *fleet) supersede(ctx context.Context, session string) (int, error) {
	es, rs, err := fl.list(ctx, session)
	if err != nil {
		return 0, err
	}
	n := 0
	for i, r := range rs {
		fa := fl.hold(es[i].Key, r, es[i].Revision)
		fl.mu.Lock()
		if fa.ask == nil {
			if a, err := fl.newAsk(fa, fa.rec); err == nil {
				fa.ask = a
			}
		}
		a := fa.ask
		fl.mu.Unlock()
		if a != nil && a.tryEnd(&ending{reason: ReasonSuperseded}) {
			n++
		}
		fl.release(fa)
	}
	return n, nil
}

// follow shows a session's asks to this process's EventDriven responder:
// those pending now, and every new one, wherever it began, until stop.
func (fl *fleet) follow(ctx context.Context, session string) (stop func(), err error) {
	prefix := sessionPrefix(session)
	fl.mu.Lock()
	fl.follows[prefix]++
	fl.mu.Unlock()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			fl.mu.Lock()
			if fl.follows[prefix]--; fl.follows[prefix] <= 0 {
				delete(fl.follows, prefix)
			}
			fl.mu.Unlock()
		})
	}
	es, rs, err := fl.list(ctx, session)
	if err != nil {
		stop()
		return func() {}, err
	}
	for i, r := range rs {
		fl.adopt(es[i].Key, r, es[i].Revision)
	}
	return stop, nil
}
