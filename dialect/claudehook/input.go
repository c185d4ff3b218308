package claudehook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser/internal/inert"
)

// ErrNotPreToolUse is matched (errors.Is) by the error of ParseInput for
// the input of another hook event: the hook is registered under the wrong
// event, and makes no decision.
var ErrNotPreToolUse = errors.New("claudehook: not a PreToolUse hook input")

// An Input is the JSON object Claude Code gives a PreToolUse hook on
// standard input. Fields Claude Code adds beyond these are ignored.
type Input struct {
	// SessionID is Claude Code's session.
	SessionID string
	// TranscriptPath is the conversation's transcript file.
	TranscriptPath string
	// Cwd is the directory Claude Code works in.
	Cwd string
	// PermissionMode is Claude Code's permission mode ("default", "plan",
	// "acceptEdits", "dontAsk", "bypassPermissions").
	PermissionMode string
	// HookEventName is "PreToolUse".
	HookEventName string
	// ToolName is the tool Claude is about to call ("Bash",
	// "AskUserQuestion", "mcp__server__tool").
	ToolName string
	// ToolInput is the tool's input, a JSON object, as Claude Code sent it.
	ToolInput json.RawMessage
	// ToolUseID is the tool call's id.
	ToolUseID string
}

type wireInput struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	PermissionMode string         `json:"permission_mode"`
	HookEventName  string         `json:"hook_event_name"`
	ToolName       string         `json:"tool_name"`
	ToolInput      jsontext.Value `json:"tool_input"`
	ToolUseID      string         `json:"tool_use_id"`
}

// ParseInput reads a PreToolUse hook input: one JSON object, in valid
// UTF-8, no member given twice at any depth, its known fields of their
// documented types (null counts as absent), hook_event_name
// "PreToolUse", a tool_name, and a tool_input that is an object. It
// refuses anything else with an error that says what is wrong and what is
// allowed (for another event, one matching ErrNotPreToolUse), and never
// panics, whatever the bytes.
func ParseInput(data []byte) (*Input, error) {
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("claudehook: the hook input is %d bytes; at most %d are read", len(data), MaxInputBytes)
	}
	var w wireInput
	if err := jsonv2.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("claudehook: the hook input is not the JSON object Claude Code sends a PreToolUse hook: %v", err)
	}
	switch {
	case w.HookEventName != EventPreToolUse:
		return nil, fmt.Errorf("%w: hook_event_name is %q; askuser answers PreToolUse only (register it under \"PreToolUse\" in .claude/settings.json)", ErrNotPreToolUse, clip(w.HookEventName, 40))
	case w.ToolName == "":
		return nil, errors.New("claudehook: the hook input has no tool_name; a PreToolUse input names the tool Claude is about to call")
	case w.ToolInput.Kind() != '{':
		return nil, fmt.Errorf("claudehook: tool_input of %s is not a JSON object", clip(w.ToolName, 80))
	}
	return &Input{
		SessionID:      w.SessionID,
		TranscriptPath: w.TranscriptPath,
		Cwd:            w.Cwd,
		PermissionMode: w.PermissionMode,
		HookEventName:  w.HookEventName,
		ToolName:       w.ToolName,
		ToolInput:      json.RawMessage(w.ToolInput),
		ToolUseID:      w.ToolUseID,
	}, nil
}

// A question is one question of AskUserQuestion's input.
type question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

type option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// askQuestions reads AskUserQuestion's input: {"questions": [{"question",
// "header", "options": [{"label", "description"}], "multiSelect"}]}, other
// members ignored (and echoed back in updatedInput).
func askQuestions(toolInput []byte) ([]question, error) {
	var in struct {
		Questions []question `json:"questions"`
	}
	if err := jsonv2.Unmarshal(toolInput, &in); err != nil {
		return nil, fmt.Errorf("the AskUserQuestion input is not {\"questions\": [{\"question\", \"header\", \"options\": [{\"label\", \"description\"}], \"multiSelect\"}]}: %v", err)
	}
	if len(in.Questions) == 0 {
		return nil, errors.New("the AskUserQuestion input has no questions")
	}
	seen := make(map[string]bool, len(in.Questions))
	for _, q := range in.Questions {
		if seen[q.Question] {
			return nil, fmt.Errorf("two questions read %q; the answers go back keyed by the question's text, so each must differ", clip(q.Question, 80))
		}
		seen[q.Question] = true
	}
	return in.Questions, nil
}

// clip cuts s to n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// oneLine makes s one line: every run of white space, newlines included,
// becomes one space, and control characters are written as escapes
// (internal/inert), so that it can be shown on a terminal.
func oneLine(s string) string {
	return inert.Line(strings.Join(strings.Fields(s), " "))
}
