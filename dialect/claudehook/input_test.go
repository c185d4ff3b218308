package claudehook_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/dialect/claudehook"
)

const bashInput = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"}`

func TestParseInput(t *testing.T) {
	in, err := claudehook.ParseInput([]byte(`{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1","effort":{"level":"high"},"agent_id":null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &claudehook.Input{SessionID: "abc123", TranscriptPath: "/t.jsonl", Cwd: "/w", PermissionMode: "default", HookEventName: "PreToolUse",
		ToolName: "Bash", ToolInput: []byte(`{"command":"ls"}`), ToolUseID: "toolu_1"}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestParseInputRefusals: each input is refused with a message that says
// what is wrong; another event's input is ErrNotPreToolUse.
func TestParseInputRefusals(t *testing.T) {
	for _, tt := range []struct{ name, input, want string }{
		{"not JSON", `{"hook_event_name":`, "is not the JSON object Claude Code sends"},
		{"an array", `[]`, "is not the JSON object Claude Code sends"},
		{"a member twice", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","tool_input":{}}`, "duplicate"},
		{"a member twice, deep", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf /"}}`, "duplicate"},
		{"a number for a name", `{"hook_event_name":"PreToolUse","tool_name":7,"tool_input":{}}`, "is not the JSON object Claude Code sends"},
		{"invalid UTF-8", "{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\xff\",\"tool_input\":{}}", "UTF-8"},
		{"data after it", bashInput + ` {}`, "is not the JSON object Claude Code sends"},
		{"another event", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}`, `hook_event_name is "PostToolUse"; askuser answers PreToolUse only`},
		{"no tool", `{"hook_event_name":"PreToolUse","tool_input":{}}`, "has no tool_name"},
		{"no tool input", `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, "tool_input of Bash is not a JSON object"},
		{"a string for input", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`, "tool_input of Bash is not a JSON object"},
		{"too large", `{"tool_input":"` + strings.Repeat("x", claudehook.MaxInputBytes) + `"}`, "at most 4194304 are read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := claudehook.ParseInput([]byte(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseInput: %v, %v; want an error saying %q", in, err, tt.want)
			}
			if got, want := errors.Is(err, claudehook.ErrNotPreToolUse), tt.name == "another event"; got != want {
				t.Errorf("errors.Is(%v, ErrNotPreToolUse) = %v", err, got)
			}
		})
	}
}

// TestPlan: what each tool becomes, and the inputs that cannot be asked.
func TestPlan(t *testing.T) {
	cfg := claudehook.Config{ApproveTools: []string{"Bash", "mcp__gh__merge"}}
	plan := func(tool, toolInput string) (*claudehook.Call, error) {
		t.Helper()
		in, err := claudehook.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + toolInput + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Plan(in)
	}
	for _, tool := range []string{"Read", "Write", "bash", "mcp__gh__list"} {
		if c, err := plan(tool, `{"file_path":"/x"}`); c != nil || err != nil {
			t.Errorf("%s: %+v, %v; want no decision", tool, c, err)
		}
	}
	if c, err := plan("mcp__gh__merge", `{"pr":12}`); err != nil || c.Dialect != claudehook.DialectApproval ||
		!strings.Contains(string(c.Arguments), `"action":"Use the mcp__gh__merge tool"`) || !strings.Contains(string(c.Arguments), `"timeout_seconds":300`) {
		t.Errorf("an MCP tool: %s, %v", c.Arguments, err)
	}
	long := `{"questions":[{"question":"Which?","header":"A header far too long for a chip","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]},{"question":"Why?","header":" ","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}`
	if c, err := plan("AskUserQuestion", long); err != nil || !strings.Contains(string(c.Arguments), `"header":"A header far to…"`) || !strings.Contains(string(c.Arguments), `"header":"Question 2"`) {
		t.Errorf("headers: %s, %v; want the long one cut to 16 characters and the blank one named", c.Arguments, err)
	}
	for _, tt := range []struct{ name, tool, input, want string }{
		{"no questions", "AskUserQuestion", `{"questions":[]}`, "has no questions"},
		{"questions not a list", "AskUserQuestion", `{"questions":{}}`, `is not {"questions"`},
		{"one option", "AskUserQuestion", `{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"A"}]}]}`, "cannot be asked as ask_user: invalid ask_user arguments: "},
		{"the same question twice", "AskUserQuestion", `{"questions":[{"question":"Q?","header":"H","options":[]},{"question":"Q?","header":"H","options":[]}]}`, `two questions read "Q?"`},
		{"too large to show", "Bash", `{"command":"` + strings.Repeat("x", 9000) + `"}`, "more than the 8192 the approval card shows in full"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := plan(tt.tool, tt.input)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Plan: %v, %v; want an error saying %q", c, err, tt.want)
			}
		})
	}
}

// TestReplyNeverAllowsWithoutAPerson: results that are not a person's
// answers or approval, or that cannot be read, never allow.
func TestReplyNeverAllowsWithoutAPerson(t *testing.T) {
	in, err := claudehook.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	q, err := claudehook.Config{}.Plan(in)
	if err != nil {
		t.Fatal(err)
	}
	bash, err := claudehook.ParseInput([]byte(bashInput))
	if err != nil {
		t.Fatal(err)
	}
	a, err := claudehook.Config{ApproveTools: []string{"Bash"}}.Plan(bash)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		call   *claudehook.Call
		result string
		want   claudehook.Decision
	}{
		{q, `{"status":"answered","answered_by":"unattended","answers":[{"id":"q1","selected":["a"],"other_text":null}]}`, claudehook.Ask},
		{q, `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"q1","selected":["a"],"other_text":null}]}`, claudehook.Ask},
		{q, `{"status":"answered","answered_by":"user","answers":[{"id":"q1","selected":["a"],"other_text":null,"answered_by":"timeout"}]}`, claudehook.Ask},
		{q, `{"status":"answered","answered_by":"user","answers":[]}`, claudehook.Ask},
		{q, `{"status":"answered","answered_by":"user","answers":[{"id":"q1","selected":[],"other_text":"  "}]}`, claudehook.Ask},
		{q, `{"status":"cancelled","answered_by":"user","answers":[]}`, claudehook.Ask},
		{q, `{"status":"cancelled","answered_by":"unattended","answers":[]}`, claudehook.Ask},
		{q, `not json`, claudehook.Ask},
		{a, `{"status":"approved","decided_by":null,"note":null,"ended":null,"message":"m"}`, claudehook.Ask},
		{a, `{"status":"unresolved","decided_by":null,"note":null,"ended":"fault","message":"m"}`, claudehook.Ask},
		{a, `{"status":"unresolved","decided_by":null,"note":null,"ended":"dismissed","message":"m"}`, claudehook.Deny},
		{a, `{"status":"unresolved","decided_by":null,"note":null,"ended":"superseded","message":"m"}`, claudehook.Deny},
		{a, `{"status":"maybe"}`, claudehook.Ask},
		{a, `[]`, claudehook.Ask},
	} {
		out := tt.call.Reply([]byte(tt.result))
		if out.Decision != tt.want || out.Reason == "" || out.UpdatedInput != nil {
			t.Errorf("Reply(%s) = %+v; want %s with a reason", tt.result, out, tt.want)
		}
	}
}

func TestFallback(t *testing.T) {
	b, err := claudehook.Fallback("the server at\nhttp://x said \x1b[2Jno").MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"askuser could not ask: the server at http://x said \\x1b[2Jno"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
