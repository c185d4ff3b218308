package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cli runs the command in-process and returns its exit code, stdout and
// stderr.
func cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidate(t *testing.T) {
	code, out, errs := cli(t, "", "validate", "--now", "2026-11-30T09:00:00Z", "testdata/mixed.json")
	want := `{"questions":[{"kind":"choice","id":"env","header":"Env","question":"Which environment?","multi_select":false,"allow_other":true,"options":[{"label":"staging","description":"Safe to break","default":true},{"label":"production","description":"Real users","default":false}]},{"kind":"text","id":"branch","header":"Branch","question":"Which branch name?","multi_select":false,"allow_other":true,"options":[]}],"timeout_seconds":300,"asked_at":"2026-11-30T09:00:00.000000000Z","nudge_at":"2026-11-30T09:04:00.000000000Z","expires_at":"2026-11-30T09:05:00.000000000Z"}` + "\n"
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

func TestValidateInvalidCall(t *testing.T) {
	code, out, errs := cli(t, `{"questions":[{"header":"h","question":"q","kind":"pick"}]}`, "validate")
	if code != 2 || out != "" {
		t.Errorf("exit %d stdout %q; want 2 and nothing", code, out)
	}
	if !strings.HasPrefix(errs, "invalid ask_user arguments: questions[0].kind") {
		t.Errorf("stderr %q; want the model-facing message naming questions[0].kind", errs)
	}
}

func TestAskAuto(t *testing.T) {
	code, out, errs := cli(t, "", "ask", "--responder", "auto", "--request", "testdata/mixed.json")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	if diff := cmp.Diff(`{"status":"declined","answered_by":"unattended","answers":[]}`+"\n", out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAskScript(t *testing.T) {
	tests := []struct {
		name, script, want string
		wantErr            string
	}{
		{"submit", `{"answers":[{"id":"env","selected":["production"]},{"id":"branch","other_text":" fix/login "}]}`,
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"branch","selected":[],"other_text":"fix/login"}]}`, ""},
		{"answers by position and by value", `{"answers":[{"values":["staging"]},{"other_text":"main"}]}`,
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"branch","selected":[],"other_text":"main"}]}`, ""},
		{"decline", `{"end":"decline","answers":[{"id":"env","selected":["staging"]}]}`,
			`{"status":"declined","answered_by":"user","answers":[]}`, ""},
		{"cancel", `{"end":"cancel","answers":[{"id":"env","selected":["staging"]}]}`,
			`{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`, ""},
		{"supersede", `{"end":"supersede","answers":[{"id":"env","selected":["staging"]}]}`,
			`{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`, ""},
		{"unreachable", `{"end":"unreachable"}`,
			`{"status":"declined","answered_by":"unattended","answers":[]}`, ""},
		{"a refused answer is left out and the script goes on", `{"end":"cancel","answers":[{"id":"env","selected":["nowhere"]},{"id":"branch","other_text":"main"}]}`,
			`{"status":"cancelled","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"main"}]}`, ""},
		{"a refused submit is the responder's error", `{"answers":[{"id":"env","selected":["staging"]}]}`,
			`{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`,
			`askuser ask: askuser: responder script failed: askuser: cannot submit yet: question "branch" still needs an answer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := writeFile(t, "script.json", tt.script)
			code, out, errs := cli(t, "", "ask", "--responder", "script="+script, "--request", "testdata/mixed.json")
			if code != 0 {
				t.Fatalf("exit %d stderr %q", code, errs)
			}
			if diff := cmp.Diff(tt.want+"\n", out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if got := strings.TrimSpace(errs); got != tt.wantErr {
				t.Errorf("stderr %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func TestAskReplaysByToolCall(t *testing.T) {
	// In one process the same tool call is asked once; the CLI process is
	// one ask, so this checks the flag is wired to the orchestrator.
	code, out, _ := cli(t, "", "ask", "--responder", "auto", "--tool-call", "call_9", "--session", "s", "--request", "testdata/mixed.json")
	if code != 0 || !strings.Contains(out, `"status":"declined"`) {
		t.Errorf("exit %d stdout %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"frobnicate"}, `askuser: unknown command "frobnicate"`},
		{[]string{"ask", "--responder", "carrier-pigeon"}, `askuser ask: --responder "carrier-pigeon" is not a responder`},
		{[]string{"ask", "--nope"}, "flag provided but not defined: -nope"},
		{[]string{"ask", "extra"}, `askuser ask: unexpected argument "extra"`},
		{[]string{"validate", "a", "b"}, "askuser validate: give at most one FILE, not 2"},
		{[]string{"validate", "--now", "yesterday"}, `askuser validate: --now "yesterday" is not an RFC 3339 time`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := cli(t, "", tt.args...)
			if code != 2 || out != "" || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, out, errs, tt.want)
			}
		})
	}
}

func TestBadScriptFile(t *testing.T) {
	script := writeFile(t, "s.json", `{"end":"explode"}`)
	code, _, errs := cli(t, "", "ask", "--responder", "script="+script, "--request", "testdata/mixed.json")
	if code != 2 || !strings.Contains(errs, `end is "explode"; allowed: submit, decline, cancel, supersede, unreachable`) {
		t.Errorf("exit %d stderr %q", code, errs)
	}
}

func TestHelp(t *testing.T) {
	for _, cmd := range []string{"ask", "validate"} {
		code, _, errs := cli(t, "", cmd, "--help")
		if code != 0 || !strings.Contains(errs, "usage: askuser "+cmd) {
			t.Errorf("%s --help: exit %d stderr %q", cmd, code, errs)
		}
	}
}
