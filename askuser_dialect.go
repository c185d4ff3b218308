package askuser

import (
	"strings"

	"github.com/askuser-go/askuser/internal/wire"
)

// AskUser is the ask_user contract of SPEC §1 and §2, askuser's own. It is
// the dialect the orchestrator uses when a Request names none.
var AskUser Dialect = askUserDialect{}

type askUserDialect struct{}

func (askUserDialect) Name() string { return "ask_user" }

func (askUserDialect) Decode(data []byte, lim Limits) (*Call, error) {
	return decodeAskUser(data, lim.withDefaults())
}

// Encode renders the result of SPEC §2: answers in question order, labels
// in option order, free text trimmed (null when none), the secret's
// reference, an answer's own answered_by only where it differs from the
// top level, and the person's note where they wrote one.
func (askUserDialect) Encode(o *Outcome) ([]byte, error) {
	res := wire.Result{
		Status:     string(o.Status),
		AnsweredBy: string(o.AnsweredBy),
		Answers:    make([]wire.Answer, 0, len(o.Answers)),
	}
	for i := range o.Answers {
		f := &o.Answers[i]
		q := o.Call.Question(f.QuestionID)
		wa := wire.Answer{ID: f.QuestionID, Selected: labelsInOptionOrder(q, f.Selected), SecretRef: f.SecretRef}
		if t := strings.TrimSpace(f.Other); t != "" {
			wa.OtherText = &t
		}
		if f.By != o.AnsweredBy {
			wa.AnsweredBy = string(f.By)
		}
		wa.Note = strings.TrimSpace(f.Note)
		res.Answers = append(res.Answers, wa)
	}
	return wire.Marshal(res)
}

// labelsInOptionOrder maps selected values to their labels, in option order.
func labelsInOptionOrder(q *Question, values []string) []string {
	labels := make([]string, 0, len(values))
	if q == nil {
		return labels
	}
	for _, opt := range q.Options {
		for _, v := range values {
			if v == opt.Value {
				labels = append(labels, opt.Label)
				break
			}
		}
	}
	return labels
}
