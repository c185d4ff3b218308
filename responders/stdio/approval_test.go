package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/responders/stdio"
)

// approvalForm is an approval of the given risk, waiting 100 seconds.
func approvalForm(t testing.TB, risk approval.Risk) *askuser.Form {
	t.Helper()
	f, err := approvaltool.Form(approval.Request{
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
			res, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: approvalForm(t, approval.RiskLow)})
			if err != nil {
				t.Fatal(err)
			}
			o.WaitResponders()
			if v, _ := approvaltool.VerdictOf(res); v.Status != approval.Unresolved || v.Ended != askuser.ReasonUnattended {
				t.Errorf("%s: verdict %+v, want unresolved with nobody to ask", tt.name, v)
			}
			if got := strings.TrimPrefix(out.String(), "\n"); got != tt.shown {
				t.Errorf("%s: the output is %q, want %q", tt.name, got, tt.shown)
			}
		}
	})
}

// TestParseDecision: the code approves, in either case and with spaces
// among its characters; the code then "session" approves for the
// session; the words that deny deny; anything else, the words that
// approved before the codes ("y", "yes", "session", "approve") included,
// is a wrong code.
func TestParseDecision(t *testing.T) {
	const code = "K7MXA"
	tests := []struct {
		line     string
		decision string
		note     string
		ok       bool
	}{
		{"K7MXA", approval.ApproveOnce, "", true},
		{" k7mxa ", approval.ApproveOnce, "", true},
		{"K7M XA: go ahead ", approval.ApproveOnce, "go ahead", true},
		{"K7MXA session", approval.ApproveSession, "", true},
		{"k7mxa   Session: fine today", approval.ApproveSession, "fine today", true},
		{"never: stop asking", approval.DenySession, "stop asking", true},
		{"", approval.DenyOnce, "", true},
		{": not before Friday", approval.DenyOnce, "not before Friday", true},
		{"n", approval.DenyOnce, "", true},
		{"No", approval.DenyOnce, "", true},
		{"deny: too risky", approval.DenyOnce, "too risky", true},
		{"y", approval.DenyOnce, "", false},
		{"yes: sure", approval.DenyOnce, "sure", false},
		{"session", approval.DenyOnce, "", false},
		{"approve", approval.DenyOnce, "", false},
		{"approve session", approval.DenyOnce, "", false},
		{"K7MX", approval.DenyOnce, "", false},
		{"K7MXAA", approval.DenyOnce, "", false},
		{"session K7MXA", approval.DenyOnce, "", false},
		{"K7MXA never", approval.DenyOnce, "", false},
		{"1", approval.DenyOnce, "", false},
	}
	for _, tt := range tests {
		d, n, ok := stdio.ParseDecision(tt.line, code)
		if d != tt.decision || n != tt.note || ok != tt.ok {
			t.Errorf("ParseDecision(%q) = %q, %q, %v; want %q, %q, %v", tt.line, d, n, ok, tt.decision, tt.note, tt.ok)
		}
	}
}

// FuzzParseDecision: whatever a person types, the decision is one of the
// four options, and it approves only for a line that holds the code
// before any colon, with "session" after it or not.
func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{"K7MXA", "k7mxa: ok", "K7MXA session", "approve", "y", "never", "", ":", "K7MXA\x00", "Ｋ7MXA", "K-7-M-X-A session: x"} {
		f.Add(s, "K7MXA")
		f.Add(s, "ACEFHJ")
	}
	f.Fuzz(func(t *testing.T, line, code string) {
		d, note, ok := stdio.ParseDecision(line, code)
		head, _, _ := strings.Cut(line, ":")
		switch d {
		case approval.ApproveOnce, approval.ApproveSession:
			if !ok || code == "" || !strings.Contains(challenge.Normalize(head), code) {
				t.Errorf("%q approves (%s) without the code %q", line, d, code)
			}
		case approval.DenyOnce, approval.DenySession:
		default:
			t.Errorf("%q gives %q, not an option", line, d)
		}
		if note != strings.TrimSpace(note) {
			t.Errorf("the note %q is not trimmed", note)
		}
	})
}
