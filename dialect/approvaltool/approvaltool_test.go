package approvaltool_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// TestDialectIsTheDefault: the Dialect this package returns is the one the
// orchestrator asks with for an approval's Form when a Request names none.
func TestDialectIsTheDefault(t *testing.T) {
	d := approvaltool.Dialect()
	if d.Name() != approvalwire.ToolName {
		t.Fatalf("Name() = %q, want %q", d.Name(), approvalwire.ToolName)
	}
	f, err := approvaltool.Form(approval.Request{Action: "Delete the bucket logs", Reason: "Archived", Risk: approval.RiskHigh}, 60)
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{} // nobody to ask: unresolved
	results := map[string][]byte{}
	for id, d := range map[string]askuser.Dialect{"named": d, "default": nil} {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: id, Dialect: d, Form: f})
		if err != nil {
			t.Fatalf("%s: Handle: %v", id, err)
		}
		results[id] = out.Result
	}
	if !bytes.Equal(results["named"], results["default"]) || !bytes.Contains(results["named"], []byte(`"unresolved"`)) {
		t.Errorf("the named dialect's result differs from the default's, or is not unresolved:\nnamed:   %s\ndefault: %s", results["named"], results["default"])
	}
}

// TestVerdictOf: an outcome that is not an approval's has no verdict; an
// approval nobody could be asked about is unresolved, decided by nobody,
// ended unattended, with the form's digest; Form refuses a request with no
// action with a *dialect.CallError that says so.
func TestVerdictOf(t *testing.T) {
	if _, ok := approvaltool.VerdictOf(nil); ok {
		t.Error("VerdictOf(nil) reports a verdict")
	}
	if _, ok := approvaltool.VerdictOf(&askuser.Outcome{Form: &askuser.Form{}}); ok {
		t.Error("VerdictOf of a form without an approval reports a verdict")
	}
	f, err := approvaltool.Form(approval.Request{Action: "Rotate the key", Reason: "It leaked", Risk: approval.RiskIrreversible}, 60)
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&askuser.Orchestrator{}).Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Form: f})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := approvaltool.VerdictOf(out)
	want := approvaltool.Verdict{Status: approval.Unresolved, Ended: askuser.ReasonUnattended, Digest: approval.Digest("Rotate the key", "")}
	if !ok || v != want {
		t.Errorf("VerdictOf = %+v, %v; want %+v", v, ok, want)
	}
	_, err = approvaltool.Form(approval.Request{Reason: "why", Risk: approval.RiskLow}, 0)
	var ce *dialect.CallError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "Action is empty") {
		t.Errorf("Form without an action: %v; want a *dialect.CallError saying the Action is empty", err)
	}
}
