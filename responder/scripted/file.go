package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
)

// File is the script file that the askuser command replays with
// ask --responder script=FILE:
//
//	{"delay_ms": 0, "end": "submit", "cancel_on": "q2",
//	 "answers": [{"id": "...", "selected": ["<label>"], "values": ["<value>"],
//	              "other_text": "...", "secret": "...", "note": "...",
//	              "option_notes": {"<label>": "..."}}]}
//
// Every field is optional. The answers are reported first, in order, then,
// after delay_ms, the ending (submit by default). An answer without an id
// answers the question at its position. selected names options by label
// (the first option with that label), values by value; both keep the order
// given, which is the order the person picked in. secret is handed over as
// a secret value, and so is any answer to a sensitive question (its text as
// typed, or its picks as Question.ChoiceSecret makes them). note is a note
// on the answer, option_notes notes on selected options by label.
// end is one of submit, decline, cancel, supersede and unreachable.
// cancel_on names the question the person was on for an end of cancel
// (default: the first unanswered).
type File struct {
	DelayMS  int          `json:"delay_ms"`
	End      End          `json:"end"`
	CancelOn string       `json:"cancel_on"`
	Answers  []FileAnswer `json:"answers"`
}

// FileAnswer is one answer of a script File.
type FileAnswer struct {
	ID          string            `json:"id"`
	Selected    []string          `json:"selected"`
	Values      []string          `json:"values"`
	OtherText   string            `json:"other_text"`
	Secret      *string           `json:"secret"`
	Note        string            `json:"note"`
	OptionNotes map[string]string `json:"option_notes"`
}

// MaxFileBytes caps the size of a script file.
const MaxFileBytes = 1 << 20

// ParseFile reads a script file and returns the responder that replays it.
// Errors say what is wrong and what is allowed; they never echo a secret.
func ParseFile(data []byte) (*Responder, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("scripted: the script is %d bytes; at most %d are accepted", len(data), MaxFileBytes)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fileError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("scripted: the script has data after its JSON object; give one object")
	}
	if f.DelayMS < 0 || f.DelayMS > 24*60*60*1000 {
		return nil, fmt.Errorf("scripted: delay_ms is %d; allowed: 0 to 86400000", f.DelayMS)
	}
	switch f.End {
	case EndNone:
		f.End = EndSubmit
	case EndSubmit, EndDecline, EndCancel, EndSupersede, EndUnreachable:
	default:
		return nil, fmt.Errorf("scripted: end is %q; allowed: submit, decline, cancel, supersede, unreachable", string(f.End))
	}
	return f.Responder(), nil
}

// Responder returns the responder that replays f.
func (f *File) Responder() *Responder {
	r := &Responder{}
	for i, fa := range f.Answers {
		s := Step{
			Answer: &askuser.Answer{
				QuestionID: fa.ID,
				Selected:   fa.Values,
				Other:      fa.OtherText,
				Note:       fa.Note,
			},
			Labels:     fa.Selected,
			LabelNotes: fa.OptionNotes,
		}
		if fa.Secret != nil {
			s.Answer.Secret = secret.FromString(*fa.Secret)
		}
		r.Steps = append(r.Steps, positional(s, i))
	}
	r.Steps = append(r.Steps, Step{Delay: time.Duration(f.DelayMS) * time.Millisecond, End: f.End, CancelOn: f.CancelOn})
	return r
}

// positional marks a step whose answer has no id, to answer the question at
// position i.
func positional(s Step, i int) Step {
	if s.Answer.QuestionID == "" {
		s.position = i + 1
	}
	return s
}

func fileError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("scripted: the script is not valid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		return fmt.Errorf("scripted: %s must be %s, not a JSON %s", te.Field, expected(te.Field), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("scripted: %s is not a script field; allowed: delay_ms, end, cancel_on, answers (and in an answer: id, selected, values, other_text, secret, note, option_notes)",
			strings.TrimPrefix(err.Error(), "json: unknown field "))
	case errors.Is(err, io.EOF):
		return errors.New("scripted: the script is empty; give a JSON object such as {\"end\": \"submit\"}")
	}
	return fmt.Errorf("scripted: the script cannot be read: %v", err)
}

func expected(field string) string {
	switch {
	case field == "delay_ms":
		return "a whole number of milliseconds"
	case strings.HasSuffix(field, "answers"):
		return "an array of answer objects"
	case strings.HasSuffix(field, "selected"), strings.HasSuffix(field, "values"):
		return "an array of strings"
	case strings.HasSuffix(field, "option_notes"):
		return "an object of label to note"
	case field == "":
		return "an object"
	}
	return "a string"
}
