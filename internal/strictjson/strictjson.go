// Package strictjson reads a tool call's JSON the way the strict call
// decoders (dialect/askuserwire and dialect/approvalwire) do: once, front to
// back, with jsontext, stopping at the first problem in document order,
// whether the input is not JSON, a value has the wrong type, or a field is
// unknown or given twice; null stands for an absent field, and a number is
// an integer when its value is one (10, 10.0, 1e1), as JSON Schema counts
// integers. It words each problem the same way for every tool (a syntax
// error by its byte offset and what was expected there), so that a model
// reads one kind of message from all of them, and leaves the rest to the
// decoder: its fields, how a path is written, its rules and their messages.
package strictjson

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A Problem is why a read refused the input: what is wrong and what is
// allowed, worded for the model, to follow a path in a message. The path is
// the one of the value being read, unless Inner is set: the problem is then
// in its member named Field (from ReadObject) or its element at Index (from
// ReadElements).
type Problem struct {
	// What is the message without its path.
	What string
	// Inner places the problem in a member or an element of the value
	// being read.
	Inner bool
	// Field names the member of an Inner problem from ReadObject.
	Field string
	// Index is the element of an Inner problem from ReadElements.
	Index int
}

// A Decoder reads one call. Each read takes the value that starts where
// ReadObject or ReadElements has the decoder (or the top-level value), and
// reads that value once: a refused read is the end of the call.
type Decoder struct {
	dec     jsontext.Decoder
	data    []byte
	start   int    // where the value being read starts (before any whitespace), to reread it
	scratch []byte // for unquoting
}

// The options of jsontext: duplicate fields and invalid UTF-8 are the
// decoder's business (a duplicate is refused with its own message; invalid
// UTF-8 in a string becomes U+FFFD, as encoding/json has it).
var options = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// Reset starts reading data, at its top-level value.
func (d *Decoder) Reset(data []byte) {
	d.data, d.start = data, 0
	d.dec.Reset(bytes.NewBuffer(data), options...)
}

// PeekKind returns the kind of the next value without reading it, or 0
// where there is none (a syntax error, which the read words).
func (d *Decoder) PeekKind() jsontext.Kind { return d.dec.PeekKind() }

// ReadDelim reads the '{', '}', '[' or ']' just peeked.
func (d *Decoder) ReadDelim() {
	if _, err := d.dec.ReadToken(); err != nil {
		panic("strictjson: a peeked delimiter cannot be read: " + err.Error())
	}
}

// syntax words a read that jsontext refused as the scanner words it. Should
// the scanner find nothing wrong where jsontext did, jsontext's own words
// are used.
func (d *Decoder) syntax(e *syntaxError, err error) *Problem {
	if e == nil {
		off := int(d.dec.InputOffset())
		if se, ok := err.(*jsontext.SyntacticError); ok {
			off = int(se.ByteOffset)
		}
		msg := "invalid JSON"
		if err != nil {
			msg = err.Error()
		}
		e = &syntaxError{off, msg}
	}
	return &Problem{What: e.String()}
}

// badValue words the value that jsontext refused.
func (d *Decoder) badValue(err error) *Problem {
	s := scanner{src: d.data, pos: d.start}
	return d.syntax(s.value(), err)
}

func describe(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return "no value"
}

// WrongType refuses the value, peeked as k, as not the one wanted ("a
// question object"). A scalar is read first so that a broken one is refused
// as the syntax error it is; an object or array is not entered.
func (d *Decoder) WrongType(k jsontext.Kind, want string) *Problem {
	switch k {
	case '"', '0', 't', 'f', 'n':
		if _, err := d.dec.ReadValue(); err != nil {
			return d.badValue(err)
		}
	case '{', '[':
	default:
		return d.badValue(nil)
	}
	return &Problem{What: "expected " + want + ", got " + describe(k)}
}

// ReadObject reads the members of the object being read, after its '{',
// up to its '}', and calls member for each with the index of its field in
// fields (at most 64), the decoder at the member's value. It refuses an
// unknown field and a repeated one. It returns the first error member
// returns (the decoder's own, as it is), or the problem found in the
// object: an unknown or repeated field's is Inner, at the member.
func ReadObject[E any](d *Decoder, fields []string, member func(i int) *E) (*E, *Problem) {
	var seen uint64 // a field's bit is 1<<index
	for first := true; ; first = false {
		start := int(d.dec.InputOffset())
		k := d.dec.PeekKind()
		if k == '}' {
			d.ReadDelim()
			return nil, nil
		}
		s := scanner{src: d.data, pos: start}
		if k != '"' {
			return nil, d.syntax(s.member(first), nil)
		}
		name, err := d.dec.ReadValue()
		if err != nil {
			return nil, d.syntax(s.member(first), err)
		}
		colon := skipSpace(d.data, int(d.dec.InputOffset()))
		if colon >= len(d.data) || d.data[colon] != ':' {
			return nil, d.syntax(unexpectedAt(d.data, colon, "':' after the field name"), nil)
		}
		i := d.index(name, fields)
		if i < 0 {
			return nil, &Problem{What: "unknown field; allowed fields: " + strings.Join(fields, ", "), Inner: true, Field: d.unquote(name)}
		}
		if seen&(1<<i) != 0 {
			return nil, &Problem{What: "duplicate field; a field may appear only once", Inner: true, Field: fields[i]}
		}
		seen |= 1 << i
		d.start = colon + 1
		if err := member(i); err != nil {
			return err, nil
		}
	}
}

// ReadElements reads the elements of the array being read, after its '[',
// up to its ']', and calls elem for each with its index and its kind,
// peeked. It returns the first error elem returns (the decoder's own, as it
// is), or the problem found between the elements, or at the start of one:
// that one is Inner, at the element's Index.
func ReadElements[E any](d *Decoder, elem func(i int, k jsontext.Kind) *E) (*E, *Problem) {
	for i := 0; ; i++ {
		start := int(d.dec.InputOffset())
		k := d.dec.PeekKind()
		if k == ']' {
			d.ReadDelim()
			return nil, nil
		}
		if i > 0 {
			// jsontext returns a value's kind only after its ','.
			if k == 0 || k == '}' {
				s := scanner{src: d.data, pos: start}
				e, inElement := s.element()
				p := d.syntax(e, nil)
				p.Inner, p.Index = inElement, i
				return nil, p
			}
			start = skipSpace(d.data, start) + 1 // after the ','
		}
		d.start = start
		if err := elem(i, k); err != nil {
			return err, nil
		}
	}
}

// index returns the index in names of the JSON string raw (as read: a
// field's name, or a value for ReadOneOf), or -1.
func (d *Decoder) index(raw []byte, names []string) int {
	n := raw[1 : len(raw)-1]
	if bytes.IndexByte(n, '\\') >= 0 {
		d.scratch, _ = jsontext.AppendUnquote(d.scratch[:0], raw)
		n = d.scratch
	}
	for i, f := range names {
		if string(n) == f {
			return i
		}
	}
	return -1
}

// unquote returns the value of a JSON string as read.
func (d *Decoder) unquote(raw []byte) string {
	v := raw[1 : len(raw)-1]
	if bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		d.scratch, _ = jsontext.AppendUnquote(d.scratch[:0], raw)
		v = d.scratch
	}
	return string(v)
}

// ReadNull reads the null just peeked.
func (d *Decoder) ReadNull() *Problem {
	if _, err := d.dec.ReadToken(); err != nil {
		return d.badValue(err)
	}
	return nil
}

// ReadString reads an optional string into dst, and reports whether it was
// given: null leaves it absent.
func (d *Decoder) ReadString(dst *string) (given bool, p *Problem) {
	switch k := d.dec.PeekKind(); k {
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return false, d.badValue(err)
		}
		*dst = d.unquote(raw)
		return true, nil
	case 'n':
		return false, d.ReadNull()
	default:
		return false, d.WrongType(k, "a string")
	}
}

// ReadBool reads an optional boolean into dst, and reports whether it was
// given: null leaves it absent.
func (d *Decoder) ReadBool(dst *bool) (given bool, p *Problem) {
	switch k := d.dec.PeekKind(); k {
	case 't', 'f':
		tok, err := d.dec.ReadToken()
		if err != nil {
			return false, d.badValue(err)
		}
		*dst = tok.Bool()
		return true, nil
	case 'n':
		return false, d.ReadNull()
	default:
		return false, d.WrongType(k, "a boolean")
	}
}

// ReadInteger reads an optional integer, as Integral counts them, and
// reports whether it was given: null leaves it absent. A number with a
// fractional part is refused with the number (its first 40 bytes).
func (d *Decoder) ReadInteger() (v int, given bool, p *Problem) {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return 0, false, d.ReadNull()
	case '0':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return 0, false, d.badValue(err)
		}
		num := string(raw)
		v, ok := Integral(num)
		if !ok {
			if len(num) > 40 {
				num = num[:40] + "…"
			}
			return 0, false, &Problem{What: "expected an integer, got " + num}
		}
		return v, true, nil
	default:
		return 0, false, d.WrongType(k, "an integer")
	}
}

// ReadOneOf reads an optional string that is one of names, exactly, and
// returns its index in names, or -1 for null. Another string is refused
// with the words notOne gives for its value; another type as not "one of
// " + allowed.
func (d *Decoder) ReadOneOf(names []string, allowed string, notOne func(string) string) (int, *Problem) {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return -1, d.ReadNull()
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return -1, d.badValue(err)
		}
		if i := d.index(raw, names); i >= 0 {
			return i, nil
		}
		return -1, &Problem{What: notOne(d.unquote(raw))}
	default:
		return -1, d.WrongType(k, "one of "+allowed)
	}
}

// ReadArray reads the '[' of an optional array, and reports whether it was
// given: null leaves it absent. Another value is refused as not want ("an
// array of questions").
func (d *Decoder) ReadArray(want string) (given bool, p *Problem) {
	switch k := d.dec.PeekKind(); k {
	case '[':
		d.ReadDelim()
		return true, nil
	case 'n':
		return false, d.ReadNull()
	default:
		return false, d.WrongType(k, want)
	}
}

// ReadEnd refuses anything but whitespace after the top-level value.
func (d *Decoder) ReadEnd() *Problem {
	if p := skipSpace(d.data, int(d.dec.InputOffset())); p < len(d.data) {
		return d.syntax(&syntaxError{p, "unexpected data after the top-level value"}, nil)
	}
	return nil
}

// Integral returns the value of a JSON number that is an integer, clamped
// to ±(1<<40) (far outside any ceiling), and whether it is one.
func Integral(num string) (int, bool) {
	const clamp = 1 << 40
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	mant, exp := num, 0
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		e := mant[i+1:]
		mant = mant[:i]
		eneg := e[0] == '-'
		if e[0] == '+' || e[0] == '-' {
			e = e[1:]
		}
		for j := 0; j < len(e); j++ {
			if exp < 1<<30 {
				exp = exp*10 + int(e[j]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		exp -= len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	mant = strings.TrimLeft(mant, "0")
	if mant == "" {
		return 0, true
	}
	for mant[len(mant)-1] == '0' {
		mant = mant[:len(mant)-1]
		exp++
	}
	if exp < 0 {
		return 0, false
	}
	v := clamp
	if len(mant)+exp <= 12 {
		v = 0
		for j := 0; j < len(mant); j++ {
			v = v*10 + int(mant[j]-'0')
		}
		for ; exp > 0; exp-- {
			v *= 10
		}
		v = min(v, clamp)
	}
	if neg {
		v = -v
	}
	return v, true
}

// IsIdent reports whether a field's name can be written plainly in a path
// (questions[0].header); another is written as a quoted index
// (questions[0]["a b"]).
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Quote returns s as a JSON string literal, as encoding/json writes it
// without HTML escaping. jsontext writes the shortest form; encoding/json
// also escapes U+2028 and U+2029. (A decoded string holds valid UTF-8.)
func Quote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	q := string(b)
	if strings.ContainsAny(q, "\u2028\u2029") {
		q = strings.NewReplacer("\u2028", `\u2028`, "\u2029", `\u2029`).Replace(q)
	}
	return q
}
