package stdio

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
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
		d := responder.DeclaredDefaults(q)
		if d == nil || q.OnDeadline == askuser.FallbackNothing {
			what := "nothing will be applied; the question will be declined"
			if len(s.call.Questions) > 1 {
				what = "nothing will be applied; the questions will be declined"
			}
			if len(answered) > 0 {
				what += " (your answers so far are kept)"
			}
			return fmt.Sprintf("⏳ %d s left: at the deadline, %s", left, what)
		}
		applied = append(applied, termtext.Labels(q, d, words.LabelSep))
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

// words are the line-based responder's own words in what termtext says:
// its person dismisses an ask by ending the input or interrupting it, and
// an answer's labels are joined with " + ".
var words = termtext.Words{Dismissed: "Dismissed", LabelSep: " + "}

// summary says how the ask ended and what was applied, from its outcome.
func summary(o *askuser.Outcome) string {
	if _, ok := approvaltool.VerdictOf(o); ok {
		return approvalSummary(o)
	}
	return termtext.Summary(o, words)
}

// quoted shows free text in double quotes, made inert.
func quoted(s string) string { return termtext.Quoted(s) }
