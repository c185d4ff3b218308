package respondertest

import (
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// A Person acts as the person through a responder's own channel — signed
// clicks for a chat responder, followed links for a mail one — so that the
// kit can check what the responder does with a person's answer: the cases
// that need one (person-answers, person-approves, person-denies, and
// ends-once for a responder that ends no ask by itself) are skipped without
// it. Its methods hand the action over and return; the kit then waits for
// the ask to end. An error says the action could not be made (not that the
// responder refused it), and fails the case. The person declines an
// approval with Decide (approval.DenyOnce), and waits by being asked
// nothing: the cases that leave an ask to its deadline or end it from
// outside run as they do without a Person.
//
// A Person that can also answer a whole form, secrets included, through
// the responder's own path for them is a [Filler]: the secret cases then
// have it hand the secrets over.
//
// A responder's author gives one with Options.Person:
//
//	respondertest.Run(t, newResponder, &respondertest.Options{
//		Person: func(r askuser.Responder) respondertest.Person { return clicker{r.(*myresponder.Responder)} },
//	})
type Person interface {
	// Choose picks option (an index into Options) of question (an index
	// into the form's Questions) of a, a single choice, and submits the
	// ask if the responder needs that done apart.
	Choose(a *askuser.Ask, question, option int) error
	// Decide decides the approval a with one of its options'
	// values: approval.ApproveOnce, approval.DenyOnce, and so on.
	Decide(a *askuser.Ask, choice string) error
}

// A Filler is a Person who can also answer every question of a form and
// submit it, through the path the responder gives the person for it — for
// a chat or mail responder, which never carries a secret, the one-time
// link to the web card its message offers. With one, the secret cases
// (secret-forms, secret-not-in-errors) have the person answer each sealed
// form, and check that it ends submitted, by the user, with its secrets
// sealed and found nowhere else; without one, they are checked with the
// forms left to their deadline.
type Filler interface {
	Person
	// Fill gives answers (one per question of a, in the form's order; a
	// sealed question's value in Secret, which Fill may read and must not
	// keep) and submits the ask.
	Fill(a *askuser.Ask, answers []askuser.Answer) error
}

// personCases are the cases that need Options.Person.
var personCases = []Case{
	{
		Name: "person-answers",
		Rule: "A person's answer, given through the responder's own channel, ends the ask once, submitted, with the option the person picked, decided by the user; the same answer given again changes nothing.",
		run:  personAnswers,
	},
	{
		Name: "person-approves",
		Rule: "A person's approval, given through the responder's own channel, ends the approval approved, decided by the user, once.",
		run:  func(e *env) error { return personDecides(e, approval.ApproveOnce, approval.Approved) },
	},
	{
		Name: "person-denies",
		Rule: "A person's denial, given through the responder's own channel, ends the approval denied, decided by the user, once.",
		run:  func(e *env) error { return personDecides(e, approval.DenyOnce, approval.Denied) },
	},
}

func init() { cases = append(cases, personCases...) }

var errNoPerson = skipError("the kit has no way to act as the person through this responder's channel (Options.Person), so no person's answer was given")

// filler is the kit's Person as a Filler, or nil.
func (e *env) filler() Filler {
	p, err := e.person()
	if err != nil {
		return nil
	}
	f, _ := p.(Filler)
	return f
}

func (e *env) person() (Person, error) {
	if e.opts.Person == nil {
		return nil, errNoPerson
	}
	p := e.opts.Person(e.r)
	if p == nil {
		return nil, errNoPerson
	}
	return p, nil
}

// personAnswers has the person pick staging in the single choice (whose
// default is production), and then pick it again.
func personAnswers(e *env) error {
	person, err := e.person()
	if err != nil {
		return err
	}
	f := singleChoice(long)
	p := e.ask("respondertest-person", f)
	defer e.o.Supersede(p.session)
	if !p.waitEntered() {
		return errNotReached
	}
	e.settle()
	if err := person.Choose(p.c.ask, 0, 0); err != nil {
		return fmt.Errorf("the person could not answer: %w", err)
	}
	<-p.handled
	out := p.outcome()
	switch {
	case p.err != nil:
		return fmt.Errorf("the orchestrator's Handle failed: %w", p.err)
	case out.Reason != askuser.ReasonSubmitted:
		return fmt.Errorf("after the person picked staging the ask ended %s (%s); want submitted", out.Reason, out.AnsweredBy)
	case out.AnsweredBy != askuser.ByUser || len(out.Answers) != 1 || len(out.Answers[0].Selected) != 1 || out.Answers[0].Selected[0] != f.form.Questions[0].Options[0].Value && out.Answers[0].Selected[0] != "staging":
		return fmt.Errorf("the outcome is %s with %+v; want staging, decided by the user", out.AnsweredBy, out.Answers)
	}
	if err := person.Choose(p.c.ask, 0, 1); err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return fmt.Errorf("the person could not answer again: %w", err)
	}
	if err := e.finish(p); err != nil {
		return err
	}
	if again := p.c.ask.Outcome(); again.Answers[0].Selected[0] != out.Answers[0].Selected[0] {
		return fmt.Errorf("a second answer after the ask ended changed its outcome to %+v", again.Answers)
	}
	if p.c.hasReturned() && errors.Is(p.c.err, askuser.ErrAskEnded) {
		return fmt.Errorf("the responder ended the ask, then made another report or ending, which was refused: Respond returned %q", p.c.err)
	}
	return p.c.wayOut()
}

// personDecides has the person decide an approval with choice, which must
// end it want.
func personDecides(e *env, choice string, want string) error {
	if err := takesApprovals(e); err != nil {
		return err
	}
	person, err := e.person()
	if err != nil {
		return err
	}
	p := e.ask("respondertest-person", approvalWithDetails(long))
	defer e.o.Supersede(p.session)
	if !p.waitEntered() {
		return errNotReached
	}
	e.settle()
	if err := person.Decide(p.c.ask, choice); err != nil {
		return fmt.Errorf("the person could not decide: %w", err)
	}
	<-p.handled
	if p.err != nil {
		return fmt.Errorf("the orchestrator's Handle failed: %w", p.err)
	}
	v, _ := approvaltool.VerdictOf(p.outcome())
	if v.Status != want || v.DecidedBy != askuser.ByUser {
		return fmt.Errorf("after the person chose %s the approval ended %s, decided by %s; want %s by the user", choice, v.Status, v.DecidedBy, want)
	}
	if err := e.finish(p); err != nil {
		return err
	}
	return p.c.wayOut()
}

// The answers the kit's person gives the secret forms: every sealed value
// holds a canary, which the kit then looks for where no secret may be.
func secretAnswers(f *askuser.Form) []askuser.Answer {
	var as []askuser.Answer
	for i := range f.Questions {
		q := &f.Questions[i]
		a := askuser.Answer{QuestionID: q.ID}
		switch {
		case !responder.Sealed(q) && q.Kind == askuser.KindText:
			a.Other = "respondertest-user"
		case !responder.Sealed(q):
			a.Selected = []string{q.Options[0].Value}
		case q.Kind == askuser.KindSecret || q.Kind == askuser.KindText:
			a.Secret = secret.FromString(canaries[i%len(canaries)] + "-value")
		case q.MultiSelect:
			a.Secret = secret.FromString(`["` + q.Options[0].Label + `","` + q.Options[1].Label + `"]`)
		default:
			a.Secret = secret.FromString(q.Options[0].Label)
		}
		as = append(as, a)
	}
	return as
}

// fillEach has the kit's Filler, if there is one, answer each ask that
// reached Respond with what answers gives for its form; an ask it could
// not answer is superseded, so that it does not wait for its deadline.
func fillEach(e *env, ps []*pend) error {
	f := e.filler()
	if f == nil {
		return nil
	}
	var errs []error
	for _, p := range ps {
		if !p.waitEntered() {
			continue
		}
		e.settle()
		if err := f.Fill(p.c.ask, secretAnswers(p.c.ask.Form())); err != nil {
			errs = append(errs, fmt.Errorf("%s: the person could not answer: %w", p.name, err))
			e.o.Supersede(p.session)
		}
	}
	return errors.Join(errs...)
}

// answerFirst has the kit's Person, if there is one, pick the first
// option of the first ask, and ends the others from outside.
func answerFirst(e *env, ps []*pend) error {
	person, err := e.person()
	if err != nil {
		return nil
	}
	defer func() {
		for _, p := range ps[1:] {
			e.o.Supersede(p.session)
		}
	}()
	p := ps[0]
	if !p.waitEntered() {
		return nil
	}
	e.settle()
	if err := person.Choose(p.c.ask, 0, 0); err != nil {
		e.o.Supersede(p.session)
		return fmt.Errorf("%s: the person could not answer: %w", p.name, err)
	}
	return nil
}

// answeredByPerson: with a Filler, the ask ended submitted by the user.
func answeredByPerson(e *env) func(p *pend) error {
	return func(p *pend) error {
		if e.filler() == nil {
			return noFault(p)
		}
		if out := p.outcome(); out.Reason != askuser.ReasonSubmitted || out.AnsweredBy != askuser.ByUser {
			return fmt.Errorf("after the person answered every question the ask ended %s, decided by %s (%v); want submitted by the user", out.Reason, out.AnsweredBy, out.Fault)
		}
		return nil
	}
}
