// Package recommend says whether an answer took the option its question
// recommended: the measure of how often people agree with a model's
// defaults, which telemetry (otelask) and the journal's statistics (stats)
// both report.
package recommend

import (
	"slices"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// Took reports whether q recommends an option — a choice question with
// declared defaults (the options marked default, else the first), not
// sealed, on a form that is not an approval — and, when it does and ans
// is its answer, whether ans picked exactly the recommended options and
// wrote no free text. A nil ans took nothing.
func Took(f *askuser.Form, q *askuser.Question, ans *askuser.FinalAnswer) (recommends, took bool) {
	if f != nil && f.Approval != nil || responder.Sealed(q) {
		return false, false
	}
	def := responder.DeclaredDefaults(q)
	if def == nil {
		return false, false
	}
	if ans == nil || ans.Other != "" || len(ans.Selected) != len(def) {
		return true, false
	}
	for _, v := range ans.Selected {
		if !slices.Contains(def, v) {
			return true, false
		}
	}
	return true, true
}

// Count returns, over the answered questions of a finalized ask that
// recommend an option, how many answers there were and how many took the
// recommendation. by, when not empty, counts only the answers of that
// provenance.
func Count(f *askuser.Form, answers []askuser.FinalAnswer, by askuser.Provenance) (answered, took int) {
	if f == nil {
		return 0, 0
	}
	for i := range answers {
		a := &answers[i]
		if by != "" && a.By != by {
			continue
		}
		q := f.Question(a.QuestionID)
		if q == nil {
			continue
		}
		if rec, ok := Took(f, q, a); rec {
			answered++
			if ok {
				took++
			}
		}
	}
	return answered, took
}
