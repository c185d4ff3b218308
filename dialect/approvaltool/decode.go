package approvaltool

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Decode reads a call in one pass over its JSON, checking the shape and
// reading the values straight into the call, then checks the contract's
// rules in their order, then fills in the defaults.
//
// How it reads, as ask_user's decoder does:
//
//   - The first problem in document order is reported, whether it is a
//     syntax error, a wrong type, an unknown field, a duplicate field or a
//     risk that is not one: the input is read once, front to back, and
//     reading stops there.
//   - A shape message names its path: "risk", "(root)" for the top-level
//     value itself (not an object, trailing data). Error.Path holds the
//     same string. A field name that is not a plain identifier is written
//     as a quoted index: ["a b"].
//   - A syntax error says "invalid JSON at byte offset N" (0-based).
//   - A field that appears twice is refused at its second occurrence, even
//     when one of them is null.
//   - null stands for an absent field.
//   - timeout_seconds accepts any JSON number whose value is an integer, as
//     JSON Schema counts integers (10, 10.0, 1e1); a number with a
//     fractional part is a shape error, an integer too large for the range
//     check (1e400) breaks the timeout rule, and a string is a shape error.
//   - Strings are decoded as encoding/json decodes them (an invalid
//     surrogate escape or an invalid UTF-8 byte becomes U+FFFD) and kept as
//     given, never trimmed; "non-blank" means not empty after
//     strings.TrimSpace; action, reason and human_intent are counted in
//     runes, details in bytes of UTF-8.

// The fields of a call, by index; a field's bit in the seen set is 1<<index.
var (
	topFields  = []string{"action", "reason", "risk", "details", "timeout_seconds", "human_intent"}
	allowedTop = strings.Join(topFields, ", ")
)

const (
	fAction = iota
	fReason
	fRisk
	fDetails
	fTimeout
	fHumanIntent
)

const allowedRisks = `"low", "medium", "high", "irreversible"`

var risks = Risks()

// The decoder's options: duplicate fields and invalid UTF-8 are the
// contract's business (a duplicate is refused with its own message; invalid
// UTF-8 in a string becomes U+FFFD, as encoding/json has it).
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

type decoder struct {
	dec        jsontext.Decoder
	data       []byte
	scratch    []byte // for unquoting
	call       Call
	timeout    int
	hasTimeout bool
}

// Decode validates a request_approval call and fills in its default:
// timeout_seconds is the ceiling when the call gives none. An invalid call
// returns a *Error and a nil *Call.
func Decode(data []byte, lim Limits) (*Call, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, &Error{Message: fmt.Sprintf(Prefix+"the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes)}
	}
	d := &decoder{data: data}
	d.dec.Reset(bytes.NewBuffer(data), decodeOptions...)
	if err := d.top(); err != nil {
		return nil, err
	}
	if err := d.validate(lim); err != nil {
		return nil, err
	}
	c := d.call
	c.TimeoutSeconds = lim.MaxTimeoutSeconds
	if d.hasTimeout {
		c.TimeoutSeconds = d.timeout
	}
	return &c, nil
}

// loc is where the decoder is: the top-level value, or one of its fields,
// and the offset where the value there starts (before any whitespace).
type loc struct {
	field    string
	hasField bool
	start    int
}

func (l loc) with(field string, start int) loc {
	l.field, l.hasField, l.start = field, true, start
	return l
}

func (l loc) String() string {
	switch {
	case !l.hasField:
		return "(root)"
	case isIdent(l.field):
		return l.field
	}
	return "[" + quote(l.field) + "]"
}

func isIdent(s string) bool {
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

// quote returns s as a JSON string literal, as encoding/json writes it
// without HTML escaping. jsontext writes the shortest form; encoding/json
// also escapes U+2028 and U+2029. (A decoded string holds valid UTF-8.)
func quote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	q := string(b)
	if strings.ContainsAny(q, "\u2028\u2029") {
		q = strings.NewReplacer("\u2028", `\u2028`, "\u2029", `\u2029`).Replace(q)
	}
	return q
}

// cut shortens s to its first n runes and an ellipsis, for a message that
// echoes what the model sent.
func cut(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}

func shapeError(l loc, what string) *Error {
	p := l.String()
	return &Error{Path: p, Message: Prefix + p + ": " + what}
}

// syntax reports a read that jsontext refused, at l, as the scanner words
// it. Should the scanner find nothing wrong where jsontext did, jsontext's
// own words are used.
func (d *decoder) syntax(l loc, e *syntaxError, err error) *Error {
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
	return shapeError(l, e.String())
}

// badValue reports the value at l that jsontext refused.
func (d *decoder) badValue(l loc, err error) *Error {
	s := scanner{src: d.data, pos: l.start}
	return d.syntax(l, s.value(), err)
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

// wrongType reports the value at l, peeked as k, as not what was wanted. A
// scalar is read first so that a broken one is reported as the syntax error
// it is; an object or array is not entered.
func (d *decoder) wrongType(l loc, k jsontext.Kind, want string) *Error {
	switch k {
	case '"', '0', 't', 'f', 'n':
		if _, err := d.dec.ReadValue(); err != nil {
			return d.badValue(l, err)
		}
	case '{', '[':
	default:
		return d.badValue(l, nil)
	}
	return shapeError(l, "expected "+want+", got "+describe(k))
}

func (d *decoder) top() *Error {
	l := loc{}
	if k := d.dec.PeekKind(); k != '{' {
		return d.wrongType(l, k, "an object")
	}
	if _, err := d.dec.ReadToken(); err != nil {
		panic("approvaltool: a peeked '{' cannot be read: " + err.Error())
	}
	if err := d.members(l); err != nil {
		return err
	}
	if p := skipSpace(d.data, int(d.dec.InputOffset())); p < len(d.data) {
		return d.syntax(l, &syntaxError{p, "unexpected data after the top-level value"}, nil)
	}
	return nil
}

// members reads the call's fields, after its '{', and refuses unknown and
// repeated ones.
func (d *decoder) members(l loc) *Error {
	var seen uint8
	for first := true; ; first = false {
		start := int(d.dec.InputOffset())
		k := d.dec.PeekKind()
		if k == '}' {
			if _, err := d.dec.ReadToken(); err != nil {
				panic("approvaltool: a peeked '}' cannot be read: " + err.Error())
			}
			return nil
		}
		s := scanner{src: d.data, pos: start}
		if k != '"' {
			return d.syntax(l, s.member(first), nil)
		}
		name, err := d.dec.ReadValue()
		if err != nil {
			return d.syntax(l, s.member(first), err)
		}
		colon := skipSpace(d.data, int(d.dec.InputOffset()))
		if colon >= len(d.data) || d.data[colon] != ':' {
			return d.syntax(l, unexpectedAt(d.data, colon, "':' after the field name"), nil)
		}
		i := d.index(name, topFields)
		if i < 0 {
			return shapeError(l.with(d.unquote(name), colon+1), "unknown field; allowed fields: "+allowedTop)
		}
		fl := l.with(topFields[i], colon+1)
		if seen&(1<<i) != 0 {
			return shapeError(fl, "duplicate field; a field may appear only once")
		}
		seen |= 1 << i
		var e *Error
		switch i {
		case fAction:
			e = d.str(fl, &d.call.Action)
		case fReason:
			e = d.str(fl, &d.call.Reason)
		case fRisk:
			e = d.risk(fl)
		case fDetails:
			e = d.str(fl, &d.call.Details)
		case fTimeout:
			e = d.timeoutSeconds(fl)
		case fHumanIntent:
			e = d.str(fl, &d.call.HumanIntent)
		}
		if e != nil {
			return e
		}
	}
}

// index returns the index in names of the JSON string raw (a field's name
// or a risk, as read), or -1.
func (d *decoder) index(raw []byte, names []string) int {
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
func (d *decoder) unquote(raw []byte) string {
	v := raw[1 : len(raw)-1]
	if bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		d.scratch, _ = jsontext.AppendUnquote(d.scratch[:0], raw)
		v = d.scratch
	}
	return string(v)
}

// str reads an optional string field. null leaves it absent.
func (d *decoder) str(l loc, dst *string) *Error {
	switch k := d.dec.PeekKind(); k {
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return d.badValue(l, err)
		}
		*dst = d.unquote(raw)
		return nil
	case 'n':
		return d.null(l)
	default:
		return d.wrongType(l, k, "a string")
	}
}

func (d *decoder) null(l loc) *Error {
	if _, err := d.dec.ReadToken(); err != nil {
		return d.badValue(l, err)
	}
	return nil
}

// risk reads the risk: one of the risks, exactly (case-sensitive), or null.
func (d *decoder) risk(l loc) *Error {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return d.null(l)
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return d.badValue(l, err)
		}
		if i := d.index(raw, risks); i >= 0 {
			d.call.Risk = risks[i]
			return nil
		}
		return shapeError(l, quote(cut(d.unquote(raw), 40))+" is not a risk; allowed: "+allowedRisks)
	default:
		return d.wrongType(l, k, "one of "+allowedRisks)
	}
}

func (d *decoder) timeoutSeconds(l loc) *Error {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return d.null(l)
	case '0':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return d.badValue(l, err)
		}
		num := string(raw)
		v, ok := integral(num)
		if !ok {
			if len(num) > 40 {
				num = num[:40] + "…"
			}
			return shapeError(l, "expected an integer, got "+num)
		}
		d.timeout, d.hasTimeout = v, true
		return nil
	default:
		return d.wrongType(l, k, "an integer")
	}
}

// integral returns the value of a JSON number that is an integer, clamped
// to ±(1<<40) (far outside any ceiling), and whether it is one.
func integral(num string) (int, bool) {
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

func ruleError(msg string) *Error { return &Error{Message: Prefix + msg} }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// validate checks the contract's rules in their order; the first that
// fails is reported. An absent field counts as empty.
func (d *decoder) validate(lim Limits) *Error {
	c := &d.call
	switch {
	case blank(c.Action):
		return ruleError("action must not be empty; say what will be done")
	case utf8.RuneCountInString(c.Action) > MaxActionRunes:
		return ruleError(fmt.Sprintf("action must not exceed %d characters; put the rest in details", MaxActionRunes))
	case blank(c.Reason):
		return ruleError("reason must not be empty; say why the action is needed")
	case utf8.RuneCountInString(c.Reason) > MaxReasonRunes:
		return ruleError(fmt.Sprintf("reason must not exceed %d characters", MaxReasonRunes))
	case c.Risk == "":
		return ruleError("risk is required; allowed: " + allowedRisks)
	case len(c.Details) > MaxDetailsBytes:
		return ruleError(fmt.Sprintf("details must not exceed %d bytes; it has %d bytes", MaxDetailsBytes, len(c.Details)))
	case d.hasTimeout && (d.timeout < 1 || d.timeout > lim.MaxTimeoutSeconds):
		return ruleError(fmt.Sprintf("timeout_seconds must be between 1 and %d", lim.MaxTimeoutSeconds))
	case utf8.RuneCountInString(c.HumanIntent) > MaxIntentRunes:
		return ruleError(fmt.Sprintf("human_intent must not exceed %d characters", MaxIntentRunes))
	}
	return nil
}
