package piask_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/internal/dialecttest"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/responder"
)

// q builds a question's JSON with one valid option unless opts is given.
func q(fields string, opts ...string) string {
	o := `{"value":"a","label":"A"}`
	if len(opts) > 0 {
		o = strings.Join(opts, ",")
	}
	if fields != "" {
		fields += ","
	}
	return `{` + fields + `"options":[` + o + `]}`
}

func call(qs ...string) string { return `{"questions":[` + strings.Join(qs, ",") + `]}` }

// TestDecodeMessages checks every validation message of docs/pi-ask.md,
// and the whole invalid-call result against its golden file.
func TestDecodeMessages(t *testing.T) {
	ok := q(`"id":"ok","prompt":"P"`)
	tests := []struct {
		name, in, want, path string
	}{
		{"no-questions", `{}`, `At least one question is required`, ""},
		{"empty-questions", `{"title":"Setup","questions":[]}`, `At least one question is required`, ""},
		{"null-questions", `{"questions":null}`, `At least one question is required`, ""},
		{"id-blank", call(q(`"id":"  ","prompt":"P"`)), `Question 1: id is required`, ""},
		{"id-missing", call(ok, q(`"prompt":"P"`)), `Question 2: id is required`, ""},
		{"id-repeated", call(ok, q(`"id":" ok ","prompt":"P"`)), `Question 2: duplicate question id "ok"`, ""},
		{"label-blank", call(q(`"id":"a","label":" ","prompt":"P"`)), `Question 1: label must not be empty`, ""},
		{"prompt-blank", call(q(`"id":"a","prompt":"\t"`)), `Question 1: prompt is required`, ""},
		{"prompt-missing", call(q(`"id":"a"`)), `Question 1: prompt is required`, ""},
		{"type-unknown", call(`{"id":"a","prompt":"P","type":"radio"}`), `Question 1: invalid type "radio"; expected "single", "multi", or "preview"`, ""},
		{"type-untrimmed", call(q(`"id":"a","prompt":"P","type":" multi"`)), `Question 1: invalid type " multi"; expected "single", "multi", or "preview"`, ""},
		{"no-options", call(`{"id":"a","prompt":"P","options":[]}`), `Question 1: at least one option is required`, ""},
		{"options-missing", call(`{"id":"a","prompt":"P"}`), `Question 1: at least one option is required`, ""},
		{"value-blank", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":" ","label":"B"}`)), `Question 1, option 2: value is required`, ""},
		{"value-repeated", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":"a ","label":"B"}`)), `Question 1, option 2: duplicate option value "a"`, ""},
		{"option-label-blank", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":""}`)), `Question 1, option 1: label is required`, ""},
		{"description-blank", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":"A","description":" "}`)), `Question 1, option 1: description must not be empty`, ""},
		{"preview-blank", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":"A","preview":""}`)), `Question 1, option 1: preview must not be empty`, ""},
		{"preview-missing", call(q(`"id":"a","prompt":"P","type":"preview"`, `{"value":"a","label":"A","preview":"x"}`, `{"value":"b","label":"B"}`)), `Question 1, option 2: preview questions require preview text for every option`, ""},
		{"first-failure", call(ok, q(`"id":"b","prompt":""`), q(`"id":""`)), `Question 2: prompt is required`, ""},
		{"not-json", `{"questions":`, `(root): expected a JSON object`, "(root)"},
		{"not-object", `[]`, `(root): expected an object`, "(root)"},
		{"title-number", `{"title":1,"questions":[]}`, `title: expected a string`, "title"},
		{"questions-object", `{"title":"T","questions":{}}`, `questions: expected an array`, "questions"},
		{"question-number", `{"questions":[1]}`, `questions[0]: expected an object`, "questions[0]"},
		{"prompt-number", call(ok, `{"id":"b","prompt":5}`), `questions[1].prompt: expected a string`, "questions[1].prompt"},
		{"required-string", call(q(`"id":"a","prompt":"P","required":"yes"`)), `questions[0].required: expected a boolean`, "questions[0].required"},
		{"options-string", call(`{"id":"a","prompt":"P","options":"a"}`), `questions[0].options: expected an array`, "questions[0].options"},
		{"option-label-number", call(q(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":"b","label":2}`)), `questions[0].options[1].label: expected a string`, "questions[0].options[1].label"},
		{"shape-before-rules", `{"questions":[{"id":""},{"id":"b","type":1}]}`, `questions[1].type: expected a string`, "questions[1].type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := piask.Dialect().Decode([]byte(tt.in), dialect.Limits{})
			var ce *dialect.CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Decode(%s) = %v, want a *dialect.CallError", tt.in, err)
			}
			if want := "Error: " + tt.want; ce.Message != want {
				t.Errorf("message = %q\n          want %q", ce.Message, want)
			}
			if ce.Path != tt.path {
				t.Errorf("path = %q, want %q", ce.Path, tt.path)
			}
			dialecttest.Golden(t, "decode/"+tt.name, ce.Result)
		})
	}
}

func TestDecodeSizeCap(t *testing.T) {
	in := call(q(`"id":"a","prompt":"P"`))
	_, err := piask.Dialect().Decode([]byte(in), dialect.Limits{MaxCallBytes: 10})
	var ce *dialect.CallError
	if !errors.As(err, &ce) || ce.Message != "Error: the call is "+strconv.Itoa(len(in))+" bytes; at most 10 bytes are accepted" {
		t.Fatalf("Decode over the cap = %v", err)
	}
}

// TestDecodeNormalizes checks the normalization of docs/pi-ask.md on the
// model: trimmed fields, labels by position, types, the free-text row,
// required dropped, nothing ever chosen for the person.
func TestDecodeNormalizes(t *testing.T) {
	in := `{"title":"  Setup ","unknown":1,"questions":[
	 {"id":" db ","prompt":" Which database? ","required":true,"options":[{"value":" pg ","label":" PostgreSQL ","description":" Relational "},{"value":"sqlite","label":"SQLite","extra":true}]},
	 {"id":"features","label":" Features ","prompt":"Which?","type":"multi","options":[{"value":"auth","label":"Auth"}]},
	 {"id":"layout","prompt":"Layout?","type":"preview","options":[{"value":"left","label":"Left","preview":" [nav] [content] "}]}]}`
	c, err := piask.Dialect().Decode([]byte(in), dialect.Limits{MaxTimeoutSeconds: 120})
	if err != nil {
		t.Fatal(err)
	}
	got, err := piask.MarshalCall(c)
	if err != nil {
		t.Fatal(err)
	}
	dialecttest.Golden(t, "normalized", got)
	if c.Title != "  Setup " || c.TimeoutSeconds != 120 || c.Contract != "pi-ask" || c.Unattended != askuser.FallbackNothing || !c.DeclineKeepsAnswers {
		t.Errorf("call = %+v", c)
	}
	for i, q := range c.Questions {
		if q.Kind != askuser.KindChoice || !q.Optional || !q.NoDefault || q.OnDeadline != askuser.FallbackNothing || q.OtherLabel != "Type your own" {
			t.Errorf("question %d = %+v", i, q)
		}
		if responder.DeclaredDefaults(&q) != nil {
			t.Errorf("question %d declares defaults %v; nothing may be chosen for the person", i, responder.DeclaredDefaults(&q))
		}
	}
	if q := c.Questions[0]; q.Header != "Q1" || q.ID != "db" || !q.AllowOther || q.MultiSelect || !q.OtherExclusive || q.Options[0] != (askuser.Option{Value: "pg", Label: "PostgreSQL", Description: "Relational"}) {
		t.Errorf("single question = %+v", q)
	}
	if q := c.Questions[1]; q.Header != "Features" || !q.MultiSelect || q.OtherExclusive || !q.AllowOther {
		t.Errorf("multi question = %+v", q)
	}
	if q := c.Questions[2]; q.Header != "Q3" || q.AllowOther || q.MultiSelect || q.Options[0].Preview != "[nav] [content]" {
		t.Errorf("preview question = %+v", q)
	}
}
