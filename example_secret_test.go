package askuser_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// A secret question's answer is sealed into the orchestrator's secret store
// the moment it is accepted; the model gets only a reference. A tool the
// embedding program runs turns the reference back into the value, for the
// session that owns it.
func ExampleOrchestrator_secrets() {
	person := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		q := a.Form().Questions[0] // a sealed question: hand the answer over as a secret.Value
		token := secret.FromString("ghp_" + strings.Repeat("x1Y2", 9))
		if err := a.Report(askuser.Answer{QuestionID: q.ID, Secret: token}); err != nil {
			return err
		}
		return a.Submit()
	})
	sealed := secretstore.NewMemory(nil) // sealed in memory, with a key made up for the process
	o := &askuser.Orchestrator{Responder: person, Secrets: sealed}
	args := []byte(`{"questions":[{"kind":"secret","header":"Token","question":"Paste a GitHub token to push the tag",
		"secret_name":"GITHUB_TOKEN","purpose":"push the release tag"}]}`)
	ctx := context.Background()

	out, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "call_3", Arguments: args})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out.Result))

	// The model passes the reference to a tool; the tool resolves it.
	ref := out.Answers[0].SecretRef
	v, err := secretstore.ResolveFor(ctx, sealed, "s1", ref)
	if err != nil {
		panic(err)
	}
	fmt.Println(ref, "resolves to a value of", v.Len(), "bytes; printed, it is", v)
	v.Wipe() // done with it

	// Another session holds no such secret.
	_, err = secretstore.ResolveFor(ctx, sealed, "s2", ref)
	fmt.Println(err != nil)
	// Output:
	// {"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:GITHUB_TOKEN"}]}
	// session:GITHUB_TOKEN resolves to a value of 40 bytes; printed, it is [REDACTED]
	// true
}
