package claudehook_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/claudehook"
	"github.com/askuser-go/askuser/responder/scripted"
)

var update = flag.Bool("update", false, "rewrite the call, result and reply files of testdata/cases")

// config is the hook's configuration in every case: Bash and Write are
// asked as approvals, with a two-minute wait.
var config = claudehook.Config{ApproveTools: []string{"Bash", "Write"}, TimeoutSeconds: 120}

// TestCases plays every case of testdata/cases through the real
// orchestrator: the hook input (input.json, Claude Code's documented
// PreToolUse payload) becomes the call in call.json; the scripted person
// (script.json) answers it, inside a synctest bubble so that a deadline
// passes at once and exactly, and the orchestrator gives the result in
// result.json; the hook's reply to it is reply.json. Every file is
// compared byte for byte.
func TestCases(t *testing.T) {
	dirs, err := filepath.Glob("testdata/cases/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in testdata/cases (%v)", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { playCase(t, dir) })
		})
	}
}

func playCase(t *testing.T, dir string) {
	in, err := claudehook.ParseInput(read(t, dir, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	call, err := config.Plan(in)
	if err != nil || call == nil {
		t.Fatalf("Plan: %v, %v; want a call", call, err)
	}
	golden(t, dir, "call.json", call.Arguments)
	r, err := scripted.ParseFile(read(t, dir, "script.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := askusertool.Dialect()
	if call.Dialect == claudehook.DialectApproval {
		d = approvaltool.Dialect()
	}
	o := &askuser.Orchestrator{Responder: r, Limits: dialect.Limits{MaxTimeoutSeconds: config.TimeoutSeconds}}
	out, err := o.Handle(context.Background(), askuser.Request{Session: in.SessionID, ToolCallID: in.ToolUseID, Arguments: call.Arguments, Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, dir, "result.json", out.Result)
	reply, err := call.Reply(out.Result).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, dir, "reply.json", reply)
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// golden compares got with the file name of dir (its last newline aside),
// or with -update writes it.
func golden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(filepath.Join(dir, name), append(bytes.Clone(got), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(string(read(t, dir, name)), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}
