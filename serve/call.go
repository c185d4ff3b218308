package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/askuser-go/askuser/internal/strictjson"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
)

// callFields are the fields of a POST /v1/calls body.
const callFields = `"session", "tool_call_id", "dialect" (optional: ask_user, pi-ask or pi) and "arguments"`

// A callRequest is the body of POST /v1/calls.
type callRequest struct {
	Session    string
	ToolCallID string
	Dialect    askuser.Dialect
	Arguments  json.RawMessage
}

// parseCall reads the body of POST /v1/calls: one JSON object with the
// fields callFields names, each once, and no other. Its errors say what is
// wrong and what is allowed; the call's arguments themselves are the
// dialect's to check. The string fields are checked as the bytes came: one
// that is not UTF-8 (raw bytes or a lone surrogate escape) is refused, not
// mended.
func parseCall(body []byte) (*callRequest, error) { return parseCallFor(body, false) }

// parseCallFor is parseCall, taking request_approval when approvals is
// true (Config.Approvals).
func parseCallFor(body []byte, approvals bool) (*callRequest, error) {
	notObject := fmt.Errorf("the body must be one JSON object with %s", callFields)
	// Duplicates and invalid UTF-8 are found here, with messages of our
	// own: the arguments are the dialect's to read, as it reads them
	// anywhere.
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, notObject
	}
	raw := map[string]jsontext.Value{}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return nil, notObject
		}
		k := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, notObject
		}
		switch k {
		case "session", "tool_call_id", "dialect", "arguments":
		default:
			return nil, fmt.Errorf("the body has a field %q; the fields are %s", k, callFields)
		}
		if _, dup := raw[k]; dup {
			return nil, fmt.Errorf("the body has the field %q twice; each field may appear once", k)
		}
		raw[k] = v.Clone() // v is good only until the next read
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, notObject
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("the body holds more than one JSON value; send one object with %s", callFields)
	}
	c := &callRequest{}
	var dialect string
	for _, f := range []struct {
		name string
		dst  *string
		req  string
	}{
		{"session", &c.Session, "the session that owns the ask and its secrets"},
		{"tool_call_id", &c.ToolCallID, "the model's tool-call id: a retried call joins its ask, or replays its result, by session and tool_call_id"},
		{"dialect", &dialect, ""},
	} {
		if err := stringField(raw, f.name, f.dst, f.req); err != nil {
			return nil, err
		}
	}
	d, err := apiDialect(dialect, approvals)
	if err != nil {
		return nil, err
	}
	c.Dialect = d
	args, err := callArguments(json.RawMessage(raw["arguments"]))
	if err != nil {
		return nil, err
	}
	c.Arguments = json.RawMessage(args)
	return c, nil
}

// callArguments reads the "arguments" of a POST /v1/calls body: the tool
// call's arguments as a JSON object, or as a string holding one (OpenAI's
// tool calls carry them so). It returns the object; its errors say which
// of the two it was given.
func callArguments(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, errors.New(`"arguments" is required: the tool call's arguments, the JSON object the model sent (or a string holding it, as OpenAI's tool calls carry it)`)
	case raw[0] == '{':
		return raw, nil
	case raw[0] != '"':
		return nil, fmt.Errorf(`"arguments" is a JSON %s; give the tool call's arguments as a JSON object, or as a string holding one (as OpenAI's tool calls carry them)`, strictjson.Kind(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New(`"arguments" is a string that is not valid JSON text`)
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) == 0 {
		return nil, errors.New(`"arguments" is an empty string; it must hold the tool call's arguments, a JSON object`)
	}
	if err := json.Unmarshal(inner, new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf(`"arguments" is a string but does not hold a JSON object: %v (at byte %d of the string)`, se, se.Offset)
		}
		return nil, fmt.Errorf(`"arguments" is a string but does not hold a JSON object: %v`, err)
	}
	if inner[0] != '{' {
		return nil, fmt.Errorf(`"arguments" is a string holding a JSON %s; it must hold a JSON object, the tool call's arguments`, strictjson.Kind(inner))
	}
	return inner, nil
}

// stringField reads the string field name of m into dst: absent or null
// is refused when req says what the field is for, and left empty when req
// is empty; a value that is not a string, is not UTF-8 as sent, or is empty
// (when required) or too long, is refused.
func stringField(m map[string]jsontext.Value, name string, dst *string, req string) error {
	raw, ok := m[name]
	if !ok || raw.Kind() == 'n' {
		if req != "" {
			return fmt.Errorf("%q is required: %s", name, req)
		}
		return nil
	}
	if raw.Kind() != '"' {
		return fmt.Errorf("%q must be a string", name)
	}
	// AppendUnquote refuses bytes that are not UTF-8 and escapes that
	// name no character (\ud800 alone), where the decoder would have put
	// U+FFFD in their place.
	v, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return fmt.Errorf("%q is not valid UTF-8 (a byte sequence or a \\u escape that is no character); send it as UTF-8", name)
	}
	switch {
	case req != "" && len(v) == 0:
		return fmt.Errorf("%q is empty; it is required: %s", name, req)
	case len(v) > maxIDBytes:
		return fmt.Errorf("%q is %d bytes long; at most %d are allowed", name, len(v), maxIDBytes)
	}
	*dst = string(v)
	return nil
}

// apiDialect returns the contract the API's "dialect" names.
// request_approval is not served: an approval is decided only by a person
// admitted apart from the agent, and the card URL the API hands the agent
// admits whoever holds it — unless approvals is true (Config.Approvals).
func apiDialect(name string, approvals bool) (askuser.Dialect, error) {
	switch name {
	case "", askusertool.Dialect().Name():
		return askusertool.Dialect(), nil
	case piask.Name:
		return piask.Dialect(), nil
	case pi.Name:
		return pi.Dialect(), nil
	case approvalwire.ToolName:
		if approvals {
			return approvaltool.Dialect(), nil
		}
		return nil, fmt.Errorf(`"dialect" %q is not served by the agent API (an approval needs a person the agent cannot stand in for); allowed: ask_user, pi-ask, pi`, name)
	}
	return nil, fmt.Errorf(`"dialect" %q is not a contract; allowed: ask_user, pi-ask, pi`, name)
}
