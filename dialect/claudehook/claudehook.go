// Package claudehook speaks Claude Code's PreToolUse hook contract, so that
// the questions Claude Code asks its person (the AskUserQuestion tool) and
// the permission prompts for the tools a program names are asked through
// askuser instead: on the web card, through askuser serve, with deadlines,
// provenance and the journal.
//
// A hook gets one JSON object on standard input (ParseInput), asks what
// Config.Plan makes of it — an ask_user call for AskUserQuestion, a
// request_approval call for a tool named in Config.ApproveTools, or
// nothing for any other tool — through any askuser orchestrator or
// service, and prints the Output that Call.Reply makes of the result the
// model would have read: allow with the answers in updatedInput, deny, or
// ask (Claude Code asks the person itself). A failure anywhere gives ask
// (Fallback), never allow.
//
// The package works on bytes: the calls it makes are the contracts' own
// JSON (docs/ask_user.md, docs/request_approval.md) and it reads their
// results back, so that the same mapping serves an orchestrator in the
// process and askuser serve on the network. docs/claude-code.md is the
// user's page, with the .claude/settings.json snippet and the choices made
// where Claude Code's documentation leaves a field open.
package claudehook

import (
	"bytes"
	"encoding/json"
)

// The names Claude Code's hook input and output use.
const (
	// EventPreToolUse is the hook event the package answers.
	EventPreToolUse = "PreToolUse"
	// AskUserQuestion is the tool Claude Code asks its person questions with.
	AskUserQuestion = "AskUserQuestion"
)

// The askuser contracts a Call is in (Call.Dialect).
const (
	DialectAskUser  = "ask_user"
	DialectApproval = "request_approval"
)

// MaxInputBytes caps the hook input ParseInput reads: a Write carries the
// whole file, so the cap is generous; a larger input is refused, and the
// hook answers ask.
const MaxInputBytes = 4 << 20

// DefaultTimeoutSeconds is the wait of an ask when Config.TimeoutSeconds
// is zero: the ceiling askuser applies by default.
const DefaultTimeoutSeconds = 300

// A Decision is a PreToolUse hook's permissionDecision.
type Decision string

// The decisions the package gives. Claude Code also knows "defer", which
// the package never gives.
const (
	// Allow runs the tool without Claude Code's own prompt; for
	// AskUserQuestion, with the person's answers in updatedInput.
	Allow Decision = "allow"
	// Deny refuses the tool call; the reason is shown to Claude.
	Deny Decision = "deny"
	// Ask has Claude Code ask the person itself, the reason shown in its
	// prompt: the answer to every failure.
	Ask Decision = "ask"
)

// An Output is the hook's reply: the JSON object printed on standard
// output, {"hookSpecificOutput": {"hookEventName": "PreToolUse",
// "permissionDecision": …, "permissionDecisionReason": …, "updatedInput":
// …}}, written by MarshalJSON.
type Output struct {
	// Decision is allow, deny or ask.
	Decision Decision
	// Reason is permissionDecisionReason: shown to the person for allow
	// and ask, to Claude for deny. Never empty.
	Reason string
	// UpdatedInput replaces the tool's input (AskUserQuestion's, with the
	// answers); nil for none.
	UpdatedInput json.RawMessage
}

type wireOutput struct {
	HookSpecificOutput wireSpecific `json:"hookSpecificOutput"`
}

type wireSpecific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       Decision        `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
}

// MarshalJSON writes the reply as Claude Code reads it, on one line, its
// fields in the order above, without HTML escapes.
func (o *Output) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(wireOutput{wireSpecific{
		HookEventName:            EventPreToolUse,
		PermissionDecision:       o.Decision,
		PermissionDecisionReason: o.Reason,
		UpdatedInput:             o.UpdatedInput,
	}})
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Fallback is the reply when the hook could not ask, or could not read
// what it was told: ask, so that Claude Code asks the person itself, with
// the reason (made inert, as Claude Code shows it on the terminal).
func Fallback(reason string) *Output {
	return &Output{Decision: Ask, Reason: "askuser could not ask: " + oneLine(reason)}
}
