package askuser

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/internal/builtin"
	"github.com/askuser-go/askuser/internal/wire"
)

// askUserDialect is the ask_user contract, askuser's own: the dialect
// Handle uses when a Request names none, exported as askusertool.Dialect().
// Its wire format is package dialect/askuserwire; this adapter maps it onto
// the model. The contract is documented in docs/ask_user.md.
type askUserDialect struct{}

func init() { builtin.AskUser = askUserDialect{} }

// formBlock holds a decoded ask_user form, its questions and all their
// options in one allocation: a call has at most 4 questions of at most 6
// options.
type formBlock struct {
	f    Form
	qs   [4]Question
	opts [4 * 6]Option
}

func (askUserDialect) Name() string { return askuserwire.ToolName }

// Decode reads an ask_user call into a Form: option values are their
// labels, since the contract has no values of its own, and the call's
// human_intent is the form's HumanIntent.
func (askUserDialect) Decode(data []byte, lim dialect.Limits) (*Form, error) {
	c, err := askuserwire.Decode(data, lim)
	if err != nil {
		var e *askuserwire.Error
		if errors.As(err, &e) {
			return nil, &dialect.CallError{Path: e.Path, Message: e.Message}
		}
		return nil, err
	}
	// The form is read into one block: the orchestrator compacts it right
	// away, and one large piece of garbage, unlike many pieces the size of
	// what a pending ask keeps, leaves no holes among what it keeps.
	b := new(formBlock)
	if len(c.Questions) > len(b.qs) {
		return nil, fmt.Errorf("askuser: the ask_user decoder returned %d questions; the contract allows %d", len(c.Questions), len(b.qs))
	}
	f := &b.f
	*f = Form{Questions: b.qs[:len(c.Questions)], TimeoutSeconds: c.TimeoutSeconds, HumanIntent: c.HumanIntent, Contract: askuserwire.ToolName}
	opts := b.opts[:0]
	for i := range c.Questions {
		wq := &c.Questions[i]
		q := &f.Questions[i]
		*q = Question{
			ID:          wq.ID,
			Kind:        Kind(wq.Kind),
			Header:      wq.Header,
			Text:        wq.Question,
			MultiSelect: wq.MultiSelect,
			AllowOther:  wq.AllowOther,
			SecretName:  wq.SecretName,
			Purpose:     wq.Purpose,
		}
		if len(wq.Options) == 0 {
			continue
		}
		if len(opts)+len(wq.Options) > cap(opts) {
			return nil, fmt.Errorf("askuser: the ask_user decoder returned more options than the contract allows")
		}
		start := len(opts)
		for _, wo := range wq.Options {
			opts = append(opts, Option{Value: wo.Label, Label: wo.Label, Description: wo.Description, Default: wo.Default})
		}
		q.Options = opts[start:len(opts):len(opts)]
	}
	return f, nil
}

// MarshalForm writes f as an ask_user call. For a normalized form every
// default is written out; HumanIntent is written as human_intent when it is
// not empty; the fields the contract does not carry (Title, OtherLabel,
// Preview, Sensitive, …) are not written, and an option is written by its
// label.
func (askUserDialect) MarshalForm(f *Form) ([]byte, error) {
	if f == nil {
		return nil, errors.New("askuser: MarshalForm of a nil *Form")
	}
	c := askuserwire.Call{
		Questions:      make([]askuserwire.Question, len(f.Questions)),
		TimeoutSeconds: f.TimeoutSeconds,
		AskedAt:        f.AskedAt,
		NudgeAt:        f.NudgeAt,
		ExpiresAt:      f.ExpiresAt,
		HumanIntent:    f.HumanIntent,
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		wq := askuserwire.Question{
			Kind: string(q.Kind), ID: q.ID, Header: q.Header, Question: q.Text,
			MultiSelect: q.MultiSelect, AllowOther: q.AllowOther,
			SecretName: q.SecretName, Purpose: q.Purpose,
			Options: make([]askuserwire.Option, len(q.Options)),
		}
		for k, o := range q.Options {
			wq.Options[k] = askuserwire.Option{Label: o.Label, Description: o.Description, Default: o.Default}
		}
		c.Questions[i] = wq
	}
	return askuserwire.Marshal(&c)
}

// Encode renders the ask_user result: answers in question order, labels in
// option order, free text trimmed (null when none), the secret's
// reference, an answer's own answered_by only where it differs from the
// top level, and the person's note where they wrote one. The contract keeps
// nothing besides the result.
func (askUserDialect) Encode(o *Outcome, _ bool) ([]byte, json.RawMessage, error) {
	res := wire.Result{
		Status:     string(o.Status),
		AnsweredBy: string(o.AnsweredBy),
		Answers:    make([]wire.Answer, 0, len(o.Answers)),
	}
	for i := range o.Answers {
		f := &o.Answers[i]
		q := o.Form.Question(f.QuestionID)
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
	b, err := wire.Marshal(res)
	return b, nil, err
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
