package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCallArguments: "arguments" is the tool call's arguments as a JSON
// object, or as a string holding one (OpenAI's tool-call shape), and a
// refusal says which of the two it was given.
func TestCallArguments(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // the arguments accepted, or a part of the refusal
		ok   bool
	}{
		{"an object", `{"questions":[]}`, `{"questions":[]}`, true},
		{"an object with space around it", " \n{\"a\":1}\t", `{"a":1}`, true},
		{"a string holding an object (OpenAI)", `"{\"questions\":[{\"id\":\"env\"}]}"`, `{"questions":[{"id":"env"}]}`, true},
		{"a string holding an object with space around it", `" {\"a\":1}\n"`, `{"a":1}`, true},
		{"absent", ``, `"arguments" is required`, false},
		{"null", `null`, `"arguments" is required`, false},
		{"an array", `[1]`, `"arguments" is a JSON array; give the tool call's arguments as a JSON object, or as a string holding one`, false},
		{"a number", `7`, `"arguments" is a JSON number;`, false},
		{"a boolean", `true`, `"arguments" is a JSON boolean;`, false},
		{"an empty string", `""`, `"arguments" is an empty string; it must hold the tool call's arguments, a JSON object`, false},
		{"a string of blanks", `"  "`, `"arguments" is an empty string`, false},
		{"a string of prose", `"ask me"`, `"arguments" is a string but does not hold a JSON object: invalid character 'a' looking for beginning of value (at byte 1 of the string)`, false},
		{"a string holding a truncated object", `"{\"questions\":["`, `"arguments" is a string but does not hold a JSON object: unexpected end of JSON input`, false},
		{"a string holding an object and more", `"{} {}"`, `"arguments" is a string but does not hold a JSON object: invalid character '{' after top-level value`, false},
		{"a string holding an array", `"[1,2]"`, `"arguments" is a string holding a JSON array; it must hold a JSON object`, false},
		{"a string holding a string", `"\"{}\""`, `"arguments" is a string holding a JSON string; it must hold a JSON object`, false},
		{"a string holding null", `"null"`, `"arguments" is a string holding a JSON null`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"session":"s","tool_call_id":"c","arguments":` + tt.raw + `}`
			if tt.raw == "" {
				body = `{"session":"s","tool_call_id":"c"}`
			}
			c, err := parseCall([]byte(body))
			if !tt.ok {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("parseCall(%s) = %v, %v; want the refusal %q", body, c, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseCall(%s): %v", body, err)
			}
			if diff := cmp.Diff(tt.want, string(c.Arguments)); diff != "" {
				t.Errorf("arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallArgumentsAsStringJoins: a call whose arguments are a string
// holding the object is the same call as the one with the object: posted
// again in the other shape, it joins the ask.
func TestCallArgumentsAsStringJoins(t *testing.T) {
	rp := newReplica(t, nil, nil)
	a := newAgentClient(t, testToken)
	quoted, _ := json.Marshal(serveChoice)
	body, _ := json.Marshal(map[string]any{"session": "s-str", "tool_call_id": "call_1", "arguments": json.RawMessage(quoted)})
	r := a.do("POST", rp.base+"/v1/calls", string(body), map[string]string{"Prefer": "respond-async"})
	var first asyncJSON
	if r.code != http.StatusAccepted || json.Unmarshal([]byte(r.body), &first) != nil || first.AskID == "" {
		t.Fatalf("a call with string arguments: %d %s; want 202 with its ask", r.code, r.body)
	}
	again := a.callAsync(rp.base, "s-str", "call_1", serveChoice)
	if again.AskID != first.AskID {
		t.Errorf("the same call with object arguments began ask %s; want it to join %s", again.AskID, first.AskID)
	}
	ps := rp.o.Pending("s-str")
	if len(ps) != 1 || ps[0].Form.Questions[0].Header != "Env" {
		t.Errorf("pending: %+v; want the one ask, decoded from the string", ps)
	}
}

// FuzzCallArguments: callArguments never panics; what it accepts is one
// JSON object, which, given as an object or as a string holding it, is
// accepted again unchanged; what it refuses, it refuses with a message
// naming "arguments".
func FuzzCallArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `"{\"a\":1}"`, `"{} {}"`, `"[1]"`, `""`, `"x"`, `[1]`, `7`, `null`, `true`, `"\"{}\""`, ` {"a":[1,2]} `, `"\u007b}"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // parseCall's decoder hands over valid JSON values only
		}
		args, err := callArguments(raw)
		if err != nil {
			if args != nil || !strings.Contains(err.Error(), `"arguments"`) {
				t.Fatalf("refused %q with arguments %q or a message %q not naming them", raw, args, err)
			}
			return
		}
		if !json.Valid(args) || args[0] != '{' || !bytes.Equal(args, bytes.TrimSpace(args)) {
			t.Fatalf("accepted %q as %q; want one JSON object", raw, args)
		}
		quoted, _ := json.Marshal(string(args))
		for _, in := range [][]byte{args, quoted} {
			if again, err := callArguments(in); err != nil || !bytes.Equal(again, args) {
				t.Fatalf("%q accepted as %q, but %q gives %q, %v", raw, args, in, again, err)
			}
		}
	})
}
