package askuser_test

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/askuser-go/askuser"
)

// A tool call is asked once. When the model (or a retrying agent loop)
// sends the same tool-call id again in the same session, Handle returns the
// finalized outcome again, marked Replayed, and nobody is asked; the
// arguments of the repeated call are not even read.
func ExampleOrchestrator_Handle_replay() {
	var asked atomic.Int32
	o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		asked.Add(1)
		if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"production"}}); err != nil {
			return err
		}
		return a.Submit()
	})}
	args := []byte(`{"questions":[{"id":"env","header":"Env","question":"Which environment first?","options":[
		{"label":"staging","description":"Smoke tests first","default":true},
		{"label":"production","description":"Straight to users"}]}]}`)
	ctx := context.Background()

	first, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "call_7", Arguments: args})
	if err != nil {
		panic(err)
	}
	again, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "call_7", Arguments: []byte(`{"changed":true}`)})
	if err != nil {
		panic(err)
	}
	o.WaitResponders() // every Respond has returned

	fmt.Println(string(first.Result))
	fmt.Println(string(again.Result))
	fmt.Println("replayed:", again.Replayed, "same ask:", again.AskID == first.AskID, "asked:", asked.Load())
	// Output:
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}
	// replayed: true same ask: true asked: 1
}
