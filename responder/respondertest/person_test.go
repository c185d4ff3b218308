package respondertest_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
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
		return askuser.ErrClosed
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
		choice = askuser.ApproveOnce
	}
	return p.b.click(a.ID(), askuser.ApprovalQuestionID, choice)
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
