// Package termtext words, for a person at a terminal, how an ask ended:
// the summary of an outcome ("Submitted: Env → production", "Time is up:
// nothing was applied; the ask ends unanswered.", "Nobody could be asked:
// …"), the verdict of an approval ("Denied for the rest of this
// session"), an action's risk in words, and the pieces these are made of —
// an answer's option labels and its free text in quotes. The line-based
// responder (responders/stdio) and the full-screen card (responders/tui)
// both print it, so that the same ending reads the same on either; the
// little they word differently on purpose (what the person's dismissing
// is called, how one answer's labels are joined) is given in Words, and
// what only one of them shows (the card names the approved action) is
// added by that responder. It also reads the one thing both take the same
// way from the keyboard: the numbers typed at a choice (Picks). Everything
// in the result that a model wrote or
// a person typed — headers, labels, values, free text, secret references,
// notes, reasons — goes through internal/inert first, so nothing in it
// can act on the terminal: the text is made inert by construction, not by
// the caller.
package termtext

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/responder"
)

// Words are what a responder words its own way, to match what its person
// sees and does. The zero value words it as the line-based responder does.
type Words struct {
	// Dismissed leads the summary of an ask the person dismissed: what
	// the responder calls what the person did ("Cancelled" on a card with
	// a Cancel button). Empty means "Dismissed".
	Dismissed string
	// LabelSep joins the labels of several options picked for one
	// question. Empty means " + ".
	LabelSep string
}

func (w Words) dismissed() string {
	if w.Dismissed == "" {
		return "Dismissed"
	}
	return w.Dismissed
}

func (w Words) labelSep() string {
	if w.LabelSep == "" {
		return " + "
	}
	return w.LabelSep
}

// Summary says how an ask ended, what was applied and, unless the person
// submitted, who decided each answer ("your answer", "recommended",
// "your unconfirmed pick"), from its final outcome; nil is an ask whose
// outcome is not known. An approval's outcome is worded by Verdict, with a
// full stop.
func Summary(o *askuser.Outcome, w Words) string {
	if o == nil {
		return "The ask has ended."
	}
	if v, ok := approvaltool.VerdictOf(o); ok {
		return Verdict(v) + "."
	}
	items := answerList(o, o.Reason != askuser.ReasonSubmitted, w.labelSep())
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
		switch {
		case o.Status == askuser.StatusTimedOut && items == "":
			return "Time is up: nothing was applied."
		case o.Status == askuser.StatusTimedOut:
			return "Time is up: " + items
		case items == "":
			return "Time is up: nothing was applied; the ask ends unanswered."
		}
		return "Time is up: nothing more was applied; the ask ends with your answers: " + items
	case askuser.ReasonDismissed:
		return kept(w.dismissed())
	case askuser.ReasonDeclined:
		if items == "" {
			return "Declined: nothing you answered is passed on."
		}
		return "Declined; kept: " + items // a call that keeps answers on a decline (Form.DeclineKeepsAnswers)
	case askuser.ReasonSuperseded:
		return kept("Withdrawn by the program")
	case askuser.ReasonUnattended:
		switch {
		case o.Status == askuser.StatusAnswered && items != "":
			return "Nobody could be asked: " + items
		case items != "":
			return "Nobody could be asked; the ask ends with your answers: " + items
		}
		return "Nobody could be asked; the ask ends unanswered."
	case askuser.ReasonCaller:
		return "The agent stopped waiting; nothing is passed on."
	case askuser.ReasonFault:
		return kept("The ask failed")
	}
	return kept("The ask ended (" + inert.Line(string(o.Reason)) + ")")
}

// answerList lists the final answers as "Header → value", joined with
// ", ", with who decided each when who is set. An answer's labels are
// joined with sep, and its labels, free text and secret reference with
// " + ".
func answerList(o *askuser.Outcome, who bool, sep string) string {
	if o.Form == nil {
		return ""
	}
	var items []string
	for _, f := range o.Answers {
		q := o.Form.Question(f.QuestionID)
		if q == nil {
			continue
		}
		var vals []string
		if len(f.Selected) > 0 {
			vals = append(vals, Labels(q, f.Selected, sep))
		}
		if t := strings.TrimSpace(f.Other); t != "" {
			vals = append(vals, Quoted(t))
		}
		if f.SecretRef != "" {
			vals = append(vals, "sealed as "+inert.Line(f.SecretRef))
		}
		if len(vals) == 0 && strings.TrimSpace(f.Note) != "" {
			vals = append(vals, "a note")
		}
		item := inert.Line(q.Header) + " → " + strings.Join(vals, " + ")
		if who {
			switch {
			case f.By == askuser.ByUser:
				item += " (your answer)"
			case f.Draft:
				item += " (your unconfirmed pick)"
			case f.By == askuser.ByTimeout || f.By == askuser.ByUnattended:
				if o.Reason == askuser.ReasonDeadline {
					item += " (recommended, applied at the deadline)"
				} else {
					item += " (recommended)"
				}
			}
		}
		items = append(items, item)
	}
	return strings.Join(items, ", ")
}

// Verdict says how an approval ended, from its verdict, as a phrase with
// no full stop: who decided what, and for how long ("Approved, this
// once", "Denied by the program's policy"), or, when nobody decided, why
// and that the agent has no permission ("Time is up: nothing was decided,
// and your agent has no permission"). A responder that names the action
// adds it after ": " to a decision, after " for: " to no decision.
func Verdict(v approvaltool.Verdict) string {
	switch v.Status {
	case approval.Approved, approval.Denied:
		word := "Approved"
		if v.Status == approval.Denied {
			word = "Denied"
		}
		switch {
		case v.DecidedBy == askuser.ByRemembered:
			return word + ", as you decided earlier in this session"
		case v.DecidedBy == askuser.ByPolicy:
			return word + " by the program's policy"
		case v.Remember:
			return word + " for the rest of this session"
		case v.Status == approval.Approved:
			return "Approved, this once"
		}
		return "Denied"
	}
	const none = ": nothing was decided, and your agent has no permission"
	switch v.Ended {
	case askuser.ReasonDeadline:
		return "Time is up" + none
	case askuser.ReasonDismissed:
		return "Dismissed" + none
	case askuser.ReasonSuperseded:
		return "Withdrawn by the program" + none
	case askuser.ReasonUnattended:
		return "Nobody could be asked" + none
	case askuser.ReasonCaller:
		return "The agent stopped waiting" + none
	}
	return "The ask failed" + none
}

// Risk says how much harm an action can do, in words and marks, loudest
// for what cannot be undone, so that it reads without colour; a risk it
// does not know is shown as it is, made inert.
func Risk(r approval.Risk) string {
	switch r {
	case approval.RiskIrreversible:
		return "!!! Risk: IRREVERSIBLE: this cannot be undone !!!"
	case approval.RiskHigh:
		return "!! Risk: HIGH"
	case approval.RiskMedium:
		return "Risk: medium"
	case approval.RiskLow:
		return "Risk: low"
	}
	return "Risk: " + inert.Line(string(r))
}

// Labels names option values by their labels, in option order (the order
// the person saw them in, whatever order they were picked in), joined with
// sep; a value no option has is shown as it is, last. All are made inert.
func Labels(q *askuser.Question, values []string, sep string) string {
	ls := make([]string, 0, len(values))
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
	return strings.Join(ls, sep)
}

// Quoted shows free text (typed by the person, or a prefill) in double
// quotes, made inert. A quote inside is shown as it is, as inert shows a
// backslash: the text is for reading, and nothing in it can act on the
// terminal.
func Quoted(s string) string {
	return `"` + inert.Line(s) + `"`
}

// Picks reads the numbers typed at a choice: one, or for a multi-select
// several separated by commas or white space, each written in ASCII digits
// alone (no sign). It returns the options picked (0-based, in the order
// typed) and whether the free-text row, numbered after the options where
// the question allows free text, was picked; ok is false for input that
// is not accepted (a number twice, out of range, or several for a single
// choice). Nothing typed picks nothing.
func Picks(q *askuser.Question, typed string) (picks []int, other, ok bool) {
	fields := strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(fields) > 1 && !q.MultiSelect {
		return nil, false, false
	}
	seen := map[int]bool{}
	for _, f := range fields {
		if strings.Trim(f, "0123456789") != "" {
			return nil, false, false
		}
		n, err := strconv.Atoi(f)
		if err != nil || seen[n] {
			return nil, false, false
		}
		seen[n] = true
		switch {
		case n >= 1 && n <= len(q.Options):
			picks = append(picks, n-1)
		case n == len(q.Options)+1 && responder.FreeText(q):
			other = true
		default:
			return nil, false, false
		}
	}
	return picks, other, true
}
