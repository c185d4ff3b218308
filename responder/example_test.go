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

// A responder reads a question through the same rules the orchestrator
// applies: whether to offer free text, whether to hide the answer, and
// which options to mark as recommended (what the deadline applies).
func ExampleDeclaredDefaults() {
	q := &askuser.Question{
		ID: "env", Kind: askuser.KindChoice, Header: "Env", Text: "Which environment first?", AllowOther: true,
		Options: []askuser.Option{{Value: "staging", Label: "staging", Default: true}, {Value: "production", Label: "production"}},
	}
	fmt.Println("free text:", responder.FreeText(q))
	fmt.Println("sealed:", responder.Sealed(q))
	fmt.Println("recommended:", responder.DeclaredDefaults(q))

	token := &askuser.Question{ID: "gh", Kind: askuser.KindSecret, Header: "Token", Text: "GitHub token?", SecretName: "GITHUB_TOKEN"}
	fmt.Println("sealed as:", responder.Sealed(token), responder.SealName(token))
	// Output:
	// free text: true
	// sealed: false
	// recommended: [staging]
	// sealed as: true GITHUB_TOKEN
}
