package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/schema"
)

// TestSchema: every contract renders in every format, as the schema
// package's golden rendering.
func TestSchema(t *testing.T) {
	for _, d := range []string{"ask_user", "pi-ask", "pi", "request_approval"} {
		for _, f := range schema.Formats() {
			t.Run(d+"/"+f, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join("..", "..", "schema", "testdata", d, f+".golden"))
				if err != nil {
					t.Fatal(err)
				}
				code, out, errs := cli(t, "", "schema", "--dialect", d, "--format", f)
				if code != 0 || errs != "" {
					t.Fatalf("exit %d, stderr %q", code, errs)
				}
				if diff := cmp.Diff(string(want), out); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSchemaDefaultAndCeiling(t *testing.T) {
	code, out, _ := cli(t, "", "schema")
	if code != 0 || out != string(schema.JSONSchema()) {
		t.Errorf("askuser schema: exit %d; want 0 and the plain JSON Schema", code)
	}
	code, out, _ = cli(t, "", "schema", "--dialect", "pi")
	if code != 0 || out != string(schema.Options{Dialect: "pi"}.JSONSchema()) {
		t.Errorf("askuser schema --dialect pi: exit %d; want 0 and pi's plain JSON Schema", code)
	}
	code, out, _ = cli(t, "", "schema", "--max-timeout-seconds", "90")
	if code != 0 || !strings.Contains(out, `"maximum": 90`) {
		t.Errorf("askuser schema --max-timeout-seconds 90: exit %d; want 0 and a maximum of 90", code)
	}
	code, out, _ = cli(t, "", "schema", "--dialect", "pi", "--format", "openai", "--max-timeout-seconds", "90")
	if code != 0 || !strings.Contains(out, `"maximum": 90000`) {
		t.Errorf("askuser schema --dialect pi --format openai --max-timeout-seconds 90: exit %d; want 0 and a maximum of 90000", code)
	}
}

func TestSchemaUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"schema", "--format", "yaml"}, `--format "yaml" is not a format; allowed: json, openai`},
		{[]string{"schema", "--dialect", "pi", "--format", "yaml"}, `--format "yaml" is not a format; allowed: json, openai`},
		{[]string{"schema", "--dialect", "mcp"}, `--dialect "mcp" is not a contract; allowed: ask_user, pi-ask, pi, request_approval`},
		{[]string{"schema", "--tool", "ask"}, `--tool "ask" is not a tool; allowed: ask_user, request_approval`},
		{[]string{"schema", "--tool", "request_approval", "--dialect", "pi"}, `--tool request_approval is a contract of its own; leave out --dialect pi`},
		{[]string{"schema", "--tool", "ask_user", "--dialect", "request_approval"}, `--tool ask_user and --dialect request_approval name two different tools; give one`},
		{[]string{"schema", "extra"}, `unexpected argument "extra"`},
		{[]string{"schema", "--max-timeout-seconds", "-1"}, "is negative"},
	}
	for _, tt := range tests {
		code, out, errs := cli(t, "", tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, and %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestSchemaTool: --tool request_approval renders the consent gate, the
// same as --dialect request_approval; --tool ask_user is the question tool
// of --dialect.
func TestSchemaTool(t *testing.T) {
	for _, f := range schema.Formats() {
		b, err := schema.Options{Dialect: "request_approval", MaxTimeoutSeconds: 90}.Render(f)
		if err != nil {
			t.Fatal(err)
		}
		want := string(b)
		for _, args := range [][]string{
			{"schema", "--tool", "request_approval", "--format", f, "--max-timeout-seconds", "90"},
			{"schema", "--dialect", "request_approval", "--format", f, "--max-timeout-seconds", "90"},
			{"schema", "--tool", "request_approval", "--dialect", "ask_user", "--format", f, "--max-timeout-seconds", "90"},
			{"schema", "--tool", "request_approval", "--dialect", "request_approval", "--format", f, "--max-timeout-seconds", "90"},
		} {
			code, out, errs := cli(t, "", args...)
			if code != 0 || errs != "" || out != want {
				t.Errorf("%v: exit %d, stderr %q, stdout is the consent gate's %s rendering: %v", args, code, errs, f, out == want)
			}
		}
	}
	code, out, _ := cli(t, "", "schema", "--tool", "ask_user", "--dialect", "pi")
	if code != 0 || out != string(schema.Options{Dialect: "pi"}.JSONSchema()) {
		t.Errorf("--tool ask_user --dialect pi: exit %d; want pi's question tool", code)
	}
	if code, out, _ := cli(t, "", "schema", "--tool", "ask_user"); code != 0 || out != string(schema.JSONSchema()) {
		t.Errorf("--tool ask_user: exit %d; want ask_user's", code)
	}
}
