package askuserwire

import (
	"bytes"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// stampLayout is RFC 3339 in UTC with exactly nine fractional digits
// ("2026-11-30T09:00:00.123456789Z"). Unlike time.RFC3339Nano it keeps
// trailing zeros, so every stamp has the same width.
const stampLayout = "2006-01-02T15:04:05.000000000Z07:00"

// The encoder's options: strings are written as encoding/json writes them
// without HTML escaping (U+2028 and U+2029 escaped), and a string written
// as a raw value keeps its escapes (see writeString).
var encodeOptions = []jsontext.Options{
	jsontext.EscapeForJS(true),
	jsontext.PreserveRawStrings(true),
	jsontext.AllowDuplicateNames(true),
}

// Marshal returns c in the ask_user JSON form. For a normalized call every
// default is written out:
//
//	{"questions":[{"kind":…,"id":…,"header":…,"question":…,"multi_select":…,
//	"allow_other":…,"options":[{"label":…,"description":…,"default":…}]}],
//	"timeout_seconds":…,"human_intent":…,"asked_at":…,"nudge_at":…,"expires_at":…}
//
// in that field order, with "options" written as [] when there are none and
// "secret_name" and "purpose" after "options" where they are set (a
// normalized call sets them on secrets only). "human_intent" is left out
// when empty. The stamps are written in UTC with nine fractional digits,
// and left out when zero. Strings are written as encoding/json writes them
// without HTML escaping.
//
// A call built in Go may leave out what Decode fills: an empty ID or Kind
// and a zero TimeoutSeconds are omitted, so decoding the result generates
// the id and applies the defaults.
//
// Decoding the result of Marshal with the same Limits validates and gives
// the same call again, apart from the stamps.
func Marshal(c *Call) ([]byte, error) {
	if c == nil {
		return nil, errors.New("askuserwire: Marshal of a nil *Call")
	}
	size := 64 + len(c.HumanIntent)
	for i := range c.Questions {
		q := &c.Questions[i]
		size += 120 + len(q.ID) + len(q.Header) + len(q.Question) + len(q.SecretName) + len(q.Purpose)
		for k := range q.Options {
			size += 48 + len(q.Options[k].Label) + len(q.Options[k].Description)
		}
	}
	// The encoder grows its buffer when, after a flush, less than a quarter
	// of it is free.
	buf := bytes.NewBuffer(make([]byte, 0, size+size/2))
	w := writer{enc: jsontext.NewEncoder(buf, encodeOptions...)}
	w.token(jsontext.BeginObject)
	w.name("questions")
	w.token(jsontext.BeginArray)
	for i := range c.Questions {
		q := &c.Questions[i]
		w.token(jsontext.BeginObject)
		if q.Kind != "" {
			w.name("kind")
			w.string(q.Kind)
		}
		if q.ID != "" {
			w.name("id")
			w.string(q.ID)
		}
		w.name("header")
		w.string(q.Header)
		w.name("question")
		w.string(q.Question)
		w.name("multi_select")
		w.token(jsontext.Bool(q.MultiSelect))
		w.name("allow_other")
		w.token(jsontext.Bool(q.AllowOther))
		w.name("options")
		w.token(jsontext.BeginArray)
		for k := range q.Options {
			o := &q.Options[k]
			w.token(jsontext.BeginObject)
			w.name("label")
			w.string(o.Label)
			w.name("description")
			w.string(o.Description)
			w.name("default")
			w.token(jsontext.Bool(o.Default))
			w.token(jsontext.EndObject)
		}
		w.token(jsontext.EndArray)
		if q.SecretName != "" {
			w.name("secret_name")
			w.string(q.SecretName)
		}
		if q.Purpose != "" {
			w.name("purpose")
			w.string(q.Purpose)
		}
		w.token(jsontext.EndObject)
	}
	w.token(jsontext.EndArray)
	if c.TimeoutSeconds != 0 {
		w.name("timeout_seconds")
		w.token(jsontext.Int(int64(c.TimeoutSeconds)))
	}
	if c.HumanIntent != "" {
		w.name("human_intent")
		w.string(c.HumanIntent)
	}
	w.stamp("asked_at", c.AskedAt)
	w.stamp("nudge_at", c.NudgeAt)
	w.stamp("expires_at", c.ExpiresAt)
	w.token(jsontext.EndObject)
	if w.err != nil {
		return nil, w.err
	}
	// The encoder ends a top-level value with a newline.
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writer writes tokens until the first error, which it keeps.
type writer struct {
	enc *jsontext.Encoder
	err error
}

func (w *writer) token(t jsontext.Token) {
	if w.err == nil {
		w.err = w.enc.WriteToken(t)
	}
}

func (w *writer) name(s string) { w.token(jsontext.String(s)) }

// string writes s. A string that is not valid UTF-8 is written with each
// invalid byte as the escape \ufffd, as encoding/json writes it (jsontext
// would write the character itself).
func (w *writer) string(s string) {
	if utf8.ValidString(s) {
		w.token(jsontext.String(s))
		return
	}
	v := []byte{'"'}
	for i := 0; i < len(s); {
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			j += size
		}
		q, _ := jsontext.AppendQuote(nil, s[i:j])
		v = append(v, q[1:len(q)-1]...)
		if j < len(s) {
			v = append(v, `\ufffd`...)
			j++
		}
		i = j
	}
	v = append(v, '"')
	if w.err == nil {
		w.err = w.enc.WriteValue(v)
	}
}

func (w *writer) stamp(field string, t time.Time) {
	if t.IsZero() {
		return
	}
	w.name(field)
	w.token(jsontext.String(t.UTC().Format(stampLayout)))
}
