package askuser_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
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
			return err // ErrAskEnded: the deadline came first.
		}
	}
	return a.Submit()
}

// ResponderName names the responder in the journal and on the Outcome (the
// optional interface askuser.Named).
func (chatResponder) ResponderName() string { return "chat" }

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
	fmt.Println(out.Status, out.AnsweredBy, out.Responder)
	fmt.Println(string(out.Result))
	// Output:
	// answered user chat
	// {"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":["production"],"other_text":null}]}
}

// A function is a responder too. This one shows each question with its
// options, the recommended ones marked, reports what the person picks (a
// fixed reply stands in for them) and submits. The orchestrator checks each
// answer, holds the deadline and encodes the result.
func ExampleResponderFunc() {
	reply := map[string][]int{"env": {1}, "checks": {0, 2}} // option indexes the person picks
	r := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		for _, q := range a.Form().Questions {
			fmt.Println(q.Header + ": " + q.Text)
			recommended := responder.DeclaredDefaults(&q)
			for _, opt := range q.Options {
				mark := " "
				if slices.Contains(recommended, opt.Value) {
					mark = "*"
				}
				fmt.Printf("  %s %s\n", mark, opt.Label)
			}
			var picked []string
			for _, i := range reply[q.ID] {
				picked = append(picked, q.Options[i].Value)
			}
			if err := a.Report(askuser.Answer{QuestionID: q.ID, Selected: picked}); err != nil {
				return err // an *AnswerError would be shown to the person
			}
		}
		return a.Submit()
	})
	o := &askuser.Orchestrator{Responder: r}
	args := []byte(`{"questions":[
		{"id":"env","header":"Env","question":"Which environment first?","options":[
			{"label":"staging","description":"Smoke tests first","default":true},
			{"label":"production","description":"Straight to users"}]},
		{"id":"checks","header":"Checks","question":"Which checks?","multi_select":true,"options":[
			{"label":"unit","description":"Two minutes"},
			{"label":"integration","description":"Ten minutes"},
			{"label":"load","description":"An hour"}]}]}`)

	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call_2", Arguments: args})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out.Result))
	// Output:
	// Env: Which environment first?
	//   * staging
	//     production
	// Checks: Which checks?
	//   * unit
	//     integration
	//     load
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"checks","selected":["unit","load"],"other_text":null}]}
}
