package pi_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/dialecttest"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
)

const (
	oneQuestion = `{"questions":[{"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"},{"label":"canary"}],"recommended":1,"timeoutMs":60000}]}`
	oneMulti    = `{"questions":[{"id":"regions","question":"Which regions?","multi":true,"options":[{"label":"eu"},{"label":"us"},{"label":"ap"}],"recommended":2}]}`
	several     = `{"questions":[
	 {"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"}],"recommended":1,"timeoutMs":30000},
	 {"id":"regions","question":"Which regions?","multi":true,"options":[{"label":"eu"},{"label":"us"},{"label":"ap"}]},
	 {"id":"Release Notes","question":"Anything to add?","options":[]}]}`
	noOptions       = `{"questions":[{"id":"notes","question":"Anything to add?","options":[]}]}`
	richSelect      = `{"question":"Pick 🚀?","kind":"select","options":["falcon","dragon"],"default":"dragon","timeoutMs":20000,"reason":"launch day"}`
	richMulti       = `{"question":"Which?","kind":"multi-select","options":["a","b","c"],"sensitivity":"public"}`
	richText        = `{"question":"Déployer maintenant ?","kind":"text","default":"oui"}`
	richEditor      = `{"question":"Release notes?","kind":"editor"}`
	richSecret      = `{"question":"Secret?","kind":"text","sensitivity":"secret"}`
	richSecretMulti = `{"question":"Which keys?","kind":"multi-select","options":["k1","k2","k3"],"sensitivity":"secret"}`
)

func ans(id string, values ...string) scripted.Step {
	return scripted.Step{Answer: &askuser.Answer{QuestionID: id, Selected: values}}
}

func other(id, text string) scripted.Step {
	return scripted.Step{Answer: &askuser.Answer{QuestionID: id, Other: text}}
}

func end(e scripted.End) scripted.Step { return scripted.Step{End: e} }

var (
	selectID = pi.QuestionID("Pick 🚀?")
	multiID  = pi.QuestionID("Which?")
	textID   = pi.QuestionID("Déployer maintenant ?")
	editorID = pi.QuestionID("Release notes?")
	secretID = pi.QuestionID("Secret?")
	keysID   = pi.QuestionID("Which keys?")
)

// TestOutcomes drives every outcome of docs/pi.md through the real
// orchestrator, with a journal, and checks the result and the decision
// records of the journal record byte for byte against golden files.
func TestOutcomes(t *testing.T) {
	keys := &askuser.Question{MultiSelect: true, Options: []askuser.Option{{Value: "k1", Label: "k1"}, {Value: "k2", Label: "k2"}, {Value: "k3", Label: "k3"}}}
	tests := []struct {
		name   string
		call   string
		steps  []scripted.Step
		nobody bool
		memory bool // no journal
	}{
		{name: "one/answered", call: oneQuestion, steps: []scripted.Step{ans("env", "canary"), end(scripted.EndSubmit)}},
		{name: "one/answered-memory", call: oneQuestion, memory: true, steps: []scripted.Step{ans("env", "canary"), end(scripted.EndSubmit)}},
		{name: "one/custom", call: oneQuestion, steps: []scripted.Step{other("env", " eu-west-3 "), end(scripted.EndSubmit)}},
		{name: "one/custom-multiline", call: oneQuestion, steps: []scripted.Step{other("env", "first staging\nthen production"), end(scripted.EndSubmit)}},
		{name: "one/skipped", call: oneQuestion, steps: []scripted.Step{end(scripted.EndSubmit)}},
		{name: "one/timed-out", call: oneQuestion, steps: []scripted.Step{}},
		{name: "one/multi-picked", call: oneMulti, steps: []scripted.Step{ans("regions", "ap", "eu"), end(scripted.EndSubmit)}},
		{name: "one/multi-timed-out-draft", call: oneMulti, steps: []scripted.Step{{Draft: &askuser.Answer{QuestionID: "regions", Selected: []string{"us", "eu"}}}}},
		{name: "one/multi-timed-out-recommended", call: oneMulti, steps: []scripted.Step{}},
		{name: "one/cancelled", call: oneQuestion, steps: []scripted.Step{end(scripted.EndCancel)}},
		{name: "one/unavailable", call: oneQuestion, nobody: true},
		{name: "one/no-options-timed-out", call: noOptions, steps: []scripted.Step{}},
		{name: "one/no-options-skipped", call: noOptions, steps: []scripted.Step{end(scripted.EndSubmit)}},
		{name: "one/no-options-custom", call: noOptions, steps: []scripted.Step{other("notes", "ship it"), end(scripted.EndSubmit)}},
		{name: "several/answered", call: several, steps: []scripted.Step{ans("env", "staging"), ans("regions", "us", "eu"), other("Release Notes", "ship it"), end(scripted.EndSubmit)}},
		{name: "several/skipped", call: several, steps: []scripted.Step{ans("regions", "ap"), end(scripted.EndSubmit)}},
		{name: "several/timed-out", call: several, steps: []scripted.Step{ans("env", "staging"), {Draft: &askuser.Answer{QuestionID: "regions", Selected: []string{"ap"}}}}},
		{name: "several/cancelled", call: several, steps: []scripted.Step{ans("env", "staging"), {End: scripted.EndCancel, CancelOn: "regions"}}},
		{name: "several/declined", call: several, steps: []scripted.Step{end(scripted.EndDecline)}},
		{name: "several/superseded", call: several, steps: []scripted.Step{ans("env", "staging"), end(scripted.EndSupersede)}},
		{name: "several/fault", call: several, steps: []scripted.Step{{Err: errors.New("boom")}}},
		{name: "several/unreachable", call: several, steps: []scripted.Step{end(scripted.EndUnreachable)}},
		{name: "rich/select", call: richSelect, steps: []scripted.Step{ans(selectID, "falcon"), end(scripted.EndSubmit)}},
		{name: "rich/select-custom", call: richSelect, steps: []scripted.Step{other(selectID, " starship "), end(scripted.EndSubmit)}},
		{name: "rich/select-timed-out", call: richSelect, steps: []scripted.Step{}},
		{name: "rich/select-cancelled", call: richSelect, steps: []scripted.Step{end(scripted.EndCancel)}},
		{name: "rich/multi", call: richMulti, steps: []scripted.Step{ans(multiID, "c", "a"), end(scripted.EndSubmit)}},
		{name: "rich/multi-custom", call: richMulti, steps: []scripted.Step{other(multiID, "d"), end(scripted.EndSubmit)}},
		{name: "rich/text", call: richText, steps: []scripted.Step{other(textID, "  oui, maintenant "), end(scripted.EndSubmit)}},
		{name: "rich/text-cancelled", call: richText, steps: []scripted.Step{end(scripted.EndCancel)}},
		{name: "rich/text-timed-out", call: richText, steps: []scripted.Step{}},
		{name: "rich/editor", call: richEditor, steps: []scripted.Step{other(editorID, "line 1\nline 2\n"), end(scripted.EndSubmit)}},
		{name: "rich/secret", call: richSecret, steps: []scripted.Step{{Answer: &askuser.Answer{QuestionID: secretID, Secret: secret.FromString("hunter2")}}, end(scripted.EndSubmit)}},
		{name: "rich/secret-multi", call: richSecretMulti, steps: []scripted.Step{{Answer: &askuser.Answer{QuestionID: keysID, Secret: responder.ChoiceSecret(keys, []string{"k3", "k1"}, "")}}, end(scripted.EndSubmit)}},
		{name: "rich/secret-cancelled", call: richSecret, steps: []scripted.Step{{Answer: &askuser.Answer{QuestionID: secretID, Secret: secret.FromString("hunter2")}}, end(scripted.EndCancel)}},
		{name: "rich/superseded", call: richText, steps: []scripted.Step{end(scripted.EndSupersede)}},
		{name: "rich/unavailable", call: richSelect, nobody: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &dialecttest.Records{}
			run := dialecttest.Run{Call: tt.call, Steps: tt.steps, Nobody: tt.nobody, Journal: j}
			if tt.memory {
				run.Journal = nil
			}
			out, err := run.Do(t, pi.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			dialecttest.Golden(t, "outcome/"+tt.name, out.Result)
			if tt.memory {
				return
			}
			if len(j.Recs) != 1 {
				t.Fatalf("%d journal records, want 1", len(j.Recs))
			}
			dialecttest.Golden(t, "outcome/"+tt.name+".decisions", j.Recs[0].ContractRecord)
		})
	}
}

// TestTimedOutWithoutOptions checks what the deadline says of an option
// question without options, which it cannot complete (docs/pi.md): alone,
// the question timed out and nothing was submitted; among several, it
// reads (cancelled) under the "Question outcomes:" header, its result
// saying timed-out.
func TestTimedOutWithoutOptions(t *testing.T) {
	for _, tc := range []struct {
		name, call string
		steps      []scripted.Step
		text       string
	}{
		{"one question", noOptions, nil, pi.TextRichTimedOut},
		{"several questions", several, []scripted.Step{ans("env", "staging"), {Draft: &askuser.Answer{QuestionID: "regions", Selected: []string{"ap"}}}},
			"Question outcomes:\nenv: staging\nregions: (timed out; automatic) [ap]\nRelease Notes: (cancelled)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := dialecttest.Run{Call: tc.call, Steps: tc.steps}
			out, err := run.Do(t, pi.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			}
			if err := json.Unmarshal(out.Result, &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Content) != 1 || r.Content[0].Text != tc.text || r.IsError {
				t.Errorf("result %s; want the text %q, not an error", out.Result, tc.text)
			}
		})
	}
}
