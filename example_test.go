package askuser_test

import (
	"context"
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
