package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/scripted"
)

func TestNormalizeErrors(t *testing.T) {
	choice := func(id string) askuser.Question {
		return askuser.Question{ID: id, Header: "H", Text: "Which?", Options: []askuser.Option{{Label: "a"}, {Label: "b"}}}
	}
	tests := []struct {
		name string
		call *askuser.Form
		want string
	}{
		{"nil", nil, "askuser: invalid call: it has no questions; give at least one"},
		{"no questions", &askuser.Form{}, "askuser: invalid call: it has no questions; give at least one"},
		{"timeout over the ceiling", &askuser.Form{TimeoutSeconds: 301, Questions: []askuser.Question{choice("")}},
			"askuser: invalid call: TimeoutSeconds is 301; allowed: 0 (the ceiling) or 1 to 300"},
		{"duplicate ids", &askuser.Form{Questions: []askuser.Question{choice("x"), choice("x")}},
			`askuser: invalid call: question 2: the id "x" is taken by question 1; ids must be unique`},
		{"blank id", &askuser.Form{Questions: []askuser.Question{choice(" ")}},
			"askuser: invalid call: question 1: the id is blank; give a non-blank id or none"},
		{"no text", &askuser.Form{Questions: []askuser.Question{{Options: []askuser.Option{{Label: "a"}}}}},
			"askuser: invalid call: question 1: the question text is empty"},
		{"choice without options", &askuser.Form{Questions: []askuser.Question{{Text: "?"}}},
			"askuser: invalid call: question 1: a choice needs at least one option, or AllowOther for a free-text answer"},
		{"unknown kind", &askuser.Form{Questions: []askuser.Question{{Text: "?", Kind: "essay"}}},
			`askuser: invalid call: question 1: kind "essay" is not a kind; allowed: choice, text, secret, approval`},
		{"secret not alone", &askuser.Form{Questions: []askuser.Question{choice(""), {Kind: askuser.KindSecret, Text: "?", SecretName: "T"}}},
			"askuser: invalid call: question 2: a secret question must be the only question in the call"},
		{"secret without a name", &askuser.Form{Questions: []askuser.Question{{Kind: askuser.KindSecret, Text: "?"}}},
			"askuser: invalid call: question 1: a secret question needs a SecretName"},
		{"text with options", &askuser.Form{Questions: []askuser.Question{{Kind: askuser.KindText, Text: "?", Options: []askuser.Option{{Label: "a"}}}}},
			"askuser: invalid call: question 1: a text question offers no options"},
		{"blank label", &askuser.Form{Questions: []askuser.Question{{Text: "?", Options: []askuser.Option{{Label: "a"}, {Label: " "}}}}},
			"askuser: invalid call: question 1: option 2 has no label"},
		{"duplicate values", &askuser.Form{Questions: []askuser.Question{{Text: "?", Options: []askuser.Option{{Label: "a", Value: "v"}, {Label: "b", Value: "v"}}}}},
			`askuser: invalid call: question 1: options 1 and 2 share the value "v"; values must be unique`},
		{"two defaults on a single-select", &askuser.Form{Questions: []askuser.Question{{Text: "?", Options: []askuser.Option{{Label: "a", Default: true}, {Label: "b", Default: true}}}}},
			"askuser: invalid call: question 1: a single-select marks at most one default, not 2"},
		{"unknown deadline rule", &askuser.Form{Questions: []askuser.Question{choice("a"), {Text: "?", OnDeadline: "guess", Options: []askuser.Option{{Label: "a"}}}}},
			`askuser: invalid call: question 2: OnDeadline is "guess"; allowed: FallbackDefaults (empty, "default" or "defaults"), FallbackDraft ("draft"), FallbackNothing ("nothing")`},
		{"unknown unattended rule", &askuser.Form{Unattended: "ask later", Questions: []askuser.Question{choice("")}},
			`askuser: invalid call: Unattended is "ask later"; allowed: FallbackDefaults (empty, "default" or "defaults"), FallbackNothing ("nothing")`},
		{"a draft when nobody can be asked", &askuser.Form{Unattended: askuser.FallbackDraft, Questions: []askuser.Question{choice("")}},
			`askuser: invalid call: Unattended is "draft"; allowed: FallbackDefaults (empty, "default" or "defaults"), FallbackNothing ("nothing")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := askuser.Normalize(tt.call, dialect.Limits{})
			var ce *dialect.CallError
			if !errors.As(err, &ce) || ce.Message != tt.want {
				t.Errorf("Normalize = %T %v\nwant a *dialect.CallError: %s", err, err, tt.want)
			}
		})
	}
}

// TestNormalizeRuleNames: the default rules may also be named, as JSON
// written by hand names them; the normalized form holds the zero value.
func TestNormalizeRuleNames(t *testing.T) {
	for _, name := range []string{"default", "defaults"} {
		var f askuser.Form
		if err := json.Unmarshal([]byte(`{"unattended":"`+name+`","questions":[`+
			`{"question":"?","options":[{"label":"a"}],"on_deadline":"`+name+`"},`+
			`{"question":"?","options":[{"label":"a"}],"on_deadline":"draft"}]}`), &f); err != nil {
			t.Fatal(err)
		}
		n, err := askuser.Normalize(&f, dialect.Limits{})
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if n.Unattended != askuser.FallbackDefaults || n.Questions[0].OnDeadline != askuser.FallbackDefaults || n.Questions[1].OnDeadline != askuser.FallbackDraft {
			t.Errorf("%q: Normalize = unattended %q, rules %q, %q; want the defaults as the zero value and draft kept", name, n.Unattended, n.Questions[0].OnDeadline, n.Questions[1].OnDeadline)
		}
	}
}

// TestAskGoCall: a call built in Go keeps what the ask_user JSON cannot
// carry (values, previews, multi-line text with a prefill, optional
// questions), gets ids for the questions without one, and is not changed.
func TestAskGoCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		call := &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
			{ID: "question_2", Header: "Plan", Text: "Which plan?", Options: []askuser.Option{
				{Value: "a", Label: "Small", Preview: "1 CPU"}, {Value: "b", Label: "Large", Preview: "8 CPUs", Default: true}}},
			{Kind: askuser.KindText, Header: "Notes", Text: "Anything else?", Multiline: true, Prefill: "none", Optional: true},
			{Header: "Q3", Text: "3?", Options: []askuser.Option{{Label: "x"}}},
			{Header: "Q4", Text: "4?", Options: []askuser.Option{{Label: "x"}}},
			{Header: "Q5", Text: "5?", Options: []askuser.Option{{Label: "x"}}},
		}}
		before := *call
		var seen *askuser.Form
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			seen = a.Form()
			for _, id := range []string{"question_2", "question_3", "question_4", "question_5"} {
				if err := a.Report(askuser.Answer{QuestionID: id, Selected: responder.DeclaredDefaults(a.Form().Question(id))}); err != nil {
					return err
				}
			}
			return a.Submit()
		})}
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: call})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&before, call); diff != "" {
			t.Errorf("Ask changed the caller's call (-before +after):\n%s", diff)
		}
		var ids []string
		for _, q := range seen.Questions {
			ids = append(ids, q.ID)
		}
		if diff := cmp.Diff([]string{"question_2", "question_2_2", "question_3", "question_4", "question_5"}, ids); diff != "" {
			t.Errorf("ids (-want +got):\n%s", diff)
		}
		if q := seen.Questions[1]; !q.Multiline || q.Prefill != "none" || !q.Optional || !q.AllowOther {
			t.Errorf("the text question lost its model fields: %+v", q)
		}
		if seen.Questions[0].Options[1].Preview != "8 CPUs" || seen.Questions[2].Options[0].Value != "x" {
			t.Errorf("options lost their preview or value: %+v", seen.Questions[0].Options)
		}
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_2","selected":["Large"],"other_text":null},{"id":"question_3","selected":["x"],"other_text":null},{"id":"question_4","selected":["x"],"other_text":null},{"id":"question_5","selected":["x"],"other_text":null}]}`
		if diff := cmp.Diff(want, string(out.Result)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if out.Form.Contract != "go" {
			t.Errorf("contract %q, want go", out.Form.Contract)
		}
	})
}

func TestAskGoCallInvalid(t *testing.T) {
	o := &askuser.Orchestrator{Responder: scripted.New(scripted.Step{End: scripted.EndSubmit})}
	_, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: &askuser.Form{}})
	if err == nil || !strings.Contains(err.Error(), "no questions") {
		t.Errorf("err = %v", err)
	}
}
