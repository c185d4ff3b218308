package askuserwire

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/strictjson"
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

// The fields of each object, by index; an unknown field's message lists
// them in this order.
var (
	topFields    = []string{"questions", "timeout_seconds", "asked_at", "nudge_at", "expires_at", "human_intent"}
	qFields      = []string{"kind", "id", "header", "question", "multi_select", "allow_other", "options", "secret_name", "purpose"}
	optionFields = []string{"label", "description", "default"}
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
	strictjson.Decoder
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
func Decode(data []byte, lim dialect.Limits) (*Call, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, &Error{Message: fmt.Sprintf(Prefix+"the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes)}
	}
	d := &decoder{b: new(callBlock)}
	d.Reset(data)
	if err := d.top(); err != nil {
		return nil, err
	}
	if err := d.validate(lim); err != nil {
		return nil, err
	}
	return d.normalize(lim), nil
}

// loc is where the decoder is: a path, turned into a string only for a
// message.
type loc struct {
	q, o     int // question and option index; -1 outside
	field    string
	hasField bool
}

var rootLoc = loc{q: -1, o: -1}

func (l loc) with(field string) loc {
	l.field, l.hasField = field, true
	return l
}

// elem is the loc of element i of the array at l: questions, or a
// question's options.
func (l loc) elem(i int) loc {
	if l.q >= 0 {
		return loc{q: l.q, o: i}
	}
	return loc{q: i, o: -1}
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
		if strictjson.IsIdent(l.field) {
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

// quote returns s as a JSON string literal, as encoding/json writes it
// without HTML escaping.
func quote(s string) string { return strictjson.Quote(s) }

// integral is strictjson.Integral, which timeout_seconds is read with;
// TestDecodeTimeoutIntegers holds it to JSON Schema's integers.
func integral(num string) (int, bool) { return strictjson.Integral(num) }

func shapeError(l loc, what string) *Error {
	p := l.String()
	return &Error{Path: p, Message: Prefix + p + ": " + what}
}

// refuse is place for a p that may be nil, which is no error.
func refuse(l loc, p *strictjson.Problem) *Error {
	if p == nil {
		return nil
	}
	return place(l, p)
}

// place words p as a shape error at l, or at l's member that p names.
func place(l loc, p *strictjson.Problem) *Error {
	if p.Inner {
		l = l.with(p.Field)
	}
	return shapeError(l, p.What)
}

// object reads the members of the object at l, after its '{', calling
// member with each field's index in fields.
func (d *decoder) object(l loc, fields []string, member func(i int) *Error) *Error {
	err, p := strictjson.ReadObject(&d.Decoder, fields, member)
	if p != nil {
		return place(l, p)
	}
	return err
}

// array reads the elements of the array at l, after its '[', calling elem
// with each element's index and its peeked kind.
func (d *decoder) array(l loc, elem func(i int, k jsontext.Kind) *Error) *Error {
	err, p := strictjson.ReadElements(&d.Decoder, elem)
	switch {
	case p == nil:
		return err
	case p.Inner:
		return shapeError(l.elem(p.Index), p.What)
	}
	return shapeError(l, p.What)
}

func (d *decoder) top() *Error {
	l := rootLoc
	if k := d.PeekKind(); k != '{' {
		return refuse(l, d.WrongType(k, "an object"))
	}
	d.ReadDelim()
	err := d.object(l, topFields, func(i int) *Error {
		var p *strictjson.Problem
		switch i {
		case fQuestions:
			return d.questions(l.with(topFields[i]))
		case fTimeout:
			d.timeout, d.hasTimeout, p = d.ReadInteger()
		case fHumanIntent:
			_, p = d.ReadString(&d.b.call.HumanIntent)
		default:
			var stamp string
			_, p = d.ReadString(&stamp) // overwritten by the library
		}
		if p != nil {
			return place(l.with(topFields[i]), p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return refuse(l, d.ReadEnd())
}

func (d *decoder) questions(l loc) *Error {
	if given, p := d.ReadArray("an array of questions"); !given {
		return refuse(l, p)
	}
	return d.array(l, func(i int, k jsontext.Kind) *Error {
		if err := d.question(i, l.elem(i), k); err != nil {
			return err
		}
		d.nq++
		return nil
	})
}

func (d *decoder) question(qi int, l loc, k jsontext.Kind) *Error {
	if k != '{' {
		return refuse(l, d.WrongType(k, "a question object"))
	}
	d.ReadDelim()
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
	return d.object(l, qFields, func(i int) *Error {
		var p *strictjson.Problem
		switch i {
		case fKind:
			var kind int
			if kind, p = d.ReadOneOf(kinds, allowedKinds, notAKind); kind >= 0 {
				q.Kind = kinds[kind]
			}
		case fID:
			m.hasID, p = d.ReadString(&q.ID)
		case fHeader:
			_, p = d.ReadString(&q.Header)
		case fQuestion:
			_, p = d.ReadString(&q.Question)
		case fMultiSelect:
			_, p = d.ReadBool(&q.MultiSelect)
		case fAllowOther:
			m.hasAllowOther, p = d.ReadBool(&q.AllowOther)
		case fOptions:
			return d.options(l.with(qFields[i]), qi, m)
		case fSecretName:
			m.hasSecretName, p = d.ReadString(&q.SecretName)
		case fPurpose:
			_, p = d.ReadString(&q.Purpose)
		}
		if p != nil {
			return place(l.with(qFields[i]), p)
		}
		return nil
	})
}

func notAKind(s string) string { return quote(s) + " is not a kind; allowed: " + allowedKinds }

func (d *decoder) options(l loc, qi int, m *qmeta) *Error {
	if given, p := d.ReadArray("an array of options"); !given {
		return refuse(l, p)
	}
	var scratch Option
	return d.array(l, func(i int, k jsontext.Kind) *Error {
		o := &scratch
		if qi < maxQuestions && m.nOpts < maxOptions {
			o = &d.b.opts[d.nopt]
			d.nopt++
		}
		if err := d.option(l.elem(i), k, o); err != nil {
			return err
		}
		m.nOpts++
		return nil
	})
}

func (d *decoder) option(l loc, k jsontext.Kind, o *Option) *Error {
	if k != '{' {
		return refuse(l, d.WrongType(k, "an option object"))
	}
	d.ReadDelim()
	return d.object(l, optionFields, func(i int) *Error {
		var p *strictjson.Problem
		switch i {
		case fLabel:
			_, p = d.ReadString(&o.Label)
		case fDescription:
			_, p = d.ReadString(&o.Description)
		case fDefault:
			_, p = d.ReadBool(&o.Default)
		}
		if p != nil {
			return place(l.with(optionFields[i]), p)
		}
		return nil
	})
}
