package piask

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/piwire"
)

// The result texts of the contract.
const (
	TextSubmitted  = "User submitted the ask flow"
	TextCancelled  = "User cancelled the ask flow"
	TextDeclined   = "User declined the ask flow"
	TextSuperseded = "The ask flow was closed because the user sent a message instead"
	TextFault      = "The ask flow failed before the user submitted it"
	TextTimedOut   = "The ask flow timed out before the user submitted it"
)

type questionOut struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Prompt string `json:"prompt"`
	Type   string `json:"type"`
}

type answerOut struct {
	Values      []string      `json:"values"`
	Labels      []string      `json:"labels"`
	Indices     []int         `json:"indices"`
	CustomText  string        `json:"customText,omitempty"`
	Note        string        `json:"note,omitempty"`
	OptionNotes piwire.Object `json:"optionNotes,omitempty"`
}

type detailsOut struct {
	Title     string        `json:"title,omitempty"`
	Cancelled bool          `json:"cancelled"`
	TimedOut  bool          `json:"timedOut,omitempty"`
	Questions []questionOut `json:"questions"`
	Answers   piwire.Object `json:"answers"`
}

// Encode renders an outcome as the contract's result. The contract keeps
// nothing besides the result.
func (piaskDialect) Encode(o *askuser.Outcome, _ bool) ([]byte, json.RawMessage, error) {
	c := o.Form
	d := detailsOut{Title: c.Title, Questions: make([]questionOut, len(c.Questions)), Answers: piwire.Object{}}
	for i := range c.Questions {
		q := &c.Questions[i]
		d.Questions[i] = questionOut{ID: q.ID, Label: q.Header, Prompt: q.Text, Type: TypeOf(q)}
	}
	var lines []string
	if o.Reason != askuser.ReasonUnattended {
		for i := range c.Questions {
			q := &c.Questions[i]
			f := o.Answer(q.ID)
			if f == nil {
				continue
			}
			a, ls := answer(q, f)
			if a == nil {
				continue
			}
			d.Answers = append(d.Answers, piwire.Pair{Key: q.ID, Value: a})
			lines = append(lines, ls...)
		}
	}
	var text string
	d.Cancelled = true
	switch o.Reason {
	case askuser.ReasonSubmitted:
		d.Cancelled = false
		text = strings.Join(lines, "\n")
		if text == "" {
			text = TextSubmitted
		}
	case askuser.ReasonDismissed, askuser.ReasonCaller:
		text = TextCancelled
	case askuser.ReasonDeclined:
		text = TextDeclined
	case askuser.ReasonSuperseded:
		text = TextSuperseded
	case askuser.ReasonFault:
		text = TextFault
	case askuser.ReasonDeadline:
		d.TimedOut = true
		text = strings.Join(append(lines, TextTimedOut), "\n")
	case askuser.ReasonUnattended:
		text = Listing(c)
	}
	b, err := wire.Marshal(piwire.NewResult(text, d, false))
	return b, nil, err
}

// answer returns a final answer as the contract shows it, and its summary
// lines; nil when it says nothing.
func answer(q *askuser.Question, f *askuser.FinalAnswer) (*answerOut, []string) {
	a := &answerOut{Values: []string{}, Labels: []string{}, Indices: []int{}}
	var lines []string
	for _, v := range f.Selected {
		k := index(q, v)
		if k < 0 {
			continue
		}
		a.Values = append(a.Values, v)
		a.Labels = append(a.Labels, q.Options[k].Label)
		a.Indices = append(a.Indices, k+1)
		if n := f.OptionNotes[v]; !piwire.Blank(n) {
			a.OptionNotes = append(a.OptionNotes, piwire.Pair{Key: v, Value: n})
			lines = append(lines, q.Header+" / "+q.Options[k].Label+" note: "+n)
		}
	}
	if !piwire.Blank(f.Other) {
		a.CustomText = f.Other
		a.Values = append(a.Values, f.Other)
		a.Labels = append(a.Labels, f.Other)
	}
	if !piwire.Blank(f.Note) {
		a.Note = f.Note
		lines = append([]string{q.Header + " note: " + f.Note}, lines...)
	}
	if len(a.Labels) > 0 {
		lines = append([]string{q.Header + ": " + strings.Join(a.Labels, ", ")}, lines...)
	}
	if len(a.Values) == 0 && a.Note == "" && len(a.OptionNotes) == 0 {
		return nil, nil
	}
	return a, lines
}

func index(q *askuser.Question, value string) int {
	for k := range q.Options {
		if q.Options[k].Value == value {
			return k
		}
	}
	return -1
}

// Listing is the text the contract returns when nobody can be asked: the
// normalized questions, one line per option, so that the caller can ask
// them some other way.
func Listing(c *askuser.Form) string {
	var b strings.Builder
	b.WriteString("Needs user input: ask_user requires interactive UI.\n")
	b.WriteString("Run same tool call in interactive session, or ask user these questions manually:\n")
	for i := range c.Questions {
		q := &c.Questions[i]
		b.WriteString(strconv.Itoa(i+1) + ". " + q.Header + ": " + q.Text + "\n")
		for _, o := range q.Options {
			b.WriteString("   - " + o.Label + " [" + o.Value + "]\n")
		}
		if q.AllowOther {
			b.WriteString("   - " + OtherLabel + " [custom]\n")
		}
	}
	b.WriteString("details.questions contains normalized pending questions. details.answers stays empty until user responds.")
	return b.String()
}
