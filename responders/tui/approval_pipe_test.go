package tui_test

import (
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// TestApprovalsNotFromAPipe: with a pipe for a terminal, nobody is known
// to be at the keys: the responder takes no approval, the orchestrator
// never hands it one, and nothing is drawn.
func TestApprovalsNotFromAPipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t, nil)
		defer g.close()
		if g.r.CanTakeApprovals() {
			t.Fatal("CanTakeApprovals is true for a pipe")
		}
		f, err := approvaltool.Form(approval.Request{Action: "Force-push main", Reason: "To drop a commit", Risk: approval.RiskHigh}, 60)
		if err != nil {
			t.Fatal(err)
		}
		g.typeIn("\x1b[B\r")
		out := <-g.ask("s", f)
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
			t.Errorf("an approval on a pipe: %+v, want unresolved with nobody to ask", v)
		}
		if g.out.String() != "" {
			t.Error("the screen was drawn for an approval it cannot take")
		}
	})
}
