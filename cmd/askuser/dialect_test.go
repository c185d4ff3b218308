package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
)

const (
	piAskCall = `{"title":"Setup","questions":[{"id":"db","prompt":"Which database?","options":[{"value":"pg","label":"PostgreSQL"},{"value":"lite","label":"SQLite"}]}]}`
	piCall    = `{"questions":[{"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"}],"recommended":1}]}`
)

func TestValidateDialect(t *testing.T) {
	for _, tt := range []struct{ dialect, call string }{{"pi-ask", piAskCall}, {"pi", piCall}} {
		code, out, errs := cli(t, tt.call, "validate", "--dialect", tt.dialect, "--now", "2026-11-30T09:00:00Z")
		if code != 0 || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", tt.dialect, code, errs)
		}
		var c askuser.Form
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("%s: stdout is not askuser's form of a call: %v\n%s", tt.dialect, err, out)
		}
		if c.Contract != tt.dialect || c.AskedAt.Format("2006-01-02T15:04:05Z") != "2026-11-30T09:00:00Z" || c.TimeoutSeconds != 300 {
			t.Errorf("%s: normalized call %+v", tt.dialect, c)
		}
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

func TestSchemaDialect(t *testing.T) {
	for name, want := range map[string][]byte{"pi-ask": piask.Tool(), "pi": pi.Tool()} {
		code, out, errs := cli(t, "", "schema", "--dialect", name)
		if code != 0 || errs != "" || out != string(want) {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
	}
	if code, _, errs := cli(t, "", "schema", "--dialect", "pi", "--format", "openai"); code != 2 || !strings.Contains(errs, "--dialect pi has one tool definition") {
		t.Errorf("pi with --format openai: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli(t, "", "validate", "--dialect", "mcp"); code != 2 || errs != "askuser validate: --dialect \"mcp\" is not a contract; allowed: ask_user, pi-ask, pi\n" {
		t.Errorf("unknown dialect: exit %d, stderr %q", code, errs)
	}
}
