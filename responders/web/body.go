package web

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/secret"
)

// The fields each body may carry. Keys are matched exactly.
var (
	answerFields  = []string{"selected", "other_text", "note", "option_notes", "secret"}
	submitFields  = []string{"answers"}
	dismissFields = []string{"on_question"}
	// An approval's.
	decisionFields        = []string{"answers", "code", "confirm"}
	approvalDeclineFields = []string{"code"}
	approvalDismissFields = []string{"on_question", "code"}
)

// bodyOpts reads a body's strings as encoding/json does: invalid UTF-8 and
// lone surrogate escapes become U+FFFD. An object naming a member twice is
// refused, at any depth (jsontext's default).
var bodyOpts = jsontext.AllowInvalidUTF8(true)

// A bodyError is a body that is not what the route takes; its message is
// for the front end's author and never echoes what was sent.
type bodyError struct{ msg string }

func (e *bodyError) Error() string { return e.msg }

// fields splits one JSON object into its members, refusing, in this order,
// anything that is not JSON, an object naming a member twice, anything but
// an object, and any member not in allowed. An empty body is {}. The raw
// values are copies the caller may wipe (see wipe); data itself is not kept.
func fields(data []byte, allowed []string, what string) (map[string]jsontext.Value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	notObject := &bodyError{"the body is not " + what + ": it must be a JSON object such as " + shapes[what]}
	if !jsontext.Value(data).IsValid(bodyOpts, jsontext.AllowDuplicateNames(true)) {
		return nil, notObject
	}
	var m map[string]jsontext.Value
	if err := json.Unmarshal(data, &m, bodyOpts); err != nil || m == nil {
		wipe(m)
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && errors.Is(err, jsontext.ErrDuplicateName) {
			msg := "the body is not " + what + ": duplicate field " + strconv.Quote(se.JSONPointer.LastToken())
			if in := se.JSONPointer.Parent(); in != "" {
				msg += " in " + string(in)
			}
			return nil, &bodyError{msg}
		}
		return nil, notObject
	}
	if _, ok := m["answered_by"]; ok {
		wipe(m)
		return nil, &bodyError{"an answer does not say who answered (answered_by): the orchestrator records that"}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			wipe(m)
			return nil, &bodyError{"the body is not " + what + ": it has no field " + strconv.Quote(k) + "; " + what + " is " + shapes[what]}
		}
	}
	return m, nil
}

// wipe zeroes the raw values of a body.
func wipe[V ~[]byte](m map[string]V) {
	for _, v := range m {
		clear(v)
	}
}

// field decodes one member into v; a missing or null member leaves v as it
// is.
func field(m map[string]jsontext.Value, name string, v any, what string) error {
	raw, ok := m[name]
	if !ok || raw.Kind() == 'n' {
		return nil
	}
	if err := json.Unmarshal(raw, v, bodyOpts); err != nil {
		return &bodyError{"the body is not " + what + ": the field " + name + " has the wrong type; " + what + " is " + shapes[what]}
	}
	return nil
}

var shapes = map[string]string{
	"an answer":   `{"selected": [values], "other_text": "…", "note": "…", "option_notes": {value: "…"}, "secret": "…"}`,
	"a submit":    `{"answers": {"<question id>": answer}}`,
	"a dismissal": `{"on_question": "<question id>"}`,
	"a decline":   `{} or no body`,

	"a decision":              `{"answers": {"approval": {"selected": ["approve" | "approve_session" | "deny" | "deny_session"], "note": "…"}}, "code": "…", "confirm": "approve"}`,
	"an approval's decline":   `{"code": "…"}`,
	"an approval's dismissal": `{"on_question": "approval", "code": "…"}`,
}

// A decision is what a submit on an approval carries.
type decision struct {
	answer  askuser.Answer // to the approval's question
	code    string         // the approval code, as typed
	confirm string         // the confirmation, as typed
}

// parseDecision decodes a submit on an approval: the one answer, to the
// question approval.QuestionID, and the code and confirmation. It
// refuses a body that is not one (see fields), answers to any other
// question, and a decision without its answer. The caller wipes data.
func parseDecision(data []byte) (decision, error) {
	const what = "a decision"
	m, err := fields(data, decisionFields, what)
	if err != nil {
		return decision{}, err
	}
	defer wipe(m)
	var d decision
	var answers map[string]jsontext.Value
	if err := field(m, "answers", &answers, what); err != nil {
		return decision{}, err
	}
	defer wipe(answers)
	for _, k := range slices.Sorted(maps.Keys(answers)) {
		if k != approval.QuestionID {
			return decision{}, &bodyError{"the body is not a decision: an approval has one question, " + strconv.Quote(approval.QuestionID) + ", not " + strconv.Quote(k) + "; a decision is " + shapes[what]}
		}
	}
	raw, ok := answers[approval.QuestionID]
	if !ok || raw.Kind() == 'n' {
		return decision{}, &bodyError{"the body decides nothing: a decision is " + shapes[what]}
	}
	if d.answer, err = parseAnswer(approval.QuestionID, raw); err != nil {
		var be *bodyError
		if errors.As(err, &be) {
			err = &bodyError{strings.Replace(be.msg, "the body is not an answer", "the decision's answer is not an answer", 1)}
		}
		return decision{}, err
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"code", &d.code}, {"confirm", &d.confirm}} {
		if err := field(m, f.name, f.v, what); err != nil {
			d.answer.Secret.Wipe()
			return decision{}, err
		}
	}
	return d, nil
}

// parseAnswer decodes an answer to the question qid from a body. A secret
// is unquoted straight into a secret.Value (see newSecret), and every copy
// of it the parser made is wiped; the caller wipes data. A body naming
// answered_by is refused.
func parseAnswer(qid string, data []byte) (askuser.Answer, error) {
	m, err := fields(data, answerFields, "an answer")
	if err != nil {
		return askuser.Answer{}, err
	}
	defer wipe(m)
	ans := askuser.Answer{QuestionID: qid}
	var other *string
	for _, f := range []struct {
		name string
		v    any
	}{{"selected", &ans.Selected}, {"other_text", &other}, {"note", &ans.Note}, {"option_notes", &ans.OptionNotes}} {
		if err := field(m, f.name, f.v, "an answer"); err != nil {
			return askuser.Answer{}, err
		}
	}
	if other != nil {
		ans.Other = *other
	}
	if raw, ok := m["secret"]; ok && raw.Kind() != 'n' {
		if raw.Kind() != '"' {
			return askuser.Answer{}, &bodyError{"the body is not an answer: the field secret must be a string"}
		}
		ans.Secret = newSecret(raw)
	}
	return ans, nil
}

// newSecret unquotes the JSON string raw into a buffer it wipes, so that the
// secret never becomes a Go string. The buffer has room for the worst case
// (an invalid byte becomes the three bytes of U+FFFD), so that appending
// never moves it and leaves a copy behind. raw is valid (fields checked it),
// so the only errors AppendUnquote can report are invalid UTF-8 and lone
// surrogates, which it has replaced by U+FFFD, as encoding/json does.
func newSecret(raw jsontext.Value) secret.Value {
	buf, _ := jsontext.AppendUnquote(make([]byte, 0, 3*len(raw)), raw)
	v := secret.New(buf)
	clear(buf)
	return v
}
