package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzParseAnswer checks the answer-body parser against encoding/json on
// any input: it never panics and never changes its input; it accepts
// exactly the bodies that encoding/json reads as one object of answer
// fields (matched exactly, answered_by not among them) of the right types,
// naming no member twice; a valid object naming a member twice is refused
// as such; and what it accepts, the secret above all, decodes as
// encoding/json decodes it.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`{"selected":["staging"]}`,
		`{"selected":["a","b"],"other_text":"  edge  ","note":"n","option_notes":{"a":"why"}}`,
		`{"other_text":null}`,
		`{"secret":"hunter2"}`,
		`{"secret":"a\u00e9\ud83d\ude00\\\"\/\b\f\n\r\t"}`,
		`{"secret":"\ud800x\udc00\ud800\u0041"}`,
		`{"secret":null}`,
		`{"secret":12}`,
		`{"selected":["x"],"answered_by":"user"}`,
		`{"Selected":["x"]}`,
		`{"selected":"x"}`,
		`[1]`,
		`{"selected":["x"]} {}`,
		"{\"secret\":\"\xff\xfe\"}",
		`{"selected":["x"],"selected":["y"]}`,
		`{"secret":"a","\u0073ecret":"b"}`,
		`{"option_notes":{"a":"x","a":"y"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		ans, err := parseAnswer("q", data)
		if !bytes.Equal(orig, data) {
			t.Fatal("parseAnswer changed its input")
		}
		ref, refErr := readAnswer(data)
		if err != nil {
			if be := (*bodyError)(nil); !errors.As(err, &be) {
				t.Fatalf("%q: the error %v is not a bodyError", data, err)
			}
			if refErr == nil {
				t.Fatalf("refused %q (%v), which encoding/json reads as an answer", data, err)
			}
			if json.Valid(data) && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) && duplicateNames(data) &&
				!strings.Contains(err.Error(), "duplicate field") {
				t.Fatalf("%q names a member twice, but the error says %q", data, err)
			}
			return
		}
		defer ans.Secret.Wipe()
		if refErr != nil {
			t.Fatalf("accepted %q, which is not an answer as encoding/json reads it: %v", data, refErr)
		}
		other := ""
		if ref.OtherText != nil {
			other = *ref.OtherText
		}
		sec := ""
		if ref.Secret != nil {
			sec = *ref.Secret
		}
		if got := string(ans.Secret.Reveal()); got != sec {
			t.Fatalf("%q: the secret reads %q, encoding/json reads %q", data, got, sec)
		}
		if ans.QuestionID != "q" || !slices.Equal(ans.Selected, ref.Selected) || ans.Other != other || ans.Note != ref.Note ||
			!maps.Equal(ans.OptionNotes, ref.OptionNotes) {
			t.Fatalf("%q parsed as %+v, encoding/json says %+v", data, ans, ref)
		}
	})
}

// refAnswer is an answer body as encoding/json reads it.
type refAnswer struct {
	Selected    []string          `json:"selected"`
	OtherText   *string           `json:"other_text"`
	Note        string            `json:"note"`
	OptionNotes map[string]string `json:"option_notes"`
	Secret      *string           `json:"secret"`
}

// readAnswer reads an answer body with encoding/json, and reports an error
// unless it is empty or one object of answer fields (matched exactly, none
// named twice, answered_by not among them) of the right types.
func readAnswer(data []byte) (refAnswer, error) {
	var ref refAnswer
	if len(bytes.TrimSpace(data)) == 0 {
		return ref, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return ref, err
	}
	if m == nil {
		return ref, errors.New("null")
	}
	for k := range m {
		if !slices.Contains(answerFields, k) {
			return ref, fmt.Errorf("the field %q", k)
		}
	}
	if duplicateNames(data) {
		return ref, errors.New("a member named twice")
	}
	return ref, json.Unmarshal(data, &ref)
}

// duplicateNames reports whether some object in data, a valid JSON text,
// names a member twice, as encoding/json reads the names.
func duplicateNames(data []byte) bool {
	type object struct {
		seen    map[string]bool
		wantKey bool
	}
	var stack []*object // nil for an array
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *object
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if top != nil {
				top.wantKey = true // the child is the member's value
			}
			var o *object
			if tok == json.Delim('{') {
				o = &object{seen: map[string]bool{}, wantKey: true}
			}
			stack = append(stack, o)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			continue
		}
		switch {
		case top == nil:
		case top.wantKey:
			k := tok.(string)
			if top.seen[k] {
				return true
			}
			top.seen[k], top.wantKey = true, false
		default:
			top.wantKey = true
		}
	}
}
