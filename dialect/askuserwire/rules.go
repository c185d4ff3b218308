package askuserwire

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/dialect"
)

func ruleError(msg string) *Error { return &Error{Message: Prefix + msg} }

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// validate checks the contract's rules in their order; the first that
// fails is reported.
func (d *decoder) validate(lim dialect.Limits) *Error {
	n := d.nq
	if n < 1 || n > maxQuestions {
		return ruleError("questions must contain between 1 and 4 items")
	}
	if d.hasTimeout && (d.timeout < 1 || d.timeout > lim.MaxTimeoutSeconds) {
		return ruleError(fmt.Sprintf("timeout_seconds must be between 1 and %d", lim.MaxTimeoutSeconds))
	}
	if utf8.RuneCountInString(d.b.call.HumanIntent) > maxIntentRunes {
		return ruleError("human_intent must not exceed 120 characters")
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
					return ruleError("question ids must be unique; duplicate " + quote(q.ID))
				}
			}
		}
		if blank(q.Header) {
			return ruleError(fmt.Sprintf("question %d header must not be empty", p))
		}
		if utf8.RuneCountInString(q.Header) > maxHeaderRunes {
			return ruleError(fmt.Sprintf("question %d header must not exceed 16 characters", p))
		}
		if blank(q.Question) {
			return ruleError(fmt.Sprintf("question %d text must not be empty", p))
		}
		switch q.Kind {
		case kindSecret:
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
		case kindText:
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
					return ruleError(fmt.Sprintf("question %d option labels must be unique; duplicate %s", p, quote(o.Label)))
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

// normalize rewrites a valid call: ids generated, every default written
// out. It does not stamp the deadlines.
func (d *decoder) normalize(lim dialect.Limits) *Call {
	c := &d.b.call
	qs := d.b.qs[:d.nq:d.nq]
	for i := range qs {
		q, m := &qs[i], &d.meta[i]
		if !m.hasID {
			q.ID = freeID(qs, i)
		}
		end := m.optStart + m.nOpts
		q.Options = d.b.opts[m.optStart:end:end] // empty, not nil, for text and secret
		switch q.Kind {
		case kindChoice:
			if !m.hasAllowOther {
				q.AllowOther = true
			}
		case kindText:
			q.AllowOther, q.MultiSelect = true, false
		case kindSecret:
			q.AllowOther, q.MultiSelect = false, false
		}
	}
	c.Questions = qs
	c.TimeoutSeconds = lim.MaxTimeoutSeconds
	if d.hasTimeout {
		c.TimeoutSeconds = d.timeout
	}
	return c
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
