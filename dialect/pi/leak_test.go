package pi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/internal/dialecttest"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
)

// TestNoEncoderShowsASensitiveAnswer is a property: whatever the sensitive
// question (any kind, any options, any reason), whatever the secret the
// person types and however the ask ends, the secret appears neither in the
// result the model reads nor in the journal record — in the pi contract,
// and in ask_user for its secret questions.
func TestNoEncoderShowsASensitiveAnswer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		value := "S3CR3T-" + rapid.StringMatching(`[A-Za-z0-9_\-]{4,24}`).Draw(t, "secret")
		end := rapid.SampledFrom([]scripted.End{scripted.EndSubmit, scripted.EndCancel, scripted.EndDecline, scripted.EndSupersede, scripted.EndUnreachable}).Draw(t, "end")
		contract := rapid.SampledFrom([]string{"pi", "ask_user"}).Draw(t, "contract")

		var d askuser.Dialect = pi.Dialect()
		var call string
		var v secret.Value
		if contract == "ask_user" {
			d = askusertool.Dialect()
			call = `{"questions":[{"kind":"secret","header":"Token","question":"Paste it","secret_name":"TOKEN","purpose":"deploy"}]}`
			v = secret.FromString(value)
		} else {
			kind := rapid.SampledFrom([]string{"select", "multi-select", "text", "editor"}).Draw(t, "kind")
			opts := rapid.SliceOfN(rapid.StringMatching(`[a-z][a-z ]{0,11}`), 0, 5).Draw(t, "options")
			args := map[string]any{"question": rapid.StringMatching(`[A-Za-z][A-Za-z ?]{0,39}`).Draw(t, "question"), "kind": kind, "options": opts, "sensitivity": "secret"}
			if rapid.Bool().Draw(t, "reason") {
				args["reason"] = rapid.StringMatching(`[a-z ]{0,30}`).Draw(t, "why")
			}
			b, _ := json.Marshal(args)
			call = string(b)
			q := &askuser.Question{MultiSelect: kind == "multi-select"}
			if kind == "select" || kind == "multi-select" {
				v = responder.ChoiceSecret(q, nil, value) // the person typed their own answer
			} else {
				v = secret.FromString(value)
			}
		}
		c, err := d.Decode([]byte(call), dialect.Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", call, err)
		}
		j := &dialecttest.Records{}
		o := &askuser.Orchestrator{Journal: j, Logger: discard}
		r := scripted.New(scripted.Step{Answer: &askuser.Answer{QuestionID: c.Questions[0].ID, Secret: v}}, scripted.Step{End: end})
		r.Supersede = o.Supersede
		o.Responder = r
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "t", Arguments: []byte(call), Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		o.WaitResponders()
		if errs := r.Refused(); len(errs) > 0 {
			t.Fatalf("refused: %v", errs)
		}
		rec, _ := json.Marshal(j.Recs)
		for what, b := range map[string]string{"result": string(out.Result), "journal record": string(rec)} {
			if strings.Contains(b, value) {
				t.Fatalf("the %s shows the secret: %s", what, b)
			}
		}
	})
}
