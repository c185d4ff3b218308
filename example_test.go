package askuser_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
)

// An orchestrator with no responder asks nobody: every ask is unattended.
// Choice questions get their declared defaults at once (the option marked
// default, else the first), and the result says nobody was there.
func ExampleOrchestrator_Handle() {
	var o askuser.Orchestrator // the zero value works
	args := []byte(`{"questions":[{"header":"Env","question":"Which environment first?","options":[
		{"label":"staging","description":"Smoke tests first","default":true},
		{"label":"production","description":"Straight to users"}]}]}`)

	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call_1", Arguments: args})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status, out.AnsweredBy, out.Reason)
	fmt.Println(string(out.Result))
	// Output:
	// answered unattended unattended
	// {"status":"answered","answered_by":"unattended","answers":[{"id":"question_1","selected":["staging"],"other_text":null}]}
}

// An invalid call is never shown to anyone; the model gets a message it can
// fix its call from.
func ExampleCallError() {
	var o askuser.Orchestrator
	_, err := o.Handle(context.Background(), askuser.Request{Arguments: []byte(`{"questions":[{"header":"A header that is too long","question":"Which?"}]}`)})
	var ce *askuser.CallError
	if errors.As(err, &ce) {
		fmt.Println(ce.Message)
	}
	// Output:
	// invalid ask_user arguments: question 1 header must not exceed 16 characters
}
