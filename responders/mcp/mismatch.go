package mcpresponder

import (
	"strconv"
	"strings"

	"github.com/askuser-go/askuser"
)

// mismatchFallback is what the person is told when the SDK refused a
// reply for a reason that names none of the form's fields.
const mismatchFallback = "the reply did not match the form; answer each question with what it offers"

// refusedFields reads the SDK's refusal of a reply that does not match the
// form's schema (the JSON Schema validator's message), and returns, of the
// given property names, those it names: a property whose value failed its
// schema ("validating /properties/NAME…"), and, in missing, the required
// properties the reply left out. Only the names are taken from the
// message, never what it quotes of the reply.
func refusedFields(msg string, names []string) (bad, missing []string) {
	req := ""
	if i := strings.Index(msg, "missing properties: ["); i >= 0 {
		req = msg[i:]
		if j := strings.IndexByte(req, ']'); j >= 0 {
			req = req[:j+1]
		}
	}
	for _, n := range names {
		p := "/properties/" + pointerToken(n)
		if strings.Contains(msg, p+":") || strings.Contains(msg, p+"/") {
			bad = append(bad, n)
		}
		if req != "" && strings.Contains(req, strconv.Quote(n)) {
			missing = append(missing, n)
		}
	}
	return bad, missing
}

// pointerToken escapes a property name as a JSON Pointer token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// mismatch says, for the person, what the SDK refused of the last reply:
// the question each refused field answers, and what it allows.
func (m *form) mismatch(err error) string {
	names := make([]string, len(m.props))
	for i, p := range m.props {
		names[i] = p.name
	}
	bad, missing := refusedFields(err.Error(), names)
	var problems []string
	for _, n := range missing {
		problems = append(problems, questionName(&m.f.Questions[m.props[m.byName[n]].q])+": this question needs an answer")
	}
	for _, n := range bad {
		p := m.props[m.byName[n]]
		q := &m.f.Questions[p.q]
		problems = append(problems, questionName(q)+": "+allowed(q, p))
	}
	if problems == nil {
		return mismatchFallback
	}
	return strings.Join(dedupe(problems), "; ")
}

// allowed says what a property of the form takes.
func allowed(q *askuser.Question, p prop) string {
	switch p.role {
	case roleOne:
		return "the reply is not one of the options; choose one of " + labels(q)
	case roleMany:
		return "the reply is not a list of the options; pick from " + labels(q) + ", each at most once"
	case roleFlag:
		return "the reply for " + strconv.Quote(q.Options[p.opt].Label) + " is not yes or no"
	case roleOther:
		if len(q.Options) == 0 {
			return "the reply is not text; type your answer"
		}
		other := q.OtherLabel
		if other == "" {
			other = "Something else"
		}
		return "the reply in “" + other + "” is not text; type your own answer there, or pick from " + labels(q)
	}
	return "the reply is not text; type your answer"
}

// labels lists a question's options as the person sees them.
func labels(q *askuser.Question) string {
	ls := make([]string, len(q.Options))
	for i := range q.Options {
		ls[i] = strconv.Quote(q.Options[i].Label)
	}
	return strings.Join(ls, ", ")
}

// mismatch says, for the person, what the SDK refused of the last reply
// to an approval's form: the field and what it takes.
func (m *approvalForm) mismatch(err error) string {
	names := []string{fieldApprove, fieldRemember, fieldNote}
	if m.irreversible {
		names = append(names, fieldConfirm)
	}
	bad, missing := refusedFields(err.Error(), names)
	title := map[string]string{fieldApprove: titleApprove, fieldConfirm: titleConfirm, fieldRemember: titleRemember, fieldNote: titleNote}
	takes := map[string]string{
		fieldApprove:  "needs yes or no",
		fieldConfirm:  "needs text: type approve to approve, or anything else to deny",
		fieldRemember: "needs yes or no",
		fieldNote:     "needs text",
	}
	var problems []string
	for _, n := range append(missing, bad...) {
		problems = append(problems, title[n]+": "+takes[n])
	}
	if problems == nil {
		return mismatchFallback
	}
	return strings.Join(dedupe(problems), "; ")
}
