package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMain keeps the tests, and the commands they start, away from the
// user's own state directory: a secret asked without --store goes to the
// default store, under $XDG_STATE_HOME.
func TestMain(m *testing.M) {
	state, err := os.MkdirTemp("", "askuser-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	os.RemoveAll(state)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the command, built once for every test that runs it as a
// process.
var built struct {
	sync.Once
	dir, bin string
	out      []byte
	err      error
}

// buildAskuser returns the path of the built command, building it the
// first time; without a go command the test is skipped.
func buildAskuser(t *testing.T) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build askuser with")
	}
	built.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "askuser-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "askuser")
		built.out, built.err = exec.Command(gotool, "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// cli runs the command in-process and returns its exit code, stdout and
// stderr.
func cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return cliIn(t, strings.NewReader(stdin), args...)
}

// cliIn is cli with any standard input.
func cliIn(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdin, &out, &errb)
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

func TestMaxTimeoutSeconds(t *testing.T) {
	const call = `{"questions":[{"id":"why","kind":"text","header":"Why","question":"Why deploy?"}],"timeout_seconds":3600}`
	file := writeFile(t, "call.json", call)

	code, out, errs := cli(t, "", "validate", "--max-timeout-seconds", "86400", "--now", "2026-11-30T09:00:00Z", file)
	if code != 0 || errs != "" {
		t.Fatalf("validate --max-timeout-seconds 86400: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, `"timeout_seconds":3600,`) || !strings.Contains(out, `"expires_at":"2026-11-30T10:00:00.000000000Z"`) {
		t.Errorf("validate --max-timeout-seconds 86400: stdout %s", out)
	}

	// Without the flag the ceiling is 300, as before.
	if code, _, errs := cli(t, "", "validate", file); code != 2 || !strings.Contains(errs, "timeout_seconds must be between 1 and 300") {
		t.Errorf("validate: exit %d, stderr %q; want 2 and the 300 s ceiling", code, errs)
	}
	// The ceiling is a ceiling: above it the call is refused.
	if code, _, errs := cli(t, "", "validate", "--max-timeout-seconds", "600", file); code != 2 || !strings.Contains(errs, "timeout_seconds must be between 1 and 600") {
		t.Errorf("validate --max-timeout-seconds 600: exit %d, stderr %q", code, errs)
	}

	code, out, errs = cli(t, "", "ask", "--max-timeout-seconds", "86400", "--responder", "auto", "--request", file)
	if code != 0 || errs != "" || !strings.Contains(out, `"status":"declined"`) {
		t.Errorf("ask --max-timeout-seconds 86400: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := cli(t, "", "ask", "--responder", "auto", "--request", file); code != 2 || !strings.Contains(errs, "timeout_seconds must be between 1 and 300") {
		t.Errorf("ask: exit %d, stderr %q; want 2 and the 300 s ceiling", code, errs)
	}

	for _, cmd := range []string{"validate", "ask"} {
		if code, _, errs := cli(t, "", cmd, "--max-timeout-seconds", "-1"); code != 2 || !strings.Contains(errs, "--max-timeout-seconds -1 is negative") {
			t.Errorf("%s --max-timeout-seconds -1: exit %d, stderr %q", cmd, code, errs)
		}
	}
}

// TestFlagsAfterArguments checks that flags may follow the positional
// arguments, up to a "--".
func TestFlagsAfterArguments(t *testing.T) {
	_, want, _ := cli(t, "", "validate", "--now", "2026-11-30T09:00:00Z", "testdata/mixed.json")
	for _, args := range [][]string{
		{"validate", "testdata/mixed.json", "--now", "2026-11-30T09:00:00Z"},
		{"validate", "testdata/mixed.json", "--now=2026-11-30T09:00:00Z", "--dialect", "ask_user"},
		{"validate", "--dialect", "ask_user", "testdata/mixed.json", "-now", "2026-11-30T09:00:00Z"},
		{"validate", "--now", "2026-11-30T09:00:00Z", "--", "testdata/mixed.json"},
	} {
		code, out, errs := cli(t, "", args...)
		if code != 0 || errs != "" || out != want {
			t.Errorf("%q: exit %d, stderr %q, stdout %s", args, code, errs, out)
		}
	}

	// After "--" every argument is positional, even one that looks like a flag.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("-call.json", []byte(`{"questions":[{"id":"why","kind":"text","header":"Why","question":"Why?"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "", "validate", "--", "-call.json"); code != 0 {
		t.Errorf("validate -- -call.json: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli(t, "", "validate", "-call.json"); code != 2 || !strings.Contains(errs, "flag provided but not defined: -call.json") {
		t.Errorf("validate -call.json: exit %d, stderr %q; want a flag error", code, errs)
	}

	// A flag after the arguments is still a flag: an unknown one is refused,
	// a help flag gives help.
	if code, _, errs := cli(t, "", "validate", "testdata/mixed.json", "--nope"); code != 2 || !strings.Contains(errs, "flag provided but not defined: -nope") {
		t.Errorf("validate FILE --nope: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli(t, "", "validate", "testdata/mixed.json", "--help"); code != 0 || !strings.Contains(errs, "usage: askuser validate") {
		t.Errorf("validate FILE --help: exit %d, stderr %q", code, errs)
	}
	// ask takes no argument, before or after its flags.
	if code, _, errs := cli(t, "", "ask", "extra", "--responder", "auto"); code != 2 || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("ask extra --responder auto: exit %d, stderr %q", code, errs)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		args       []string
		flags      string
		positional []string
	}{
		{[]string{"a", "--s", "x", "b"}, "s=x b=false", []string{"a", "b"}},
		{[]string{"--b", "a", "--s=y"}, "s=y b=true", []string{"a"}},
		{[]string{"a", "-b=false", "-s", "--"}, "s=-- b=false", []string{"a"}},
		{[]string{"--s", "--", "a"}, "s=-- b=false", []string{"a"}},
		{[]string{"-", "--", "--b", "-s"}, "s= b=false", []string{"-", "--b", "-s"}},
		{[]string{"a", "--", "--", "b"}, "s= b=false", []string{"a", "--", "b"}},
		{nil, "s= b=false", []string{}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s := fs.String("s", "", "")
		b := fs.Bool("b", false, "")
		if code, stop := parse(fs, tt.args); stop {
			t.Errorf("parse(%q): stopped with %d", tt.args, code)
			continue
		}
		if got := fmt.Sprintf("s=%s b=%v", *s, *b); got != tt.flags {
			t.Errorf("parse(%q): flags %s, want %s", tt.args, got, tt.flags)
		}
		if diff := cmp.Diff(tt.positional, fs.Args()); diff != "" {
			t.Errorf("parse(%q): arguments (-want +got):\n%s", tt.args, diff)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("s", "", "")
	if code, stop := parse(fs, []string{"a", "--s"}); !stop || code != exitUsage {
		t.Errorf("a flag without its value: %d, %v; want a usage error", code, stop)
	}
}

// TestMCPHelpListsEveryFlag: every flag askuser mcp registers (as its
// --help lists them) is in its synopsis, in the usage text, and in the
// command's doc comment, so that none of them is only found by reading
// the code.
func TestMCPHelpListsEveryFlag(t *testing.T) {
	code, _, help := cli(t, "", "mcp", "--help")
	if code != 0 {
		t.Fatalf("mcp --help: exit %d, %s", code, help)
	}
	syn := "askuser " + mcpSynopsis
	if !strings.Contains(help, "usage: "+syn+"\n") {
		t.Errorf("mcp --help does not begin with the synopsis:\n%s", help)
	}
	usageLine := ""
	for _, l := range strings.Split(usage, "\n") {
		if strings.HasPrefix(l, "  askuser mcp ") {
			usageLine = strings.TrimSpace(l)
		}
	}
	if usageLine != syn {
		t.Errorf("the usage text's mcp line\n%s\nis not the synopsis\n%s", usageLine, syn)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src[:bytes.Index(src, []byte("\npackage main"))])
	if !strings.Contains(doc, "//\t"+syn+"\n") {
		t.Errorf("the command's doc comment does not show the synopsis %q", syn)
	}
	flags := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(help, -1)
	if len(flags) < 20 {
		t.Fatalf("mcp --help lists %d flags; want them all:\n%s", len(flags), help)
	}
	for _, f := range flags {
		name := "--" + f[1]
		if !regexp.MustCompile(regexp.QuoteMeta(name) + `\b[^-]`).MatchString(syn + " ") {
			t.Errorf("%s is registered but not in the synopsis %q", name, syn)
		}
	}
	for _, name := range []string{"--nats", "--bridge-to", "--bridge-timeout", "--slack-listen"} {
		if !strings.Contains(doc, name+" ") {
			t.Errorf("the command's doc comment does not say what %s does", name)
		}
	}
}
