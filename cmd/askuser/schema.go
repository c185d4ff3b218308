package main

import (
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/schema"
)

// schema prints the ask_user tool definition for one API (package schema):
// plain JSON Schema, OpenAI, Anthropic (and its strict variant), Gemini (with
// parameters or parametersJsonSchema), MCP, or the result's JSON Schema.
func (e env) schema(args []string) int {
	synopsis := "schema [--dialect ask_user|pi-ask|pi] [--format " + strings.Join(schema.Formats(), "|") + "] [--max-timeout-seconds N]"
	fs := e.flags("schema", synopsis)
	format := fs.String("format", schema.FormatJSON, "the API to render the tool definition for: `"+strings.Join(schema.Formats(), "|")+"`")
	ceiling := fs.Int("max-timeout-seconds", 0, "the ceiling on timeout_seconds the program sets: `N` seconds (0: the default, 300)")
	dialectName := dialectFlag(fs)
	if code, stop := parse(fs, args); stop {
		return code
	}
	d, err := dialectNamed(*dialectName)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser schema: %v\n", err)
		return exitUsage
	}
	if def := toolDefinition(d); def != nil {
		if *format != schema.FormatJSON {
			fmt.Fprintf(e.stderr, "askuser schema: --dialect %s has one tool definition, its own; give no --format, or --format %s\n", d.Name(), schema.FormatJSON)
			return exitUsage
		}
		e.stdout.Write(def)
		return exitOK
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser schema: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *ceiling < 0 {
		fmt.Fprintf(e.stderr, "askuser schema: --max-timeout-seconds %d is negative; give a number of seconds, or 0 for the default\n", *ceiling)
		return exitUsage
	}
	out, err := schema.Options{MaxTimeoutSeconds: *ceiling}.Render(*format)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser schema: --format %q is not a format; allowed: %s\n", *format, strings.Join(schema.Formats(), ", "))
		return exitUsage
	}
	e.stdout.Write(out)
	return exitOK
}
