package mcpresponder

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// The protocol revisions the mapping tells apart.
const (
	// titledEnums is the first revision with titled single- and
	// multi-select enums (oneOf / items.anyOf with const and title) and
	// defaults on every field; before it, a choice is an enum with
	// enumNames, and there are no arrays.
	titledEnums = "2025-11-25"
	// multiRoundTrip is the first revision in which a server asks nothing
	// of its own accord: a tool call returns its input requests, and the
	// client retries it with the answers.
	multiRoundTrip = "2026-07-28"
)

// A role says how one property of the form answers its question.
type role int

const (
	roleOne   role = iota // a single choice: one option's value
	roleMany              // a multi-select: the values picked
	roleFlag              // one option of a multi-select, as a checkbox (before titledEnums)
	roleOther             // the free text of a choice that allows it
	roleText              // a text question's answer
)

// A prop is one property of the form.
type prop struct {
	name string
	q    int  // the question's index in the askuser form
	role role // what the property holds
	opt  int  // roleFlag: the option's index
}

// A form is an askuser form as one flat elicitation form: its properties,
// in question order, and the schema the client shows.
type form struct {
	f      *askuser.Form
	props  []prop
	byName map[string]int
	schema json.RawMessage
}

// newForm maps an askuser form (with no sealed question) onto a form
// elicitation for a client on the given protocol revision:
//   - a single choice is a string of titled options (oneOf with const and
//     title; before 2025-11-25 an enum with enumNames);
//   - a multi-select is an array of titled options (items.anyOf; before
//     2025-11-25, where there are no arrays, one checkbox per option);
//   - the recommended options (the declared defaults) are the default;
//   - a choice that allows free text gets one more, optional, string;
//   - a text question is a string, its prefill the default;
//   - the header is a property's title and the question its description;
//   - a question that must be answered, and can be answered only through
//     its one property, is required.
func newForm(f *askuser.Form, version string) *form {
	titled := version == "" || version >= titledEnums
	m := &form{f: f, byName: map[string]int{}}
	var b bytes.Buffer
	var required []string
	b.WriteString(`{"type":"object","properties":{`)
	first := true
	add := func(p prop, schema []byte) {
		p.name = m.freeName(p.name)
		m.byName[p.name] = len(m.props)
		m.props = append(m.props, p)
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(&b, p.name)
		b.WriteByte(':')
		b.Write(schema)
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		must := !q.Optional
		switch q.Kind {
		case askuser.KindText:
			s := obj{}
			s.str("type", "string").title(q).str("description", q.Text)
			if q.Prefill != "" {
				s.str("default", q.Prefill)
			}
			if must {
				s.raw("minLength", "1")
			}
			add(prop{name: q.ID, q: i, role: roleText}, s.bytes())
			if must {
				required = append(required, m.props[len(m.props)-1].name)
			}
			continue
		case askuser.KindChoice:
		default:
			continue // a sealed question never comes here
		}
		defaults := responder.DeclaredDefaults(q)
		alone := must && !responder.FreeText(q) // the property alone answers it
		switch {
		case len(q.Options) == 0:
			// free text only: the other property is the question
		case !q.MultiSelect:
			s := obj{}
			s.str("type", "string").title(q).str("description", q.Text)
			if titled {
				s.list("oneOf", len(q.Options), func(b *bytes.Buffer, k int) {
					o := obj{}
					o.str("const", q.Options[k].Value).str("title", optionTitle(&q.Options[k]))
					b.Write(o.bytes())
				})
			} else {
				s.list("enum", len(q.Options), func(b *bytes.Buffer, k int) { writeString(b, q.Options[k].Value) })
				s.list("enumNames", len(q.Options), func(b *bytes.Buffer, k int) { writeString(b, optionTitle(&q.Options[k])) })
			}
			if len(defaults) == 1 {
				s.str("default", defaults[0])
			}
			add(prop{name: q.ID, q: i, role: roleOne}, s.bytes())
			if alone {
				required = append(required, m.props[len(m.props)-1].name)
			}
		case titled:
			items := obj{}
			items.list("anyOf", len(q.Options), func(b *bytes.Buffer, k int) {
				o := obj{}
				o.str("const", q.Options[k].Value).str("title", optionTitle(&q.Options[k]))
				b.Write(o.bytes())
			})
			s := obj{}
			s.str("type", "array").title(q).str("description", q.Text).raw("items", string(items.bytes()))
			if alone {
				s.raw("minItems", "1")
			}
			s.raw("maxItems", strconv.Itoa(len(q.Options)))
			if len(defaults) > 0 {
				s.list("default", len(defaults), func(b *bytes.Buffer, k int) { writeString(b, defaults[k]) })
			}
			add(prop{name: q.ID, q: i, role: roleMany}, s.bytes())
			if alone {
				required = append(required, m.props[len(m.props)-1].name)
			}
		default:
			for k := range q.Options {
				o := &q.Options[k]
				s := obj{}
				s.str("type", "boolean").str("title", o.Label)
				desc := q.Text
				if o.Description != "" {
					desc = o.Description + " (" + q.Text + ")"
				}
				s.str("description", desc)
				isDefault := false
				for _, d := range defaults {
					isDefault = isDefault || d == o.Value
				}
				s.raw("default", strconv.FormatBool(isDefault))
				add(prop{name: q.ID + "_" + strconv.Itoa(k+1), q: i, role: roleFlag, opt: k}, s.bytes())
			}
		}
		if responder.FreeText(q) {
			s := obj{}
			label := q.OtherLabel
			if label == "" {
				label = "Something else"
			}
			desc := "Your own answer to: " + q.Text
			if len(q.Options) == 0 {
				desc = q.Text
			} else if q.OtherExclusive {
				desc = "Your own answer, instead of an option: " + q.Text
			}
			name := q.ID + "_other"
			if len(q.Options) == 0 {
				// Free text is the whole question: it keeps the question's
				// name and header, and is required where it must be answered.
				name = q.ID
				if q.Header != "" {
					label = q.Header
				}
			}
			s.str("type", "string").str("title", label).str("description", desc)
			if len(q.Options) == 0 && must {
				s.raw("minLength", "1")
			}
			add(prop{name: name, q: i, role: roleOther}, s.bytes())
			if len(q.Options) == 0 && must {
				required = append(required, m.props[len(m.props)-1].name)
			}
		}
	}
	b.WriteString("}")
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for k, r := range required {
			if k > 0 {
				b.WriteByte(',')
			}
			writeString(&b, r)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	m.schema = b.Bytes()
	return m
}

// freeName returns name, or name with _2, _3, … appended when a property
// already has it.
func (m *form) freeName(name string) string {
	n := name
	for i := 2; ; i++ {
		if _, taken := m.byName[n]; !taken {
			return n
		}
		n = name + "_" + strconv.Itoa(i)
	}
}

// optionTitle is what the person sees of an option: its label, and what
// picking it means.
func optionTitle(o *askuser.Option) string {
	if o.Description == "" {
		return o.Label
	}
	return o.Label + " — " + o.Description
}

// params returns the elicitation for the form: its message (what the
// agent is doing, the problem with the last reply when there was one, and
// what the deadline does) and its schema.
func (m *form) params(problem string, now time.Time) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message(m.f, problem, now), RequestedSchema: m.schema}
}

// message is the text the client shows above a form or a link.
func message(f *askuser.Form, problem string, now time.Time) string {
	var b strings.Builder
	if problem != "" {
		b.WriteString("Your last answer could not be used: ")
		b.WriteString(problem)
		b.WriteString("\nPlease answer again.\n\n")
	}
	switch {
	case f.HumanIntent != "":
		b.WriteString(f.HumanIntent)
	case f.Title != "":
		b.WriteString(f.Title)
	case len(f.Questions) == 1:
		b.WriteString("The agent asks you a question.")
	default:
		b.WriteString("The agent asks you " + strconv.Itoa(len(f.Questions)) + " questions.")
	}
	left := f.ExpiresAt.Sub(now)
	if left > 0 {
		b.WriteString("\n\nYou have " + span(left) + " to answer.")
		if fallsBack(f) {
			b.WriteString(" After that the agent goes on with the recommended answers.")
		} else {
			b.WriteString(" After that the agent is told that nobody answered.")
		}
	}
	return b.String()
}

// fallsBack reports whether the deadline gives every question something
// (its recommended options), or leaves it unanswered on purpose.
func fallsBack(f *askuser.Form) bool {
	for i := range f.Questions {
		q := &f.Questions[i]
		if q.OnDeadline != askuser.FallbackNothing && responder.DeclaredDefaults(q) == nil {
			return false
		}
	}
	return true
}

// span says a duration in words, rounded up to a whole second or minute.
func span(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	switch {
	case s < 120:
		return strconv.Itoa(s) + " seconds"
	case s < 7200:
		return strconv.Itoa((s+59)/60) + " minutes"
	}
	return strconv.Itoa((s+3599)/3600) + " hours"
}

// read maps an accepted reply onto answers, one per question that has
// one, in question order. The reply is the client's and untrusted: a field
// the form did not ask for, a value of the wrong type, an option not
// offered, a question that must be answered left empty, or anything
// responder.CheckAnswer refuses makes it no answer at all, and read returns
// what is wrong, written for the person (never echoing what they typed).
func (m *form) read(content map[string]any) ([]askuser.Answer, string) {
	var problems []string
	bad := func(q *askuser.Question, why string) {
		problems = append(problems, questionName(q)+": "+why)
	}
	for key := range content {
		if _, ok := m.byName[key]; !ok {
			problems = append(problems, "the reply carries a field the form did not ask for")
			break
		}
	}
	answers := make([]askuser.Answer, len(m.f.Questions))
	for i := range answers {
		answers[i].QuestionID = m.f.Questions[i].ID
	}
	for _, p := range m.props {
		v, ok := content[p.name]
		if !ok || v == nil {
			continue
		}
		q := &m.f.Questions[p.q]
		a := &answers[p.q]
		switch p.role {
		case roleOne:
			s, ok := v.(string)
			if !ok {
				bad(q, "the reply is not one of the options")
				continue
			}
			if s != "" {
				a.Selected = append(a.Selected, s)
			}
		case roleMany:
			items, ok := v.([]any)
			if !ok {
				bad(q, "the reply is not a list of options")
				continue
			}
			for _, it := range items {
				s, ok := it.(string)
				if !ok {
					bad(q, "the list holds something that is not an option")
					break
				}
				a.Selected = append(a.Selected, s)
			}
		case roleFlag:
			on, ok := v.(bool)
			if !ok {
				bad(q, "the reply for an option is not yes or no")
				continue
			}
			if on {
				a.Selected = append(a.Selected, q.Options[p.opt].Value)
			}
		case roleOther, roleText:
			s, ok := v.(string)
			if !ok {
				bad(q, "the reply is not text")
				continue
			}
			a.Other = s
		}
	}
	var out []askuser.Answer
	for i := range answers {
		q := &m.f.Questions[i]
		a := answers[i]
		if len(a.Selected) == 0 && strings.TrimSpace(a.Other) == "" {
			if !q.Optional {
				bad(q, "this question needs an answer")
			}
			continue
		}
		if err := responder.CheckAnswer(m.f, a); err != nil {
			var ae *askuser.AnswerError
			if errors.As(err, &ae) {
				bad(q, ae.Reason)
			} else {
				bad(q, "the answer was refused")
			}
			continue
		}
		out = append(out, a)
	}
	if problems != nil {
		return nil, strings.Join(dedupe(problems), "; ")
	}
	return out, ""
}

// questionName names a question for the person: its header, else its id.
func questionName(q *askuser.Question) string {
	if q.Header != "" {
		return q.Header
	}
	return q.ID
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// obj writes a JSON object with its keys in the order they are set, so
// that a client showing properties in schema order shows the questions in
// the order they were asked.
type obj struct {
	b bytes.Buffer
	n int
}

func (o *obj) key(k string) {
	if o.n == 0 {
		o.b.WriteByte('{')
	} else {
		o.b.WriteByte(',')
	}
	o.n++
	writeString(&o.b, k)
	o.b.WriteByte(':')
}

func (o *obj) str(k, v string) *obj {
	o.key(k)
	writeString(&o.b, v)
	return o
}

func (o *obj) raw(k, v string) *obj {
	o.key(k)
	o.b.WriteString(v)
	return o
}

// title sets the question's header as the title, where it has one.
func (o *obj) title(q *askuser.Question) *obj {
	if q.Header != "" {
		o.str("title", q.Header)
	}
	return o
}

func (o *obj) list(k string, n int, item func(b *bytes.Buffer, i int)) *obj {
	o.key(k)
	o.b.WriteByte('[')
	for i := range n {
		if i > 0 {
			o.b.WriteByte(',')
		}
		item(&o.b, i)
	}
	o.b.WriteByte(']')
	return o
}

func (o *obj) bytes() []byte {
	if o.n == 0 {
		return []byte("{}")
	}
	return append(o.b.Bytes(), '}')
}

// writeString writes s as a JSON string: quotes, backslashes and control
// characters escaped, U+2028 and U+2029 too (as encoding/json does), and
// invalid UTF-8 as U+FFFD.
func writeString(b *bytes.Buffer, s string) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('"')
	if plain(s) {
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x2028 || r == 0x2029:
			b.WriteString(`\u`)
			b.WriteByte(hexDigits[r>>12&0xf])
			b.WriteByte(hexDigits[r>>8&0xf])
			b.WriteByte(hexDigits[r>>4&0xf])
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteRune(r) // utf8.RuneError for invalid bytes
		}
	}
	b.WriteByte('"')
}

// plain reports whether s can be written in a JSON string as it is: valid
// UTF-8 without a quote, a backslash, a control character, U+2028 or
// U+2029.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.ValidString(s) && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
}
