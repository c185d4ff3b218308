package stdio

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
)

// countdown is the line shown at NudgeAt: the time left, and what the
// deadline will apply to the questions still unanswered (as the
// orchestrator does: the declared defaults, or nothing and a decline when
// a question has none).
func (s *asking) countdown() string {
	left := int(math.Ceil(time.Until(s.call.ExpiresAt).Seconds()))
	if s.call.Approval != nil {
		return fmt.Sprintf("⏳ %d s left: at the deadline nothing is decided, and your agent has no permission", left)
	}
	answered := map[string]bool{}
	for _, a := range s.a.Accepted() {
		answered[a.QuestionID] = true
	}
	var parts, applied []string
	for i := range s.call.Questions {
		q := &s.call.Questions[i]
		if answered[q.ID] {
			continue
		}
		d := q.DeclaredDefaults()
		if d == nil || q.OnDeadline == askuser.DeadlineNothing {
			what := "nothing will be applied; the question will be declined"
			if len(s.call.Questions) > 1 {
				what = "nothing will be applied; the questions will be declined"
			}
			if len(answered) > 0 {
				what += " (your answers so far are kept)"
			}
			return fmt.Sprintf("⏳ %d s left: at the deadline, %s", left, what)
		}
		applied = append(applied, labels(q, d))
		parts = append(parts, inert.Line(q.Header)+" → "+applied[len(applied)-1])
	}
	switch len(parts) {
	case 0:
		return fmt.Sprintf("⏳ %d s left", left)
	case 1:
		return fmt.Sprintf("⏳ %d s left: at the deadline, %s will be applied", left, applied[0])
	}
	return fmt.Sprintf("⏳ %d s left: at the deadline, the defaults will be applied: %s", left, strings.Join(parts, ", "))
}

// summary says how the ask ended and what was applied, from its outcome.
func summary(o *askuser.Outcome) string {
	if o == nil {
		return "The ask has ended."
	}
	if o.Form.Approval != nil {
		return approvalSummary(o)
	}
	items := answerList(o, o.Reason != askuser.ReasonSubmitted)
	kept := func(lead string) string {
		if items == "" {
			return lead + "; no answer was given."
		}
		return lead + "; kept: " + items
	}
	switch o.Reason {
	case askuser.ReasonSubmitted:
		if items == "" {
			return "Submitted, with no answers."
		}
		return "Submitted: " + items
	case askuser.ReasonDeadline:
		if o.Status == askuser.StatusTimedOut {
			return "Time is up: " + items
		}
		if items == "" {
			return "Time is up: nothing was applied; the call is declined."
		}
		return "Time is up: nothing was applied; the call is declined, with your answers: " + items
	case askuser.ReasonDismissed:
		return kept("Dismissed")
	case askuser.ReasonDeclined:
		return "Declined."
	case askuser.ReasonSuperseded:
		return kept("Withdrawn by the program")
	case askuser.ReasonUnattended:
		if o.Status == askuser.StatusAnswered && items != "" {
			return "Nobody could be asked: " + items
		}
		return "Nobody could be asked; the call is declined."
	case askuser.ReasonCaller:
		return "The agent stopped waiting; nothing is passed on."
	}
	return kept("The ask ended (" + inert.Line(string(o.Reason)) + ")")
}

// answerList lists the final answers as "Header → value (who)".
func answerList(o *askuser.Outcome, who bool) string {
	var items []string
	for _, f := range o.Answers {
		q := o.Form.Question(f.QuestionID)
		if q == nil {
			continue
		}
		var vals []string
		if len(f.Selected) > 0 {
			vals = append(vals, labels(q, f.Selected))
		}
		if t := strings.TrimSpace(f.Other); t != "" {
			vals = append(vals, quoted(t))
		}
		if f.SecretRef != "" {
			vals = append(vals, inert.Line(f.SecretRef))
		}
		item := inert.Line(q.Header) + " → " + strings.Join(vals, " + ")
		if who {
			switch f.Source {
			case askuser.SourcePerson:
				item += " (your answer)"
			case askuser.SourceDefault:
				item += " (default)"
			case askuser.SourceDraft:
				item += " (your draft)"
			}
		}
		items = append(items, item)
	}
	return strings.Join(items, ", ")
}

// labels names option values by their labels, in option order, joined
// with " + "; a value no option has is shown as it is, last. All are made
// inert.
func labels(q *askuser.Question, values []string) string {
	var ls []string
	for _, o := range q.Options {
		if slices.Contains(values, o.Value) {
			ls = append(ls, inert.Line(o.Label))
		}
	}
	for _, v := range values {
		if q.Option(v) == nil {
			ls = append(ls, inert.Line(v))
		}
	}
	return strings.Join(ls, " + ")
}

// quoted shows free text (typed by the person, or a prefill) in double
// quotes, made inert. A quote inside is shown as it is, as inert shows a
// backslash: the text is for reading, and nothing in it can act on the
// terminal.
func quoted(s string) string {
	return `"` + inert.Line(s) + `"`
}
