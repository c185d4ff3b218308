package askusertool

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Decode reads a call in one pass over its JSON, checking the shape and
// reading the values straight into the call, then checks the contract's
// rules in their order, then normalizes the call (without the stamps).
//
// How it reads:
//
//   - The first problem in document order is reported, whether it is a
//     syntax error, a wrong type, an unknown field or a duplicate field:
//     the input is read once, front to back, and reading stops there.
//   - A shape message names its path: "questions[1].kind",
//     "questions[0].Header" for an unknown field, "(root)" for the
//     top-level value itself (not an object, trailing data). Error.Path
//     holds the same string. A field name that is not a plain identifier is
//     written as a quoted index: questions[0]["a b"].
//   - A syntax error says "invalid JSON at byte offset N" (0-based) and is
//     placed at the innermost path being read.
//   - A field that appears twice is refused at its second occurrence, even
//     when one of them is null.
//   - null stands for an absent field everywhere a field is named, also for
//     "questions" (which then breaks rule 1). An element of "questions" or
//     "options" that is null is a wrong type.
//   - timeout_seconds accepts any JSON number whose value is an integer, as
//     JSON Schema counts integers: 10, 10.0, 1e1 and 100e-1 are all 10. A
//     number with a fractional part (1.5, 1e-1) is a shape error; an
//     integer too large for the range check (1e400) breaks rule 2. A
//     string ("10") is a shape error.
//   - A non-secret question "carries" secret_name or purpose (rule 3.6)
//     when either is a non-empty string: an absent field counts as empty,
//     and so an empty one counts as absent.
//   - human_intent is a string or null (absent); any string is read,
//     blank or not, and kept as given. Its length is a rule, checked after
//     timeout_seconds's.
//   - Strings are decoded as encoding/json decodes them (an invalid
//     surrogate escape or an invalid UTF-8 byte becomes U+FFFD) and kept as
//     given, never trimmed; "non-blank" means not empty after
//     strings.TrimSpace, and lengths are counted in runes.

// The bounds of a call that the decoder stores.
const (
	maxQuestions       = 4
	maxOptions         = 6
	maxHeaderRunes     = 16
	maxSecretNameRunes = 255
	maxIntentRunes     = 120
)

// The kinds of question.
const (
	kindChoice = "choice"
	kindText   = "text"
	kindSecret = "secret"
)

var kinds = []string{kindChoice, kindText, kindSecret}

const allowedKinds = `"choice", "text", "secret"`

// The fields of each object, by index; a field's bit in a seen set is
// 1<<index.
var (
	topFields    = []string{"questions", "timeout_seconds", "asked_at", "nudge_at", "expires_at", "human_intent"}
	qFields      = []string{"kind", "id", "header", "question", "multi_select", "allow_other", "options", "secret_name", "purpose"}
	optionFields = []string{"label", "description", "default"}

	allowedTop      = strings.Join(topFields, ", ")
	allowedQuestion = strings.Join(qFields, ", ")
	allowedOption   = strings.Join(optionFields, ", ")
)

const (
	fQuestions = iota
	fTimeout
	_ // asked_at, nudge_at and expires_at: read, and overwritten by Stamp
	_
	_
	fHumanIntent
)

const (
	fKind = iota
	fID
	fHeader
	fQuestion
	fMultiSelect
	fAllowOther
	fOptions
	fSecretName
	fPurpose
)

const (
	fLabel = iota
	fDescription
	fDefault
)

// The decoder's options: duplicate fields and invalid UTF-8 are the
// contract's business (a duplicate is refused with its own message; invalid
// UTF-8 in a string becomes U+FFFD, as encoding/json has it).
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// callBlock holds a decoded call, its questions and all their options in
// one allocation. A valid call has at most 4 questions of at most 6 options.
type callBlock struct {
	call Call
	qs   [maxQuestions]Question
	opts [maxQuestions * maxOptions]Option
}

// qmeta is what the rules need to know of a question beyond its values.
type qmeta struct {
	hasID, hasSecretName, hasAllowOther bool
	optStart, nOpts                     int // nOpts counts every option given; at most maxOptions are stored
}

type decoder struct {
	dec        jsontext.Decoder
	data       []byte
	scratch    []byte // for unquoting
	b          *callBlock
	nq         int // questions given (all of them; at most maxQuestions are stored)
	nopt       int // option slots used in b.opts
	timeout    int
	hasTimeout bool
	meta       [maxQuestions]qmeta
}

// Decode validates and normalizes an ask_user call. It generates the
// missing ids (question_<p>, with _2, _3, … appended while that is taken)
// and writes every default out: kind, multi_select, allow_other, options
// (empty, not nil, for text and secret), each option's default, and
// timeout_seconds (the ceiling when absent). It does not stamp the
// deadlines. An invalid call returns a *Error and a nil *Call.
func Decode(data []byte, lim Limits) (*Call, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, &Error{Message: fmt.Sprintf(Prefix+"the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes)}
	}
	d := &decoder{data: data, b: new(callBlock)}
	d.dec.Reset(bytes.NewBuffer(data), decodeOptions...)
	if err := d.top(); err != nil {
		return nil, err
	}
	if err := d.validate(lim); err != nil {
		return nil, err
	}
	return d.normalize(lim), nil
}

// loc is where the decoder is: a path, turned into a string only for a
// message, and the offset where the value there starts (before any
// whitespace).
type loc struct {
	q, o     int // question and option index; -1 outside
	field    string
	hasField bool
	start    int
}

var rootLoc = loc{q: -1, o: -1}

func (l loc) with(field string, start int) loc {
	l.field, l.hasField, l.start = field, true, start
	return l
}

func (l loc) String() string {
	var b strings.Builder
	if l.q >= 0 {
		b.WriteString("questions[")
		b.WriteString(strconv.Itoa(l.q))
		b.WriteByte(']')
	}
	if l.o >= 0 {
		b.WriteString(".options[")
		b.WriteString(strconv.Itoa(l.o))
		b.WriteByte(']')
	}
	if l.hasField {
		if isIdent(l.field) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(l.field)
		} else {
			b.WriteByte('[')
			b.WriteString(quote(l.field))
			b.WriteByte(']')
		}
	}
	if b.Len() == 0 {
		return "(root)"
	}
	return b.String()
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

func unknownField(l loc, allowed string) *Error {
	return shapeError(l, "unknown field; allowed fields: "+allowed)
}

func duplicateField(l loc) *Error {
	return shapeError(l, "duplicate field; a field may appear only once")
}

// delim reads the '{', '}', '[' or ']' just peeked, which jsontext has
// already found in its place.
func (d *decoder) delim() {
	if _, err := d.dec.ReadToken(); err != nil {
		panic("askusertool: a peeked delimiter cannot be read: " + err.Error())
	}
}

// object reads the members of the object at l, after its '{': for each
// field it finds the field's index in fields and calls member with the
// index and the field's loc. It refuses unknown and repeated fields.
func (d *decoder) object(l loc, fields []string, allowed string, member func(i int, fl loc) *Error) *Error {
	var seen uint16
	for first := true; ; first = false {
		start := int(d.dec.InputOffset())
		k := d.dec.PeekKind()
		if k == '}' {
			d.delim()
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
		i := d.field(name, fields)
		if i < 0 {
			return unknownField(l.with(d.unquote(name), colon+1), allowed)
		}
		fl := l.with(fields[i], colon+1)
		if seen&(1<<i) != 0 {
			return duplicateField(fl)
		}
		seen |= 1 << i
		if err := member(i, fl); err != nil {
			return err
		}
	}
}

// field returns the index in fields of the JSON string name (as read: a
// field's name, or a kind), or -1.
func (d *decoder) field(name []byte, fields []string) int {
	n := name[1 : len(name)-1]
	if bytes.IndexByte(n, '\\') >= 0 {
		d.scratch, _ = jsontext.AppendUnquote(d.scratch[:0], name)
		n = d.scratch
	}
	for i, f := range fields {
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

// array reads the elements of the array at l, after its '[', calling elem
// with each element's index, its loc and its peeked kind.
func (d *decoder) array(l loc, elem func(i int, el loc, k jsontext.Kind) *Error) *Error {
	for i := 0; ; i++ {
		start := int(d.dec.InputOffset())
		k := d.dec.PeekKind()
		if k == ']' {
			d.delim()
			return nil
		}
		el := loc{q: i, o: -1, start: start} // an element of questions
		if l.q >= 0 {
			el = loc{q: l.q, o: i, start: start} // an element of a question's options
		}
		if i > 0 {
			// jsontext returns a value's kind only after its ','.
			if k == 0 || k == '}' {
				s := scanner{src: d.data, pos: start}
				e, inElement := s.element()
				if inElement {
					return d.syntax(el, e, nil)
				}
				return d.syntax(l, e, nil)
			}
			el.start = skipSpace(d.data, start) + 1 // after the ','
		}
		if err := elem(i, el, k); err != nil {
			return err
		}
	}
}

// str reads an optional string field. null leaves it absent.
func (d *decoder) str(l loc, dst *string) (given bool, err *Error) {
	switch k := d.dec.PeekKind(); k {
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return false, d.badValue(l, err)
		}
		*dst = d.unquote(raw)
		return true, nil
	case 'n':
		return false, d.null(l)
	default:
		return false, d.wrongType(l, k, "a string")
	}
}

// boolean reads an optional boolean field. null leaves it absent.
func (d *decoder) boolean(l loc, dst *bool) (given bool, err *Error) {
	switch k := d.dec.PeekKind(); k {
	case 't', 'f':
		tok, err := d.dec.ReadToken()
		if err != nil {
			return false, d.badValue(l, err)
		}
		*dst = tok.Bool()
		return true, nil
	case 'n':
		return false, d.null(l)
	default:
		return false, d.wrongType(l, k, "a boolean")
	}
}

func (d *decoder) null(l loc) *Error {
	if _, err := d.dec.ReadToken(); err != nil {
		return d.badValue(l, err)
	}
	return nil
}

func (d *decoder) top() *Error {
	l := rootLoc
	if k := d.dec.PeekKind(); k != '{' {
		return d.wrongType(l, k, "an object")
	}
	d.delim()
	err := d.object(l, topFields, allowedTop, func(i int, fl loc) *Error {
		switch i {
		case fQuestions:
			return d.questions(fl)
		case fTimeout:
			return d.timeoutSeconds(fl)
		case fHumanIntent:
			_, err := d.str(fl, &d.b.call.HumanIntent)
			return err
		}
		var stamp string
		_, err := d.str(fl, &stamp) // overwritten by the library
		return err
	})
	if err != nil {
		return err
	}
	if p := skipSpace(d.data, int(d.dec.InputOffset())); p < len(d.data) {
		return d.syntax(l, &syntaxError{p, "unexpected data after the top-level value"}, nil)
	}
	return nil
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

func (d *decoder) questions(l loc) *Error {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return d.null(l)
	case '[':
		d.delim()
	default:
		return d.wrongType(l, k, "an array of questions")
	}
	return d.array(l, func(i int, el loc, k jsontext.Kind) *Error {
		if err := d.question(i, el, k); err != nil {
			return err
		}
		d.nq++
		return nil
	})
}

func (d *decoder) question(qi int, l loc, k jsontext.Kind) *Error {
	if k != '{' {
		return d.wrongType(l, k, "a question object")
	}
	d.delim()
	var (
		scratch Question
		sm      qmeta
	)
	q, m := &scratch, &sm
	if qi < maxQuestions {
		q, m = &d.b.qs[qi], &d.meta[qi]
	}
	q.Kind = kindChoice
	m.optStart = d.nopt
	return d.object(l, qFields, allowedQuestion, func(i int, fl loc) *Error {
		var err *Error
		switch i {
		case fKind:
			err = d.kind(fl, q)
		case fID:
			m.hasID, err = d.str(fl, &q.ID)
		case fHeader:
			_, err = d.str(fl, &q.Header)
		case fQuestion:
			_, err = d.str(fl, &q.Question)
		case fMultiSelect:
			_, err = d.boolean(fl, &q.MultiSelect)
		case fAllowOther:
			m.hasAllowOther, err = d.boolean(fl, &q.AllowOther)
		case fOptions:
			err = d.options(fl, qi, m)
		case fSecretName:
			m.hasSecretName, err = d.str(fl, &q.SecretName)
		case fPurpose:
			_, err = d.str(fl, &q.Purpose)
		}
		return err
	})
}

func (d *decoder) kind(l loc, q *Question) *Error {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return d.null(l)
	case '"':
		raw, err := d.dec.ReadValue()
		if err != nil {
			return d.badValue(l, err)
		}
		if i := d.field(raw, kinds); i >= 0 {
			q.Kind = kinds[i]
			return nil
		}
		return shapeError(l, quote(d.unquote(raw))+" is not a kind; allowed: "+allowedKinds)
	default:
		return d.wrongType(l, k, "one of "+allowedKinds)
	}
}

func (d *decoder) options(l loc, qi int, m *qmeta) *Error {
	switch k := d.dec.PeekKind(); k {
	case 'n':
		return d.null(l)
	case '[':
		d.delim()
	default:
		return d.wrongType(l, k, "an array of options")
	}
	var scratch Option
	return d.array(l, func(_ int, el loc, k jsontext.Kind) *Error {
		o := &scratch
		if qi < maxQuestions && m.nOpts < maxOptions {
			o = &d.b.opts[d.nopt]
			d.nopt++
		}
		if err := d.option(el, k, o); err != nil {
			return err
		}
		m.nOpts++
		return nil
	})
}

func (d *decoder) option(l loc, k jsontext.Kind, o *Option) *Error {
	if k != '{' {
		return d.wrongType(l, k, "an option object")
	}
	d.delim()
	return d.object(l, optionFields, allowedOption, func(i int, fl loc) *Error {
		var err *Error
		switch i {
		case fLabel:
			_, err = d.str(fl, &o.Label)
		case fDescription:
			_, err = d.str(fl, &o.Description)
		case fDefault:
			_, err = d.boolean(fl, &o.Default)
		}
		return err
	})
}
