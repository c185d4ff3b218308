package main

import (
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/schema"
)

// schema prints the tool definition of a contract (--dialect, or --tool
// for askuser's own two tools) for one API (package schema): plain JSON
// Schema, OpenAI, Anthropic (and its strict variant), Gemini (with
// parameters or parametersJsonSchema), MCP, or the result's JSON Schema.
// --tool request_approval is the consent gate, the same as --dialect
// request_approval; --tool ask_user is the question tool of --dialect
// (ask_user by default).
func (e env) schema(args []string) int {
	synopsis := "schema [--dialect ask_user|pi-ask|pi|request_approval] [--tool ask_user|request_approval] [--format " + strings.Join(schema.Formats(), "|") + "] [--max-timeout-seconds N]"
	fs := e.flags("schema", synopsis)
	format := fs.String("format", schema.FormatJSON, "the API to render the tool definition for: `"+strings.Join(schema.Formats(), "|")+"`")
	tool := fs.String("tool", "", "the tool: `ask_user|request_approval` (ask_user: the question tool of --dialect; request_approval: the consent gate)")
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
	name := d.Name()
	switch *tool {
	case "", askuserwire.ToolName:
		if *tool != "" && name == approvalwire.ToolName {
			fmt.Fprintf(e.stderr, "askuser schema: --tool ask_user and --dialect request_approval name two different tools; give one\n")
			return exitUsage
		}
	case approvalwire.ToolName:
		if name != askuserwire.ToolName && name != approvalwire.ToolName {
			fmt.Fprintf(e.stderr, "askuser schema: --tool request_approval is a contract of its own; leave out --dialect %s\n", name)
			return exitUsage
		}
		name = approvalwire.ToolName
	default:
		fmt.Fprintf(e.stderr, "askuser schema: --tool %q is not a tool; allowed: ask_user, request_approval\n", *tool)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser schema: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if !e.checkCeiling("schema", *ceiling) {
		return exitUsage
	}
	out, err := schema.Options{Dialect: name, MaxTimeoutSeconds: *ceiling}.Render(*format)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser schema: --format %q is not a format; allowed: %s\n", *format, strings.Join(schema.Formats(), ", "))
		return exitUsage
	}
	e.stdout.Write(out)
	return exitOK
}
