package approvaltool_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
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
	if _, ok := d.(askuser.FormMarshaler); !ok {
		t.Fatalf("%T is not an askuser.FormMarshaler; the command's validate writes calls back with it", d)
	}
	f, err := askuser.ApprovalForm(approval.Request{Action: "Delete the bucket logs", Reason: "Archived", Risk: approval.RiskHigh}, 60)
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
