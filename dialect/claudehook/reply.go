package claudehook

import (
	"bytes"
	"errors"
	"io"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// Reply turns result — the tool result of the Call's contract, exactly
// the bytes the model would have read — into the hook's reply. For
// AskUserQuestion: allow, with updatedInput echoing the tool's input and
// adding answers (keyed by each question's text; a multi-select's labels,
// and the person's own words where they typed some, joined with ", "),
// only when the person answered every question; deny when the person
// declined them; ask otherwise (the deadline, nobody there, the card
// dismissed), so that Claude Code asks them itself. For a permission:
// allow only when the result is approved; deny when it is denied, or
// nobody decided before the deadline (or the person dismissed it, or wrote
// instead); ask when nobody could be asked or the responder failed. A
// result Reply cannot read gives Fallback. Reply never allows on anything
// but a person's answers or approval.
func (c *Call) Reply(result []byte) *Output {
	switch c.Dialect {
	case DialectAskUser:
		return c.answersReply(result)
	case DialectApproval:
		return approvalReply(result)
	}
	return Fallback("the call is in no contract the hook reads back")
}

type askResult struct {
	Status     string      `json:"status"`
	AnsweredBy string      `json:"answered_by"`
	Answers    []askAnswer `json:"answers"`
}

type askAnswer struct {
	ID         string   `json:"id"`
	Selected   []string `json:"selected"`
	OtherText  *string  `json:"other_text"`
	AnsweredBy string   `json:"answered_by"`
}

func (c *Call) answersReply(result []byte) *Output {
	var r askResult
	if err := jsonv2.Unmarshal(result, &r); err != nil {
		return Fallback("the ask_user result cannot be read: " + err.Error())
	}
	switch {
	case r.Status == "answered" && r.AnsweredBy == "user":
	case r.Status == "declined" && r.AnsweredBy == "user":
		return &Output{Decision: Deny, Reason: "The user declined to answer these questions (on askuser). Do not ask them again; go on without the answers, or stop and tell the user what you need."}
	case r.Status == "cancelled" && r.AnsweredBy == "user":
		return &Output{Decision: Ask, Reason: "The questions were dismissed on askuser's card without an answer: answer them here."}
	case r.AnsweredBy == "timeout":
		return &Output{Decision: Ask, Reason: "Nobody answered on askuser before the deadline: answer here."}
	default:
		return &Output{Decision: Ask, Reason: "Nobody could be asked through askuser: answer here."}
	}
	byID := make(map[string]askAnswer, len(r.Answers))
	for _, a := range r.Answers {
		byID[a.ID] = a
	}
	answers := make([][2]string, 0, len(c.questions))
	for i, q := range c.questions {
		a, ok := byID[questionID(i)]
		parts := append([]string{}, a.Selected...)
		if a.OtherText != nil && strings.TrimSpace(*a.OtherText) != "" {
			parts = append(parts, *a.OtherText)
		}
		if !ok || len(parts) == 0 || a.AnsweredBy != "" && a.AnsweredBy != "user" {
			return Fallback("the ask_user result answers not every question as the user's")
		}
		answers = append(answers, [2]string{q.Question, strings.Join(parts, ", ")})
	}
	updated, err := withAnswers(c.toolInput, answers)
	if err != nil {
		return Fallback("the answers cannot be written into the tool's input: " + err.Error())
	}
	return &Output{Decision: Allow, Reason: "Answered by the user on askuser.", UpdatedInput: updated}
}

// withAnswers returns the object toolInput with its member "answers" (if
// any) left out and an "answers" object of the pairs (key, value) added
// last, in their order, compact, without HTML escapes.
func withAnswers(toolInput []byte, answers [][2]string) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(toolInput))
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, errors.New("the tool's input is not a JSON object")
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // the token is valid only until the next read
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if name == "answers" {
			continue
		}
		if err := enc.WriteToken(jsontext.String(name)); err != nil {
			return nil, err
		}
		if err := enc.WriteValue(v); err != nil {
			return nil, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return nil, errors.New("the tool's input has data after its object")
	}
	if err := enc.WriteToken(jsontext.String("answers")); err != nil {
		return nil, err
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for _, kv := range answers {
		if err := enc.WriteToken(jsontext.String(kv[0])); err != nil {
			return nil, err
		}
		if err := enc.WriteToken(jsontext.String(kv[1])); err != nil {
			return nil, err
		}
	}
	for range 2 {
		if err := enc.WriteToken(jsontext.EndObject); err != nil {
			return nil, err
		}
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

type approvalResult struct {
	Status    string  `json:"status"`
	DecidedBy *string `json:"decided_by"`
	Note      *string `json:"note"`
	Ended     *string `json:"ended"`
	Remember  string  `json:"remember"`
	Message   string  `json:"message"`
}

func approvalReply(result []byte) *Output {
	var r approvalResult
	if err := jsonv2.Unmarshal(result, &r); err != nil {
		return Fallback("the request_approval result cannot be read: " + err.Error())
	}
	message := oneLine(r.Message)
	if message == "" {
		message = "Nobody approved this action on askuser. You have no permission to perform it: do not perform it."
	}
	note := ""
	if r.Note != nil && strings.TrimSpace(*r.Note) != "" {
		note = " The user's note: " + oneLine(*r.Note)
	}
	ended := ""
	if r.Ended != nil {
		ended = *r.Ended
	}
	switch {
	case r.Status == approvalwire.StatusApproved && r.DecidedBy != nil:
		return &Output{Decision: Allow, Reason: approvedReason(*r.DecidedBy, r.Remember) + note}
	case r.Status == approvalwire.StatusDenied:
		return &Output{Decision: Deny, Reason: message + note}
	case r.Status == approvalwire.StatusUnresolved && (ended == approvalwire.EndedDeadline || ended == approvalwire.EndedDismissed || ended == approvalwire.EndedSuperseded):
		return &Output{Decision: Deny, Reason: message}
	case r.Status == approvalwire.StatusUnresolved && ended == approvalwire.EndedUnattended:
		return &Output{Decision: Ask, Reason: "Nobody could be asked through askuser: decide here."}
	case r.Status == approvalwire.StatusUnresolved:
		return &Output{Decision: Ask, Reason: "askuser could not show the request or read the decision: decide here."}
	}
	return Fallback("the request_approval result has status " + oneLine(clip(r.Status, 40)))
}

func approvedReason(decidedBy, remember string) string {
	switch {
	case decidedBy == approvalwire.DecidedByRemembered:
		return "Approved on askuser: the user approved this same action earlier in the session, for the session."
	case decidedBy == approvalwire.DecidedByPolicy:
		return "Approved by askuser's policy, without asking the user."
	case remember == "session":
		return "Approved by the user on askuser, for the rest of the session."
	}
	return "Approved by the user on askuser."
}
