package auto_test

import (
	"context"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/auto"
)

// handsOver is a wrapper that claims approvals for the responder it wraps
// and hides its presence, so that auto's Respond is given the approval.
type handsOver struct {
	r      askuser.Responder
	called *bool
}

func (h handsOver) Respond(ctx context.Context, a *askuser.Ask) error {
	*h.called = true
	return h.r.Respond(ctx, a)
}

func (handsOver) CanTakeApprovals() bool { return true }

// TestApprovalIsNeverApproved: auto is nobody, and nobody approves. An
// approval through it ends unresolved at once, as unattended, whatever its
// risk; auto does not declare that it takes approvals, so it is not even
// asked. Remembered consent and a policy are the orchestrator's, and are
// not auto's to give. Handed one all the same (by a wrapper that claims
// approvals), auto's Respond still says nobody is there.
func TestApprovalIsNeverApproved(t *testing.T) {
	if _, ok := any(auto.New()).(askuser.ApprovalCapable); ok {
		t.Fatal("auto implements askuser.ApprovalCapable; nobody there can take an approval")
	}
	for _, risk := range approval.Risks() {
		t.Run(string(risk), func(t *testing.T) {
			f, err := approvaltool.Form(approval.Request{Action: "Drop the table users", Reason: "To start over", Risk: risk}, 60)
			if err != nil {
				t.Fatal(err)
			}
			var handed bool
			for name, r := range map[string]askuser.Responder{
				"auto":                          auto.New(),
				"auto, of several":              askuser.FirstReachable(auto.New()),
				"auto, handed one by a wrapper": handsOver{auto.New(), &handed},
			} {
				o := &askuser.Orchestrator{Responder: r}
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				v, ok := approvaltool.VerdictOf(out)
				if !ok || v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended || v.DecidedBy != "" {
					t.Errorf("%s: verdict %+v, want unresolved and unattended, decided by nobody", name, v)
				}
				if len(out.Answers) != 0 {
					t.Errorf("%s: the outcome carries answers %+v", name, out.Answers)
				}
			}
			if !handed {
				t.Error("the wrapper was not handed the approval, so auto's Respond was not checked")
			}
		})
	}
}
