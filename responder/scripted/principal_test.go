package scripted_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder/scripted"
)

// TestPrincipal: a responder's Principal is recorded on every ask it
// answers, and a step's own replaces it.
func TestPrincipal(t *testing.T) {
	call := json.RawMessage(`{"action":"ls","reason":"to look","risk":"low"}`)
	for _, tt := range []struct {
		steps []scripted.Step
		want  string
	}{
		{[]scripted.Step{scripted.Decide(approval.ApproveOnce, "")}, scripted.ScriptPrincipal},
		{[]scripted.Step{{Principal: "alice"}, scripted.Decide(approval.ApproveOnce, "")}, "alice"},
	} {
		r := scripted.New(tt.steps...)
		r.Principal = scripted.ScriptPrincipal
		o := &askuser.Orchestrator{Responder: r}
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: call, Dialect: approvaltool.Dialect()})
		if err != nil {
			t.Fatal(err)
		}
		if out.Principal != tt.want {
			t.Errorf("principal %q, want %q", out.Principal, tt.want)
		}
	}
}
