package askuser_test

import (
	"context"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/store"
)

// Two orchestrators share one pending-ask store, as the replicas of a
// service do (in production, natsstore's JetStream store): replica A
// begins an ask and answers the HTTP request at once; the agent's next
// request lands on replica B, which waits for the result. Where the person
// answers, and which replica is asked again, does not matter.
func ExampleOrchestrator_Begin() {
	ctx := context.Background()
	store := store.NewMemory(0)
	// Replica A's responder stands in for the person: it picks staging.
	a := &askuser.Orchestrator{Asks: store, Responder: scripted.New(
		scripted.Step{Answer: &askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}},
		scripted.Step{End: scripted.EndSubmit},
	)}
	b := &askuser.Orchestrator{Asks: store}
	defer func() { a.Close(); a.WaitResponders(); b.Close() }()

	call := []byte(`{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
	  {"label":"staging","description":"Safe to break"},{"label":"production","description":"Real users"}]}]}`)
	if _, err := a.Begin(ctx, askuser.Request{Session: "run-42", ToolCallID: "call-1", Arguments: call}); err != nil {
		fmt.Println(err)
		return
	}
	out, err := b.Await(ctx, "run-42", "call-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out.Result))
	// Output:
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}
}
