package serve

import (
	"strings"
	"testing"
)

// TestParseCallStrict: a field given twice is refused (a reader that kept
// the first and one that kept the last would see two calls), and a string
// field that is not UTF-8 as sent, raw bytes or a lone surrogate escape,
// is refused instead of being mended into U+FFFD (two ids that differ
// would become one). Invalid UTF-8 in the arguments is the dialect's to
// judge, as it is anywhere else.
func TestParseCallStrict(t *testing.T) {
	for _, tt := range []struct {
		name, body, err string
	}{
		{"session twice", `{"session":"mine","tool_call_id":"c","arguments":{},"session":"theirs"}`, `the body has the field "session" twice; each field may appear once`},
		{"tool_call_id twice", `{"session":"s","tool_call_id":"c","tool_call_id":"d","arguments":{}}`, `the field "tool_call_id" twice`},
		{"arguments twice", `{"session":"s","tool_call_id":"c","arguments":{},"arguments":{"questions":[]}}`, `the field "arguments" twice`},
		{"dialect twice, once null", `{"session":"s","tool_call_id":"c","dialect":null,"dialect":"pi","arguments":{}}`, `the field "dialect" twice`},
		{"a raw byte that is not UTF-8 in the session", "{\"session\":\"s\xff\",\"tool_call_id\":\"c\",\"arguments\":{}}", `"session" is not valid UTF-8`},
		{"a lone surrogate in the tool_call_id", `{"session":"s","tool_call_id":"c\ud800","arguments":{}}`, `"tool_call_id" is not valid UTF-8`},
		{"a truncated sequence in the dialect", "{\"session\":\"s\",\"tool_call_id\":\"c\",\"dialect\":\"pi\xe2\x82\",\"arguments\":{}}", `"dialect" is not valid UTF-8`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseCall([]byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("parseCall = %+v, %v; want the error %q", c, err, tt.err)
			}
		})
	}
	for _, tt := range []struct{ name, body, session string }{
		{"escapes that name characters", `{"session":"caf\u00e9 \ud83d\ude00","tool_call_id":"c","arguments":{}}`, "café 😀"},
		{"invalid UTF-8 inside the arguments", "{\"session\":\"s\",\"tool_call_id\":\"c\",\"arguments\":{\"q\":\"\xff\"}}", "s"},
		{"whitespace around", " \n{ \"session\" : \"s\" , \"tool_call_id\":\"c\", \"arguments\" : { } }\n ", "s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseCall([]byte(tt.body))
			if err != nil || c.Session != tt.session {
				t.Fatalf("parseCall = %+v, %v; want session %q", c, err, tt.session)
			}
		})
	}
}
