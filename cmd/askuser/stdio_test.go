package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAskStdioPiped: the default responder reads answers piped on standard
// input, prints the questions on standard error and only the result on
// standard output.
func TestAskStdioPiped(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"answered", "2\nfeature/login\n",
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"branch","selected":[],"other_text":"feature/login"}]}` + "\n"},
		{"the default on an empty line", "\nmain\n",
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"branch","selected":[],"other_text":"main"}]}` + "\n"},
		{"the end of input dismisses", "1\n",
			`{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"ask", "--request", "testdata/mixed.json"}, strings.NewReader(tt.input), &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			if diff := cmp.Diff(tt.want, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			for _, s := range []string{"[1/2] Env\nWhich environment?\n", "[2/2] Branch\n"} {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr does not show %q:\n%s", s, stderr.String())
				}
			}
		})
	}
}

// TestAskHelpNamesStdio: ask --help names every responder and says which
// is the default where.
func TestAskHelpNamesStdio(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ask", "--help"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{"--responder tui|stdio|auto|web|script=FILE", "default: tui where standard input and standard error are terminals", "else stdio"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("ask --help does not show %q:\n%s", s, stderr.String())
		}
	}
}

func TestAskUnknownResponder(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ask", "--responder", "carrier-pigeon"}, strings.NewReader(""), &stdout, &stderr)
	got := []any{code, stdout.String(), stderr.String()}
	want := []any{exitUsage, "", `askuser ask: --responder "carrier-pigeon" is not a responder; allowed: tui, stdio, auto, web, slack, email, script=FILE` + "\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(exit code, stdout, stderr) (-want +got):\n%s", diff)
	}
}

// TestAskStdioEmptyInput: with a standard input that holds nothing (or
// only the call, as in `cat call.json | askuser ask`), nobody is there:
// the ask gets the contract's unattended result, as with --responder auto,
// not a dismissal by the person.
func TestAskStdioEmptyInput(t *testing.T) {
	choices := `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[` +
		`{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]}]}`
	tests := []struct {
		name   string
		args   []string
		stdin  string
		want   string
		sameAs []string // a command whose result it must equal
	}{
		{"ask_user, --request", []string{"--request", writeFile(t, "choices.json", choices)}, "",
			`{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}` + "\n", nil},
		{"ask_user, the call on standard input", nil, choices,
			`{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}` + "\n", nil},
		{"ask_user, a text question", []string{"--request", "testdata/mixed.json"}, "",
			`{"status":"declined","answered_by":"unattended","answers":[]}` + "\n", nil},
		{"pi, --request", []string{"--dialect", "pi", "--request", writeFile(t, "pi.json", piCall)}, "", "",
			[]string{"ask", "--dialect", "pi", "--responder", "auto", "--request", writeFile(t, "pi.json", piCall)}},
		{"pi, the call on standard input", []string{"--dialect", "pi"}, piCall, "",
			[]string{"ask", "--dialect", "pi", "--responder", "auto", "--request", writeFile(t, "pi.json", piCall)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if tt.sameAs != nil {
				code, out, errs := cli(t, "", tt.sameAs...)
				if code != exitOK || !strings.Contains(out, `"reason":"no-ui"`) {
					t.Fatalf("%v: exit %d, stdout %q, stderr %q", tt.sameAs, code, out, errs)
				}
				want = out
			}
			code, out, errs := cli(t, tt.stdin, append([]string{"ask"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errs)
			}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if says := "The input ended before anything was typed; nobody can be asked here.\n"; !strings.Contains(errs, says) {
				t.Errorf("stderr does not say %q:\n%s", says, errs)
			}
		})
	}
}
