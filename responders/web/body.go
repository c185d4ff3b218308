package web

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
)

// The fields each body may carry. Keys are matched exactly.
var (
	answerFields  = []string{"selected", "other_text", "note", "option_notes", "secret"}
	submitFields  = []string{"answers"}
	dismissFields = []string{"on_question"}
)

// A bodyError is a body that is not what the route takes; its message is
// for the front end's author and never echoes what was sent.
type bodyError struct{ msg string }

func (e *bodyError) Error() string { return e.msg }

// fields splits one JSON object into its members, refusing anything but an
// object and any member not in allowed. An empty body is {}. The raw values
// are copies the caller may wipe (see wipe); data itself is not kept.
func fields(data []byte, allowed []string, what string) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		wipe(m)
		return nil, &bodyError{"the body is not " + what + ": it must be a JSON object such as " + shapes[what]}
	}
	for k := range m {
		if k == "answered_by" {
			wipe(m)
			return nil, &bodyError{"an answer does not say who answered (answered_by): the orchestrator records that"}
		}
		if !slices.Contains(allowed, k) {
			wipe(m)
			return nil, &bodyError{"the body is not " + what + ": it has no field " + strconv.Quote(k) + "; " + what + " is " + shapes[what]}
		}
	}
	return m, nil
}

// wipe zeroes the raw values of a body.
func wipe(m map[string]json.RawMessage) {
	for _, v := range m {
		clear(v)
	}
}

// field decodes one member into v; a missing or null member leaves v as it
// is.
func field(m map[string]json.RawMessage, name string, v any, what string) error {
	raw, ok := m[name]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &bodyError{"the body is not " + what + ": the field " + name + " has the wrong type; " + what + " is " + shapes[what]}
	}
	return nil
}

var shapes = map[string]string{
	"an answer":   `{"selected": [values], "other_text": "…", "note": "…", "option_notes": {value: "…"}, "secret": "…"}`,
	"a submit":    `{"answers": {"<question id>": answer}}`,
	"a dismissal": `{"on_question": "<question id>"}`,
	"a decline":   `{} or no body`,
}

// parseAnswer decodes an answer to the question qid from a body. A secret
// is unquoted straight into a secret.Value, and every copy of it the parser
// made is wiped; the caller wipes data. A body naming answered_by is
// refused.
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
	if raw, ok := m["secret"]; ok && !bytes.Equal(raw, []byte("null")) {
		v, ok := unquote(raw)
		if !ok {
			return askuser.Answer{}, &bodyError{"the body is not an answer: the field secret must be a string"}
		}
		ans.Secret = secret.New(v)
		clear(v)
	}
	return ans, nil
}

// unquote decodes a JSON string literal into new bytes, which the caller
// wipes, so that a secret never becomes a Go string. It reports false for
// anything but one well-formed string literal. Invalid UTF-8 and lone
// surrogates become U+FFFD, as encoding/json does.
func unquote(s []byte) ([]byte, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				clear(out)
				return nil, false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				out = append(out, s[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					clear(out)
					return nil, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if v, ok := hex4(s[i+2:]); ok {
							r2 = v
						}
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						i += 6
						r = d
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				clear(out)
				return nil, false
			}
			i += 2
		case c == '"' || c < 0x20:
			clear(out)
			return nil, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return out, true
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
