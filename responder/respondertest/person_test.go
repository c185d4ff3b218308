package respondertest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder/respondertest"
)

// inbox is an event-driven responder whose "channel" is a method call: its
// person's clicks arrive through click. wrongPick makes it take the last
// option whatever the person picked; approves makes it approve every
// decision.
type inbox struct {
	mu        sync.Mutex
	asks      map[string]*askuser.Ask
	wrongPick bool
	approves  bool
	leaked    string // the last secret fill handed over
}

func newInbox() *inbox { return &inbox{asks: map[string]*askuser.Ask{}} }

func (b *inbox) Asked(a *askuser.Ask) {
	b.mu.Lock()
	b.asks[a.ID()] = a
	b.mu.Unlock()
}

func (b *inbox) Respond(ctx context.Context, a *askuser.Ask) error {
	b.Asked(a)
	<-ctx.Done()
	return nil
}

func (*inbox) CanTakeApprovals() bool { return true }

func (b *inbox) click(id, question string, value string) error {
	b.mu.Lock()
	a := b.asks[id]
	b.mu.Unlock()
	if a == nil {
		return askuser.ErrAskEnded
	}
	if err := a.Report(askuser.Answer{QuestionID: question, Selected: []string{value}}); err != nil {
		return err
	}
	return a.Submit()
}

type inboxPerson struct{ b *inbox }

func (p inboxPerson) Choose(a *askuser.Ask, question, option int) error {
	q := a.Form().Questions[question]
	if p.b.wrongPick {
		option = len(q.Options) - 1
	}
	return p.b.click(a.ID(), q.ID, q.Options[option].Value)
}

func (p inboxPerson) Decide(a *askuser.Ask, choice string) error {
	if p.b.approves {
		choice = approval.ApproveOnce
	}
	return p.b.click(a.ID(), approval.QuestionID, choice)
}

func checkWithPerson(t *testing.T, configure func(*inbox)) error {
	t.Helper()
	var err error
	synctest.Test(t, func(t *testing.T) {
		err = respondertest.Check(func() askuser.Responder {
			b := newInbox()
			configure(b)
			return b
		}, &respondertest.Options{Synctest: true, Person: func(r askuser.Responder) respondertest.Person { return inboxPerson{r.(*inbox)} }})
	})
	return err
}

// TestPerson: with Options.Person the person cases run: a responder that
// takes the person's answers as given passes them; one that takes another
// option than the one picked fails person-answers, and one that turns a
// denial into an approval fails person-denies.
func TestPerson(t *testing.T) {
	if err := checkWithPerson(t, func(*inbox) {}); err != nil {
		t.Errorf("a responder that takes its person's answers failed:\n%v", err)
	}
	err := checkWithPerson(t, func(b *inbox) { b.wrongPick = true })
	if err == nil || !strings.Contains(err.Error(), "person-answers") {
		t.Errorf("a responder that takes the wrong option: %v; want person-answers to fail", err)
	}
	err = checkWithPerson(t, func(b *inbox) { b.approves = true })
	if err == nil || !strings.Contains(err.Error(), "person-denies") || strings.Contains(err.Error(), "person-approves") {
		t.Errorf("a responder that approves a denial: %v; want person-denies (only) to fail", err)
	}
}

// TestPersonSkippedWithout: without Options.Person the person cases are
// skipped, and say why.
func TestPersonSkippedWithout(t *testing.T) {
	var person []string
	for _, c := range respondertest.Cases() {
		if strings.HasPrefix(c.Name, "person-") {
			person = append(person, c.Name)
		}
	}
	if len(person) != 3 {
		t.Fatalf("person cases %v; want person-answers, person-approves, person-denies", person)
	}
	synctest.Test(t, func(t *testing.T) {
		if err := respondertest.Check(func() askuser.Responder { return newInbox() }, &respondertest.Options{Synctest: true}); err != nil && strings.Contains(err.Error(), "person-") {
			t.Errorf("without a person, a person case failed instead of being skipped: %v", err)
		}
	})
}

// fill reports every answer, then submits; with leak, it keeps the last
// secret it handed over, for Respond to leak.
func (b *inbox) fill(id string, answers []askuser.Answer) error {
	b.mu.Lock()
	a := b.asks[id]
	b.mu.Unlock()
	if a == nil {
		return askuser.ErrAskEnded
	}
	for _, ans := range answers {
		if !ans.Secret.Empty() {
			v := ans.Secret.Reveal()
			b.mu.Lock()
			b.leaked = string(v)
			b.mu.Unlock()
		}
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
}

type fillerPerson struct{ inboxPerson }

func (p fillerPerson) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	return p.b.fill(a.ID(), answers)
}

// leaky is an inbox driven by Respond, which returns an error that
// holds the last secret its person handed over.
type leaky struct{ b *inbox }

func (l leaky) Respond(ctx context.Context, a *askuser.Ask) error {
	l.b.Asked(a)
	<-ctx.Done()
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if l.b.leaked != "" {
		return errors.New("the card took " + l.b.leaked)
	}
	return nil
}

func (leaky) CanTakeApprovals() bool { return true }

// TestFiller: with a Filler every case but approval-not-taken (which
// applies to a responder that takes no approvals) runs against a
// person-driven responder, and Run says which were skipped; a responder
// that puts a secret its person handed over in its error fails
// secret-not-in-errors, which without a Filler has nothing to look for.
func TestFiller(t *testing.T) {
	skipped := respondertest.Run(t, func(*testing.T) askuser.Responder { return newInbox() }, &respondertest.Options{Synctest: true,
		Person: func(r askuser.Responder) respondertest.Person { return fillerPerson{inboxPerson{r.(*inbox)}} }})
	if len(skipped) != 1 || skipped["approval-not-taken"] == "" {
		t.Errorf("skipped %v; want only approval-not-taken", skipped)
	}
	var err error
	synctest.Test(t, func(t *testing.T) {
		err = respondertest.Check(func() askuser.Responder { return leaky{newInbox()} }, &respondertest.Options{Synctest: true,
			Person: func(r askuser.Responder) respondertest.Person { return fillerPerson{inboxPerson{r.(leaky).b}} }})
	})
	if err == nil || !strings.Contains(err.Error(), "secret-not-in-errors") || !strings.Contains(err.Error(), "the error Respond returned") {
		t.Errorf("a responder that leaks its person's secret: %v; want secret-not-in-errors to fail", err)
	}
	synctest.Test(t, func(t *testing.T) {
		err = respondertest.Check(func() askuser.Responder { return leaky{newInbox()} }, &respondertest.Options{Synctest: true,
			Person: func(r askuser.Responder) respondertest.Person { return inboxPerson{r.(leaky).b} }})
	})
	if err != nil && strings.Contains(err.Error(), "secret-not-in-errors") {
		t.Errorf("without a Filler, secret-not-in-errors failed: %v", err)
	}
}
