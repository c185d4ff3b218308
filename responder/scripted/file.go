package scripted

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
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
// or, for an approval (approvaltool.Form):
//
//	{"approval": "approve", "note": "...", "delay_ms": 0, "end": "submit"}
//
// Every field is optional. The answers are reported first, in order, then,
// after delay_ms, the ending (submit by default). An answer without an id
// answers the question at its position. selected names options by label
// (the first option with that label), values by value; both keep the order
// given, which is the order the person picked in. secret is handed over as
// a secret value, and so is any answer to a sensitive question (its text as
// typed, or its picks as responder.ChoiceSecret makes them). note is a note
// on the answer, option_notes notes on selected options by label.
// end is one of submit, decline, cancel, supersede and unreachable.
// cancel_on names the question the person was on for an end of cancel
// (default: the first unanswered).
//
// approval is the person's decision on an approval, one of approve,
// approve_session, deny and deny_session (approval.ApproveOnce and the
// others); it is reported as the answer to the approval's one question,
// with note as the person's words, before the ending. So {"approval":
// "approve"} approves once, {"approval": "deny_session", "note": "not on
// Fridays"} denies for the rest of the session, and {"end": "decline"}
// declines, which an approval counts as a denial. A script gives approval
// or answers, not both, and note only with approval (a note on an answer
// goes in the answer). Played against a form that is not an approval, the
// decision is refused (there is no question "approval") and the submit
// after it fails, as a responder fault.
type File struct {
	DelayMS  int          `json:"delay_ms"`
	End      End          `json:"end"`
	CancelOn string       `json:"cancel_on"`
	Answers  []FileAnswer `json:"answers"`
	Approval string       `json:"approval"`
	Note     string       `json:"note"`
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
// The file is one JSON object: a key given twice (at any depth), a key that
// is not a script field, a value of the wrong type, invalid UTF-8, or data
// after the object is refused. Errors say what is wrong, where, and what is
// allowed; they never echo a secret.
func ParseFile(data []byte) (*Responder, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("scripted: the script is %d bytes; at most %d are accepted", len(data), MaxFileBytes)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	switch k := dec.PeekKind(); k {
	case '[', '"', '0', 't', 'f', 'n':
		return nil, fmt.Errorf("scripted: the script must be a JSON object such as {\"end\": \"submit\"}, not %s", kindName(k))
	}
	var f File
	if err := json.UnmarshalDecode(dec, &f, json.RejectUnknownMembers(true)); err != nil {
		return nil, fileError(err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, errors.New("scripted: the script has data after its JSON object; give one object")
	}
	if f.DelayMS < 0 || f.DelayMS > 24*60*60*1000 {
		return nil, fmt.Errorf("scripted: delay_ms is %d; allowed: 0 to 86400000", f.DelayMS)
	}
	switch f.Approval {
	case "", approval.ApproveOnce, approval.ApproveSession, approval.DenyOnce, approval.DenySession:
	default:
		return nil, fmt.Errorf("scripted: approval is %q; allowed: approve, approve_session, deny, deny_session", f.Approval)
	}
	switch {
	case f.Approval != "" && f.Answers != nil:
		return nil, errors.New("scripted: the script gives both approval and answers; an approval's decision is approval (with note), other forms' answers are answers")
	case f.Note != "" && f.Approval == "":
		return nil, errors.New("scripted: note goes with approval (the person's words on their decision); a note on an answer goes in answers[].note")
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
	if f.Approval != "" {
		r.Steps = append(r.Steps, Step{Answer: &askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{f.Approval}, Note: f.Note}})
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

// fileError says what is wrong with a script that does not decode. It is
// built from the error's place and kinds, never from its text, which may
// quote a value (a secret, say).
func fileError(err error) error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("scripted: the script is empty; give a JSON object such as {\"end\": \"submit\"}")
	case errors.As(err, &syn) && errors.Is(err, jsontext.ErrDuplicateName):
		return fmt.Errorf("scripted: %q is given twice %s; give each key once", syn.JSONPointer.LastToken(), placeIn(syn.JSONPointer.Parent()))
	case errors.As(err, &syn) && errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("scripted: the script ends at byte %d, inside its JSON object; complete the object", syn.ByteOffset)
	case errors.As(err, &syn):
		return fmt.Errorf("scripted: the script is not valid JSON at byte %d%s", syn.ByteOffset, syntaxReason(syn))
	case errors.As(err, &sem) && errors.Is(err, json.ErrUnknownName):
		name, parent := sem.JSONPointer.LastToken(), sem.JSONPointer.Parent()
		if parent == "" {
			return fmt.Errorf("scripted: %q is not a script field; allowed: delay_ms, end, cancel_on, answers, approval, note (and in an answer: id, selected, values, other_text, secret, note, option_notes)", name)
		}
		return fmt.Errorf("scripted: %q in %s is not an answer field; allowed: id, selected, values, other_text, secret, note, option_notes", name, place(parent))
	case errors.As(err, &sem):
		p, want := place(sem.JSONPointer), expected(generic(sem.JSONPointer))
		if p == "" {
			p = "the script"
		}
		if sem.JSONKind == '0' && want == "a whole number of milliseconds" {
			return fmt.Errorf("scripted: %s must be %s, from 0 to 86400000", p, want)
		}
		return fmt.Errorf("scripted: %s must be %s, not %s", p, want, kindName(sem.JSONKind))
	}
	return fmt.Errorf("scripted: the script cannot be read: %v", err)
}

// syntaxReason is the reason of a syntax error, unless it is inside a
// secret, whose characters it might quote.
func syntaxReason(e *jsontext.SyntacticError) string {
	for tok := range e.JSONPointer.Tokens() {
		if tok == "secret" {
			return " (inside a secret)"
		}
	}
	if e.Err == nil {
		return ""
	}
	return ": " + e.Err.Error()
}

// place writes a JSON pointer into a script as a person reads it:
// answers[1].option_notes["Yes"].
func place(p jsontext.Pointer) string {
	var b strings.Builder
	var parent string
	for tok := range p.Tokens() {
		switch {
		case parent == "answers" || parent == "selected" || parent == "values":
			b.WriteString("[" + tok + "]")
		case parent == "option_notes":
			fmt.Fprintf(&b, "[%q]", tok)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		}
		if parent == "answers" {
			parent = ""
		} else {
			parent = tok
		}
	}
	return b.String()
}

// placeIn says where an object is: "at the top level of the script", or
// "in answers[0]".
func placeIn(p jsontext.Pointer) string {
	if p == "" {
		return "at the top level of the script"
	}
	return "in " + place(p)
}

// generic is a place with its indexes and keys as "[]": answers[].selected,
// for expected.
func generic(p jsontext.Pointer) string {
	var b strings.Builder
	var parent string
	for tok := range p.Tokens() {
		switch parent {
		case "answers", "selected", "values", "option_notes":
			b.WriteString("[]")
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		}
		if parent == "answers" {
			parent = ""
		} else {
			parent = tok
		}
	}
	return b.String()
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case '0':
		return "a JSON number"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "JSON null"
	}
	return "a JSON value"
}

// expected says what the value at a generic place must be.
func expected(field string) string {
	switch field {
	case "delay_ms":
		return "a whole number of milliseconds"
	case "answers":
		return "an array of answer objects"
	case "answers[]":
		return "an answer object"
	case "answers[].selected", "answers[].values":
		return "an array of strings"
	case "answers[].option_notes":
		return "an object of label to note"
	case "":
		return "a JSON object"
	}
	return "a string"
}
