package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/stdio"
)

// approvalForm is an approval of the given risk, waiting 100 seconds.
func approvalForm(t testing.TB, risk askuser.Risk) *askuser.Form {
	t.Helper()
	f, err := askuser.ApprovalForm(askuser.Approval{
		Action:  "Delete the bucket logs-2019",
		Reason:  "It is past its retention",
		Risk:    risk,
		Details: "gsutil rm -r gs://logs-2019\n1,204 objects",
	}, 100)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// claims hands the stdio responder approvals whatever it says it can take,
// as a careless wrapper would.
type claims struct{ r *stdio.Responder }

func (c claims) Respond(ctx context.Context, a *askuser.Ask) error { return c.r.Respond(ctx, a) }
func (claims) CanTakeApprovals() bool                              { return true }

// TestApprovalOverAPipe: an approval is never taken from a pipe. The
// responder says it cannot take one, so the orchestrator does not show
// it; handed one all the same, it reads nothing and ends it as nobody
// there. Either way the approval is unresolved, though "y" waits on the
// pipe.
func TestApprovalOverAPipe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		out := &buffer{}
		r := stdio.New(pr, out, nil)
		defer func() {
			r.Close()
			pw.Close()
		}()
		go func() { _, _ = io.WriteString(pw, "y\ny\n") }()
		if r.CanTakeApprovals() {
			t.Fatal("CanTakeApprovals reports true over a pipe")
		}
		for _, tt := range []struct {
			name  string
			r     askuser.Responder
			shown string
		}{
			{"as it is", r, ""},
			{"handed one all the same", claims{r}, "This call asks your permission to act, which is given only on a terminal, never through a pipe; nobody can be asked for it here.\nNobody could be asked: nothing was decided, and your agent has no permission.\n"},
		} {
			o := &askuser.Orchestrator{Responder: tt.r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			res, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: approvalForm(t, askuser.RiskLow)})
			if err != nil {
				t.Fatal(err)
			}
			o.Wait()
			if v, _ := askuser.ApprovalVerdict(res); v.Status != askuser.Unresolved || v.Ended != askuser.ReasonUnattended {
				t.Errorf("%s: verdict %+v, want unresolved with nobody to ask", tt.name, v)
			}
			if got := strings.TrimPrefix(out.String(), "\n"); got != tt.shown {
				t.Errorf("%s: the output is %q, want %q", tt.name, got, tt.shown)
			}
		}
	})
}

func TestParseDecision(t *testing.T) {
	tests := []struct {
		line         string
		irreversible bool
		decision     string
		note         string
	}{
		{"y", false, askuser.ApproveOnce, ""},
		{" YES ", false, askuser.ApproveOnce, ""},
		{"y: go ahead ", false, askuser.ApproveOnce, "go ahead"},
		{"session", false, askuser.ApproveSession, ""},
		{"approve", false, askuser.ApproveOnce, ""},
		{"approve   Session: fine today", false, askuser.ApproveSession, "fine today"},
		{"never: stop asking", false, askuser.DenySession, "stop asking"},
		{"", false, askuser.DenyOnce, ""},
		{": not before Friday", false, askuser.DenyOnce, "not before Friday"},
		{"n", false, askuser.DenyOnce, ""},
		{"yy", false, askuser.DenyOnce, ""},
		{"y y", false, askuser.DenyOnce, ""},
		{"ok", false, askuser.DenyOnce, ""},
		{"1", false, askuser.DenyOnce, ""},
		{"y", true, askuser.DenyOnce, ""},
		{"yes: sure", true, askuser.DenyOnce, "sure"},
		{"session", true, askuser.DenyOnce, ""},
		{"appr", true, askuser.DenyOnce, ""},
		{"approved", true, askuser.DenyOnce, ""},
		{"Approve", true, askuser.ApproveOnce, ""},
		{"approve: I have a backup", true, askuser.ApproveOnce, "I have a backup"},
		{"approve session", true, askuser.ApproveSession, ""},
		{"never", true, askuser.DenySession, ""},
	}
	for _, tt := range tests {
		d, n := stdio.ParseDecision(tt.line, tt.irreversible)
		if d != tt.decision || n != tt.note {
			t.Errorf("ParseDecision(%q, irreversible %v) = %q, %q; want %q, %q", tt.line, tt.irreversible, d, n, tt.decision, tt.note)
		}
	}
}

// FuzzParseDecision: whatever a person types, the decision is one of the
// four options, and it approves only for the words that approve: "approve"
// or "approve session" for every risk, and "y", "yes" or "session" for a
// risk that is not irreversible.
func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{"y", "yes: ok", "session", "approve", "approve session: x", "never", "", ":", "Y:", "approve\x00", "ａｐｐｒｏｖｅ"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, irreversible bool) {
		d, note := stdio.ParseDecision(line, irreversible)
		head, _, _ := strings.Cut(line, ":")
		words := strings.ToLower(strings.Join(strings.Fields(head), " "))
		switch d {
		case askuser.ApproveOnce, askuser.ApproveSession:
			ok := words == "approve" || words == "approve session" || !irreversible && (words == "y" || words == "yes" || words == "session")
			if !ok {
				t.Errorf("%q (irreversible %v) approves (%s)", line, irreversible, d)
			}
		case askuser.DenyOnce, askuser.DenySession:
		default:
			t.Errorf("%q gives %q, not an option", line, d)
		}
		if note != strings.TrimSpace(note) {
			t.Errorf("the note %q is not trimmed", note)
		}
	})
}
