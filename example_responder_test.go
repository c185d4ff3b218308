package askuser_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
)

// chatResponder is a responder a platform team might write: it shows each
// question in its own product (here, a map of canned replies stands in for
// the person) and reports what the person picks.
type chatResponder struct {
	replies map[string]string // question header → the label the person clicks
}

func (r chatResponder) Respond(ctx context.Context, a *askuser.Ask) error {
	for _, q := range a.Form().Questions {
		label, ok := r.replies[q.Header]
		if !ok {
			// The person closed the card on this question.
			return a.Cancel(q.ID)
		}
		var picked []string
		for _, opt := range q.Options {
			if opt.Label == label {
				picked = append(picked, opt.Value)
			}
		}
		err := a.Report(askuser.Answer{QuestionID: q.ID, Selected: picked})
		var refused *askuser.AnswerError
		if errors.As(err, &refused) {
			// Show refused.Reason to the person and ask again.
			return a.Cancel(q.ID)
		}
		if err != nil {
			return err // ErrClosed: the deadline came first.
		}
	}
	return a.Submit()
}

// A responder author writes one method; the orchestrator does the rest.
func Example_customResponder() {
	o := &askuser.Orchestrator{Responder: chatResponder{replies: map[string]string{"Env": "production"}}}
	args := []byte(`{"questions":[{"header":"Env","question":"Which environment first?","options":[
		{"label":"staging","description":"Smoke tests first","default":true},
		{"label":"production","description":"Straight to users"}]}]}`)

	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: args})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status, out.AnsweredBy)
	fmt.Println(string(out.Result))
	// Output:
	// answered user
	// {"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":["production"],"other_text":null}]}
}

// A responder can check an answer before it reports it, and re-prompt with
// the reason.
func ExampleForm_CheckAnswer() {
	call := &askuser.Form{Questions: []askuser.Question{{
		ID: "env", Kind: askuser.KindChoice, Header: "Env", Text: "Which?",
		Options: []askuser.Option{{Value: "staging", Label: "staging"}, {Value: "production", Label: "production"}},
	}}}
	err := call.CheckAnswer(askuser.Answer{QuestionID: "env", Selected: []string{"staging", "production"}})
	var refused *askuser.AnswerError
	if errors.As(err, &refused) {
		fmt.Println(refused.Reason)
	}
	// Output:
	// this question takes one option, not 2; pick one
}
