package web

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// FuzzParseAnswer checks the answer-body parser on any input: it never
// panics; what it accepts decodes as encoding/json decodes it; a body that
// names answered_by is never accepted; and the secret unquoter agrees with
// encoding/json on every string literal.
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
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		ans, err := parseAnswer("q", data)
		if !bytes.Equal(orig, data) {
			t.Fatal("parseAnswer changed its input")
		}
		if err != nil {
			return
		}
		if bytes.Contains(data, []byte(`"answered_by"`)) {
			var m map[string]json.RawMessage
			if json.Unmarshal(data, &m) == nil {
				if _, ok := m["answered_by"]; ok {
					t.Fatalf("a body with answered_by was accepted: %q", data)
				}
			}
		}
		var ref struct {
			Selected    []string          `json:"selected"`
			OtherText   *string           `json:"other_text"`
			Note        string            `json:"note"`
			OptionNotes map[string]string `json:"option_notes"`
			Secret      *string           `json:"secret"`
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &ref); err != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
			}
		}
		other := ""
		if ref.OtherText != nil {
			other = *ref.OtherText
		}
		sec := ""
		if ref.Secret != nil {
			sec = *ref.Secret
		}
		if ans.QuestionID != "q" || !slices.Equal(ans.Selected, ref.Selected) || ans.Other != other || ans.Note != ref.Note ||
			len(ans.OptionNotes) != len(ref.OptionNotes) || string(ans.Secret.Reveal()) != sec {
			t.Fatalf("%q parsed as %+v, encoding/json says %+v", data, ans, ref)
		}
		ans.Secret.Wipe()
	})
}

// FuzzUnquote: the unquoter agrees with encoding/json on every input.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\u0041\n"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, `"\x"`, `"a`, `a"`, "\"\x01\"", "\"\xc3\x28\"", `"\\"`, `"\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := unquote(data)
		var want string
		err := json.Unmarshal(data, &want)
		isString := len(bytes.TrimSpace(data)) > 0 && bytes.TrimSpace(data)[0] == '"'
		if err != nil || !isString || !bytes.Equal(bytes.TrimSpace(data), data) {
			if ok && (err != nil || !isString) {
				t.Fatalf("unquote accepted %q, which is not a JSON string: %v", data, err)
			}
			return
		}
		if !ok {
			t.Fatalf("unquote refused %q; encoding/json reads %q", data, want)
		}
		if string(got) != want {
			t.Fatalf("unquote(%q) = %q, encoding/json reads %q", data, got, want)
		}
	})
}
