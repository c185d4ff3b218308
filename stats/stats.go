// Package stats computes decision analytics over a journal's records: how
// many asks there were, how they ended, how long people took to answer,
// how often the person chose the option the question recommended, and how
// often the deadline, or nobody, decided — overall and per tool, question
// header, responder or principal. A team reads from it which questions it
// should stop asking (always answered with the recommendation) and which
// take people long.
//
//	rep := stats.Compute(journal.ReadFile(path), stats.Options{By: stats.ByHeader})
//
// Table writes the report for a terminal; HTML writes it as a
// self-contained page with charts.
package stats

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/recommend"
	"github.com/askuser-go/askuser/journal"
)

// A Dimension is what a report's rows are grouped by.
type Dimension string

// The dimensions a report can be grouped by.
const (
	// ByTool groups asks by the tool contract they came in (ask_user,
	// request_approval, pi-ask, pi; "go" for forms built in Go).
	ByTool Dimension = "tool"
	// ByHeader groups by question header: each question of an ask counts
	// in its header's row, so one ask may count in several rows.
	ByHeader Dimension = "header"
	// ByResponder groups asks by the responder that asked them.
	ByResponder Dimension = "responder"
	// ByPrincipal groups asks by who answered (empty: nobody named).
	ByPrincipal Dimension = "principal"
)

// Dimensions lists the dimensions, in the order the command names them.
func Dimensions() []Dimension { return []Dimension{ByTool, ByHeader, ByResponder, ByPrincipal} }

// ParseDimension returns the dimension named s, or an error naming those
// allowed.
func ParseDimension(s string) (Dimension, error) {
	for _, d := range Dimensions() {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("stats: %q is not a dimension; allowed: tool, header, responder, principal", s)
}

// Options says which records a report reads and how it groups them.
type Options struct {
	// Since keeps only the asks finalized at or after it (zero: all).
	Since time.Time
	// By groups the rows (empty: ByTool).
	By Dimension
}

// A Row is the figures of one group of asks (or, by header, of questions).
type Row struct {
	// Key is the group's value: the tool, header, responder or principal.
	Key string
	// Asks is how many asks the group holds.
	Asks int
	// Status counts the asks by how they ended: answered, declined,
	// cancelled, timed_out.
	Status map[askuser.Status]int
	// AnsweredBy counts the asks by who decided: user, timeout,
	// unattended, policy, remembered.
	AnsweredBy map[askuser.Provenance]int
	// P50, P90 and P99 are the time to answer — from the ask's start to
	// its end — of the asks the person decided (AnsweredBy user), by the
	// nearest-rank method; zero when there are none.
	P50, P90, P99 time.Duration
	// Answered counts the person's answers to questions that recommend an
	// option; Took, those that took the recommendation.
	Answered, Took int
}

// Deadline is how many of the row's asks the deadline decided.
func (r *Row) Deadline() int { return r.AnsweredBy[askuser.ByTimeout] }

// Nobody is how many of the row's asks nobody could be asked.
func (r *Row) Nobody() int { return r.AnsweredBy[askuser.ByUnattended] }

// Agreement is the share of the person's answers to questions with a
// recommendation that took it, from 0 to 1; NaN with no such answer.
func (r *Row) Agreement() float64 {
	if r.Answered == 0 {
		return math.NaN()
	}
	return float64(r.Took) / float64(r.Answered)
}

// A Report is the figures of a journal's asks: in total, and per group.
type Report struct {
	// By is the dimension of Rows.
	By Dimension
	// Since is Options.Since.
	Since time.Time
	// Total is every ask's figures (by header, still one count per ask).
	Total Row
	// Rows are the groups, the most asks first, then by key.
	Rows []Row
	// Skipped counts the records that could not be read (err not nil).
	Skipped int
}

// Compute reads the records and returns their report. A nil record (with
// the error an iterator over a journal yields for a line it cannot read)
// is counted in Skipped.
func Compute(recs iter.Seq2[*journal.Record, error], opts Options) *Report {
	by := opts.By
	if by == "" {
		by = ByTool
	}
	rep := &Report{By: by, Since: opts.Since}
	total := newAcc("")
	groups := map[string]*acc{}
	group := func(k string) *acc {
		g := groups[k]
		if g == nil {
			g = newAcc(k)
			groups[k] = g
		}
		return g
	}
	for rec, err := range recs {
		if err != nil || rec == nil {
			rep.Skipped++
			continue
		}
		if !opts.Since.IsZero() && rec.FinalizedAt.Before(opts.Since) {
			continue
		}
		total.add(rec, nil)
		switch by {
		case ByHeader:
			for i := range rec.Questions {
				q := &rec.Questions[i]
				group(q.Header).add(rec, q)
			}
		case ByResponder:
			group(rec.Responder).add(rec, nil)
		case ByPrincipal:
			group(rec.Principal).add(rec, nil)
		default:
			group(tool(rec)).add(rec, nil)
		}
	}
	rep.Total = total.row()
	for _, g := range groups {
		rep.Rows = append(rep.Rows, g.row())
	}
	slices.SortFunc(rep.Rows, func(a, b Row) int {
		if a.Asks != b.Asks {
			return b.Asks - a.Asks
		}
		return strings.Compare(a.Key, b.Key)
	})
	return rep
}

// Records adapts a slice of records (as natsstore's journal returns
// them) to Compute.
func Records(recs []*journal.Record) iter.Seq2[*journal.Record, error] {
	return func(yield func(*journal.Record, error) bool) {
		for _, r := range recs {
			if !yield(r, nil) {
				return
			}
		}
	}
}

func tool(rec *journal.Record) string {
	if rec.Contract == "" {
		return "go"
	}
	return rec.Contract
}

// acc accumulates a row.
type acc struct {
	r     Row
	waits []time.Duration
}

func newAcc(key string) *acc {
	return &acc{r: Row{Key: key, Status: map[askuser.Status]int{}, AnsweredBy: map[askuser.Provenance]int{}}}
}

// add counts rec; q, when set, restricts the recommendation's count to
// that one question (a row by header).
func (a *acc) add(rec *journal.Record, q *askuser.Question) {
	a.r.Asks++
	a.r.Status[rec.Status]++
	a.r.AnsweredBy[rec.AnsweredBy]++
	if rec.AnsweredBy == askuser.ByUser && !rec.AskedAt.IsZero() && !rec.FinalizedAt.Before(rec.AskedAt) {
		a.waits = append(a.waits, rec.FinalizedAt.Sub(rec.AskedAt))
	}
	f := &askuser.Form{Questions: rec.Questions, Approval: rec.Approval}
	for i := range rec.Answers {
		ans := &rec.Answers[i]
		if ans.By != askuser.ByUser || q != nil && ans.QuestionID != q.ID {
			continue
		}
		aq := f.Question(ans.QuestionID)
		if aq == nil {
			continue
		}
		if recs, took := recommend.Took(f, aq, ans); recs {
			a.r.Answered++
			if took {
				a.r.Took++
			}
		}
	}
}

func (a *acc) row() Row {
	slices.Sort(a.waits)
	a.r.P50, a.r.P90, a.r.P99 = rank(a.waits, 50), rank(a.waits, 90), rank(a.waits, 99)
	return a.r
}

// rank is the p-th percentile of sorted by the nearest-rank method: the
// smallest value with at least p% of the values at or below it.
func rank(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(i, 1)-1]
}
