package approvaltool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/store"
)

// person is a responder that takes approvals: a ResponderFunc that puts the
// approval in front of someone, plus the declaration that someone answers
// there. Without CanTakeApprovals the orchestrator would never hand it an
// approval, and every request would stay unresolved.
type person struct{ askuser.ResponderFunc }

func (person) CanTakeApprovals() bool { return true }

// A model asks permission to act with request_approval. The program's
// policy approves read-only listings without asking; a person decides the
// rest, here approving a deletion for the session, so the same deletion is
// approved again without asking. Before it runs an action, the program
// checks that the approval is for exactly that action.
func Example() {
	consents := &store.MemoryConsents{} // the person's decisions for the session
	o := &askuser.Orchestrator{
		Consents: consents,
		ApprovalPolicy: func(_ context.Context, _ string, a *approval.Request) approval.PolicyDecision {
			if a.Risk == approval.RiskLow && strings.HasPrefix(a.Details, "ls ") {
				return approval.PolicyApprove
			}
			return approval.PolicyAsk // a person decides
		},
		Responder: person{func(_ context.Context, a *askuser.Ask) error {
			ap := a.Form().Approval
			fmt.Printf("  the person is asked: %s (%s risk)\n", ap.Action, ap.Risk)
			err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.ApproveSession}})
			if err != nil {
				return err
			}
			return a.Submit()
		}},
	}
	ask := func(toolCall, call string) *askuser.Outcome {
		out, err := o.Handle(context.Background(), askuser.Request{
			Session: "s1", ToolCallID: toolCall, Dialect: approvaltool.Dialect(), Arguments: []byte(call),
		})
		if err != nil {
			panic(err)
		}
		var r struct {
			Status    string `json:"status"`
			DecidedBy string `json:"decided_by"`
		}
		if err := json.Unmarshal(out.Result, &r); err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s by %s\n", toolCall, r.Status, r.DecidedBy)
		return out
	}

	ask("call-1", `{"action":"List the backups","reason":"To find the oldest","risk":"low","details":"ls /srv/backups"}`)
	rm := `{"action":"Delete the oldest backup","reason":"The disk is full","risk":"irreversible","details":"rm /srv/backups/2024-01.tar"}`
	out := ask("call-2", rm)
	ask("call-3", rm)

	// About to run the command: is this the action the person approved?
	v, _ := approvaltool.VerdictOf(out)
	run := "rm /srv/backups/2024-01.tar"
	fmt.Println("run it:", v.Status == approval.Approved && v.Digest == approval.Digest("Delete the oldest backup", run))
	fmt.Println("run another:", v.Digest == approval.Digest("Delete the oldest backup", "rm -r /srv/backups"))

	// The person's decisions for the session, and taking one back.
	cs, _ := consents.Consents(context.Background(), "s1")
	for _, c := range cs {
		fmt.Printf("remembered: %s (approved: %v)\n", c.Action, c.Approved)
		_ = consents.Revoke(context.Background(), "s1", c.Digest)
	}
	ask("call-4", rm)
	// Output:
	// call-1: approved by policy
	//   the person is asked: Delete the oldest backup (irreversible risk)
	// call-2: approved by user
	// call-3: approved by remembered
	// run it: true
	// run another: false
	// remembered: Delete the oldest backup (approved: true)
	//   the person is asked: Delete the oldest backup (irreversible risk)
	// call-4: approved by user
}
