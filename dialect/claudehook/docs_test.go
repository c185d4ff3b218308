package claudehook_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect/claudehook"
)

// TestDocsPayloads: docs/claude-code.md shows the call the two-question
// case makes with the default wait, exactly as Plan writes it, and the
// answers its reply carries; its .claude/settings.json snippet is JSON
// with a PreToolUse hook that runs askuser hook claude.
func TestDocsPayloads(t *testing.T) {
	doc, err := os.ReadFile("../../docs/claude-code.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(doc)
	in, err := claudehook.ParseInput(read(t, "testdata/cases/ask_two_questions", "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	call, err := claudehook.Config{}.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "\n"+string(call.Arguments)+"\n") {
		t.Errorf("the page does not show the call as Plan writes it:\n%s", call.Arguments)
	}
	reply := read(t, "testdata/cases/ask_two_questions", "reply.json")
	answers := reply[bytes.Index(reply, []byte(`"answers":`)):]
	if !strings.Contains(page, string(answers)) {
		t.Errorf("the page does not show the reply's answers as the hook writes them:\n%s", answers)
	}
	head := strings.TrimSuffix(string(reply[:bytes.Index(reply, []byte(`"updatedInput":`))]), ",")
	if !strings.Contains(page, head) {
		t.Errorf("the page does not show the reply's head as the hook writes it:\n%s", head)
	}
	start := strings.Index(page, "```json\n{\n  \"hooks\"")
	if start < 0 {
		t.Fatal("the page has no settings.json snippet")
	}
	snippet := page[start+len("```json\n"):]
	snippet = snippet[:strings.Index(snippet, "```")]
	var settings struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(snippet), &settings); err != nil {
		t.Fatalf("the settings.json snippet: %v\n%s", err, snippet)
	}
	entries := settings.Hooks["PreToolUse"]
	if len(entries) == 0 {
		t.Fatalf("the snippet registers no PreToolUse hook:\n%s", snippet)
	}
	for _, e := range entries {
		for _, h := range e.Hooks {
			if h.Type != "command" || !strings.HasPrefix(h.Command, "askuser hook claude ") || h.Timeout <= claudehook.DefaultTimeoutSeconds+15 {
				t.Errorf("the snippet's hook for %q: %+v; want a command running askuser hook claude, its timeout above the wait and the hook's margin", e.Matcher, h)
			}
		}
	}
}
