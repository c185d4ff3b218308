package pi

import (
	"encoding/json"
	"strings"

	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/piwire"
)

// The result texts of the contract.
const (
	TextCancelled       = "Ask tool was cancelled by the user"
	TextRichCancelled   = "Question cancelled"
	TextUnavailable     = "Ask is unavailable because this host mode cannot prompt the user."
	TextRichTimedOut    = "Question timed out; no answer was submitted."
	TextTimedOutLead    = "Question timed out; the following answer was completed automatically, not submitted by the user."
	TextNoSelection     = "User answered with no selection."
	TextAnswersHeader   = "User answers:"
	TextOutcomesHeader  = "Question outcomes:"
	TextTimedOutPrefix  = "(timed out; automatic) "
	TextLeftUnanswered  = "(cancelled)"
	Redacted            = "[REDACTED:secret-answer]"
	TextSuperseded      = "Ask tool was closed because the user sent a message instead"
	TextFault           = "Ask tool failed before the user answered"
	backendJournal      = "jsonl"
	backendMemory       = "memory"
	diagnosticNoRecords = "no decision record was made for this result"
)

// The statuses and answer sources of the contract.
const (
	StatusAnswered  = "answered"
	StatusTimedOut  = "timed-out"
	StatusCancelled = "cancelled"
	SourceHuman     = "human"
	SourceAutomatic = "automatic"
	SourceNone      = "none"
)

// fate is what became of one question, in the contract's words.
type fate struct {
	q        *askuser.Question
	f        *askuser.FinalAnswer // nil when unanswered
	status   string
	source   string
	timedOut bool
}

func fateOf(o *askuser.Outcome, q *askuser.Question) fate {
	ft := fate{q: q, f: o.Answer(q.ID), status: StatusCancelled, source: SourceNone}
	switch {
	case ft.f != nil && ft.f.By == askuser.ByUser:
		ft.status, ft.source = StatusAnswered, SourceHuman
	case ft.f != nil:
		ft.status, ft.source, ft.timedOut = StatusTimedOut, SourceAutomatic, true
	case o.Reason == askuser.ReasonDeadline:
		ft.status, ft.timedOut = StatusTimedOut, true
	}
	return ft
}

// labels returns the picked options' labels in pick order.
func (ft fate) labels() []string {
	out := []string{}
	if ft.f == nil {
		return out
	}
	for _, v := range ft.f.Selected {
		if o := ft.q.Option(v); o != nil {
			out = append(out, o.Label)
		}
	}
	return out
}

// custom is an option question's custom input, trimmed; "" when none.
func (ft fate) custom() string {
	if ft.f == nil {
		return ""
	}
	return strings.TrimSpace(ft.f.Other)
}

// cancelledOn is the question a cancel was on: the one the person was on,
// else the first.
func cancelledOn(o *askuser.Outcome) *askuser.Question {
	if q := o.Form.Question(o.CancelledOn); q != nil {
		return q
	}
	return &o.Form.Questions[0]
}

type decisionRef struct {
	DecisionID  string   `json:"decisionId"`
	Backend     string   `json:"backend"`
	Diagnostics []string `json:"diagnostics"`
}

// outcome is an outcome being encoded, with where its decision records go.
type outcome struct {
	*askuser.Outcome
	journaled bool
	records   json.RawMessage
}

func ref(o *outcome, q *askuser.Question) decisionRef {
	r := decisionRef{DecisionID: DecisionID(q.ID), Backend: backendMemory, Diagnostics: []string{}}
	if o.journaled {
		r.Backend = backendJournal
	}
	if o.records == nil {
		r.Diagnostics = append(r.Diagnostics, diagnosticNoRecords)
	}
	return r
}

// Encode renders an outcome as the contract's result, and returns the
// call's decision records for the journal.
func (piDialect) Encode(ao *askuser.Outcome, journaled bool) ([]byte, json.RawMessage, error) {
	o := &outcome{Outcome: ao, journaled: journaled, records: decisions(ao)}
	var r piwire.Result
	switch {
	case o.Reason == askuser.ReasonUnattended:
		r = piwire.NewResult(TextUnavailable, piwire.Object{
			{Key: "status", Value: "unavailable"}, {Key: "reason", Value: "no-ui"}, {Key: "source", Value: "ask"}}, true)
	case stateOf(o.Form).rich:
		r = encodeRich(o)
	default:
		r = encodeOptions(o)
	}
	b, err := wire.Marshal(r)
	return b, o.records, err
}

func ended(o *askuser.Outcome) (cancel, record bool, text string) {
	switch o.Reason {
	case askuser.ReasonDismissed, askuser.ReasonDeclined:
		return true, true, TextCancelled
	case askuser.ReasonSuperseded:
		return true, false, TextSuperseded
	case askuser.ReasonFault, askuser.ReasonCaller:
		return true, false, TextFault
	}
	return false, false, ""
}

func encodeOptions(o *outcome) piwire.Result {
	c := o.Form
	if cancel, record, text := ended(o.Outcome); cancel {
		q := cancelledOn(o.Outcome)
		d := piwire.Object{{Key: "question", Value: q.ID}, {Key: "status", Value: StatusCancelled}, {Key: "timedOut", Value: false}, {Key: "answerSource", Value: SourceNone}}
		if record {
			d = append(d, piwire.Pair{Key: "decision", Value: ref(o, q)})
		}
		return piwire.NewResult(text, d, true)
	}
	fates := make([]fate, len(c.Questions))
	for i := range c.Questions {
		fates[i] = fateOf(o.Outcome, &c.Questions[i])
	}
	if len(fates) == 1 {
		ft := fates[0]
		d := optionFields(ft, false)
		d = append(d, piwire.Pair{Key: "decision", Value: ref(o, ft.q)})
		return piwire.NewResult(singleText(ft), d, false)
	}
	results := make([]piwire.Object, len(fates))
	refs := make([]decisionRef, len(fates))
	lines := []string{TextAnswersHeader}
	for i, ft := range fates {
		results[i] = optionFields(ft, true)
		refs[i] = ref(o, ft.q)
		if ft.timedOut {
			lines[0] = TextOutcomesHeader
		}
		lines = append(lines, ft.q.ID+": "+shortAnswer(ft))
	}
	return piwire.NewResult(strings.Join(lines, "\n"), piwire.Object{{Key: "results", Value: results}, {Key: "decisions", Value: refs}}, false)
}

// optionFields are an option question's fields in a result.
func optionFields(ft fate, withID bool) piwire.Object {
	var d piwire.Object
	if withID {
		d = append(d, piwire.Pair{Key: "id", Value: ft.q.ID})
	}
	opts := make([]string, len(ft.q.Options))
	for i, op := range ft.q.Options {
		opts[i] = op.Label
	}
	d = append(d,
		piwire.Pair{Key: "question", Value: ft.q.Text},
		piwire.Pair{Key: "options", Value: opts},
		piwire.Pair{Key: "multi", Value: ft.q.MultiSelect},
		piwire.Pair{Key: "selectedOptions", Value: ft.labels()})
	if s := ft.custom(); s != "" {
		d = append(d, piwire.Pair{Key: "customInput", Value: s})
	}
	return append(d,
		piwire.Pair{Key: "status", Value: ft.status},
		piwire.Pair{Key: "timedOut", Value: ft.timedOut},
		piwire.Pair{Key: "answerSource", Value: ft.source})
}

// singleText is the text of a one-question result.
func singleText(ft fate) string {
	auto := ft.source == SourceAutomatic
	var lines []string
	if auto {
		lines = append(lines, TextTimedOutLead)
	}
	if ls := ft.labels(); len(ls) > 0 {
		lead := "User selected: "
		if auto {
			lead = "Automatic selection: "
		}
		lines = append(lines, lead+strings.Join(ls, ", "))
	}
	if s := ft.custom(); s != "" {
		lead := "User provided custom input"
		if auto {
			lead = "Automatic custom input"
		}
		if strings.Contains(s, "\n") {
			lines = append(lines, lead+":")
			for _, l := range strings.Split(s, "\n") {
				lines = append(lines, "  "+l)
			}
		} else {
			lines = append(lines, lead+": "+s)
		}
	}
	switch {
	case len(ft.labels()) > 0 || ft.custom() != "":
	case ft.timedOut && ft.f == nil:
		// The deadline came and applied nothing (a question without
		// options has nothing to apply): nothing was submitted, as a
		// rich question says.
		lines = append(lines, TextRichTimedOut)
	default:
		lines = append(lines, TextNoSelection)
	}
	return strings.Join(lines, "\n")
}

// shortAnswer is one question's answer in a several-question text. A
// question left without an answer reads (cancelled), also when the
// deadline came and applied nothing to it (a question without options):
// its result says timed-out, and the header says that the call timed out.
func shortAnswer(ft fate) string {
	var s string
	switch ls := ft.labels(); {
	case ft.custom() != "":
		s = `"` + ft.custom() + `"`
	case len(ls) == 0:
		return TextLeftUnanswered
	case ft.q.MultiSelect:
		s = "[" + strings.Join(ls, ", ") + "]"
	default:
		s = ls[0]
	}
	if ft.source == SourceAutomatic {
		s = TextTimedOutPrefix + s
	}
	return s
}

// RichKind is a rich question's kind: select, multi-select, text or editor.
func RichKind(q *askuser.Question) string {
	switch {
	case q.Kind == askuser.KindText && q.Multiline:
		return KindEditor
	case q.Kind == askuser.KindText:
		return KindText
	case q.MultiSelect:
		return KindMultiSelect
	}
	return KindSelect
}

// richValue is a rich answer's value: the text as typed, a select's label
// (or its free text as typed), a multi-select's labels in pick order (or
// the one-item array of its free text). Nil for a sealed answer.
func richValue(ft fate) any {
	f, q := ft.f, ft.q
	if f == nil || f.SecretRef != "" {
		return nil
	}
	if q.Kind == askuser.KindText {
		return f.Other
	}
	vals := ft.labels()
	if strings.TrimSpace(f.Other) != "" {
		vals = append(vals, f.Other)
	}
	if q.MultiSelect {
		return vals
	}
	if len(vals) == 0 {
		return ""
	}
	return vals[0]
}

// visible is what a rich answer shows: its value, or the redaction of a
// sealed one (one per item for a multi-select).
func visible(ft fate) any {
	if ft.f.SecretRef == "" {
		return richValue(ft)
	}
	if ft.q.MultiSelect {
		r := make([]string, max(ft.f.SecretItems, 1))
		for i := range r {
			r[i] = Redacted
		}
		return r
	}
	return Redacted
}

func encodeRich(o *outcome) piwire.Result {
	q := &o.Form.Questions[0]
	kind := RichKind(q)
	choice := q.Kind == askuser.KindChoice
	ft := fateOf(o.Outcome, q)
	cancel, record, text := ended(o.Outcome)
	if cancel {
		ft = fate{q: q, status: StatusCancelled, source: SourceNone}
	}
	d := piwire.Object{{Key: "questionId", Value: q.ID}, {Key: "kind", Value: kind}}
	isError := false
	switch {
	case cancel:
		isError = choice || !record
		if record && !choice {
			text = TextRichCancelled
		}
	case ft.f == nil && ft.timedOut:
		text = TextRichTimedOut
	case ft.f == nil:
		// Submitted without an answer: nothing was answered.
		ft.status = StatusCancelled
		text, isError = TextCancelled, choice
		if !choice {
			text = TextRichCancelled
		}
	default:
		v := visible(ft)
		if ft.f.SecretRef == "" {
			d = append(d, piwire.Pair{Key: "value", Value: v})
		}
		d = append(d, piwire.Pair{Key: "visibleValue", Value: v})
		switch vv := v.(type) {
		case []string:
			text = "Answer: " + strings.Join(vv, ", ")
		case string:
			text = "Answer: " + vv
		}
		if ft.f.SecretRef != "" {
			text = "Answer: " + Redacted
		}
	}
	d = append(d,
		piwire.Pair{Key: "status", Value: ft.status},
		piwire.Pair{Key: "answerSource", Value: ft.source},
		piwire.Pair{Key: "cancelled", Value: ft.status != StatusAnswered},
		piwire.Pair{Key: "timedOut", Value: ft.timedOut})
	if !cancel || record {
		d = append(d, piwire.Pair{Key: "decision", Value: ref(o, q)})
	}
	d = append(d, piwire.Pair{Key: "sensitivity", Value: stateOf(o.Form).sensitivity})
	if ft.f != nil && ft.f.SecretRef != "" {
		d = append(d, piwire.Pair{Key: "secretRef", Value: ft.f.SecretRef})
	}
	return piwire.NewResult(text, d, isError)
}

type decisionMeta struct {
	Source       string `json:"source"`
	Multi        *bool  `json:"multi,omitempty"`
	Kind         string `json:"kind,omitempty"`
	Sensitivity  string `json:"sensitivity,omitempty"`
	TimedOut     bool   `json:"timedOut"`
	AnswerSource string `json:"answerSource"`
}

type decision struct {
	DecisionID string       `json:"decisionId"`
	QuestionID string       `json:"questionId,omitempty"`
	Status     string       `json:"status"`
	Metadata   decisionMeta `json:"metadata"`
	Answer     any          `json:"answer,omitempty"`
}

type optionAnswer struct {
	SelectedOptions []string `json:"selectedOptions"`
	CustomInput     string   `json:"customInput,omitempty"`
}

// decisions returns the call's decision records: one per finished question
// once the call is final, only the question a cancel was on, and none for a
// superseded ask, a fault, nobody reachable or a caller gone.
func decisions(o *askuser.Outcome) json.RawMessage {
	c := o.Form
	rich := stateOf(c).rich
	var qs []*askuser.Question
	cancel, record, _ := ended(o)
	switch {
	case o.Reason == askuser.ReasonUnattended || cancel && !record:
		return nil
	case cancel:
		qs = []*askuser.Question{cancelledOn(o)}
	default:
		for i := range c.Questions {
			qs = append(qs, &c.Questions[i])
		}
	}
	ds := make([]decision, len(qs))
	for i, q := range qs {
		ft := fateOf(o, q)
		if cancel {
			ft = fate{q: q, status: StatusCancelled, source: SourceNone}
		}
		if rich && ft.f == nil && !ft.timedOut {
			ft.status = StatusCancelled
		}
		d := decision{DecisionID: DecisionID(q.ID), Status: ft.status,
			Metadata: decisionMeta{Source: "ask", TimedOut: ft.timedOut, AnswerSource: ft.source}}
		if rich {
			d.QuestionID = q.ID
			d.Metadata.Kind = RichKind(q)
			d.Metadata.Sensitivity = stateOf(c).sensitivity
		} else {
			multi := q.MultiSelect
			d.Metadata.Multi = &multi
		}
		if ft.source != SourceNone && ft.f != nil {
			switch {
			case ft.f.SecretRef != "":
				d.Answer = Redacted
			case rich:
				d.Answer = richValue(ft)
			default:
				d.Answer = optionAnswer{SelectedOptions: ft.labels(), CustomInput: ft.custom()}
			}
		}
		ds[i] = d
	}
	return mustMarshal(ds)
}
