package askuser_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/askusertool"
)

// TestApprovalDigest: the digest is SHA-256 over the JSON array [action,
// details], written without HTML escaping or white space, so that any
// language computes the same one.
func TestApprovalDigest(t *testing.T) {
	tests := []struct{ action, details, json string }{
		{"Delete bucket logs-2024", "", `["Delete bucket logs-2024",""]`},
		{"rm -rf <dir> && echo", "a\nb\t\"c\"", `["rm -rf <dir> && echo","a\nb\t\"c\""]`},
		{"héllo 🙂", "\u2028", "[\"héllo 🙂\",\"\u2028\"]"},
		{"bell\x07", "\x1f\x7f", `["bell\u0007","\u001f` + "\x7f" + `"]`},
	}
	for _, tt := range tests {
		sum := sha256.Sum256([]byte(tt.json))
		want := "sha256:" + hex.EncodeToString(sum[:])
		if got := approval.Digest(tt.action, tt.details); got != want {
			t.Errorf("approval.Digest(%q, %q) = %s, want the digest of %s (%s)", tt.action, tt.details, got, tt.json, want)
		}
	}
	// Pinned as Python computes it: json.dumps([action, details],
	// ensure_ascii=False, separators=(",", ":")), then SHA-256.
	if got, want := approval.Digest("bell\x07", "\x1f\x7f"), "sha256:f686c681dd4b16365fcc45933ce7e29b07037be60905d52623d8ecab5617c730"; got != want {
		t.Errorf("approval.Digest = %s, want Python's %s", got, want)
	}
	if approval.Digest("a", "b") == approval.Digest("a\",\"b", "") {
		t.Error("two different approvals share a digest")
	}
}

// TestApprovalFormRefuses: approvaltool.Form checks each field and names what is
// allowed.
func TestApprovalFormRefuses(t *testing.T) {
	ok := approval.Request{Action: "Delete bucket", Reason: "It is empty", Risk: approval.RiskHigh}
	tests := []struct {
		name string
		edit func(*approval.Request)
		want string
	}{
		{"no action", func(a *approval.Request) { a.Action = " " }, "Action is empty"},
		{"long action", func(a *approval.Request) { a.Action = strings.Repeat("é", 201) }, "Action is 201 characters; allowed: at most 200"},
		{"no reason", func(a *approval.Request) { a.Reason = "" }, "Reason is empty"},
		{"long reason", func(a *approval.Request) { a.Reason = strings.Repeat("x", 501) }, "Reason is 501 characters; allowed: at most 500"},
		{"no risk", func(a *approval.Request) { a.Risk = "" }, `Risk "" is not a risk; allowed: low, medium, high, irreversible`},
		{"long details", func(a *approval.Request) { a.Details = strings.Repeat("x", 8<<10+1) }, "Details is 8193 bytes; allowed: at most 8192"},
		{"bad UTF-8", func(a *approval.Request) { a.Details = "\xff" }, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ok
			tt.edit(&a)
			_, err := approvaltool.Form(a, 0)
			var ce *dialect.CallError
			if !errors.As(err, &ce) || !strings.Contains(ce.Message, tt.want) {
				t.Errorf("approvaltool.Form = %v, want a *dialect.CallError saying %q", err, tt.want)
			}
		})
	}
	a := ok
	a.Details = strings.Repeat("x", 8<<10)
	if _, err := approvaltool.Form(a, 0); err != nil {
		t.Errorf("details of exactly 8 KiB: %v", err)
	}
}

// TestApprovalFormShapeIsKept: a form that carries an approval question
// but is not as approvaltool.Form makes it is refused, so that no Go caller and
// no dialect can make an approval a default, a draft or a second question
// could decide.
func TestApprovalFormShapeIsKept(t *testing.T) {
	good := func() *askuser.Form {
		f, err := approvaltool.Form(approval.Request{Action: "Deploy", Reason: "The fix is ready", Risk: approval.RiskMedium}, 30)
		if err != nil {
			t.Fatal(err)
		}
		// A deep copy: the edits below must not reach the original.
		c := *f
		ap := *f.Approval
		c.Approval = &ap
		c.Questions = append([]askuser.Question(nil), f.Questions...)
		c.Questions[0].Options = append([]askuser.Option(nil), f.Questions[0].Options...)
		return &c
	}
	if _, err := askuser.Normalize(good(), dialect.Limits{}); err != nil {
		t.Fatalf("approvaltool.Form's own form is refused: %v", err)
	}
	tests := []struct {
		name string
		edit func(*askuser.Form)
	}{
		{"an approve default", func(f *askuser.Form) { f.Questions[0].Options[0].Default = true }},
		{"a default at the deadline", func(f *askuser.Form) { f.Questions[0].NoDefault = false }},
		{"drafts at the deadline", func(f *askuser.Form) { f.Questions[0].OnDeadline = askuser.FallbackDraft }},
		{"defaults when unattended", func(f *askuser.Form) { f.Unattended = askuser.FallbackDefaults }},
		{"free text", func(f *askuser.Form) { f.Questions[0].AllowOther = true }},
		{"several picks", func(f *askuser.Form) { f.Questions[0].MultiSelect = true }},
		{"optional", func(f *askuser.Form) { f.Questions[0].Optional = true }},
		{"an option too few", func(f *askuser.Form) { f.Questions[0].Options = f.Questions[0].Options[:3] }},
		{"options renamed", func(f *askuser.Form) { f.Questions[0].Options[0].Value = "yes" }},
		{"a second question", func(f *askuser.Form) {
			f.Questions = append(f.Questions, askuser.Question{ID: "q2", Kind: askuser.KindText, Header: "Why", Text: "Why?", AllowOther: true})
		}},
		{"no Approval", func(f *askuser.Form) { f.Approval = nil }},
		{"Approval on a plain question", func(f *askuser.Form) {
			f.Questions = []askuser.Question{{ID: "q", Kind: askuser.KindText, Header: "H", Text: "Q?", AllowOther: true}}
		}},
		{"a digest of another action", func(f *askuser.Form) { f.Approval.Action = "Deploy to production" }},
		{"a bad risk", func(f *askuser.Form) { f.Approval.Risk = "none" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := good()
			tt.edit(f)
			_, err := askuser.Normalize(f, dialect.Limits{})
			var ce *dialect.CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Normalize = %v, want a *dialect.CallError", err)
			}
			// Through Handle too: nobody is asked.
			asked := false
			o := &askuser.Orchestrator{Logger: newDiscardLogger(), Responder: askuser.ResponderFunc(func(context.Context, *askuser.Ask) error {
				asked = true
				return nil
			})}
			if _, err := o.Handle(t.Context(), askuser.Request{Session: "s", Form: f}); !errors.As(err, &ce) || asked {
				t.Errorf("Handle = %v (asked: %v), want a *dialect.CallError and nobody asked", err, asked)
			}
		})
	}
}

// TestApprovalFormNeedsItsContract: a Go-built approval asked in a question
// contract, or a question form asked in request_approval, is refused and
// nobody is asked: neither contract could answer it in its own terms.
func TestApprovalFormNeedsItsContract(t *testing.T) {
	approval, err := approvaltool.Form(approval.Request{Action: "Deploy", Reason: "The fix is ready", Risk: approval.RiskLow}, 30)
	if err != nil {
		t.Fatal(err)
	}
	question := &askuser.Form{Questions: []askuser.Question{{ID: "q", Kind: askuser.KindText, Header: "H", Text: "Why?"}}}
	tests := []struct {
		name string
		form *askuser.Form
		d    askuser.Dialect
		want string
	}{
		{"approval as ask_user", approval, askusertool.Dialect(), "the ask_user contract cannot say that"},
		{"question as request_approval", question, approvaltool.Dialect(), "asks only approvals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			o := &askuser.Orchestrator{Logger: newDiscardLogger(), Responder: askuser.ResponderFunc(func(context.Context, *askuser.Ask) error {
				asked = true
				return nil
			})}
			_, err := o.Handle(t.Context(), askuser.Request{Session: "s", Form: tt.form, Dialect: tt.d})
			var ce *dialect.CallError
			if !errors.As(err, &ce) || !strings.Contains(ce.Message, tt.want) || asked {
				t.Errorf("Handle = %v (asked: %v), want a *dialect.CallError saying %q and nobody asked", err, asked, tt.want)
			}
		})
	}
	// Each in its own contract is asked.
	for _, r := range []askuser.Request{{Session: "s", Form: approval}, {Session: "s", Form: question}} {
		o := &askuser.Orchestrator{Logger: newDiscardLogger()}
		if _, err := o.Handle(t.Context(), r); err != nil {
			t.Errorf("Handle(%+v) = %v, want an outcome", r.Form.Questions[0].Kind, err)
		}
	}
}
