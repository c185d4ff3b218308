package scripted_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
)

func approvalForm(t *testing.T, risk approval.Risk) *askuser.Form {
	t.Helper()
	f, err := approvaltool.Form(approval.Request{Action: "Delete the bucket logs-2019", Reason: "It is past its retention", Risk: risk, Details: "gsutil rm -r gs://logs-2019"}, 60)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestParseFileApproval(t *testing.T) {
	r, err := scripted.ParseFile([]byte(`{"approval":"deny_session","note":"not on Fridays","delay_ms":20}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []scripted.Step{
		{Answer: &askuser.Answer{QuestionID: "approval", Selected: []string{"deny_session"}, Note: "not on Fridays"}},
		{Delay: 20 * time.Millisecond, End: scripted.EndSubmit},
	}
	if d := cmp.Diff(want, r.Steps, cmpopts.IgnoreUnexported(scripted.Step{}), cmp.Comparer(func(a, b secret.Value) bool { return a.Empty() && b.Empty() })); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}

func TestParseFileApprovalErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"approval":"yes"}`, `scripted: approval is "yes"; allowed: approve, approve_session, deny, deny_session`},
		{`{"approval":"Approve"}`, `scripted: approval is "Approve"; allowed: approve, approve_session, deny, deny_session`},
		{`{"approval":true}`, `scripted: approval must be a string, not a JSON boolean`},
		{`{"approval":"approve","answers":[]}`, `scripted: the script gives both approval and answers; an approval's decision is approval (with note), other forms' answers are answers`},
		{`{"note":"fine"}`, `scripted: note goes with approval (the person's words on their decision); a note on an answer goes in answers[].note`},
		{`{"approval":"approve","approval":"deny"}`, `scripted: "approval" is given twice at the top level of the script; give each key once`},
		{`{"approval":"approve","end":"later"}`, `scripted: end is "later"; allowed: submit, decline, cancel, supersede, unreachable`},
	}
	for _, tt := range tests {
		_, err := scripted.ParseFile([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseFile(%s) = %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// TestScriptedApprovals plays each script against an approval and checks
// the verdict: a script approves or denies what it is written to, and an
// approval it does not decide stays unresolved.
func TestScriptedApprovals(t *testing.T) {
	tests := []struct {
		script   string
		status   string
		by       askuser.Provenance
		ended    askuser.Reason
		remember bool
		note     string
	}{
		{`{"approval":"approve"}`, approval.Approved, askuser.ByUser, "", false, ""},
		{`{"approval":"approve_session","note":"for today"}`, approval.Approved, askuser.ByUser, "", true, "for today"},
		{`{"approval":"deny","note":"not now"}`, approval.Denied, askuser.ByUser, "", false, "not now"},
		{`{"approval":"deny_session"}`, approval.Denied, askuser.ByUser, "", true, ""},
		{`{"end":"decline"}`, approval.Denied, askuser.ByUser, "", false, ""},
		{`{"approval":"approve","end":"cancel"}`, approval.Unresolved, "", askuser.ReasonDismissed, false, ""},
		{`{"approval":"approve","end":"unreachable"}`, approval.Unresolved, "", askuser.ReasonUnattended, false, ""},
		{`{"approval":"approve","delay_ms":120000}`, approval.Unresolved, "", askuser.ReasonDeadline, false, ""},
		{`{}`, approval.Unresolved, "", askuser.ReasonFault, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, err := scripted.ParseFile([]byte(tt.script))
				if err != nil {
					t.Fatal(err)
				}
				o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: approvalForm(t, approval.RiskHigh)})
				if err != nil {
					t.Fatal(err)
				}
				o.WaitResponders()
				v, ok := approvaltool.VerdictOf(out)
				if !ok {
					t.Fatal("the outcome is not an approval's")
				}
				got := struct {
					Status   string
					By       askuser.Provenance
					Ended    askuser.Reason
					Remember bool
					Note     string
				}{v.Status, v.DecidedBy, v.Ended, v.Remember, v.Note}
				want := got
				want.Status, want.By, want.Ended, want.Remember, want.Note = tt.status, tt.by, tt.ended, tt.remember, tt.note
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("verdict (-want +got):\n%s", d)
				}
			})
		})
	}
}

// TestDecide: the step a test writes for a person's decision.
func TestDecide(t *testing.T) {
	r := scripted.New(scripted.Decide(approval.ApproveOnce, "go ahead"))
	o := &askuser.Orchestrator{Responder: r}
	out, err := o.Handle(t.Context(), askuser.Request{Session: "s", Form: approvalForm(t, approval.RiskLow)})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved || v.DecidedBy != askuser.ByUser || v.Note != "go ahead" {
		t.Errorf("verdict %+v, want approved by the user with their note", v)
	}
}

// TestApprovalScriptOnAQuestion: an approval's script played against a
// form that is not an approval decides nothing: its decision is refused
// and the submit after it fails, as a fault.
func TestApprovalScriptOnAQuestion(t *testing.T) {
	r, err := scripted.ParseFile([]byte(`{"approval":"approve"}`))
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	out, err := o.Handle(t.Context(), askuser.Request{Session: "s", Arguments: []byte(`{"questions":[{"header":"Env","question":"Where?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	o.WaitResponders()
	var ae *askuser.AnswerError
	if errs := r.Refused(); len(errs) != 2 || !errors.As(errs[0], &ae) {
		t.Errorf("refused %v; want the decision refused, then the submit", errs)
	}
	if out.Reason != askuser.ReasonFault || len(out.Answers) != 0 {
		t.Errorf("outcome %s with %d answers; want a fault with none", out.Reason, len(out.Answers))
	}
}

// TestScriptedTakesApprovals: the orchestrator hands a script approvals.
func TestScriptedTakesApprovals(t *testing.T) {
	var r askuser.Responder = scripted.New()
	c, ok := r.(askuser.ApprovalCapable)
	if !ok || !c.CanTakeApprovals() {
		t.Error("a scripted responder does not take approvals")
	}
}
