package serve

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseCall: the agent API's body parser never panics; what it
// accepts is a call with a session and a tool-call id (non-empty UTF-8
// within the cap), a contract, and arguments that are one JSON object,
// and it accepts the same call written back; what it refuses, it refuses
// with a message.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		callBody("s", "c", "", serveChoice),
		callBody("s", "c", "pi", `{"questions":[]}`),
		callBody("s", "c", "pi-ask", `{}`),
		`{"session":"s","tool_call_id":"c","dialect":null,"arguments":{}}`,
		`{"session":"s","tool_call_id":"c","arguments":{}} {}`,
		`{"session":"s","arguments":{}}`,
		`{"session":"s","tool_call_id":"c","arguments":[1]}`,
		`{"session":"\ud800","tool_call_id":"c","arguments":{}}`,
		`{"session":"s","tool_call_id":"c","dialect":"request_approval","arguments":{}}`,
		`{"session":"s","tool_call_id":"c","arguments":{},"extra":1}`,
		`null`, `[]`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := parseCall(body)
		if err != nil {
			if c != nil || err.Error() == "" {
				t.Fatalf("refused with a call %v or no message %q", c, err)
			}
			return
		}
		for name, v := range map[string]string{"session": c.Session, "tool_call_id": c.ToolCallID} {
			if v == "" || len(v) > maxIDBytes || !utf8.ValidString(v) {
				t.Fatalf("accepted %s %q", name, v)
			}
		}
		if c.Dialect == nil || !json.Valid(c.Arguments) || c.Arguments[0] != '{' {
			t.Fatalf("accepted dialect %v, arguments %q", c.Dialect, c.Arguments)
		}
		again, err := parseCall([]byte(callBody(c.Session, c.ToolCallID, c.Dialect.Name(), string(c.Arguments))))
		if err != nil {
			t.Fatalf("the call written back is refused: %v", err)
		}
		if again.Session != c.Session || again.ToolCallID != c.ToolCallID || again.Dialect.Name() != c.Dialect.Name() {
			t.Fatalf("written back and read again: %+v; want %+v", again, c)
		}
	})
}
