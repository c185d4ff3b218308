package scripted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

func TestParseFile(t *testing.T) {
	r, err := scripted.ParseFile([]byte(`{"delay_ms":1500,"end":"cancel","cancel_on":"b","answers":[
		{"id":"a","selected":["Yes"],"values":["v"],"other_text":"x","note":"n","option_notes":{"Yes":"why"}},
		{"secret":"hunter2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []scripted.Step{
		{Answer: &askuser.Answer{QuestionID: "a", Selected: []string{"v"}, Other: "x", Note: "n"}, Labels: []string{"Yes"}, LabelNotes: map[string]string{"Yes": "why"}},
		{Answer: &askuser.Answer{}},
		{Delay: 1500 * time.Millisecond, End: scripted.EndCancel, CancelOn: "b"},
	}
	opts := cmp.Options{cmpopts.IgnoreUnexported(scripted.Step{}), cmp.Comparer(func(a, b secret.Value) bool { return true })}
	if diff := cmp.Diff(want, r.Steps, opts); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if got := string(r.Steps[1].Answer.Secret.Reveal()); got != "hunter2" {
		t.Errorf("the secret answer was not handed over as a secret value")
	}
}

func TestParseFileDefaults(t *testing.T) {
	r, err := scripted.ParseFile([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 1 || r.Steps[0].End != scripted.EndSubmit {
		t.Errorf("an empty script should submit: %+v", r.Steps)
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `scripted: the script is empty; give a JSON object such as {"end": "submit"}`},
		{" \n", `scripted: the script is empty; give a JSON object such as {"end": "submit"}`},
		{`{"end":"later"}`, `scripted: end is "later"; allowed: submit, decline, cancel, supersede, unreachable`},
		{`{"delay_ms":-1}`, `scripted: delay_ms is -1; allowed: 0 to 86400000`},
		{`{"delay":5}`, `scripted: "delay" is not a script field; allowed: delay_ms, end, cancel_on, answers, approval, note (and in an answer: id, selected, values, other_text, secret, note, option_notes)`},
		{`{"End":"decline"}`, `scripted: "End" is not a script field; allowed: delay_ms, end, cancel_on, answers, approval, note (and in an answer: id, selected, values, other_text, secret, note, option_notes)`},
		{`{"answers":[{"id":"a"},{"x":1}]}`, `scripted: "x" in answers[1] is not an answer field; allowed: id, selected, values, other_text, secret, note, option_notes`},
		{`{"answers":{}}`, `scripted: answers must be an array of answer objects, not a JSON object`},
		{`{"answers":[1]}`, `scripted: answers[0] must be an answer object, not a JSON number`},
		{`{"answers":[{"selected":"a"}]}`, `scripted: answers[0].selected must be an array of strings, not a JSON string`},
		{`{"answers":[{"values":["a",2]}]}`, `scripted: answers[0].values[1] must be a string, not a JSON number`},
		{`{"answers":[{"option_notes":{"a/b":true}}]}`, `scripted: answers[0].option_notes["a/b"] must be a string, not a JSON boolean`},
		{`{"answers":[{"option_notes":[]}]}`, `scripted: answers[0].option_notes must be an object of label to note, not a JSON array`},
		{`{"delay_ms":"5"}`, `scripted: delay_ms must be a whole number of milliseconds, not a JSON string`},
		{`{"delay_ms":1.5}`, `scripted: delay_ms must be a whole number of milliseconds, from 0 to 86400000`},
		{`{} {}`, `scripted: the script has data after its JSON object; give one object`},
		{`{} x`, `scripted: the script has data after its JSON object; give one object`},
		{`{"end":`, `scripted: the script ends at byte 7, inside its JSON object; complete the object`},
		{`[`, `scripted: the script must be a JSON object such as {"end": "submit"}, not a JSON array`},
		{`null`, `scripted: the script must be a JSON object such as {"end": "submit"}, not JSON null`},
		{`"submit"`, `scripted: the script must be a JSON object such as {"end": "submit"}, not a JSON string`},
		{`{"end":}`, `scripted: the script is not valid JSON at byte 7: invalid character '}' at start of value`},
		{"{\"end\":\"\xff\"}", `scripted: the script is not valid JSON at byte 8: invalid UTF-8`},
	}
	for _, tt := range tests {
		_, err := scripted.ParseFile([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseFile(%s) = %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

// TestParseFileDuplicateKeys checks that a key given twice, at any depth,
// is refused with its name and place, as a call's duplicate fields are: a
// script that says "end" twice does not mean whichever came last.
func TestParseFileDuplicateKeys(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"end":"submit","end":"decline"}`, `scripted: "end" is given twice at the top level of the script; give each key once`},
		{`{"answers":[{"id":"a"},{"id":"b","secret":"x","secret":"y"}]}`, `scripted: "secret" is given twice in answers[1]; give each key once`},
		{`{"answers":[{"option_notes":{"Yes":"a","Yes":"b"}}]}`, `scripted: "Yes" is given twice in answers[0].option_notes; give each key once`},
		{`{"answers":[],"delay_ms":1,"answers":[]}`, `scripted: "answers" is given twice at the top level of the script; give each key once`},
	}
	for _, tt := range tests {
		_, err := scripted.ParseFile([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseFile(%s) = %v\nwant %s", tt.in, err, tt.want)
		}
	}
}

func TestParseFileNeverEchoesTheSecret(t *testing.T) {
	for _, in := range []string{
		`{"answers":[{"secret":"hunter2-canary","x":1}]}`,
		`{"answers":[{"secret":"hunter2-canary"}],"end":"hunter2-canary"}`,
		`{"answers":[{"secret":"hunter2-canary"}],"answers":[]}`,
		`{"answers":["hunter2-canary"]}`,
		`{"answers":[{"secret":["hunter2-canary"]}]}`,
		"{\"answers\":[{\"secret\":\"hunter2-canary\x01\"}]}",
		"{\"answers\":[{\"secret\":\"hunter2-canary\xff\"}]}",
		"{\"answers\":[{\"secret\":\"hunter2-canary",
	} {
		_, err := scripted.ParseFile([]byte(in))
		if err == nil {
			t.Fatalf("ParseFile(%s) accepted", in)
		}
		if strings.Contains(err.Error(), "hunter2") && !strings.Contains(in, `"end":"hunter2-canary"`) {
			t.Errorf("the error echoes the secret: %v", err)
		}
	}
}

// FuzzParseFile checks the script parser on any input: it never panics,
// every error carries the package prefix, and an accepted script is one
// valid JSON object (no key given twice, valid UTF-8) that ends. Its seed
// corpus is in testdata/fuzz/FuzzParseFile.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{`{}`, `{"end":"decline"}`, `{"answers":[{"id":"a","selected":["x"],"secret":"s"}],"delay_ms":3}`, `{"answers":[1]}`, `[]`, `{"option_notes":{}}`,
		`{"approval":"approve","note":"ok"}`, `{"approval":"deny_session","end":"cancel","delay_ms":5}`, `{"approval":"maybe"}`, `{"note":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := scripted.ParseFile(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "scripted: ") {
				t.Errorf("error without the package prefix: %v", err)
			}
			return
		}
		if n := len(r.Steps); n == 0 || r.Steps[n-1].End == scripted.EndNone {
			t.Errorf("an accepted script does not end: %+v", r.Steps)
		}
		v := jsontext.Value(bytes.TrimSpace(data))
		if !v.IsValid() || v.Kind() != '{' {
			t.Errorf("accepted a script that is not one valid JSON object (a key twice, invalid UTF-8): %q", data)
		}
		// An approval decides only as one of its four options, with no
		// answers beside it.
		var top struct {
			Approval *string          `json:"approval"`
			Answers  *json.RawMessage `json:"answers"`
		}
		_ = json.Unmarshal(data, &top)
		if top.Approval != nil && *top.Approval != "" {
			switch *top.Approval {
			case approval.ApproveOnce, approval.ApproveSession, approval.DenyOnce, approval.DenySession:
			default:
				t.Errorf("accepted the approval %q", *top.Approval)
			}
			if top.Answers != nil && string(*top.Answers) != "null" {
				t.Errorf("accepted approval and answers together: %q", data)
			}
			if a := r.Steps[len(r.Steps)-2].Answer; a == nil || a.QuestionID != approval.QuestionID || len(a.Selected) != 1 || a.Selected[0] != *top.Approval {
				t.Errorf("the approval %q is not the answer before the ending: %+v", *top.Approval, r.Steps)
			}
		}
	})
}

// TestSensitiveAnswersAreSealed checks that a scripted answer to a
// sensitive question reaches the orchestrator as a secret value.
func TestSensitiveAnswersAreSealed(t *testing.T) {
	q := askuser.Question{ID: "k", Kind: askuser.KindChoice, Text: "Which?", MultiSelect: true, AllowOther: true, Sensitive: true,
		Options: []askuser.Option{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}}}
	tq := askuser.Question{ID: "t", Kind: askuser.KindText, Text: "Token?", AllowOther: true, Sensitive: true}
	r, err := scripted.ParseFile([]byte(`{"answers":[{"id":"k","selected":["Beta"],"values":["a"]},{"id":"t","other_text":" s3cret "}]}`))
	if err != nil {
		t.Fatal(err)
	}
	store := map[string]string{}
	o := &askuser.Orchestrator{Responder: r, Secrets: storeFunc(store)}
	d := fixed{askuser.Form{Questions: []askuser.Question{q, tq}, TimeoutSeconds: 60}}
	out, err := o.Handle(t.Context(), askuser.Request{Session: "s", Dialect: d})
	if err != nil {
		t.Fatal(err)
	}
	o.WaitResponders()
	if errs := r.Refused(); errs != nil {
		t.Fatalf("refused: %v", errs)
	}
	if store["k"] != `["Alpha","Beta"]` || store["t"] != " s3cret " {
		t.Errorf("sealed %q", store)
	}
	if a := out.Answer("k"); a == nil || a.SecretRef != "session:k" || a.SecretItems != 2 || a.Selected != nil {
		t.Errorf("final answer %+v", a)
	}
}

type fixed struct{ c askuser.Form }

func (fixed) Name() string { return "fixed" }
func (f fixed) Decode([]byte, dialect.Limits) (*askuser.Form, error) {
	c := f.c
	return &c, nil
}
func (fixed) Encode(*askuser.Outcome, bool) ([]byte, json.RawMessage, error) {
	return []byte("{}"), nil, nil
}

type storeFunc map[string]string

func (s storeFunc) Put(_ context.Context, _, name string, v secret.Value) error {
	s[name] = string(v.Reveal())
	return nil
}
func (s storeFunc) Delete(context.Context, string, string) error { return nil }

func (s storeFunc) Get(_ context.Context, _, name string) (secret.Value, error) {
	v, ok := s[name]
	if !ok {
		return secret.Value{}, secretstore.ErrNotFound
	}
	return secret.FromString(v), nil
}

func (s storeFunc) DeleteSession(context.Context, string) error { return nil }
