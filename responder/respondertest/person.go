package respondertest

import (
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
)

// A Person acts as the person through a responder's own channel — signed
// clicks for a chat responder, followed links for a mail one — so that the
// kit can check what the responder does with a person's answer: the cases
// that need one (person-answers, person-approves, person-denies) are
// skipped without it. Its methods hand the action over and return; the
// kit then waits for the ask to end. An error says the action could not be
// made (not that the responder refused it), and fails the case.
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
	// values: askuser.ApproveOnce, askuser.DenyOnce, and so on.
	Decide(a *askuser.Ask, choice string) error
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
		run:  func(e *env) error { return personDecides(e, askuser.ApproveOnce, askuser.Approved) },
	},
	{
		Name: "person-denies",
		Rule: "A person's denial, given through the responder's own channel, ends the approval denied, decided by the user, once.",
		run:  func(e *env) error { return personDecides(e, askuser.DenyOnce, askuser.Denied) },
	},
}

func init() { cases = append(cases, personCases...) }

var errNoPerson = skipError("the kit has no way to act as the person through this responder's channel (Options.Person), so no person's answer was given")

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
	if err := person.Choose(p.c.ask, 0, 1); err != nil && !errors.Is(err, askuser.ErrClosed) {
		return fmt.Errorf("the person could not answer again: %w", err)
	}
	if err := e.finish(p); err != nil {
		return err
	}
	if again := p.c.ask.Outcome(); again.Answers[0].Selected[0] != out.Answers[0].Selected[0] {
		return fmt.Errorf("a second answer after the ask ended changed its outcome to %+v", again.Answers)
	}
	if p.c.hasReturned() && errors.Is(p.c.err, askuser.ErrClosed) {
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
	v, _ := askuser.ApprovalVerdict(p.outcome())
	if v.Status != want || v.DecidedBy != askuser.ByUser {
		return fmt.Errorf("after the person chose %s the approval ended %s, decided by %s; want %s by the user", choice, v.Status, v.DecidedBy, want)
	}
	if err := e.finish(p); err != nil {
		return err
	}
	return p.c.wayOut()
}
