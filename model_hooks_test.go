package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/store"
)

// fixedDialect decodes every call to a copy of one Go call and encodes an
// outcome as what it saw, so a test can drive the model's fields that the
// ask_user contract does not reach.
type fixedDialect struct {
	call      askuser.Form
	decisions bool
	saw       chan *askuser.Outcome
}

func (d *fixedDialect) Name() string { return "fixed" }

func (d *fixedDialect) Decode([]byte, dialect.Limits) (*askuser.Form, error) {
	c := d.call
	c.Questions = append([]askuser.Question(nil), d.call.Questions...)
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = 300
	}
	return &c, nil
}

func (d *fixedDialect) Encode(o *askuser.Outcome, journaled bool) ([]byte, json.RawMessage, error) {
	if d.saw != nil {
		d.saw <- o
	}
	var rec json.RawMessage
	if d.decisions {
		rec = json.RawMessage(`[{"reason":"` + string(o.Reason) + `"}]`)
	}
	res, err := json.Marshal(map[string]any{"journaled": journaled, "decisions": rec})
	return res, rec, err
}

// recorderDialect keeps a record of its own besides the result.
func recorderDialect(d *fixedDialect) *fixedDialect { d.decisions = true; return d }

type memJournal struct{ recs []*journal.Record }

func (j *memJournal) Append(_ context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.recs = append(j.recs, r)
	return nil
}

func sensitiveMulti() askuser.Question {
	return askuser.Question{ID: "q", Kind: askuser.KindChoice, Text: "Which?", MultiSelect: true, AllowOther: true,
		Sensitive: true, Optional: true, Options: []askuser.Option{{Value: "a", Label: "Alpha"}, {Value: "b", Label: "Beta"}}}
}

func TestChoiceSecret(t *testing.T) {
	q := sensitiveMulti()
	tests := []struct {
		multi  bool
		values []string
		other  string
		want   string
	}{
		{true, []string{"b", "a"}, "", `["Beta","Alpha"]`},
		{true, nil, " mine ", `[" mine "]`},
		{true, []string{"a"}, "x", `["Alpha","x"]`},
		{false, []string{"b"}, "", `Beta`},
		{false, nil, " typed ", ` typed `},
		{false, nil, "  ", ``},
	}
	for _, tt := range tests {
		q.MultiSelect = tt.multi
		v := responder.ChoiceSecret(&q, tt.values, tt.other)
		if got := string(v.Reveal()); got != tt.want {
			t.Errorf("ChoiceSecret(%v, %q) multi=%v = %s, want %s", tt.values, tt.other, tt.multi, got, tt.want)
		}
	}
}

func TestCheckAnswerSensitiveMultiSelect(t *testing.T) {
	c := &askuser.Form{Questions: []askuser.Question{sensitiveMulti()}}
	for in, ok := range map[string]bool{`["Alpha"]`: true, `["x","y"]`: true, `[]`: false, `Alpha`: false, `[1]`: false, `{"a":1}`: false} {
		err := responder.CheckAnswer(c, askuser.Answer{QuestionID: "q", Secret: secret.FromString(in)})
		if (err == nil) != ok {
			t.Errorf("CheckAnswer(secret %s) = %v, want ok=%v", in, err, ok)
		}
		if err != nil && strings.Contains(err.Error(), in) && in != "[]" {
			t.Errorf("the refusal echoes the secret: %v", err)
		}
	}
}

func TestCheckAnswerOtherExclusiveMultiSelect(t *testing.T) {
	q := askuser.Question{ID: "q", Kind: askuser.KindChoice, MultiSelect: true, AllowOther: true, OtherExclusive: true,
		Options: []askuser.Option{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}}}
	c := &askuser.Form{Questions: []askuser.Question{q}}
	if err := responder.CheckAnswer(c, askuser.Answer{QuestionID: "q", Selected: []string{"a"}, Other: "x"}); err == nil {
		t.Error("an OtherExclusive multi-select accepted options and free text together")
	}
	c.Questions[0].OtherExclusive = false
	if err := responder.CheckAnswer(c, askuser.Answer{QuestionID: "q", Selected: []string{"a"}, Other: "x"}); err != nil {
		t.Errorf("a multi-select without OtherExclusive refused options and free text: %v", err)
	}
}

// TestModelHooks drives, through the orchestrator, what the pi contracts
// added to the model: a decline that keeps answers, the item count of a
// sealed multi-select, and decision records that reach the journal.
func TestModelHooks(t *testing.T) {
	t.Run("DeclineKeepsAnswers", func(t *testing.T) {
		d := &fixedDialect{call: askuser.Form{DeclineKeepsAnswers: true, Questions: []askuser.Question{
			{ID: "q", Kind: askuser.KindText, Text: "Why?", Optional: true}}}, saw: make(chan *askuser.Outcome, 1)}
		o := &askuser.Orchestrator{Responder: scripted.New(scripted.Step{Answer: text("q", "because")}, scripted.Step{End: scripted.EndDecline})}
		if _, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: d}); err != nil {
			t.Fatal(err)
		}
		out := <-d.saw
		if out.Status != askuser.StatusDeclined || len(out.Answers) != 1 || out.Answers[0].Other != "because" {
			t.Errorf("declined outcome = %v %+v, want the answer kept", out.Status, out.Answers)
		}
	})
	t.Run("SecretItems", func(t *testing.T) {
		d := &fixedDialect{call: askuser.Form{Questions: []askuser.Question{sensitiveMulti()}}, saw: make(chan *askuser.Outcome, 1)}
		q := sensitiveMulti()
		o := &askuser.Orchestrator{Responder: scripted.New(
			scripted.Step{Answer: &askuser.Answer{QuestionID: "q", Secret: responder.ChoiceSecret(&q, []string{"a", "b"}, "")}},
			scripted.Step{End: scripted.EndSubmit})}
		if _, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: d}); err != nil {
			t.Fatal(err)
		}
		out := <-d.saw
		want := []askuser.FinalAnswer{{QuestionID: "q", SecretRef: "session:q", SecretItems: 2, By: askuser.ByUser}}
		if diff := cmp.Diff(want, out.Answers); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
	})
	t.Run("Decisions", func(t *testing.T) {
		j := &memJournal{}
		d := recorderDialect(&fixedDialect{call: askuser.Form{Questions: []askuser.Question{{ID: "q", Kind: askuser.KindText, Text: "Why?"}}}})
		o := &askuser.Orchestrator{Journal: j}
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: d, ToolCallID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(out.Result), `{"decisions":[{"reason":"unattended"}],"journaled":true}`; got != want {
			t.Errorf("result = %s, want %s", got, want)
		}
		if len(j.recs) != 1 || string(j.recs[0].ContractRecord) != `[{"reason":"unattended"}]` {
			t.Errorf("journal records = %+v, want one with the decisions", j.recs)
		}
		o2 := &askuser.Orchestrator{}
		out, err = o2.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: d})
		if err != nil || string(out.Result) != `{"decisions":[{"reason":"unattended"}],"journaled":false}` {
			t.Errorf("without a journal: %s, %v", out.Result, err)
		}
	})
	t.Run("CallerGone", func(t *testing.T) {
		j := &memJournal{}
		d := recorderDialect(&fixedDialect{call: askuser.Form{Questions: []askuser.Question{{ID: "q", Kind: askuser.KindText, Text: "Why?"}}}})
		ctx, cancel := context.WithCancel(context.Background())
		o := &askuser.Orchestrator{Journal: j, Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		})}
		if _, err := o.Handle(ctx, askuser.Request{Session: "s1", Dialect: d}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Handle = %v, want context.Canceled", err)
		}
		if len(j.recs) != 1 || string(j.recs[0].ContractRecord) != `[{"reason":"caller"}]` || j.recs[0].Result != nil {
			t.Errorf("journal records = %+v", j.recs)
		}
	})
}
