package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/askuser-go/askuser/approval"
)

// FuzzParseDecision checks the parser of a decision on an approval on any
// input: it never panics and never changes its input; a refusal is a
// bodyError; and what it accepts is one JSON object of the decision's
// fields, its answer only to the approval's question, decoded as
// encoding/json decodes it.
func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{
		``,
		`{}`,
		`{"answers":{"approval":{"selected":["approve"],"note":"ok"}},"code":"1234-5678","confirm":"approve"}`,
		`{"answers":{"approval":{"selected":["deny_session"]}}}`,
		`{"answers":{"approval":null}}`,
		`{"answers":{"env":{"selected":["a"]}}}`,
		`{"answers":{"approval":{"secret":"x"}},"code":12}`,
		`{"answers":{"approval":{}},"answers":{}}`,
		`{"code":"\ud800"}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		d, err := parseDecision(data)
		if !bytes.Equal(in, data) {
			t.Fatalf("the parser changed its input")
		}
		if err != nil {
			var be *bodyError
			if !errors.As(err, &be) {
				t.Errorf("a refusal that is not a bodyError: %v", err)
			}
			return
		}
		defer d.answer.Secret.Wipe()
		if d.answer.QuestionID != approval.QuestionID {
			t.Errorf("an answer to %q", d.answer.QuestionID)
		}
		var ref struct {
			Answers map[string]struct {
				Selected []string `json:"selected"`
				Note     string   `json:"note"`
			} `json:"answers"`
			Code    string `json:"code"`
			Confirm string `json:"confirm"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ref); err != nil {
			t.Fatalf("accepted what encoding/json refuses (%v): %q", err, data)
		}
		if len(ref.Answers) != 1 {
			t.Fatalf("accepted answers to %d questions: %q", len(ref.Answers), data)
		}
		a := ref.Answers[approval.QuestionID]
		if d.code != ref.Code || d.confirm != ref.Confirm || d.answer.Note != a.Note || len(d.answer.Selected) != len(a.Selected) {
			t.Errorf("decoded %+v, encoding/json reads %+v", d, ref)
		}
	})
}
