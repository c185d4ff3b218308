package pi_test

import (
	"context"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responder/scripted"
)

// A rich question marked secret: the person's answer is sealed, and the
// model reads only its reference.
func Example() {
	args := `{"question":"Secret?","kind":"text","sensitivity":"secret"}`
	c, _ := pi.Dialect().Decode([]byte(args), dialect.Limits{})
	person := scripted.New(
		scripted.Step{Answer: &askuser.Answer{QuestionID: c.Questions[0].ID, Other: "hunter2"}}, // handed over as a secret value
		scripted.Step{End: scripted.EndSubmit})
	o := &askuser.Orchestrator{Responder: person}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(args), Dialect: pi.Dialect()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out.Result))
	// Output:
	// {"content":[{"type":"text","text":"Answer: [REDACTED:secret-answer]"}],"details":{"questionId":"q_b4826f0a","kind":"text","visibleValue":"[REDACTED:secret-answer]","status":"answered","answerSource":"human","cancelled":false,"timedOut":false,"decision":{"decisionId":"ask-q-b4826f0a","backend":"memory","diagnostics":[]},"sensitivity":"secret","secretRef":"session:q_b4826f0a"}}
}

func ExampleQuestionID() {
	fmt.Println(pi.QuestionID("Secret?"), pi.DecisionID(pi.QuestionID("Secret?")))
	// Output: q_b4826f0a ask-q-b4826f0a
}
