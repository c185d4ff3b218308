package responder_test

import (
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// A responder can check an answer before it reports it, and re-prompt with
// the reason.
func ExampleCheckAnswer() {
	form := &askuser.Form{Questions: []askuser.Question{{
		ID: "env", Kind: askuser.KindChoice, Header: "Env", Text: "Which?",
		Options: []askuser.Option{{Value: "staging", Label: "staging"}, {Value: "production", Label: "production"}},
	}}}
	err := responder.CheckAnswer(form, askuser.Answer{QuestionID: "env", Selected: []string{"staging", "production"}})
	var refused *askuser.AnswerError
	if errors.As(err, &refused) {
		fmt.Println(refused.Reason)
	}
	// Output:
	// this question takes one option, not 2; pick one
}
