package piask

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/wire"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/internal/piwire"
)

// The free-text row every non-preview question ends with.
const (
	OtherLabel = "Type your own"
	OtherValue = "__other__"
)

// The question types.
const (
	TypeSingle  = "single"
	TypeMulti   = "multi"
	TypePreview = "preview"
)

// Decisions the contract leaves open, made here:
//
//   - The shape of the whole payload is checked before the rules, field by
//     field in the order of the contract's input (title, questions; id,
//     label, prompt, type, required, options; value, label, description,
//     preview), not in document order. null counts as an absent field.
//     Paths are 0-based, as in the payload: questions[1].options[0].label;
//     the payload itself is (root), and a payload that is not JSON is
//     "(root): expected a JSON object".
//   - A key given twice counts once, with its last value (as JSON.parse).
//   - type is compared as given, not trimmed.
//   - The call's deadline is the ceiling (Limits.MaxTimeoutSeconds).

type rawQuestion struct {
	id, label, prompt, typ *string
	options                []rawOption
	hasOptions             bool
}

type rawOption struct {
	value, label, description, preview *string
}

// Decode validates and normalizes a pi-ask call.
func (piaskDialect) Decode(data []byte, lim dialect.Limits) (*askuser.Form, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, invalid(nil, fmt.Sprintf("the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes))
	}
	title, qs, err := readShape(data)
	if err != nil {
		ce := invalid(title, err.Error())
		ce.Path = err.(*shapeError).path
		return nil, ce
	}
	if msg := validate(qs); msg != "" {
		return nil, invalid(title, msg)
	}
	return normalize(title, qs, lim), nil
}

type shapeError struct{ path, what string }

func (e *shapeError) Error() string { return e.path + ": expected " + e.what }

// object reads a JSON object into its fields; nil, nil for null or absence.
func object(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if piwire.Kind(raw) != "object" || json.Unmarshal(raw, &m) != nil {
		return nil, &shapeError{path, "an object"}
	}
	return m, nil
}

func array(raw json.RawMessage, path string) ([]json.RawMessage, bool, error) {
	switch piwire.Kind(raw) {
	case "", "null":
		return nil, false, nil
	case "array":
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) == nil {
			return a, true, nil
		}
	}
	return nil, false, &shapeError{path, "an array"}
}

func str(m map[string]json.RawMessage, key, path string) (*string, error) {
	raw := m[key]
	switch piwire.Kind(raw) {
	case "", "null":
		return nil, nil
	case "string":
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return &s, nil
		}
	}
	return nil, &shapeError{path + "." + key, "a string"}
}

func boolean(m map[string]json.RawMessage, key, path string) error {
	switch piwire.Kind(m[key]) {
	case "", "null", "boolean":
		return nil
	}
	return &shapeError{path + "." + key, "a boolean"}
}

// readShape reads the payload, reporting the first shape problem. The title
// is returned whenever it could be read, for the invalid call's details.
func readShape(data []byte) (title *string, qs []rawQuestion, err error) {
	if !json.Valid(data) {
		return nil, nil, &shapeError{"(root)", "a JSON object"}
	}
	top, err := object(data, "(root)")
	if err != nil {
		return nil, nil, err
	}
	switch piwire.Kind(top["title"]) {
	case "string":
		var s string
		_ = json.Unmarshal(top["title"], &s)
		title = &s
	case "", "null":
	default:
		return nil, nil, &shapeError{"title", "a string"}
	}
	items, _, err := array(top["questions"], "questions")
	if err != nil {
		return title, nil, err
	}
	for i, item := range items {
		path := "questions[" + strconv.Itoa(i) + "]"
		m, err := object(item, path)
		if err != nil {
			return title, nil, err
		}
		var q rawQuestion
		for _, f := range []struct {
			key string
			dst **string
		}{{"id", &q.id}, {"label", &q.label}, {"prompt", &q.prompt}, {"type", &q.typ}} {
			if *f.dst, err = str(m, f.key, path); err != nil {
				return title, nil, err
			}
		}
		if err := boolean(m, "required", path); err != nil {
			return title, nil, err
		}
		opts, has, err := array(m["options"], path+".options")
		if err != nil {
			return title, nil, err
		}
		q.hasOptions = has
		for k, raw := range opts {
			opath := path + ".options[" + strconv.Itoa(k) + "]"
			om, err := object(raw, opath)
			if err != nil {
				return title, nil, err
			}
			var o rawOption
			for _, f := range []struct {
				key string
				dst **string
			}{{"value", &o.value}, {"label", &o.label}, {"description", &o.description}, {"preview", &o.preview}} {
				if *f.dst, err = str(om, f.key, opath); err != nil {
					return title, nil, err
				}
			}
			q.options = append(q.options, o)
		}
		qs = append(qs, q)
	}
	return title, qs, nil
}

func trim(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// validate applies the contract's rules in order and returns the first
// failure's message, or "".
func validate(qs []rawQuestion) string {
	if len(qs) == 0 {
		return "At least one question is required"
	}
	ids := map[string]bool{}
	for i, q := range qs {
		n := "Question " + strconv.Itoa(i+1)
		id := trim(q.id)
		switch {
		case id == "":
			return n + ": id is required"
		case ids[id]:
			return n + `: duplicate question id "` + id + `"`
		}
		ids[id] = true
		if q.label != nil && trim(q.label) == "" {
			return n + ": label must not be empty"
		}
		if trim(q.prompt) == "" {
			return n + ": prompt is required"
		}
		if q.typ != nil {
			switch *q.typ {
			case TypeSingle, TypeMulti, TypePreview:
			default:
				return n + `: invalid type "` + *q.typ + `"; expected "single", "multi", or "preview"`
			}
		}
		if len(q.options) == 0 {
			return n + ": at least one option is required"
		}
		preview := q.typ != nil && *q.typ == TypePreview
		values := map[string]bool{}
		for k, o := range q.options {
			m := n + ", option " + strconv.Itoa(k+1)
			v := trim(o.value)
			switch {
			case v == "":
				return m + ": value is required"
			case values[v]:
				return m + `: duplicate option value "` + v + `"`
			case trim(o.label) == "":
				return m + ": label is required"
			case o.description != nil && trim(o.description) == "":
				return m + ": description must not be empty"
			case o.preview != nil && trim(o.preview) == "":
				return m + ": preview must not be empty"
			case preview && o.preview == nil:
				return m + ": preview questions require preview text for every option"
			}
			values[v] = true
		}
	}
	return ""
}

func normalize(title *string, qs []rawQuestion, lim dialect.Limits) *askuser.Form {
	c := &askuser.Form{
		TimeoutSeconds:      lim.MaxTimeoutSeconds,
		Contract:            Name,
		Unattended:          askuser.FallbackNothing,
		DeclineKeepsAnswers: true,
		Questions:           make([]askuser.Question, len(qs)),
	}
	if title != nil {
		c.Title = *title
	}
	for i, rq := range qs {
		typ := TypeSingle
		if rq.typ != nil {
			typ = *rq.typ
		}
		label := trim(rq.label)
		if label == "" {
			label = "Q" + strconv.Itoa(i+1)
		}
		q := askuser.Question{
			ID:             trim(rq.id),
			Kind:           askuser.KindChoice,
			Header:         label,
			Text:           trim(rq.prompt),
			OtherLabel:     OtherLabel,
			Options:        make([]askuser.Option, len(rq.options)),
			OnDeadline:     askuser.FallbackNothing,
			MultiSelect:    typ == TypeMulti,
			AllowOther:     typ != TypePreview,
			OtherExclusive: typ != TypeMulti,
			NoDefault:      true,
			Optional:       true,
		}
		for k, o := range rq.options {
			q.Options[k] = askuser.Option{Value: trim(o.value), Label: trim(o.label), Description: trim(o.description), Preview: trim(o.preview)}
		}
		c.Questions[i] = q
	}
	return c
}

// TypeOf returns the contract's type of a normalized question: "multi" for
// a multi-select, "preview" for one without a free-text row, else "single".
func TypeOf(q *askuser.Question) string {
	switch {
	case q.MultiSelect:
		return TypeMulti
	case !q.AllowOther:
		return TypePreview
	}
	return TypeSingle
}

// invalid returns the contract's answer to an invalid call: content
// "Error: <message>", details {title, cancelled: true, questions: [],
// answers: {}}, not marked as an error.
func invalid(title *string, msg string) *dialect.CallError {
	d := piwire.Object{}
	if title != nil {
		d = append(d, piwire.Pair{Key: "title", Value: *title})
	}
	d = append(d, piwire.Pair{Key: "cancelled", Value: true}, piwire.Pair{Key: "questions", Value: []any{}}, piwire.Pair{Key: "answers", Value: piwire.Object{}})
	text := "Error: " + msg
	res, err := wire.Marshal(piwire.NewResult(text, d, false))
	if err != nil {
		panic(err) // strings and literals always marshal
	}
	return &dialect.CallError{Message: text, Result: res}
}
