package claudehook_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/dialect/claudehook"
)

// addCaseInputs seeds f with the hook inputs of testdata/cases.
func addCaseInputs(f *testing.F) {
	files, _ := filepath.Glob("testdata/cases/*/input.json")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParseInput checks the hook input parser, and what the hook makes of
// what it accepts, on any bytes: nothing panics; an accepted input is JSON
// that encoding/json reads to the same tool name, a PreToolUse input with
// a tool and an object for its input; a call planned from it is valid in
// its contract; and the reply to a result that answers every question (or
// approves) allows, with an updatedInput that is a JSON object holding an
// answer for every question.
func FuzzParseInput(f *testing.F) {
	addCaseInputs(f)
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_name":"Read","tool_input":{}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?","header":"H","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}],"multiSelect":true}],"answers":{"Q?":"x"}}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Q?","header":"` + strings.Repeat("é", 20) + `","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]}]}}`,
		`{"hook_event_name":null,"tool_name":"Bash","tool_input":{}}`, `[`, `{}`, "{\"tool_name\":\"\\ud800\"}",
		`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/x","content":"\u0000\u001b"}}`,
	} {
		f.Add([]byte(s))
	}
	cfg := claudehook.Config{ApproveTools: []string{"Bash", "Write"}, TimeoutSeconds: 60}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := claudehook.ParseInput(data)
		if err != nil {
			if in != nil {
				t.Fatal("an input returned with an error")
			}
			return
		}
		var std struct {
			ToolName string `json:"tool_name"`
		}
		if err := json.Unmarshal(data, &std); err != nil || std.ToolName != in.ToolName {
			t.Fatalf("accepted %q, which encoding/json reads as %q (%v)", data, std.ToolName, err)
		}
		if in.HookEventName != claudehook.EventPreToolUse || in.ToolName == "" || !json.Valid(in.ToolInput) || in.ToolInput[0] != '{' {
			t.Fatalf("accepted %+v", in)
		}
		call, err := cfg.Plan(in)
		if err != nil || call == nil {
			return
		}
		var result string
		switch call.Dialect {
		case claudehook.DialectAskUser:
			c, err := askuserwire.Decode(call.Arguments, dialect.Limits{MaxTimeoutSeconds: cfg.TimeoutSeconds})
			if err != nil {
				t.Fatalf("planned an invalid ask_user call %s: %v", call.Arguments, err)
			}
			result = answerAll(c)
		case claudehook.DialectApproval:
			if _, err := approvalwire.Decode(call.Arguments, dialect.Limits{MaxTimeoutSeconds: cfg.TimeoutSeconds}); err != nil {
				t.Fatalf("planned an invalid request_approval call %s: %v", call.Arguments, err)
			}
			result = `{"status":"approved","decided_by":"user","note":null,"ended":null,"message":"m"}`
		default:
			t.Fatalf("a call in %q", call.Dialect)
		}
		out := call.Reply([]byte(result))
		if out.Decision != claudehook.Allow {
			t.Fatalf("the reply to %s is %+v; want allow", result, out)
		}
		if _, err := out.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
		if call.Dialect == claudehook.DialectAskUser {
			var updated struct {
				Answers map[string]string `json:"answers"`
			}
			if err := json.Unmarshal(out.UpdatedInput, &updated); err != nil || len(updated.Answers) != strings.Count(string(call.Arguments), `"id":"q`) {
				t.Fatalf("updatedInput %s (%v) does not answer every question of %s", out.UpdatedInput, err, call.Arguments)
			}
		}
	})
}

// answerAll is an ask_user result in which the person picks the first
// option of every question.
func answerAll(c *askuserwire.Call) string {
	type answer struct {
		ID        string   `json:"id"`
		Selected  []string `json:"selected"`
		OtherText *string  `json:"other_text"`
	}
	r := struct {
		Status     string   `json:"status"`
		AnsweredBy string   `json:"answered_by"`
		Answers    []answer `json:"answers"`
	}{Status: "answered", AnsweredBy: "user"}
	for _, q := range c.Questions {
		r.Answers = append(r.Answers, answer{ID: q.ID, Selected: []string{q.Options[0].Label}})
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// FuzzReply checks Reply on any result: it never panics, always gives a
// reason, and allows only on a result that reads as the person's answers
// (ask_user answered by the user) or approval (request_approval
// approved).
func FuzzReply(f *testing.F) {
	for _, s := range []string{
		`{"status":"answered","answered_by":"user","answers":[{"id":"q1","selected":["a"],"other_text":null},{"id":"q2","selected":[],"other_text":"x"}]}`,
		`{"status":"approved","decided_by":"user","note":"n","ended":null,"message":"m"}`,
		`{"status":"unresolved","decided_by":null,"note":null,"ended":"deadline","message":"m"}`,
		`{"status":"answered","answered_by":"user","answers":[{"id":"q1","selected":["a"],"answered_by":"timeout"}]}`,
		`null`, `{"status":"approved"}`, `{"answers":7}`,
	} {
		f.Add([]byte(s))
	}
	q, err := claudehook.ParseInput([]byte(`{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"A?","header":"A","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}]},{"question":"B?","header":"B","options":[{"label":"a","description":"A"},{"label":"b","description":"B"}],"multiSelect":true}]}}`))
	if err != nil {
		f.Fatal(err)
	}
	a, err := claudehook.ParseInput([]byte(bashInput))
	if err != nil {
		f.Fatal(err)
	}
	cfg := claudehook.Config{ApproveTools: []string{"Bash"}}
	qc, err := cfg.Plan(q)
	if err != nil {
		f.Fatal(err)
	}
	ac, err := cfg.Plan(a)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, result []byte) {
		var r struct {
			Status     string  `json:"status"`
			AnsweredBy string  `json:"answered_by"`
			DecidedBy  *string `json:"decided_by"`
		}
		readable := json.Unmarshal(result, &r) == nil
		for _, c := range []*claudehook.Call{qc, ac} {
			out := c.Reply(result)
			if out.Reason == "" {
				t.Fatalf("a reply without a reason: %+v", out)
			}
			if out.Decision != claudehook.Allow {
				continue
			}
			switch {
			case !readable:
				t.Fatalf("allowed on %q, which is not a result", result)
			case c == qc && (r.Status != "answered" || r.AnsweredBy != "user"):
				t.Fatalf("allowed the questions on %s", result)
			case c == ac && (r.Status != approvalwire.StatusApproved || r.DecidedBy == nil):
				t.Fatalf("allowed the permission on %s", result)
			}
		}
	})
}
