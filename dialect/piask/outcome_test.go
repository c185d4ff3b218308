package piask_test

import (
	"errors"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/internal/dialecttest"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/scripted"
)

// setup is the call of the outcome tests: a single-select with
// descriptions, a multi-select without a label, a preview question.
const setup = `{"title":"Setup","questions":[
 {"id":"db","label":"Database","prompt":"Which database?","options":[
   {"value":"pg","label":"PostgreSQL","description":"Relational"},
   {"value":"sqlite","label":"SQLite"}]},
 {"id":"features","prompt":"Which features?","type":"multi","required":true,"options":[
   {"value":"auth","label":"Auth"},
   {"value":"billing","label":"Billing"},
   {"value":"search","label":"Search"}]},
 {"id":"layout","label":"Layout","prompt":"Pick a layout","type":"preview","options":[
   {"value":"left","label":"Left","preview":"[nav] [content]"},
   {"value":"top","label":"Top","preview":"[nav]\n[content]"}]}]}`

func ans(id string, values ...string) scripted.Step {
	return scripted.Step{Answer: &askuser.Answer{QuestionID: id, Selected: values}}
}

func end(e scripted.End) scripted.Step { return scripted.Step{End: e} }

// TestOutcomes drives every ending of docs/pi-ask.md through the real
// orchestrator and a scripted person, and checks each result byte for
// byte against its golden file.
func TestOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		steps  []scripted.Step
		nobody bool
		reason askuser.Reason
	}{
		{name: "submitted", reason: askuser.ReasonSubmitted, steps: []scripted.Step{
			{Answer: &askuser.Answer{QuestionID: "db", Selected: []string{"pg"}, OptionNotes: map[string]string{"pg": " we know it "}}},
			{Answer: &askuser.Answer{QuestionID: "features", Selected: []string{"search", "auth"}, Other: "  audit log ", Note: "phase one only"}},
			ans("layout", "top"),
			end(scripted.EndSubmit)}},
		{name: "submitted-nothing", reason: askuser.ReasonSubmitted, steps: []scripted.Step{end(scripted.EndSubmit)}},
		{name: "submitted-note-only", reason: askuser.ReasonSubmitted, steps: []scripted.Step{
			{Answer: &askuser.Answer{QuestionID: "features", Note: "ask the team first"}},
			end(scripted.EndSubmit)}},
		{name: "submitted-custom-single", reason: askuser.ReasonSubmitted, steps: []scripted.Step{
			{Answer: &askuser.Answer{QuestionID: "db", Other: " MySQL 8 "}},
			end(scripted.EndSubmit)}},
		{name: "submitted-custom-replaces-selection", reason: askuser.ReasonSubmitted, steps: []scripted.Step{
			ans("db", "sqlite"),
			{Answer: &askuser.Answer{QuestionID: "db", Other: "MySQL"}},
			end(scripted.EndSubmit)}},
		{name: "cancelled", reason: askuser.ReasonDismissed, steps: []scripted.Step{ans("db", "sqlite"), end(scripted.EndCancel)}},
		{name: "declined", reason: askuser.ReasonDeclined, steps: []scripted.Step{ans("db", "sqlite"), end(scripted.EndDecline)}},
		{name: "superseded", reason: askuser.ReasonSuperseded, steps: []scripted.Step{ans("layout", "left"), end(scripted.EndSupersede)}},
		{name: "fault", reason: askuser.ReasonFault, steps: []scripted.Step{ans("db", "pg"), {Err: errors.New("the card crashed")}}},
		{name: "timed-out", reason: askuser.ReasonDeadline, steps: []scripted.Step{
			ans("features", "billing", "auth"),
			{Answer: &askuser.Answer{QuestionID: "db", Note: "undecided"}}}},
		{name: "timed-out-nothing", reason: askuser.ReasonDeadline, steps: []scripted.Step{}},
		{name: "unreachable", reason: askuser.ReasonUnattended, steps: []scripted.Step{ans("db", "pg"), end(scripted.EndUnreachable)}},
		{name: "nobody", reason: askuser.ReasonUnattended, nobody: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := dialecttest.Run{Call: setup, Steps: tt.steps, Nobody: tt.nobody}.Do(t, piask.Dialect())
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.reason {
				t.Errorf("reason = %s, want %s", out.Reason, tt.reason)
			}
			dialecttest.Golden(t, "outcome/"+tt.name, out.Result)
		})
	}
}

// TestRefusedAnswers checks the answers the contract refuses: an option
// and custom text together on a single-select, free text on a preview
// question, a note on an option not selected.
func TestRefusedAnswers(t *testing.T) {
	c, err := piask.Dialect().Decode([]byte(setup), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []askuser.Answer{
		{QuestionID: "db", Selected: []string{"pg"}, Other: "MySQL"},
		{QuestionID: "layout", Other: "bottom"},
		{QuestionID: "features", Selected: []string{"auth"}, OptionNotes: map[string]string{"billing": "x"}},
		{QuestionID: "db"},
	} {
		if err := responder.CheckAnswer(c, a); err == nil {
			t.Errorf("CheckAnswer(%+v) accepted", a)
		}
	}
	for _, a := range []askuser.Answer{
		{QuestionID: "features", Selected: []string{"auth"}, Other: "audit"},
		{QuestionID: "db", Note: "a note alone"},
	} {
		if err := responder.CheckAnswer(c, a); err != nil {
			t.Errorf("CheckAnswer(%+v) = %v", a, err)
		}
	}
}
