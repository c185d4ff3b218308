package askusertool_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/askuserwire"
)

const call = `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe to break"},{"label":"production","description":"Real users","default":true}]}]}`

// TestDialectIsTheDefault: the Dialect this package returns is the one the
// orchestrator asks with when a Request names none — the same contract,
// the same result for the same answer.
func TestDialectIsTheDefault(t *testing.T) {
	d := askusertool.Dialect()
	if d.Name() != askuserwire.ToolName {
		t.Fatalf("Name() = %q, want %q", d.Name(), askuserwire.ToolName)
	}
	o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(_ context.Context, a *askuser.Ask) error {
		if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
			return err
		}
		return a.Submit()
	})}
	results := map[string][]byte{}
	for id, d := range map[string]askuser.Dialect{"named": d, "default": nil} {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: id, Dialect: d, Arguments: []byte(call)})
		if err != nil {
			t.Fatalf("%s: Handle: %v", id, err)
		}
		if out.Form.Contract != askuserwire.ToolName {
			t.Errorf("%s: the form's contract is %q, want %q", id, out.Form.Contract, askuserwire.ToolName)
		}
		results[id] = out.Result
	}
	if !bytes.Equal(results["named"], results["default"]) || !bytes.Contains(results["named"], []byte(`"staging"`)) {
		t.Errorf("the named dialect's result differs from the default's, or lacks the answer:\nnamed:   %s\ndefault: %s", results["named"], results["default"])
	}
}

// TestDialectMarshalsWhatItDecodes: a form decoded by the dialect is
// written back as a call the dialect reads to the same form.
func TestDialectMarshalsWhatItDecodes(t *testing.T) {
	d := askusertool.Dialect()
	f, err := askuser.Decode(d, []byte(call), dialect.Limits{})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	data, err := askusertool.MarshalCall(f)
	if err != nil {
		t.Fatalf("MarshalCall: %v", err)
	}
	g, err := askuser.Decode(d, data, dialect.Limits{})
	if err != nil {
		t.Fatalf("Decode of MarshalCall's %s: %v", data, err)
	}
	if len(g.Questions) != 1 || len(g.Questions[0].Options) != 2 || g.Questions[0].Options[1].Value != "production" || !g.Questions[0].Options[1].Default {
		t.Errorf("the round trip changed the form: %s", data)
	}
}
