package main

import (
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
)

const (
	piAskCall = `{"title":"Setup","questions":[{"id":"db","prompt":"Which database?","options":[{"value":"pg","label":"PostgreSQL"},{"value":"lite","label":"SQLite"}]}]}`
	piCall    = `{"questions":[{"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"}],"recommended":1}]}`
)

func TestValidateDialect(t *testing.T) {
	for _, tt := range []struct {
		dialect, call string
		decode        func([]byte, dialect.Limits) (*askuser.Form, error)
	}{{"pi-ask", piAskCall, piask.Dialect().Decode}, {"pi", piCall, pi.Dialect().Decode}} {
		code, out, errs := cli(t, tt.call, "validate", "--dialect", tt.dialect, "--now", "2026-11-30T09:00:00Z")
		if code != 0 || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", tt.dialect, code, errs)
		}
		c, err := tt.decode([]byte(out), dialect.Limits{})
		if err != nil {
			t.Fatalf("%s: stdout is not a %s call: %v\n%s", tt.dialect, tt.dialect, err, out)
		}
		if c.Contract != tt.dialect || c.TimeoutSeconds != 300 {
			t.Errorf("%s: normalized call %+v", tt.dialect, c)
		}
	}
}

// TestValidateRoundTrip checks that validate prints a call in its
// contract's own form, so that validating the output again with the same
// dialect gives it back unchanged.
func TestValidateRoundTrip(t *testing.T) {
	for _, tt := range []struct{ name, dialect, call string }{
		{"ask_user", "ask_user", `{"questions":[{"header":"Env","question":"Which?","options":[{"label":"a","description":"A","default":true},{"label":"b","description":"B"}],"multi_select":true},{"kind":"text","header":"Why","question":"Why?"}],"timeout_seconds":120}`},
		{"ask_user secret", "ask_user", `{"questions":[{"kind":"secret","header":"Token","question":"Token?","secret_name":"TOKEN","purpose":"to deploy"}]}`},
		{"ask_user minimal", "ask_user", `{"questions":[{"kind":"text","header":"H","question":"Q?"}]}`},
		{"pi-ask", "pi-ask", piAskCall},
		{"pi-ask multi", "pi-ask", `{"questions":[{"id":"langs","label":"Langs","prompt":"Which languages?","type":"multi","options":[{"value":"go","label":"Go","description":"fast"},{"value":"rs","label":"Rust"}]}]}`},
		{"pi options", "pi", piCall},
		{"pi options with timeout", "pi", `{"questions":[{"id":"a","question":"A?","options":[{"label":"x"},{"label":"y"}],"multi":true,"timeoutMs":90000}]}`},
		{"pi rich select", "pi", `{"question":"Which tier?","kind":"select","options":["free","pro"],"default":["pro","free"],"timeoutMs":90500,"reason":"billing differs"}`},
		{"pi rich text", "pi", `{"question":"Why?","kind":"text"}`},
		{"pi rich editor", "pi", `{"question":"Notes?","kind":"editor","sensitivity":"secret"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			validate := func(call string) string {
				t.Helper()
				code, out, errs := cli(t, call, "validate", "--dialect", tt.dialect, "--now", "2026-11-30T09:00:00Z")
				if code != 0 || errs != "" {
					t.Fatalf("validate %s: exit %d, stderr %q", call, code, errs)
				}
				return out
			}
			once := validate(tt.call)
			if twice := validate(once); twice != once {
				t.Errorf("validate(validate(x)) != validate(x):\n%s\n%s", once, twice)
			}
		})
	}
}

func TestValidateDialectInvalid(t *testing.T) {
	code, out, errs := cli(t, `{"questions":[]}`, "validate", "--dialect", "pi-ask")
	if code != 2 || out != "" || errs != "Error: At least one question is required\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestAskDialect(t *testing.T) {
	code, out, errs := cli(t, "", "ask", "--dialect", "pi-ask", "--responder", "script="+writeFile(t, "s.json", `{"answers":[{"id":"db","values":["lite"],"note":"small"}]}`), "--request", writeFile(t, "c.json", piAskCall))
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	want := `{"content":[{"type":"text","text":"Q1: SQLite\nQ1 note: small"}],"details":{"title":"Setup","cancelled":false,"questions":[{"id":"db","label":"Q1","prompt":"Which database?","type":"single"}],"answers":{"db":{"values":["lite"],"labels":["SQLite"],"indices":[2],"note":"small"}}}}` + "\n"
	if out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	code, out, _ = cli(t, "", "ask", "--dialect", "pi", "--responder", "auto", "--request", writeFile(t, "c.json", piCall))
	if code != 0 || !strings.Contains(out, `"reason":"no-ui"`) {
		t.Errorf("pi, nobody: exit %d, stdout %q", code, out)
	}
}

func TestAskDialectInvalid(t *testing.T) {
	for _, tt := range []struct{ dialect, call, out, err string }{
		{"pi-ask", `{"title":"T"}`,
			`{"content":[{"type":"text","text":"Error: At least one question is required"}],"details":{"title":"T","cancelled":true,"questions":[],"answers":{}}}` + "\n",
			"Error: At least one question is required\n"},
		{"pi", `{"question":"Why?","kind":"editor","timeoutMs":1000}`,
			`{"content":[{"type":"text","text":"timeoutMs is unsupported for text/editor host dialogs; omit it or use a select question."}],"details":{"status":"unsupported","source":"ask"},"isError":true}` + "\n",
			"timeoutMs is unsupported for text/editor host dialogs; omit it or use a select question.\n"},
	} {
		code, out, errs := cli(t, tt.call, "ask", "--dialect", tt.dialect, "--responder", "auto")
		if code != 2 || out != tt.out || errs != tt.err {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", tt.dialect, code, out, errs)
		}
	}
}

// TestUnknownDialect checks the refusal of a contract askuser does not
// speak. (schema's own dialects are checked in schema_test.go.)
func TestUnknownDialect(t *testing.T) {
	for _, cmd := range []string{"validate", "ask"} {
		want := "askuser " + cmd + ": --dialect \"mcp\" is not a contract; allowed: ask_user, pi-ask, pi, request_approval\n"
		if code, _, errs := cli(t, "", cmd, "--dialect", "mcp"); code != 2 || errs != want {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, errs)
		}
	}
}
