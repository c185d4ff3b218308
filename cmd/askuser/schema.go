package main

import (
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/schema"
)

// schema prints the tool definition of a contract (--dialect) for one API
// (package schema): plain JSON Schema, OpenAI, Anthropic (and its strict
// variant), Gemini (with parameters or parametersJsonSchema), MCP, or the
// result's JSON Schema.
func (e env) schema(args []string) int {
	synopsis := "schema [--dialect ask_user|pi-ask|pi] [--format " + strings.Join(schema.Formats(), "|") + "] [--max-timeout-seconds N]"
	fs := e.flags("schema", synopsis)
	format := fs.String("format", schema.FormatJSON, "the API to render the tool definition for: `"+strings.Join(schema.Formats(), "|")+"`")
	ceiling := ceilingFlag(fs)
	dialectName := dialectFlag(fs)
	if code, stop := parse(fs, args); stop {
		return code
	}
	d, err := dialectNamed(*dialectName)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser schema: %v\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser schema: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if !e.checkCeiling("schema", *ceiling) {
		return exitUsage
	}
	out, err := schema.Options{Dialect: d.Name(), MaxTimeoutSeconds: *ceiling}.Render(*format)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser schema: --format %q is not a format; allowed: %s\n", *format, strings.Join(schema.Formats(), ", "))
		return exitUsage
	}
	e.stdout.Write(out)
	return exitOK
}
