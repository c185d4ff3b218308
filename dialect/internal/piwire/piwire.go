// Package piwire holds what the two pi contracts share: the tool result's
// envelope, a JSON encoder that writes strings as JavaScript's
// JSON.stringify does (no HTML escaping), an object whose keys keep their
// order, and the kind of a raw JSON value.
package piwire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/askuser-go/askuser/internal/strictjson"

	"github.com/askuser-go/askuser/internal/wire"
)

// Result is a pi tool result: {"content": [{"type": "text", "text": ...}],
// "details": {...}, "isError": true?}.
type Result struct {
	Content []Content `json:"content"`
	Details any       `json:"details"`
	IsError bool      `json:"isError,omitempty"`
}

// Content is one content block of a Result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// NewResult returns the result with one text block.
func NewResult(text string, details any, isError bool) Result {
	return Result{Content: []Content{{Type: "text", Text: text}}, Details: details, IsError: isError}
}

// Pair is one key of an Object.
type Pair struct {
	Key   string
	Value any
}

// Object is a JSON object whose keys keep their order.
type Object []Pair

// MarshalJSON writes the pairs in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := wire.Marshal(p.Key)
		if err != nil {
			return nil, err
		}
		v, err := wire.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Kind names the kind of a raw JSON value: "object", "array", "string",
// "number", "boolean" or "null" ("" for no value).
func Kind(raw json.RawMessage) string { return strictjson.Kind(raw) }

// Blank reports whether s is empty after trimming white space.
func Blank(s string) bool { return strings.TrimSpace(s) == "" }
