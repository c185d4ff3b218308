package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
)

// summary says how an ask ended, what was applied and who decided each
// answer, from its final outcome. Everything in it that came from the
// call or the person is made inert.
func summary(o *askuser.Outcome) string {
	if o == nil {
		return "The ask has ended."
	}
	if o.Form != nil && o.Form.Approval != nil {
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
			if items == "" {
				return "Time is up: nothing was applied."
			}
			return "Time is up: " + items
		}
		if items == "" {
			return "Time is up: nothing was applied; the ask ends unanswered."
		}
		return "Time is up: nothing more was applied; the ask ends with your answers: " + items
	case askuser.ReasonDismissed:
		return kept("Cancelled")
	case askuser.ReasonDeclined:
		return "Declined: nothing you answered is passed on."
	case askuser.ReasonSuperseded:
		return kept("Withdrawn by the program")
	case askuser.ReasonUnattended:
		if o.Status == askuser.StatusAnswered && items != "" {
			return "Nobody could be asked: " + items
		}
		return "Nobody could be asked; the ask ends unanswered."
	case askuser.ReasonCaller:
		return "The agent stopped waiting; nothing is passed on."
	case askuser.ReasonFault:
		return kept("The ask failed")
	}
	return kept("The ask ended (" + inert.Line(string(o.Reason)) + ")")
}

// answerList lists final answers as "Header → value", with who decided
// each when who is set.
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
			vals = append(vals, "sealed as "+inert.Line(f.SecretRef))
		}
		if len(vals) == 0 && strings.TrimSpace(f.Note) != "" {
			vals = append(vals, "a note")
		}
		item := inert.Line(q.Header) + " → " + strings.Join(vals, " + ")
		if who {
			switch f.Source {
			case askuser.SourcePerson:
				item += " (your answer)"
			case askuser.SourceDefault:
				item += " (recommended, applied at the deadline)"
			case askuser.SourceDraft:
				item += " (your unconfirmed pick)"
			}
		}
		items = append(items, item)
	}
	return strings.Join(items, ", ")
}

// labels names option values by their labels, in the order given, joined
// with ", "; a value no option has is shown as it is. All are made inert.
func labels(q *askuser.Question, values []string) string {
	var ls []string
	for _, v := range values {
		if o := q.Option(v); o != nil {
			ls = append(ls, inert.Line(o.Label))
		} else {
			ls = append(ls, inert.Line(v))
		}
	}
	return strings.Join(ls, ", ")
}

// quoted shows text in double quotes, made inert.
func quoted(s string) string { return `"` + inert.Line(s) + `"` }

// countdown is the line shown from the form's NudgeAt: the time left and
// what the deadline will do to the questions the person has not
// confirmed, as the orchestrator will (a draft where the rule keeps one,
// the recommended options where there are some; otherwise the ask ends
// without an answer to that question).
func countdown(av *askView, now time.Time) string {
	left := int(math.Ceil(av.f.ExpiresAt.Sub(now).Seconds()))
	if left < 0 {
		left = 0
	}
	head := fmt.Sprintf("⏳ %d s left", left)
	if av.ap != nil {
		return head + ": at the deadline nothing is decided, and your agent has no permission."
	}
	var fills []string
	confirmed := false
	for _, qs := range av.qs {
		q := qs.q
		if qs.held {
			confirmed = true
			continue
		}
		switch {
		case q.OnDeadline == askuser.DeadlineNothing:
			continue
		case q.OnDeadline == askuser.DeadlineDraft && !q.Sealed() && !qs.draftAnswer().empty():
			fills = append(fills, inert.Line(q.Header)+" → your unconfirmed pick")
			continue
		}
		if d := q.DeclaredDefaults(); d != nil {
			fills = append(fills, inert.Line(q.Header)+" → "+labels(q, d))
			continue
		}
		what := ": " + inert.Line(q.Header) + " has no recommended answer, so at the deadline nothing more is applied"
		if confirmed || anyHeld(av) {
			what += " (what you confirmed is kept)"
		}
		return head + what + "."
	}
	if len(fills) == 0 {
		return head + "."
	}
	return head + ": at the deadline " + strings.Join(fills, ", ") + " will be applied."
}

func anyHeld(av *askView) bool {
	return slices.ContainsFunc(av.qs, func(qs *qstate) bool { return qs.held })
}
