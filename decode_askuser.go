package askuser

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/internal/jsonscan"
)

// The ask_user call decoder (SPEC §1): one pass over the JSON that checks the
// shape and reads the values straight into the model, then the rules of
// §1.1 in their order, then the normalization of §1.2 (without the stamps).
//
// Decisions the SPEC leaves open, made here:
//
//   - The first problem in document order is reported, whether it is a
//     syntax error, a wrong type, an unknown field or a duplicate field: the
//     input is read once, front to back, and reading stops there.
//   - A shape message names its path: "questions[1].kind",
//     "questions[0].Header" for an unknown field, "(root)" for the top-level
//     value itself (not an object, trailing data). CallError.Path holds the
//     same string; it is empty for a broken rule and for the size cap.
//     A field name that is not a plain identifier is written as a quoted
//     index: questions[0]["a b"].
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
//   - Strings are kept as given, never trimmed; "non-blank" means not empty
//     after strings.TrimSpace, and lengths are counted in runes.

const askUserPrefix = "invalid ask_user arguments: "

// The bounds of a call that the decoder stores.
const (
	maxQuestions        = 4
	maxOptions          = 6
	maxHeaderRunes      = 16
	maxSecretNameRunes  = 255
	allowedKindsMessage = `"choice", "text", "secret"`
	allowedTopFields    = "questions, timeout_seconds, asked_at, nudge_at, expires_at"
	allowedQFields      = "kind, id, header, question, multi_select, allow_other, options, secret_name, purpose"
	allowedOptionFields = "label, description, default"
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
	hasID, hasSecretName, hasMulti, hasAllowOther bool
	optStart, nOpts                               int // nOpts counts every option given; at most maxOptions are stored
}

type askUserDecoder struct {
	s          jsonscan.Scanner
	b          *callBlock
	nq         int // questions given (all of them; at most maxQuestions are stored)
	nopt       int // option slots used in b.opts
	timeout    int
	hasTimeout bool
	meta       [maxQuestions]qmeta
}

// decodeAskUser validates and normalizes an ask_user call (SPEC §1). It does
// not stamp the deadlines. An invalid call returns a *CallError. Zero limits
// mean the defaults.
func decodeAskUser(data []byte, lim Limits) (*Call, error) {
	lim = lim.withDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, &CallError{Message: fmt.Sprintf(askUserPrefix+"the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes)}
	}
	d := askUserDecoder{s: jsonscan.New(string(data)), b: new(callBlock)}
	if err := d.top(); err != nil {
		return nil, err
	}
	if err := d.validate(lim); err != nil {
		return nil, err
	}
	return d.normalize(lim), nil
}

// loc is where the decoder is, turned into a path only for a message.
type loc struct {
	q, o     int // question and option index; -1 outside
	field    string
	hasField bool
}

var rootLoc = loc{q: -1, o: -1}

func (l loc) with(field string) loc { l.field, l.hasField = field, true; return l }

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
			b.WriteString(jsonscan.Quote(l.field))
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

func shapeError(l loc, what string) *CallError {
	p := l.String()
	return &CallError{Path: p, Message: askUserPrefix + p + ": " + what}
}

func (d *askUserDecoder) syntax(l loc, err error) *CallError { return shapeError(l, err.Error()) }

// wrongType reports the value at l, Peeked as k, as not what was wanted. A
// scalar is read first so that a broken one is reported as the syntax error
// it is; an object or array is not entered.
func (d *askUserDecoder) wrongType(l loc, k jsonscan.Kind, want string) *CallError {
	var err error
	switch k {
	case jsonscan.String:
		_, err = d.s.ReadString()
	case jsonscan.Number:
		_, err = d.s.ReadNumber()
	case jsonscan.True, jsonscan.False, jsonscan.Null:
		err = d.s.ReadLiteral(k)
	case jsonscan.ObjectBegin, jsonscan.ArrayBegin:
	default:
		err = d.s.Unexpected("a value")
	}
	if err != nil {
		return d.syntax(l, err)
	}
	return shapeError(l, "expected "+want+", got "+k.Describe())
}

// key reads the next field name of the object at l, after its '{' (first)
// or after a value. It reports done at the closing '}'.
func (d *askUserDecoder) key(l loc, first bool) (key string, done bool, err error) {
	k := d.s.Peek()
	if first {
		if k == jsonscan.ObjectEnd {
			d.s.Advance()
			return "", true, nil
		}
		if k != jsonscan.String {
			return "", false, d.syntax(l, d.s.Unexpected("a field name or '}'"))
		}
	} else {
		switch k {
		case jsonscan.ObjectEnd:
			d.s.Advance()
			return "", true, nil
		case jsonscan.Comma:
			d.s.Advance()
		default:
			return "", false, d.syntax(l, d.s.Unexpected("',' or '}'"))
		}
		if d.s.Peek() != jsonscan.String {
			return "", false, d.syntax(l, d.s.Unexpected("a field name"))
		}
	}
	key, err = d.s.ReadString()
	if err != nil {
		return "", false, d.syntax(l, err)
	}
	if d.s.Peek() != jsonscan.Colon {
		return "", false, d.syntax(l, d.s.Unexpected("':' after the field name"))
	}
	d.s.Advance()
	return key, false, nil
}

// element starts the next element of the array at l, after its '[' (first)
// or after an element. It reports done at the closing ']'.
func (d *askUserDecoder) element(l loc, first bool) (done bool, err error) {
	k := d.s.Peek()
	if first {
		if k == jsonscan.ArrayEnd {
			d.s.Advance()
			return true, nil
		}
		return false, nil
	}
	switch k {
	case jsonscan.ArrayEnd:
		d.s.Advance()
		return true, nil
	case jsonscan.Comma:
		d.s.Advance()
		return false, nil
	}
	return false, d.syntax(l, d.s.Unexpected("',' or ']'"))
}

func unknownField(l loc, allowed string) *CallError {
	return shapeError(l, "unknown field; allowed fields: "+allowed)
}

func duplicateField(l loc) *CallError {
	return shapeError(l, "duplicate field; a field may appear only once")
}

// str reads an optional string field. null leaves it absent.
func (d *askUserDecoder) str(l loc, dst *string) (given bool, err error) {
	switch k := d.s.Peek(); k {
	case jsonscan.String:
		v, err := d.s.ReadString()
		if err != nil {
			return false, d.syntax(l, err)
		}
		*dst = v
		return true, nil
	case jsonscan.Null:
		return false, d.null(l)
	default:
		return false, d.wrongType(l, k, "a string")
	}
}

// boolean reads an optional boolean field. null leaves it absent.
func (d *askUserDecoder) boolean(l loc, dst *bool) (given bool, err error) {
	switch k := d.s.Peek(); k {
	case jsonscan.True, jsonscan.False:
		if err := d.s.ReadLiteral(k); err != nil {
			return false, d.syntax(l, err)
		}
		*dst = k == jsonscan.True
		return true, nil
	case jsonscan.Null:
		return false, d.null(l)
	default:
		return false, d.wrongType(l, k, "a boolean")
	}
}

func (d *askUserDecoder) null(l loc) error {
	if err := d.s.ReadLiteral(jsonscan.Null); err != nil {
		return d.syntax(l, err)
	}
	return nil
}

func (d *askUserDecoder) top() error {
	if k := d.s.Peek(); k != jsonscan.ObjectBegin {
		return d.wrongType(rootLoc, k, "an object")
	}
	d.s.Advance()
	var seen uint8
	for first := true; ; first = false {
		key, done, err := d.key(rootLoc, first)
		if err != nil {
			return err
		}
		if done {
			break
		}
		l := rootLoc.with(key)
		var bit uint8
		switch key {
		case "questions":
			bit = 1
		case "timeout_seconds":
			bit = 2
		case "asked_at":
			bit = 4
		case "nudge_at":
			bit = 8
		case "expires_at":
			bit = 16
		default:
			return unknownField(l, allowedTopFields)
		}
		if seen&bit != 0 {
			return duplicateField(l)
		}
		seen |= bit
		switch bit {
		case 1:
			err = d.questions(l)
		case 2:
			err = d.timeoutSeconds(l)
		default:
			var stamp string
			_, err = d.str(l, &stamp) // overwritten by the library
		}
		if err != nil {
			return err
		}
	}
	if k := d.s.Peek(); k != jsonscan.EOF {
		return d.syntax(rootLoc, &jsonscan.SyntaxError{Offset: d.s.Offset(), Msg: "unexpected data after the top-level value"})
	}
	return nil
}

func (d *askUserDecoder) timeoutSeconds(l loc) error {
	switch k := d.s.Peek(); k {
	case jsonscan.Null:
		return d.null(l)
	case jsonscan.Number:
		num, err := d.s.ReadNumber()
		if err != nil {
			return d.syntax(l, err)
		}
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

func (d *askUserDecoder) questions(l loc) error {
	switch k := d.s.Peek(); k {
	case jsonscan.Null:
		return d.null(l)
	case jsonscan.ArrayBegin:
		d.s.Advance()
	default:
		return d.wrongType(l, k, "an array of questions")
	}
	for first := true; ; first = false {
		done, err := d.element(l, first)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if err := d.question(d.nq); err != nil {
			return err
		}
		d.nq++
	}
}

func (d *askUserDecoder) question(qi int) error {
	l := loc{q: qi, o: -1}
	if k := d.s.Peek(); k != jsonscan.ObjectBegin {
		return d.wrongType(l, k, "a question object")
	}
	d.s.Advance()
	var (
		scratch Question
		sm      qmeta
	)
	q, m := &scratch, &sm
	if qi < maxQuestions {
		q, m = &d.b.qs[qi], &d.meta[qi]
	}
	q.Kind = KindChoice
	m.optStart = d.nopt
	var seen uint16
	for first := true; ; first = false {
		key, done, err := d.key(l, first)
		if err != nil {
			return err
		}
		if done {
			break
		}
		fl := l.with(key)
		var bit uint16
		switch key {
		case "kind":
			bit = 1 << 0
		case "id":
			bit = 1 << 1
		case "header":
			bit = 1 << 2
		case "question":
			bit = 1 << 3
		case "multi_select":
			bit = 1 << 4
		case "allow_other":
			bit = 1 << 5
		case "options":
			bit = 1 << 6
		case "secret_name":
			bit = 1 << 7
		case "purpose":
			bit = 1 << 8
		default:
			return unknownField(fl, allowedQFields)
		}
		if seen&bit != 0 {
			return duplicateField(fl)
		}
		seen |= bit
		switch key {
		case "kind":
			err = d.kind(fl, q)
		case "id":
			m.hasID, err = d.str(fl, &q.ID)
		case "header":
			_, err = d.str(fl, &q.Header)
		case "question":
			_, err = d.str(fl, &q.Text)
		case "multi_select":
			m.hasMulti, err = d.boolean(fl, &q.MultiSelect)
		case "allow_other":
			m.hasAllowOther, err = d.boolean(fl, &q.AllowOther)
		case "options":
			err = d.options(fl, qi, m)
		case "secret_name":
			m.hasSecretName, err = d.str(fl, &q.SecretName)
		case "purpose":
			_, err = d.str(fl, &q.Purpose)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *askUserDecoder) kind(l loc, q *Question) error {
	switch k := d.s.Peek(); k {
	case jsonscan.Null:
		return d.null(l)
	case jsonscan.String:
		v, err := d.s.ReadString()
		if err != nil {
			return d.syntax(l, err)
		}
		switch Kind(v) {
		case KindChoice, KindText, KindSecret:
			q.Kind = Kind(v)
			return nil
		}
		return shapeError(l, jsonscan.Quote(v)+" is not a kind; allowed: "+allowedKindsMessage)
	default:
		return d.wrongType(l, k, "one of "+allowedKindsMessage)
	}
}

func (d *askUserDecoder) options(l loc, qi int, m *qmeta) error {
	switch k := d.s.Peek(); k {
	case jsonscan.Null:
		return d.null(l)
	case jsonscan.ArrayBegin:
		d.s.Advance()
	default:
		return d.wrongType(l, k, "an array of options")
	}
	var scratch Option
	for first := true; ; first = false {
		done, err := d.element(l, first)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		o := &scratch
		if qi < maxQuestions && m.nOpts < maxOptions {
			o = &d.b.opts[d.nopt]
			d.nopt++
		}
		if err := d.option(loc{q: qi, o: m.nOpts}, o); err != nil {
			return err
		}
		m.nOpts++
	}
}

func (d *askUserDecoder) option(l loc, o *Option) error {
	if k := d.s.Peek(); k != jsonscan.ObjectBegin {
		return d.wrongType(l, k, "an option object")
	}
	d.s.Advance()
	var seen uint8
	for first := true; ; first = false {
		key, done, err := d.key(l, first)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		fl := l.with(key)
		var bit uint8
		switch key {
		case "label":
			bit = 1
		case "description":
			bit = 2
		case "default":
			bit = 4
		default:
			return unknownField(fl, allowedOptionFields)
		}
		if seen&bit != 0 {
			return duplicateField(fl)
		}
		seen |= bit
		switch bit {
		case 1:
			_, err = d.str(fl, &o.Label)
		case 2:
			_, err = d.str(fl, &o.Description)
		default:
			_, err = d.boolean(fl, &o.Default)
		}
		if err != nil {
			return err
		}
	}
}

func ruleError(msg string) *CallError { return &CallError{Message: askUserPrefix + msg} }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// validate checks the rules of SPEC §1.1 in their order.
func (d *askUserDecoder) validate(lim Limits) error {
	n := d.nq
	if n < 1 || n > maxQuestions {
		return ruleError("questions must contain between 1 and 4 items")
	}
	if d.hasTimeout && (d.timeout < 1 || d.timeout > lim.MaxTimeoutSeconds) {
		return ruleError(fmt.Sprintf("timeout_seconds must be between 1 and %d", lim.MaxTimeoutSeconds))
	}
	qs := d.b.qs[:n]
	for i := range qs {
		q, m, p := &qs[i], &d.meta[i], i+1
		if m.hasID {
			if blank(q.ID) {
				return ruleError(fmt.Sprintf("question %d id must not be empty", p))
			}
			for j := range i {
				if d.meta[j].hasID && qs[j].ID == q.ID {
					return ruleError("question ids must be unique; duplicate " + jsonscan.Quote(q.ID))
				}
			}
		}
		if blank(q.Header) {
			return ruleError(fmt.Sprintf("question %d header must not be empty", p))
		}
		if utf8.RuneCountInString(q.Header) > maxHeaderRunes {
			return ruleError(fmt.Sprintf("question %d header must not exceed 16 characters", p))
		}
		if blank(q.Text) {
			return ruleError(fmt.Sprintf("question %d text must not be empty", p))
		}
		switch q.Kind {
		case KindSecret:
			switch {
			case n != 1:
				return ruleError("a secret question must be the only question in the call")
			case m.nOpts > 0:
				return ruleError(fmt.Sprintf("question %d is a secret and must not offer options", p))
			case !m.hasSecretName:
				return ruleError(fmt.Sprintf("question %d secret_name is required", p))
			case blank(q.SecretName) || utf8.RuneCountInString(q.SecretName) > maxSecretNameRunes:
				return ruleError(fmt.Sprintf("question %d secret_name must be between 1 and 255 non-whitespace characters", p))
			case blank(q.Purpose):
				return ruleError(fmt.Sprintf("question %d purpose must not be empty", p))
			}
			continue
		case KindText:
			if q.SecretName != "" || q.Purpose != "" {
				return ruleError(fmt.Sprintf("question %d is not a secret and must not carry secret_name or purpose", p))
			}
			if m.nOpts > 0 {
				return ruleError(fmt.Sprintf("question %d is text and must not offer options", p))
			}
			continue
		}
		if q.SecretName != "" || q.Purpose != "" {
			return ruleError(fmt.Sprintf("question %d is not a secret and must not carry secret_name or purpose", p))
		}
		if m.nOpts < 2 || m.nOpts > maxOptions {
			return ruleError(fmt.Sprintf("question %d options must contain between 2 and 6 items", p))
		}
		opts := d.b.opts[m.optStart : m.optStart+m.nOpts]
		defaults := 0
		for k := range opts {
			o := &opts[k]
			if blank(o.Label) {
				return ruleError(fmt.Sprintf("question %d option labels must not be empty", p))
			}
			if blank(o.Description) {
				return ruleError(fmt.Sprintf("question %d option descriptions must not be empty", p))
			}
			for j := range k {
				if opts[j].Label == o.Label {
					return ruleError(fmt.Sprintf("question %d option labels must be unique; duplicate %s", p, jsonscan.Quote(o.Label)))
				}
			}
			if o.Default {
				defaults++
			}
		}
		if !q.MultiSelect && defaults > 1 {
			return ruleError(fmt.Sprintf("question %d single-select options may mark at most one default", p))
		}
	}
	return nil
}

// normalize rewrites a valid call as SPEC §1.2 says, except the stamps.
func (d *askUserDecoder) normalize(lim Limits) *Call {
	c := &d.b.call
	qs := d.b.qs[:d.nq:d.nq]
	for i := range qs {
		q, m := &qs[i], &d.meta[i]
		if !m.hasID {
			q.ID = freeID(qs, i)
		}
		switch q.Kind {
		case KindChoice:
			if !m.hasAllowOther {
				q.AllowOther = true
			}
			end := m.optStart + m.nOpts
			q.Options = d.b.opts[m.optStart:end:end]
			for k := range q.Options {
				q.Options[k].Value = q.Options[k].Label
			}
		case KindText:
			q.AllowOther, q.MultiSelect = true, false
		case KindSecret:
			q.AllowOther, q.MultiSelect = false, false
		}
	}
	c.Questions = qs
	c.TimeoutSeconds = lim.MaxTimeoutSeconds
	if d.hasTimeout {
		c.TimeoutSeconds = d.timeout
	}
	c.Contract = "ask_user"
	c.Unattended = UnattendedDefaults
	return compact(c)
}

// freeID returns the id of question i, which has none: question_<p>, or
// with _2, _3, … appended while that is taken by another question's id
// (given, or generated earlier).
func freeID(qs []Question, i int) string {
	var base string
	if i < len(generatedIDs) {
		base = generatedIDs[i]
	} else {
		base = "question_" + strconv.Itoa(i+1)
	}
	id := base
	for n := 2; idTaken(qs, id); n++ {
		id = base + "_" + strconv.Itoa(n)
	}
	return id
}

var generatedIDs = [maxQuestions]string{"question_1", "question_2", "question_3", "question_4"}

func idTaken(qs []Question, id string) bool {
	for j := range qs {
		if qs[j].ID == id {
			return true
		}
	}
	return false
}
