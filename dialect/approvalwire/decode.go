package approvalwire

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/strictjson"
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

// The fields of a call, by index; an unknown field's message lists them in
// this order.
var topFields = []string{"action", "reason", "risk", "details", "timeout_seconds", "human_intent"}

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

type decoder struct {
	strictjson.Decoder
	call       Call
	timeout    int
	hasTimeout bool
}

// Decode validates a request_approval call and fills in its default:
// timeout_seconds is the ceiling when the call gives none. An invalid call
// returns a *Error and a nil *Call.
func Decode(data []byte, lim dialect.Limits) (*Call, error) {
	lim = lim.WithDefaults()
	if len(data) > lim.MaxCallBytes {
		return nil, &Error{Message: fmt.Sprintf(Prefix+"the call is %d bytes; at most %d bytes are accepted", len(data), lim.MaxCallBytes)}
	}
	d := &decoder{}
	d.Reset(data)
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

// loc is where the decoder is: the top-level value, or one of its fields.
type loc struct {
	field    string
	hasField bool
}

func (l loc) with(field string) loc {
	l.field, l.hasField = field, true
	return l
}

func (l loc) String() string {
	switch {
	case !l.hasField:
		return "(root)"
	case strictjson.IsIdent(l.field):
		return l.field
	}
	return "[" + strictjson.Quote(l.field) + "]"
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
	path := l.String()
	return &Error{Path: path, Message: Prefix + path + ": " + p.What}
}

func (d *decoder) top() *Error {
	l := loc{}
	if k := d.PeekKind(); k != '{' {
		return refuse(l, d.WrongType(k, "an object"))
	}
	d.ReadDelim()
	if err := d.members(l); err != nil {
		return err
	}
	return refuse(l, d.ReadEnd())
}

// members reads the call's fields, after its '{'.
func (d *decoder) members(l loc) *Error {
	err, p := strictjson.ReadObject(&d.Decoder, topFields, func(i int) *Error {
		var p *strictjson.Problem
		switch i {
		case fAction:
			_, p = d.ReadString(&d.call.Action)
		case fReason:
			_, p = d.ReadString(&d.call.Reason)
		case fRisk:
			var r int
			if r, p = d.ReadOneOf(risks, allowedRisks, notARisk); r >= 0 {
				d.call.Risk = risks[r]
			}
		case fDetails:
			_, p = d.ReadString(&d.call.Details)
		case fTimeout:
			d.timeout, d.hasTimeout, p = d.ReadInteger()
		case fHumanIntent:
			_, p = d.ReadString(&d.call.HumanIntent)
		}
		if p != nil {
			return place(l.with(topFields[i]), p)
		}
		return nil
	})
	if p != nil {
		return place(l, p)
	}
	return err
}

// notARisk refuses a string that is not a risk (risks are case-sensitive).
func notARisk(s string) string {
	return strictjson.Quote(cut(s, 40)) + " is not a risk; allowed: " + allowedRisks
}

func ruleError(msg string) *Error { return &Error{Message: Prefix + msg} }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// validate checks the contract's rules in their order; the first that
// fails is reported. An absent field counts as empty.
func (d *decoder) validate(lim dialect.Limits) *Error {
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
