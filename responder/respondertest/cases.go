package respondertest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// cases are the kit's cases, in the order they are reported. Each case
// states what it asks and what it expects; most take one of two shapes, a
// batch (several forms at once, each in a session of its own) or a oneAsk
// (one form, ended at its deadline or from outside).
var cases = []Case{
	{
		Name: "every-kind",
		Rule: "A responder handles every kind of form — single choice, multi-select, closed choice, text, multi-line text, four questions — without an error, a panic or a return without an ending while the ask is open, and returns promptly once the ask has ended, however it ended.",
		run:  batch{asks: soon(forms), check: each(noFault)}.run,
	},
	{
		Name: "secret-forms",
		Rule: "A responder that can collect secrets handles a secret question and sensitive ones without an error, a panic or a return without an ending while the ask is open; answered by its person (Filler), each ends submitted, by the user.",
		run: batch{needs: collectsSecrets, asks: byFiller(secretForms), person: fillEach,
			check: func(e *env, ps []*pend) error { return each(answeredByPerson(e))(e, ps) }}.run,
	},
	{
		Name: "secret-not-in-errors",
		Rule: "No secret value a responder hands over appears in an error Respond returns, in a panic, in the outcome's Fault or in what the orchestrator logs.",
		run: batch{needs: collectsSecrets, asks: byFiller(secretForms), person: fillEach, check: secretsKept,
			settled: "the secret values could not be looked for"}.run,
	},
	{
		Name: "deadline",
		Rule: "A responder returns promptly once its context ends at the form's deadline, with nil, the context's error or ErrAskEnded.",
		run:  oneAsk{form: singleChoice, want: askuser.ReasonDeadline, ending: "its deadline, so its context never ended there"}.run,
	},
	{
		Name: "superseded",
		Rule: "A responder returns promptly once the ask is superseded, with nil, the context's error or ErrAskEnded.",
		run:  oneAsk{form: singleChoice, end: supersede, want: askuser.ReasonSuperseded, ending: "it was superseded"}.run,
	},
	{
		Name: "caller-gone",
		Rule: "A responder returns promptly once the caller stops waiting for the ask, with nil, the context's error or ErrAskEnded.",
		run:  oneAsk{form: singleChoice, end: goAway, want: askuser.ReasonCaller, ending: "its caller went away"}.run,
	},
	{
		Name: "ended-before-start",
		Rule: "A responder handed an ask that has already ended — its context done, every report refused with ErrAskEnded — returns promptly, without a panic, with nil, the context's error or ErrAskEnded.",
		run: batch{asks: func(e *env) []namedForm { return e.everyForm(long) }, before: supersedeFirst,
			check: each(wayOutOnceReturned)}.run,
	},
	{
		Name: "several-pending",
		Rule: "Several asks may be pending at once, in one session or in several: a responder that shows one at a time queues them, and a queued ask whose context ends returns promptly while the ask in front of it is still open.",
		run:  severalPending,
	},
	{
		Name: "form-unchanged",
		Rule: "A responder does not modify the Form it is given.",
		run: batch{asks: func(e *env) []namedForm { return e.everyForm(e.short()) }, check: each(formKept),
			settled: "the form could not be compared"}.run,
	},
	{
		Name: "ends-once",
		Rule: "A responder ends an ask once and reports nothing after its own ending: Respond does not come back with the ErrAskEnded that refused a later report or ending.",
		run:  batch{asks: byPerson(forms), person: answerFirst, check: endsOnce}.run,
	},
	{
		Name: "approval-not-taken",
		Rule: "A responder that does not declare it can take approvals (askuser.ApprovalCapable) is never handed one: the approval ends unresolved, with nobody asked, and Respond is not called for it.",
		run: batch{needs: refusesApprovals, asks: late(approvalForms), check: notHanded, handedNone: true,
			settled: "the approvals' endings could not be checked"}.run,
	},
	{
		Name: "approval-forms",
		Rule: "A responder that takes approvals handles an approval of every risk, with and without details, without an error, a panic or a return without an ending while the ask is open, and returns promptly once it has ended.",
		run:  batch{needs: takesApprovals, asks: soon(approvalForms), check: each(noFault)}.run,
	},
	{
		Name: "approval-not-approved",
		Rule: "With nobody to decide (the kit plays no person), a responder that takes approvals never ends one approved — not at once, not from a draft or a default, not at the deadline — and an approval it leaves open ends unresolved at its deadline.",
		run:  batch{needs: takesApprovals, asks: soon(approvalForms), check: each(notApproved)}.run,
	},
	{
		Name: "approval-superseded",
		Rule: "A responder that takes approvals returns promptly once an approval it shows is superseded, with nil, the context's error or ErrAskEnded, and the approval ends unresolved.",
		run: oneAsk{needs: takesApprovals, form: approvalWithDetails, end: supersede, want: askuser.ReasonSuperseded,
			ending: "it was superseded", check: supersededUnresolved}.run,
	},
}

// A batch case asks several forms at once, each in a session of its own,
// waits for every ask to end and up to Grace for every Respond to return,
// and checks what became of them. A Respond that had not returned fails the
// case, alongside what the check found, or in its place when the check
// could not be made (it skipped, or settled is set).
type batch struct {
	// needs, when set, says why the case does not apply to the responder,
	// or nil when it does.
	needs func(e *env) error
	// asks is what the case asks.
	asks func(e *env) []namedForm
	// before, when set, runs in each Respond (or Asked) before the
	// responder is called; Respond is called once the ask's context is done.
	before func(e *env, a *askuser.Ask)
	// person, when set, acts as the person on the asks once they are
	// asked (with Options.Person; it does nothing without).
	person func(e *env, ps []*pend) error
	// check is what the case expects of the asks once they have ended.
	check func(e *env, ps []*pend) error
	// settled, when set, says what could not be checked had a Respond not
	// returned: the check reads what each Respond left behind, so it is made
	// only once every Respond has returned.
	settled string
	// handedNone is set when no ask is to reach Respond: the case is not
	// skipped then.
	handedNone bool
}

func (b batch) run(e *env) error {
	if b.needs != nil {
		if err := b.needs(e); err != nil {
			return err
		}
	}
	e.before = b.before
	ps := e.askAll(b.asks(e))
	var perr error
	if b.person != nil {
		perr = b.person(e, ps)
	}
	herr := e.finish(ps...)
	if perr != nil {
		return errors.Join(perr, herr)
	}
	if herr != nil && b.settled != "" {
		return fmt.Errorf("%s: %w", b.settled, herr)
	}
	if !b.handedNone && !anyResponded(ps) {
		return errNotReached
	}
	err := b.check(e, ps)
	var skip skipError
	if !errors.As(err, &skip) {
		return errors.Join(err, herr)
	}
	if herr != nil {
		// A Respond that has not returned fails the case even where the
		// check could not be made.
		return herr
	}
	return err
}

// A oneAsk case asks one form and, once Respond waits for it, lets it reach
// its deadline or ends it from outside; then it checks that Respond returns
// promptly and with nil, the context's error or ErrAskEnded.
type oneAsk struct {
	// needs, when set, says why the case does not apply to the responder,
	// or nil when it does.
	needs func(e *env) error
	// form is the form the case asks, due at timeout.
	form func(timeout int) namedForm
	// end ends the ask; nil leaves it to its deadline, which is then the
	// short one.
	end func(e *env, p *pend)
	// want is the reason the ask is to end with, and ending says how it
	// ends, for the skip when the responder ended it first.
	want   askuser.Reason
	ending string
	// check, when set, is what the case expects of the ask's outcome besides.
	check func(p *pend) error
}

func (c oneAsk) run(e *env) error {
	if c.needs != nil {
		if err := c.needs(e); err != nil {
			return err
		}
	}
	timeout := long
	if c.end == nil {
		timeout = e.short()
	}
	f := c.form(timeout)
	p := e.ask("respondertest", f)
	if !p.waitEntered() {
		return errNotReached
	}
	if c.end != nil {
		e.settle()
		c.end(e, p)
	}
	herr := e.finish(p)
	if c.check != nil {
		if err := c.check(p); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	if r := p.outcome().Reason; r != c.want {
		what := "ask"
		if f.form.Approval != nil {
			what = "approval"
		}
		return skipf("the responder's %s ended (%s) before %s", what, r, c.ending)
	}
	if herr != nil {
		return herr
	}
	return p.c.wayOut()
}

// soon and late ask forms due at the short deadline, which is meant to
// pass, or at the long one, meant to be ended another way first.
func soon(fs func(timeout int) []namedForm) func(*env) []namedForm {
	return func(e *env) []namedForm { return fs(e.short()) }
}

func late(fs func(timeout int) []namedForm) func(*env) []namedForm {
	return func(*env) []namedForm { return fs(long) }
}

// byPerson asks forms due at the long deadline when the kit has a Person
// to answer them (the person, a mail away, may take longer than the short
// one), else at the short one.
func byPerson(fs func(timeout int) []namedForm) func(*env) []namedForm {
	return func(e *env) []namedForm {
		if p, _ := e.person(); p != nil {
			return fs(long)
		}
		return fs(e.short())
	}
}

// byFiller is byPerson for a Person that can answer whole forms.
func byFiller(fs func(timeout int) []namedForm) func(*env) []namedForm {
	return func(e *env) []namedForm {
		if e.filler() != nil {
			return fs(long)
		}
		return fs(e.short())
	}
}

// What a case needs of the responder.

func collectsSecrets(e *env) error {
	if !e.canCollectSecrets() {
		return errNoSecrets
	}
	return nil
}

func takesApprovals(e *env) error {
	if !e.canTakeApprovals() {
		return errNoApproval
	}
	return nil
}

func refusesApprovals(e *env) error {
	if e.canTakeApprovals() {
		return skipError("the responder takes approvals (its CanTakeApprovals reports true); the approval cases after this one check how")
	}
	return nil
}

// How a case ends an ask, and lets it end.

func supersede(e *env, p *pend) { e.o.Supersede(p.session) }

func goAway(_ *env, p *pend) { p.cancel() }

// supersedeFirst ends the ask before the responder sees it.
func supersedeFirst(e *env, a *askuser.Ask) {
	e.o.Supersede(a.Session())
}

// What a case expects.

// each checks with f every ask that reached Respond, naming the ask in
// what it finds.
func each(f func(p *pend) error) func(*env, []*pend) error {
	return func(_ *env, ps []*pend) error {
		var errs []error
		for _, p := range ps {
			if !p.responded() {
				continue
			}
			if err := f(p); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", p.name, err))
			}
		}
		return errors.Join(errs...)
	}
}

// noFault: the ask did not end as a responder fault.
func noFault(p *pend) error {
	if out := p.outcome(); out != nil && out.Reason == askuser.ReasonFault {
		return fmt.Errorf("the responder failed (an error, a panic, or a return without an ending while the ask was open): %v", out.Fault)
	}
	return nil
}

// wayOutOnceReturned: a Respond that has returned came out well.
func wayOutOnceReturned(p *pend) error {
	if !p.c.hasReturned() {
		return nil
	}
	return p.c.wayOut()
}

// formKept: the form is as it was given.
func formKept(p *pend) error {
	if d := cmp.Diff(p.c.given, p.c.ask.Form()); d != "" {
		return fmt.Errorf("the form changed while the responder had it (-given +after):\n%s", d)
	}
	return nil
}

// notApproved: the approval did not end approved, and one left to its
// deadline ended unresolved there.
func notApproved(p *pend) error {
	out := p.outcome()
	v, _ := approvaltool.VerdictOf(out)
	switch {
	case v.Status == approval.Approved:
		return fmt.Errorf("the approval ended approved (%s, decided by %s) with no person to approve it; a responder approves only what its person approved", out.Reason, v.DecidedBy)
	case out.Reason == askuser.ReasonDeadline && (v.Status != approval.Unresolved || v.Ended != askuser.ReasonDeadline):
		return fmt.Errorf("at the deadline the approval ended %s, want unresolved", v.Status)
	}
	return nil
}

// supersededUnresolved: the approval did not end approved, and ended
// unresolved if it was superseded.
func supersededUnresolved(p *pend) error {
	out := p.outcome()
	v, _ := approvaltool.VerdictOf(out)
	switch {
	case out.Reason != askuser.ReasonSuperseded && v.Status == approval.Approved:
		return fmt.Errorf("the approval ended approved (%s) with no person to approve it", out.Reason)
	case out.Reason == askuser.ReasonSuperseded && v.Status != approval.Unresolved:
		return fmt.Errorf("a superseded approval ended %s, want unresolved", v.Status)
	}
	return nil
}

// notHanded: no approval reached Respond, and each ended unresolved with
// nobody to ask.
func notHanded(_ *env, ps []*pend) error {
	var errs []error
	for _, p := range ps {
		if p.responded() {
			errs = append(errs, fmt.Errorf("%s: Respond was called with an approval, though the responder does not take approvals", p.name))
		}
		if p.err != nil {
			errs = append(errs, fmt.Errorf("%s: Handle failed: %w", p.name, p.err))
			continue
		}
		if v, _ := approvaltool.VerdictOf(p.out); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
			errs = append(errs, fmt.Errorf("%s: the approval ended %s (%s), want unresolved with nobody to ask (unattended)", p.name, v.Status, p.out.Reason))
		}
	}
	return errors.Join(errs...)
}

// secretsKept: no secret value the responder handed over is in an error,
// a panic, a Fault or the orchestrator's log.
func secretsKept(e *env, ps []*pend) error {
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
}

// endsOnce: no ask the responder ended itself was followed by a refused
// report or ending; the case is skipped when it ended none.
func endsOnce(_ *env, ps []*pend) error {
	var errs []error
	own := false
	for _, p := range ps {
		if !p.responded() || !selfEnded(p.outcome().Reason) {
			continue
		}
		own = true
		if p.c.hasReturned() && errors.Is(p.c.err, askuser.ErrAskEnded) {
			errs = append(errs, fmt.Errorf("%s: the responder ended the ask (%s), then made another report or ending, which was refused: Respond returned %q", p.name, p.outcome().Reason, p.c.err))
		}
	}
	if !own {
		return skipError("the responder ended no ask itself (each ended at its deadline), so there was no ending of its own to follow; a responder driven by a person gives the kit one (Options.Person)")
	}
	return errors.Join(errs...)
}

// selfEnded reports whether an ask was ended by its responder.
func selfEnded(r askuser.Reason) bool {
	switch r {
	case askuser.ReasonSubmitted, askuser.ReasonDeclined, askuser.ReasonDismissed, askuser.ReasonUnattended:
		return true
	}
	return false
}

func anyResponded(ps []*pend) bool {
	for _, p := range ps {
		if p.responded() {
			return true
		}
	}
	return false
}

// severalPending queues a second ask behind a first, in one session and in
// two, and ends the second: it is skipped only when neither could be
// queued.
func severalPending(e *env) error {
	same := queued(e, "in one session", "respondertest-a", "respondertest-a", func(p *pend) { p.cancel() })
	other := queued(e, "in two sessions", "respondertest-b", "respondertest-c", func(p *pend) { e.o.Supersede(p.session) })
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
}

// queued asks two forms, the second once the first is waiting, ends the
// second with end, and checks that its Respond returns while the first is
// still open.
func queued(e *env, how, first, second string, end func(*pend)) error {
	fs := forms(long)
	a := e.ask(first, fs[0])
	defer func() {
		e.o.Supersede(first)
		e.o.Supersede(second)
		<-a.handled
	}()
	if !a.waitEntered() {
		return errNotReached
	}
	e.settle()
	b := e.ask(second, fs[1])
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
