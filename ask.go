package askuser

import (
	"context"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/sharedask"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// An Ask is one pending ask, as a responder sees it: the normalized form,
// its correlation data, and the handle through which the responder reports
// answers and ends the ask. The orchestrator creates it; its methods are safe
// for concurrent use.
type Ask struct {
	o          *Orchestrator
	id         string
	session    string
	toolCallID string
	form       *Form
	dialect    Dialect
	responder  string
	base       context.Context // the caller's context, without its cancellation
	rt         *routing        // the ask's route and policy, snapshotted when it began; nil: not routed

	// voted is set once a person's vote (or dismissal) of a routed
	// approval went through this handle: a responder that returns after
	// it leaves the ask open for the others, rather than failing it.
	voted atomic.Bool
	// voter is the principal this handle was given (SetPrincipal), which
	// a routed approval's vote is cast as: never one another replica's
	// handle wrote into the shared record (guarded by mu).
	voter string

	sealing  chan struct{} // a one-slot semaphore held across a secret store Stage; nil without a sealed question
	mu       sync.Mutex
	askState               // what the person gave and how the ask ended; with a store, as last read
	endCh    chan struct{} // closed when the ask has an ending
	done     chan struct{} // made when first asked for (Done), closed when the outcome is final
	outcome  *Outcome      // set, under mu, when the outcome is final
	afterEnd []func()      // run once the outcome is final; taken by setFinal

	deadlineAt int // its place in Orchestrator.deadlines, plus one; 0: not there (guarded by the heap's lock)

	// With a shared store (Orchestrator.Asks): the ask's entry there.
	// Every change goes through the store, and askState mirrors it.
	fa *fleetAsk

	// core, when set, makes this a channel's handle on the ask core: the
	// handle a route's step gives each of its channels, so that a vote
	// cast through it names the channel (responder is the step's channel
	// name). Every read and change goes to core; only responder, voter
	// and voted are the handle's own.
	core *Ask
	// told is, on a channel's handle, the step that told the channel.
	told *route.Told
}

// channelHandle returns a handle on a for the channel a route's step
// names, by that name.
func (a *Ask) channelHandle(channel string, told *route.Told) *Ask {
	if a.core != nil {
		a = a.core
	}
	return &Ask{o: a.o, id: a.id, session: a.session, toolCallID: a.toolCallID, form: a.form, dialect: a.dialect,
		responder: channel, base: a.base, rt: a.rt, fa: a.fa, core: a, told: told}
}

// toldStep reports, for the handle a route's later step gave one of its
// channels (Orchestrator.Channels), which step and channel that is; false
// for any other handle. A step is told on one replica of a fleet — the
// one whose timer began it, which need not be the one that began the ask
// (BeganHere reports false there) — so a responder that posts each ask
// once posts a step's handle once per step and channel instead, wherever
// it is told, to the step's target ("slack:#ops" names #ops).
func (a *Ask) toldStep() (route.Told, bool) {
	if a.told == nil {
		return route.Told{}, false
	}
	t := *a.told
	t.People = slices.Clone(t.People)
	return t, true
}

// through returns a handle on the ask for the channel a step of its route
// names, as the route names it ("slack:#ops"): what is reported through
// it comes by that channel — the result's answered_via, a vote's via — as
// through the handle the step gave the channel (Told reports the first
// step that names it). A responder that finds an ask (Sessions.Find) for
// a message or a link a step's handle made answers through it. For a
// channel no step of the ask's route names, Through returns a itself.
func (a *Ask) through(channel string) *Ask {
	c := a
	if a.core != nil {
		c = a.core
	}
	if c.rt == nil || c.rt.Route == nil || channel == "" {
		return a
	}
	for _, b := range c.rt.plan(c.form) {
		step := c.rt.Route.Steps[b.Step]
		if slices.Contains(step.Responders, channel) {
			return c.channelHandle(channel, &route.Told{Channel: channel, Begin: b, People: slices.Clone(step.People)})
		}
	}
	return a
}

// routeOf returns the route the ask takes, snapshotted when it began (its
// groups expanded), and whether it takes one.
func (a *Ask) routeOf() (route.Route, bool) {
	if a.rt == nil || a.rt.Route == nil {
		return route.Route{}, false
	}
	r := *a.rt.Route
	r.Steps = slices.Clone(r.Steps)
	for i := range r.Steps {
		r.Steps[i].Responders = slices.Clone(r.Steps[i].Responders)
		r.Steps[i].People = slices.Clone(r.Steps[i].People)
	}
	if r.Quorum != nil {
		q := cloneQuorum(*r.Quorum)
		r.Quorum = &q
	}
	return r, true
}

// via is the channel a person's ending through this handle came by: the
// step's channel on a channel's handle, else "" (the ask's responder).
func (a *Ask) via() string {
	if a.core != nil {
		return a.responder
	}
	return ""
}

// askState is the part of an ask that changes: the one thing the rules of
// reporting and ending act on, whether it lives in this process (an Ask's
// own) or in a store (read from its record, changed, and written back with
// compare-and-set).
type askState struct {
	accepted  []held  // by question index; nil until the first answer
	drafts    *[]held // by question index, as accepted; a pointer, since most asks never have one
	principal string
	votes     []route.Vote // a routed approval's votes, in the order they were accepted
	end       *ending
}

// applyChange applies f to st under the rules every change shares: an ask
// that has ended takes no change (ErrAskEnded, nothing to write); once the
// deadline has come, an ask with no ending ends at it, f is not called, and
// the ending is to be written (write, with ErrAskEnded); otherwise f's error
// refuses the change, and without one, what f did is to be written. f
// checks before it changes anything.
func applyChange(st *askState, expires, now time.Time, f func(*askState) error) (write bool, err error) {
	if st.end != nil {
		return false, ErrAskEnded
	}
	if !now.Before(expires) {
		st.end = &ending{reason: ReasonDeadline}
		return true, ErrAskEnded
	}
	if err := f(st); err != nil {
		return false, err
	}
	return true, nil
}

// change applies f to the ask's state under applyChange's rules and keeps
// what it did: in this process, or in the store. force skips the deadline
// rule (the deadline ending itself, the caller going away). An ending set
// here is published on endCh, and with a store finalized by this process.
func (a *Ask) change(f func(*askState) error, force bool) error {
	if a.core != nil {
		return a.core.change(f, force)
	}
	if a.fa != nil {
		return a.o.fl.change(a.fa, f, force)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	if force {
		if a.end != nil {
			return ErrAskEnded
		}
		err = f(&a.askState)
	} else {
		_, err = applyChange(&a.askState, a.form.ExpiresAt, time.Now(), f)
	}
	if a.end != nil && !isClosed(a.endCh) {
		close(a.endCh)
	}
	return err
}

// open returns ErrAskEnded when the ask has ended, or when its deadline has
// come, which ends it there.
func (a *Ask) open() error {
	if a.core != nil {
		return a.core.open()
	}
	a.mu.Lock()
	ended := a.end != nil
	a.mu.Unlock()
	switch {
	case ended:
		return ErrAskEnded
	case !time.Now().Before(a.form.ExpiresAt):
		a.tryEnd(&ending{reason: ReasonDeadline})
		return ErrAskEnded
	}
	return nil
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// held is an accepted answer (or a draft). Sealed answers keep only their
// reference and the id their value is staged under in the secret store.
type held struct {
	set   bool
	ans   Answer
	ref   string
	stage string // the secretstore.Stager id of a sealed answer's value
	items int    // FinalAnswer.SecretItems
}

type ending struct {
	reason      Reason
	fault       error
	cancelledOn string
	// An approval decided without asking (ReasonPolicy, ReasonRemembered):
	// the option applied, and the ask a remembered decision came from.
	decision       string
	rememberedFrom string
	// via is the route step's channel a person's ending came by, when it
	// came through a channel's handle (see responder.Through).
	via string
}

// ID identifies this ask; it is unguessable (128 random bits).
func (a *Ask) ID() string { return a.id }

// Session is the session the ask belongs to.
func (a *Ask) Session() string { return a.session }

// ToolCallID is the model's tool-call id, where the caller gave one.
func (a *Ask) ToolCallID() string { return a.toolCallID }

// Form is the normalized form. It must not be modified.
func (a *Ask) Form() *Form { return a.form }

// The module's card and MCP tasks leave an ask in a shared store
// (Orchestrator.Asks) pending when they close, for another replica's
// person, rather than ending it as having nobody to ask; no other
// responder needs to know which kind of ask it holds.
func init() {
	sharedask.Is = func(v any) bool {
		a, _ := v.(*Ask)
		return a != nil && a.fa != nil
	}
}

// Done is closed when the ask's outcome is final.
func (a *Ask) Done() <-chan struct{} {
	if a.core != nil {
		return a.core.Done()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done == nil {
		// Most asks are never waited for this way: the channel is made
		// on demand, and one closed channel serves every final ask.
		if a.outcome != nil {
			return closedChan
		}
		a.done = make(chan struct{})
	}
	return a.done
}

// closedChan is the Done of an ask final before anybody asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Outcome returns the final outcome, or nil while the ask is pending.
func (a *Ask) Outcome() *Outcome {
	if a.core != nil {
		return a.core.Outcome()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.outcome
}

// setFinal makes out the ask's final outcome: it closes Done and runs the
// functions registered with AfterEnd.
func (a *Ask) setFinal(out *Outcome) {
	a.mu.Lock()
	a.outcome = out
	if a.done != nil {
		close(a.done)
	}
	after := a.afterEnd
	a.afterEnd = nil
	a.mu.Unlock()
	a.runAfterEnd(after)
}

// AfterEnd arranges for f to run once the ask's outcome is final, in a
// goroutine of its own, as context.AfterFunc does; at once (in a goroutine)
// when the outcome is already final. Each f runs once, after Done is closed,
// so it may read Outcome and call any method of the Ask; the functions
// registered before the ask ended run one after another in the order they
// were registered. A panic in f is logged and goes no further.
// Orchestrator.WaitResponders waits for every f whose ask is final. An EventDriven
// responder uses AfterEnd to learn that an ask has ended without a
// goroutine waiting for it.
func (a *Ask) AfterEnd(f func()) {
	if f == nil {
		return
	}
	if a.core != nil {
		a.core.AfterEnd(f)
		return
	}
	a.mu.Lock()
	if a.outcome != nil {
		// setFinal has taken the list: it will not see f.
		a.mu.Unlock()
		a.runAfterEnd([]func(){f})
		return
	}
	a.afterEnd = append(a.afterEnd, f)
	a.mu.Unlock()
}

// runAfterEnd runs fs in a goroutine that Orchestrator.WaitResponders counts.
func (a *Ask) runAfterEnd(fs []func()) {
	if len(fs) == 0 {
		return
	}
	a.o.running.Add(1)
	go func() {
		defer a.o.running.Done()
		for _, f := range fs {
			a.callAfterEnd(f)
		}
	}()
}

func (a *Ask) callAfterEnd(f func()) {
	defer func() {
		if p := recover(); p != nil {
			a.o.logger().Error("askuser: a function registered with AfterEnd panicked", "ask", a.id, "responder", a.responder, "err", &panicError{value: p}, "stack", string(debug.Stack()))
		}
	}()
	f()
}

// SetPrincipal records who is answering (an opaque name the embedding
// program understands), for the journal and the Outcome.
func (a *Ask) SetPrincipal(p string) {
	if a.core != nil {
		a.core.mu.Lock()
		a.core.principal = p
		a.core.mu.Unlock()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.principal = p
	a.voter = p
}

// voterNow is the principal this handle was given, for a vote.
func (a *Ask) voterNow() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.voter
}

// Accepted returns the answers accepted so far, in question order. Sealed
// answers carry no secret value.
func (a *Ask) Accepted() []Answer {
	if a.core != nil {
		return a.core.Accepted()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Answer
	for _, h := range a.accepted {
		if h.set {
			out = append(out, h.ans)
		}
	}
	return out
}

// Report reports one answer. It is checked (see responder.CheckAnswer) and kept,
// replacing any earlier answer to the same question; a refused answer
// returns an *AnswerError and leaves what was accepted before untouched. A
// sealed answer's secret value is sealed into the secret store and wiped;
// it replaces the record under its name once the ask's final outcome
// carries its reference, and never otherwise. After the ask has ended,
// Report returns ErrAskEnded.
func (a *Ask) Report(ans Answer) error {
	return a.report(ans, false)
}

// Draft reports what the person has checked but not yet submitted. It is
// checked like an answer and kept apart: it counts only where a question's
// OnDeadline is FallbackDraft and the deadline comes first, and replaces
// the question's earlier draft. A draft of nothing — no option selected and
// no text in Other — forgets the question's draft: the person has unchecked
// what they had checked, and the deadline must not apply it. A draft never
// changes an answer already reported, and never carries a secret value. A
// question the call does not ask returns an *AnswerError; after the ask
// has ended, Draft returns ErrAskEnded.
func (a *Ask) Draft(ans Answer) error {
	if !ans.Secret.Empty() {
		ans.Secret.Wipe()
		return &AnswerError{QuestionID: ans.QuestionID, Reason: "a secret cannot be kept as a draft; submit it as an answer"}
	}
	if len(ans.Selected) == 0 && strings.TrimSpace(ans.Other) == "" {
		return a.clearDraft(ans.QuestionID)
	}
	return a.report(ans, true)
}

// clearDraft forgets the draft of the question questionID, if it has one.
func (a *Ask) clearDraft(questionID string) error {
	idx := a.indexOf(questionID)
	if idx < 0 {
		if err := a.open(); err != nil {
			return err
		}
		return a.form.unknownQuestion(questionID)
	}
	return a.change(func(st *askState) error {
		if st.drafts != nil && idx < len(*st.drafts) {
			(*st.drafts)[idx] = held{}
		}
		return nil
	}, false)
}

func (a *Ask) report(ans Answer, draft bool) error {
	if a.core != nil {
		return a.core.report(ans, draft)
	}
	defer ans.Secret.Wipe()
	if err := a.form.checkAnswer(ans); err != nil {
		// An ask that has ended says so first.
		if cerr := a.open(); cerr != nil {
			return cerr
		}
		return err
	}
	idx := a.indexOf(ans.QuestionID)
	q := &a.form.Questions[idx]
	h := held{set: true, ans: ans}
	h.ans.Secret = secret.Value{}
	h.ans.Selected = append([]string(nil), ans.Selected...)
	if len(ans.OptionNotes) > 0 {
		h.ans.OptionNotes = make(map[string]string, len(ans.OptionNotes))
		for k, v := range ans.OptionNotes {
			h.ans.OptionNotes[k] = v
		}
	}
	n := len(a.form.Questions)
	if !q.sealed() || draft {
		return a.change(func(st *askState) error {
			st.keep(idx, n, h, draft)
			return nil
		}, false)
	}
	if err := a.open(); err != nil {
		return err
	}

	// A sealed answer goes to the store outside the ask's lock, so that
	// neither the deadline nor the other reports wait on the disk. It is
	// staged: the record under its name, which an earlier ask's result may
	// point to, changes only when this ask's outcome carries the reference
	// (see settleSecrets). Seals of one ask are taken one at a time
	// (sealing), so the store and the accepted answer agree on which value
	// is the latest.
	a.sealing <- struct{}{}
	defer func() { <-a.sealing }()
	name := q.sealName()
	id, err := a.o.stager.Stage(a.base, a.session, name, ans.Secret)
	if err != nil {
		a.o.logger().Error("askuser: sealing an answer failed", "ask", a.id, "question", q.ID, "err", err)
		return &AnswerError{QuestionID: q.ID, Reason: "the secret could not be stored safely; try again"}
	}
	h.ref = secretstore.Ref(name)
	h.stage = id
	h.items, _ = secretItems(q, ans.Secret)
	var replaced string
	err = a.change(func(st *askState) error {
		replaced = ""
		if st.accepted != nil {
			replaced = st.accepted[idx].stage
		}
		st.keep(idx, n, h, false)
		return nil
	}, false)
	if err != nil {
		// The ask ended while the value was sealed: the report lost, and
		// what it staged goes.
		a.discard(q, id)
		return err
	}
	if replaced != "" && replaced != id {
		a.discard(q, replaced)
	}
	return nil
}

// discard removes a value this ask staged and will not hand out.
func (a *Ask) discard(q *Question, id string) {
	if err := a.o.stager.Discard(a.base, a.session, q.sealName(), id); err != nil {
		a.o.logger().Error("askuser: discarding a sealed answer that is not handed out failed", "ask", a.id, "question", q.ID, "err", err)
	}
}

// keep keeps an accepted answer, or a draft, to the question at idx of n.
func (st *askState) keep(idx, n int, h held, draft bool) {
	slot := &st.accepted
	if draft {
		if st.drafts == nil {
			st.drafts = new([]held)
		}
		slot = st.drafts
	}
	if *slot == nil {
		*slot = make([]held, n)
	}
	(*slot)[idx] = h
}

func (a *Ask) indexOf(id string) int {
	for i := range a.form.Questions {
		if a.form.Questions[i].ID == id {
			return i
		}
	}
	return -1
}

// tryEnd ends the ask unless it has ended; the deadline wins over any
// ending at or after ExpiresAt, and the caller's going away is taken
// whenever it comes. It reports whether e took effect.
func (a *Ask) tryEnd(e *ending) bool {
	force := e.reason == ReasonDeadline || e.reason == ReasonCaller
	return a.change(func(st *askState) error {
		st.end = e
		return nil
	}, force) == nil
}

// Submit ends the ask: the person is done. It is refused with an
// *UnansweredError while a required question has no accepted answer, and
// with ErrAskEnded after the ask has ended.
//
// For an approval decided by a quorum (a route's, or Request.Approvers),
// Submit casts a vote instead: the decision reported, by the principal
// last given to SetPrincipal, through this responder. The quorum is
// decided again on every vote accepted — here or on any replica — and
// only a vote that decides (approved, or a veto) ends the ask; otherwise
// it stays open for the others, and the person's pick is cleared. A
// responder that takes several people's decisions on one ask calls
// SetPrincipal and Submit for each in turn.
func (a *Ask) Submit() error {
	rt := a.quorumRouting()
	voter := a.voterNow()
	err := a.change(func(st *askState) error {
		var missing []string
		for i := range a.form.Questions {
			q := &a.form.Questions[i]
			if !q.Optional && (st.accepted == nil || !st.accepted[i].set) {
				missing = append(missing, q.ID)
			}
		}
		if missing != nil {
			return &UnansweredError{QuestionIDs: missing}
		}
		if rt != nil {
			d, remember := decisionOf(st.accepted[0].ans.Selected[0])
			return rt.vote(st, route.Vote{Principal: voter, Decision: d, Remember: remember, Note: st.accepted[0].ans.Note}, a.responder, time.Now())
		}
		st.end = &ending{reason: ReasonSubmitted, via: a.via()}
		return nil
	}, false)
	if err == nil && rt != nil {
		a.voted.Store(true)
	}
	return err
}

// quorumRouting is the ask's routing when a quorum decides it by votes,
// else nil.
func (a *Ask) quorumRouting() *routing {
	if a.rt == nil || a.rt.Quorum == nil || a.form.Approval == nil {
		return nil
	}
	return a.rt
}

// verdict returns the votes a routed approval has taken so far, in order,
// each as the quorum counts it (see route.Decide): what a responder shows
// the others ("1 of 2 approved: alice via slack"). It returns nil for an
// ask no quorum decides.
func (a *Ask) verdict() *route.Verdict {
	rt := a.quorumRouting()
	if rt == nil {
		return nil
	}
	c := a
	if a.core != nil {
		c = a.core
	}
	c.mu.Lock()
	votes := slices.Clone(c.votes)
	c.mu.Unlock()
	v, err := route.Decide(*rt.Quorum, rt.parties(), votes, nil)
	if err != nil {
		return nil
	}
	return &v
}

// Decline ends the ask: the person declines the whole call. Nothing they
// answered is passed on. It returns ErrAskEnded after the ask has ended.
//
// For an approval decided by a quorum, Decline is the person's deny vote
// (see Submit).
func (a *Ask) Decline() error {
	rt := a.quorumRouting()
	if rt == nil {
		return a.endWith(&ending{reason: ReasonDeclined, via: a.via()})
	}
	voter := a.voterNow()
	err := a.change(func(st *askState) error {
		return rt.vote(st, route.Vote{Principal: voter, Decision: route.Deny}, a.responder, time.Now())
	}, false)
	if err == nil {
		a.voted.Store(true)
	}
	return err
}

// Cancel ends the ask: the person dismissed it. onQuestion names the
// question they were on, or is empty. The answers given so far are kept
// (unless the contract drops them). It returns ErrAskEnded after the ask has
// ended.
//
// For an approval decided by a quorum, a person's dismissal of their own
// card ends nothing while others can still vote: Cancel returns nil (or
// ErrAskEnded) and the ask stays open until the votes decide it or it ends
// otherwise.
func (a *Ask) Cancel(onQuestion string) error {
	if a.quorumRouting() != nil {
		if err := a.open(); err != nil {
			return err
		}
		a.voted.Store(true)
		return nil
	}
	return a.endWith(&ending{reason: ReasonDismissed, cancelledOn: onQuestion, via: a.via()})
}

// Unreachable ends the ask: nobody can be asked. The orchestrator applies
// the unattended rules of the call's contract. It returns ErrAskEnded after
// the ask has ended.
func (a *Ask) Unreachable() error { return a.endWith(&ending{reason: ReasonUnattended}) }

func (a *Ask) endWith(e *ending) error {
	return a.change(func(st *askState) error {
		st.end = e
		return nil
	}, false)
}

// buildOutcome builds the outcome from the ending and what was accepted.
// It runs once, after the ask has an ending.
func (a *Ask) buildOutcome(now time.Time) *Outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.end
	o := &Outcome{
		AskID:          a.id,
		Session:        a.session,
		ToolCallID:     a.toolCallID,
		Form:           a.form,
		Reason:         e.reason,
		CancelledOn:    e.cancelledOn,
		RememberedFrom: e.rememberedFrom,
		Fault:          e.fault,
		Principal:      a.principal,
		Responder:      a.responder,
		FinalizedAt:    now.UTC(),
	}
	given := func() {
		for i, h := range a.accepted {
			if h.set {
				o.Answers = append(o.Answers, a.final(i, h, ByUser, false))
			}
		}
	}
	switch e.reason {
	case ReasonSubmitted:
		o.Status, o.AnsweredBy = StatusAnswered, ByUser
		given()
	case ReasonDeclined:
		o.Status, o.AnsweredBy = StatusDeclined, ByUser
		if a.form.DeclineKeepsAnswers {
			given()
		}
	case ReasonDismissed:
		o.Status, o.AnsweredBy = StatusCancelled, ByUser
		if !a.form.CancelDropsAnswers {
			given()
		}
	case ReasonSuperseded, ReasonFault, ReasonCaller:
		o.Status, o.AnsweredBy = StatusCancelled, ByUnattended
		given()
	case ReasonDeadline:
		if fills, ok := a.fills(true); ok {
			o.Status, o.AnsweredBy = StatusTimedOut, ByTimeout
			a.merge(o, fills, ByTimeout)
		} else {
			o.Status, o.AnsweredBy = StatusDeclined, ByTimeout
			given()
		}
	case ReasonPolicy, ReasonRemembered:
		by := ByPolicy
		if e.reason == ReasonRemembered {
			by = ByRemembered
		}
		o.Status, o.AnsweredBy = StatusAnswered, by
		o.Answers = []FinalAnswer{{QuestionID: approval.QuestionID, Selected: []string{e.decision}, By: by}}
	case ReasonUnattended:
		fills, ok := a.fills(false)
		if ok && a.form.Unattended == FallbackDefaults {
			o.Status, o.AnsweredBy = StatusAnswered, ByUnattended
			a.merge(o, fills, ByUnattended)
		} else {
			o.Status, o.AnsweredBy = StatusDeclined, ByUnattended
			given()
		}
	}
	if a.form.Approval != nil && e.reason != ReasonSubmitted && e.reason != ReasonPolicy && e.reason != ReasonRemembered {
		// An approval nobody decided carries nothing a reader could take
		// for a decision: what the person picked without submitting goes.
		o.Answers = nil
	}
	if a.rt != nil {
		o.rt = a.rt
		if rt := a.quorumRouting(); rt != nil && e.reason != ReasonPolicy && e.reason != ReasonRemembered {
			rt.quorumOutcome(o, a.votes, a.form.ExpiresAt)
			o.AnsweredVia = answeredVia(o.Quorum)
		} else if o.AnsweredBy == ByUser {
			o.AnsweredVia = a.responder
			if e.via != "" {
				o.AnsweredVia = e.via
			}
		}
		if a.rt.Route != nil {
			o.Step = stepAt(a.rt.Route, a.form, now)
		}
	}
	return o
}

// fills returns, for every unanswered question, what its rule applies —
// the declared defaults, or at the deadline a draft — and whether every
// unanswered question got something (at the deadline, a question whose rule
// is FallbackNothing counts as served: it stays unanswered).
func (a *Ask) fills(deadline bool) (map[int]FinalAnswer, bool) {
	fills := map[int]FinalAnswer{}
	for i := range a.form.Questions {
		if a.accepted != nil && a.accepted[i].set {
			continue
		}
		q := &a.form.Questions[i]
		rule := q.OnDeadline
		if !deadline {
			rule = FallbackDefaults
		}
		switch rule {
		case FallbackDraft:
			if a.drafts != nil && (*a.drafts)[i].set {
				f := a.final(i, (*a.drafts)[i], ByTimeout, true)
				fills[i] = f
				continue
			}
			fallthrough
		case FallbackDefaults:
			if d := q.declaredDefaults(); d != nil {
				fills[i] = FinalAnswer{QuestionID: q.ID, Selected: d}
				continue
			}
		case FallbackNothing:
			continue // stays unanswered, and does not stop the others' fills
		}
		return nil, false
	}
	return fills, true
}

// merge puts the person's answers and the fills in question order.
func (a *Ask) merge(o *Outcome, fills map[int]FinalAnswer, by Provenance) {
	for i := range a.form.Questions {
		if a.accepted != nil && a.accepted[i].set {
			o.Answers = append(o.Answers, a.final(i, a.accepted[i], ByUser, false))
		} else if f, ok := fills[i]; ok {
			f.By = by
			o.Answers = append(o.Answers, f)
		}
	}
}

func (a *Ask) final(i int, h held, by Provenance, draft bool) FinalAnswer {
	return FinalAnswer{
		QuestionID:  a.form.Questions[i].ID,
		Selected:    h.ans.Selected,
		Other:       h.ans.Other,
		Note:        h.ans.Note,
		OptionNotes: h.ans.OptionNotes,
		SecretRef:   h.ref,
		SecretItems: h.items,
		By:          by,
		Draft:       draft,
	}
}

// settleSecrets decides about every value this ask staged, once its
// outcome is final and no seal is under way: a value whose reference the
// outcome carries becomes the record under its name (replacing what an
// earlier ask stored there), and any other is discarded, so that the
// record an earlier result points to stays as it was.
func (a *Ask) settleSecrets(o *Outcome) {
	a.mu.Lock()
	accepted := slices.Clone(a.accepted)
	a.mu.Unlock()
	for i, h := range accepted {
		if h.stage == "" {
			continue
		}
		q := &a.form.Questions[i]
		if f := o.Answer(q.ID); f == nil || f.SecretRef != h.ref {
			a.discard(q, h.stage)
			continue
		}
		if err := a.o.stager.Commit(a.base, a.session, q.sealName(), h.stage); err != nil {
			a.o.logger().Error("askuser: storing a sealed answer failed; its reference does not resolve to it", "ask", a.id, "question", q.ID, "ref", h.ref, "err", err)
		}
	}
}
