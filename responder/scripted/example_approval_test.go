package scripted_test

import (
	"context"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/scripted"
)

// A script plays the person who decides an approval: here, approving for
// the rest of the session, which the orchestrator then remembers.
func ExampleDecide() {
	form, err := approvaltool.Form(approval.Request{Action: "Restart the login service", Reason: "It holds a stale certificate", Risk: approval.RiskMedium}, 60)
	if err != nil {
		fmt.Println(err)
		return
	}
	o := &askuser.Orchestrator{Responder: scripted.New(scripted.Decide(approval.ApproveSession, "for today"))}
	for range 2 {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: form})
		if err != nil {
			fmt.Println(err)
			return
		}
		v, _ := approvaltool.VerdictOf(out)
		fmt.Println(v.Status, "by", v.DecidedBy)
	}
	// Output:
	// approved by user
	// approved by remembered
}
