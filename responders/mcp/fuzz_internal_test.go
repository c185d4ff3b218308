package mcpresponder

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// fuzzForm is a form of every kind of question a form elicitation carries.
const fuzzForm = `{"questions":[
	{"id":"checks","header":"Checks","question":"Which checks?","multi_select":true,"options":[
		{"label":"lint","description":"Linters","default":true},{"label":"unit","description":"Unit tests"}]},
	{"id":"when","header":"When","question":"Deploy when?","allow_other":false,"options":[
		{"label":"now","description":"Right away"},{"label":"tonight","description":"After 6pm"}]},
	{"id":"env","header":"Env","question":"Where?","options":[{"label":"staging","description":"Safe"},{"label":"prod","description":"Real"}]},
	{"id":"note","kind":"text","header":"Note","question":"Anything else?"}]}`

// FuzzRead feeds the reading of a client's reply content of any shape: it
// never panics; it returns either what is wrong, and no answer, or answers
// that responder.CheckAnswer accepts, one per question that must be answered
// at least; and what it says is wrong never repeats a credential the
// content holds.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"checks":["lint"],"when":"now","env":"staging","note":"ok"}`,
		`{"checks_1":true,"checks_2":false,"when":"tonight","env_other":"moon","note":"x"}`,
		`{"checks":["lint","lint"],"when":"never","env":42,"note":null}`,
		`{"bogus":1}`,
		`{"checks":"lint","when":["now"],"env_other":"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8","note":"AKIAIOSFODNN7EXAMPLE"}`,
		`{}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	full, err := askuser.Decode(nil, []byte(fuzzForm), dialect.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, old bool) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		version := titledEnums
		if old {
			version = "2025-06-18"
		}
		m := newForm(full, version)
		answers, problem := m.read(content)
		if problem != "" {
			if answers != nil {
				t.Errorf("answers %v with a problem %q", answers, problem)
			}
			for _, s := range stringsIn(content) {
				if _, found := secret.Detect(s); found && strings.Contains(problem, s) {
					t.Errorf("the problem %q repeats a credential", problem)
				}
			}
			return
		}
		answered := map[string]bool{}
		for _, a := range answers {
			if err := responder.CheckAnswer(full, a); err != nil {
				t.Errorf("answer %+v passed read but CheckAnswer refuses it: %v", a, err)
			}
			answered[a.QuestionID] = true
		}
		for _, q := range full.Questions {
			if !q.Optional && !answered[q.ID] {
				t.Errorf("question %s must be answered, and read let it go unanswered", q.ID)
			}
		}
	})
}

func stringsIn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(out, k)
			out = append(out, stringsIn(e)...)
		}
		return out
	}
	return nil
}

// FuzzOpenState feeds requestStates of any shape: openState never panics,
// and refuses everything but a state this ring sealed, always with
// ErrStateDamaged.
func FuzzOpenState(f *testing.F) {
	k, err := secretstore.RandomKey("fuzz")
	if err != nil {
		f.Fatal(err)
	}
	ring, err := secretstore.NewKeyRing(k)
	if err != nil {
		f.Fatal(err)
	}
	good, err := sealState(ring, &state{V: stateVersion, Session: "s", Tool: "ask_user", Call: "mcp-1", Args: argsNames([]byte(`{}`)),
		AskedAt: time.Unix(0, 0).UTC(), ExpiresAt: time.Unix(60, 0).UTC(), Round: 1, Nonce: "n"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add("")
	f.Add("not base64!")
	f.Add(strings.Repeat("A", maxStateLen+1))
	f.Fuzz(func(t *testing.T, s string) {
		st, err := openState(ring, s)
		if err != nil {
			if !errors.Is(err, ErrStateDamaged) {
				t.Errorf("refused with %v; want ErrStateDamaged", err)
			}
			return
		}
		if st.V != stateVersion || st.Call == "" || st.Nonce == "" || st.Round < 1 {
			t.Errorf("opened an incomplete state %+v", st)
		}
	})
}

// TestSameArgs: the same arguments, byte for byte or written in another
// order or layout, name the same call; other arguments another.
func TestSameArgs(t *testing.T) {
	names := argsNames([]byte(`{"questions":[{"id":"x","n":1.50}],"timeout_seconds":30}`))
	for args, want := range map[string]bool{
		`{"questions":[{"id":"x","n":1.50}],"timeout_seconds":30}`:                    true,
		"{ \"timeout_seconds\": 30,\n \"questions\": [ {\"n\":1.5, \"id\":\"x\"} ] }": true,
		`{"questions":[{"id":"y","n":1.50}],"timeout_seconds":30}`:                    false,
		`not json`: false,
	} {
		if got := sameArgs(names, []byte(args)); got != want {
			t.Errorf("sameArgs(%s) = %v; want %v", args, got, want)
		}
	}
	if sameArgs("short", []byte(`{}`)) {
		t.Error("a name of the wrong length matched")
	}
}

// FuzzWriteString: the form's hand-written JSON strings read back as
// encoding/json's do, for any string a model may write.
func FuzzWriteString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "ctl \x00\x1f\n\r\t", "bidi \u202e, sep \u2028\u2029", "bad \xff\xfe utf-8", "emoji 🚀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		writeString(&b, s)
		var got, want string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%q wrote %s, which is not a JSON string: %v", s, b.Bytes(), err)
		}
		std, _ := json.Marshal(s)
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%q reads back as %q; encoding/json's as %q", s, got, want)
		}
	})
}

// FuzzUnmarshalState feeds the reader of a state's plaintext (reached only
// through a record the key ring sealed, and read strictly all the same):
// it never panics, and what marshal writes reads back the same.
func FuzzUnmarshalState(f *testing.F) {
	f.Add([]byte{}, "s", "p", "ask_user", "mcp-1", "n", int64(1), 1)
	f.Add([]byte{1, 1, 2, 2, 0xff}, "", "", "", "", "", int64(-5), 3)
	f.Fuzz(func(t *testing.T, raw []byte, session, principal, call, tool, nonce string, nanos int64, round int) {
		unmarshalState(raw) // must not panic
		if round < 0 || round > 1<<16 {
			return
		}
		in := state{V: stateVersion, Session: session, Principal: principal, Tool: tool, Call: call, Args: argsNames(raw),
			AskedAt: time.Unix(0, nanos).UTC(), ExpiresAt: time.Unix(0, nanos/2).UTC(), Round: round, Nonce: nonce}
		out, ok := unmarshalState(in.marshal())
		if !ok || *out != in {
			t.Errorf("state %+v read back as %+v, %v", in, out, ok)
		}
	})
}

// FuzzRefusedFields: whatever the SDK's refusal says (it may quote the
// reply), refusedFields returns only names of the form's own fields.
func FuzzRefusedFields(f *testing.F) {
	f.Add(`validating root: validating /properties/env: oneOf: did not validate against any of [<anonymous schema>]`)
	f.Add(`validating root: required: missing properties: ["env","when"]`)
	f.Add(`validating root: validating /properties/a~1b~0: type: x has type "string", want "boolean"`)
	f.Add(`missing properties: [`)
	names := []string{"env", "env_other", "when", "a/b~", ""}
	f.Fuzz(func(t *testing.T, msg string) {
		bad, missing := refusedFields(msg, names)
		for _, n := range append(bad, missing...) {
			if !slices.Contains(names, n) {
				t.Fatalf("refusedFields(%q) names %q, not a field of the form", msg, n)
			}
		}
	})
}

// FuzzCheckFrame: whatever line a client sends, checkFrame either refuses
// it or hands on a frame the SDK reads: one JSON-RPC message within the
// SDK's depth, and, for a tools/call, params whose input responses decode.
func FuzzCheckFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_user","arguments":{},"requestState":"x","inputResponses":{"askuser":{"action":"accept","content":["a"]}}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask_user","inputResponses":[1]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","method":"ping","params":{"x":[[[[]]]]}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,`))
	f.Fuzz(func(t *testing.T, line []byte) {
		frame, id, code, msg := checkFrame(line)
		if msg != "" {
			if code != codeParseError && code != codeInvalidRequest {
				t.Fatalf("refused with code %d", code)
			}
			if id != nil && !json.Valid(id) {
				t.Fatalf("refusal id %q is not JSON", id)
			}
			return
		}
		if tooDeep(frame, MaxFrameDepth) {
			t.Fatalf("handed on a frame deeper than %d", MaxFrameDepth)
		}
		m, err := jsonrpc.DecodeMessage(frame)
		if err != nil {
			t.Fatalf("handed on %q, which the SDK does not read: %v", frame, err)
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.Method == "tools/call" && len(req.Params) > 0 {
			var p mcp.CallToolParamsRaw
			if err := json.Unmarshal(req.Params, &p); err != nil && strings.Contains(err.Error(), "inputResponses") {
				t.Fatalf("handed on %q, whose input responses the SDK does not read: %v", frame, err)
			}
		}
	})
}
