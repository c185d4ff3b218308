package tui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
)

// words are the card's own words in what termtext says: its person
// cancels an ask with a Cancel button or Esc, and an answer's labels are
// joined with ", ", as the review tab lists them.
var words = termtext.Words{Dismissed: "Cancelled", LabelSep: ", "}

// summary says how an ask ended, what was applied and who decided each
// answer, from its final outcome; an approval's names its action.
// Everything in it that came from the call or the person is made inert.
func summary(o *askuser.Outcome) string {
	if _, ok := approvaltool.VerdictOf(o); ok {
		return approvalSummary(o)
	}
	return termtext.Summary(o, words)
}

// labels names option values by their labels, in option order, joined
// as words says, made inert.
func labels(q *askuser.Question, values []string) string {
	return termtext.Labels(q, values, words.LabelSep)
}

// quoted shows text in double quotes, made inert.
func quoted(s string) string { return termtext.Quoted(s) }

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
		case q.OnDeadline == askuser.FallbackNothing:
			continue
		case q.OnDeadline == askuser.FallbackDraft && !responder.Sealed(q) && !qs.draftAnswer().empty():
			fills = append(fills, inert.Line(q.Header)+" → your unconfirmed pick")
			continue
		}
		if d := responder.DeclaredDefaults(q); d != nil {
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
