package serve

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzParseCall: the agent API's body parser never panics; what it
// accepts is a call with a session and a tool-call id (non-empty UTF-8
// within the cap), a contract, and arguments that are one JSON object,
// from a body that names no field twice and whose string fields were
// UTF-8 as sent (the session and tool-call id appear in it as they are,
// when they need no escape), and it accepts the same call written back;
// what it refuses, it refuses with a message.
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
		`{"session":"s","tool_call_id":"c","arguments":{},"session":"t"}`,
		"{\"session\":\"s\xff\",\"tool_call_id\":\"c\",\"arguments\":{}}",
		"{\"session\":\"s\",\"tool_call_id\":\"c\",\"arguments\":{\"x\":\"\xff\"}}",
		`{"session":"s\u00e9","tool_call_id":"c","arguments":{}}`,
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
		if n := topLevelNames(body); len(n) != len(slices.Compact(slices.Sorted(slices.Values(n)))) {
			t.Fatalf("accepted a body that names a field twice: %q", n)
		}
		for _, v := range []string{c.Session, c.ToolCallID} {
			if strings.ContainsRune(v, utf8.RuneError) && !bytes.Contains(body, []byte("\uFFFD")) &&
				!bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
				t.Fatalf("accepted %q, mended from bytes that were not UTF-8", v)
			}
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

// topLevelNames returns the names of the members of the JSON object body,
// in order, repeats and all.
func topLevelNames(body []byte) []string {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var names []string
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return names
		}
		names = append(names, tok.String())
		if _, err := dec.ReadValue(); err != nil {
			return names
		}
	}
	return names
}
