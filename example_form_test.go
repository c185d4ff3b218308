package askuser_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
)

// A program can ask a form it builds in Go, with no model and no JSON:
// Request.Form is checked and normalized as a model's call would be (ids
// filled in, option values defaulting to their labels), and the outcome is
// encoded in the request's contract (ask_user when it names none). Go's
// zero values count as written: AllowOther is false, so this choice takes
// only its options.
func ExampleRequest_form() {
	form := &askuser.Form{
		Title: "Release 2.4",
		Questions: []askuser.Question{{
			Header: "Env", Text: "Which environment first?",
			Options: []askuser.Option{
				{Label: "staging", Description: "Smoke tests first", Default: true},
				{Label: "production", Description: "Straight to users"},
			},
		}, {
			ID: "notes", Kind: askuser.KindText, Header: "Notes",
			Text: "Anything the release notes should say?", Optional: true,
		}},
		TimeoutSeconds: 60,
	}
	person := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		f := a.Form()
		fmt.Println("asking:", f.Title, "—", f.Questions[0].ID, f.Questions[1].ID)
		// Free text on a choice without AllowOther is refused.
		err := a.Report(askuser.Answer{QuestionID: "question_1", Other: "canary"})
		var refused *askuser.AnswerError
		if errors.As(err, &refused) {
			fmt.Println("refused:", refused.Reason)
		}
		if err := a.Report(askuser.Answer{QuestionID: "question_1", Selected: []string{"production"}}); err != nil {
			return err
		}
		return a.Submit() // notes is optional
	})
	o := &askuser.Orchestrator{Responder: person}

	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Form: form})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Form.Contract, out.Answer("question_1").Selected, out.Answer("notes") == nil)
	fmt.Println(string(out.Result))
	// Output:
	// asking: Release 2.4 — question_1 notes
	// refused: this question takes only its options; free text is not accepted here
	// go [production] true
	// {"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":["production"],"other_text":null}]}
}
