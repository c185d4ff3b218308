package respondertest_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder/respondertest"
)

// desk is a responder whose person answers through a channel of its own:
// here a method call, standing for a signed click or a followed link.
type desk struct {
	mu   sync.Mutex
	open map[string]*askuser.Ask
}

func (d *desk) Asked(a *askuser.Ask) {
	d.mu.Lock()
	d.open[a.ID()] = a
	d.mu.Unlock()
}

func (d *desk) Respond(ctx context.Context, a *askuser.Ask) error {
	d.Asked(a)
	<-ctx.Done()
	return nil
}

func (*desk) CanTakeApprovals() bool { return true }

// receive is the desk's channel: the person's answers to one ask, then
// its submission.
func (d *desk) receive(id string, answers ...askuser.Answer) error {
	d.mu.Lock()
	a := d.open[id]
	d.mu.Unlock()
	if a == nil {
		return askuser.ErrAskEnded
	}
	for _, ans := range answers {
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
}

// deskPerson is the kit's person at the desk: a Filler, so every case,
// the secret ones too, has a person to answer.
type deskPerson struct{ d *desk }

func (p deskPerson) Choose(a *askuser.Ask, question, option int) error {
	q := a.Form().Questions[question]
	return p.d.receive(a.ID(), askuser.Answer{QuestionID: q.ID, Selected: []string{q.Options[option].Value}})
}

func (p deskPerson) Decide(a *askuser.Ask, choice string) error {
	return p.d.receive(a.ID(), askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{choice}})
}

func (p deskPerson) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	return p.d.receive(a.ID(), answers...)
}

// A responder driven by a person through its own channel gives the kit a
// way to act as that person (Options.Person): every case then runs, the
// person's answers, approvals, denials and secrets included.
func ExampleFiller() {
	err := respondertest.Check(func() askuser.Responder { return &desk{open: map[string]*askuser.Ask{}} }, &respondertest.Options{
		Person: func(r askuser.Responder) respondertest.Person { return deskPerson{r.(*desk)} },
	})
	fmt.Println(err)
	// Output: <nil>
}
