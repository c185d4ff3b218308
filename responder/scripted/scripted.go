// Package scripted provides a responder that replays a script: answers,
// drafts and an ending, each after an optional delay. Tests use it to drive
// every row of askuser's outcome table, and the askuser command uses it for
// --responder script=FILE.
//
// A Responder runs its Steps in order for every ask it is given. Each step
// waits its Delay (returning early when the ask's context ends, unless
// IgnoreContext is set), then does one thing: reports an answer or a draft,
// records a principal, ends the ask, returns an error, or panics. A refused
// answer is recorded in Reports and the script goes on; a refused ending is
// returned as Respond's error, which the orchestrator treats as a responder
// fault. A script without an ending waits for the ask's context to end, as
// a person who never submits.
//
// A Responder takes approvals (it implements askuser.ApprovalCapable): the
// script is the person, so it approves or denies what it is written to —
// see Decide, and File's approval field — and nothing else. A script
// written for questions that picks the first option would approve, so give
// approvals a script of their own.
package scripted

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// End is how a step ends the ask.
type End string

// The endings a script can give.
const (
	EndNone        End = ""            // the step ends nothing
	EndSubmit      End = "submit"      // Ask.Submit
	EndDecline     End = "decline"     // Ask.Decline
	EndCancel      End = "cancel"      // Ask.Cancel, on CancelOn
	EndSupersede   End = "supersede"   // the embedding program supersedes (Responder.Supersede)
	EndUnreachable End = "unreachable" // Ask.Unreachable
)

// A Step is one thing the script does, after Delay.
type Step struct {
	// Delay is how long to wait before the step.
	Delay time.Duration
	// Answer, when set, is reported with Ask.Answer. A secret value in it is
	// copied for each ask, so the script can be replayed. An answer to a
	// secret or sensitive question given as a selection or as text is
	// handed over as a secret value (see responder.ChoiceSecret).
	Answer *askuser.Answer
	// Labels name more options of Answer by label rather than by value: each
	// becomes the value of the first option with that label (or stays as
	// given, to be refused, when no option has it), after Answer.Selected.
	Labels []string
	// LabelNotes are notes on selected options of Answer, by label.
	LabelNotes map[string]string
	// Draft, when set, is reported with Ask.Draft.
	Draft *askuser.Answer
	// ClearDraft, when set, is the question whose draft is forgotten: a
	// Draft of nothing for it (Ask.Draft).
	ClearDraft string
	// Principal, when set, is recorded with Ask.SetPrincipal.
	Principal string
	// End, when set, ends the ask.
	End End
	// CancelOn is the question the person was on for EndCancel; empty means
	// the first question without an accepted answer.
	CancelOn string
	// Err, when set, is returned from Respond at this step.
	Err error
	// Panic, when non-nil, is what Respond panics with at this step.
	Panic any

	position int // 1-based question position for an answer without an id
}

// A Report is what happened to one step of one ask.
type Report struct {
	// AskID is the ask the step ran for.
	AskID string
	// Step is the step's index.
	Step int
	// Err is what the orchestrator said: nil when the report or the
	// ending was accepted.
	Err error
}

// Responder replays Steps for every ask.
type Responder struct {
	// Steps run in order.
	Steps []Step
	// IgnoreContext makes delays ignore the ask's context, as a responder
	// that keeps going after the deadline would.
	IgnoreContext bool
	// Supersede is called for EndSupersede with the ask's session; the
	// askuser command passes Orchestrator.Supersede. Nil makes
	// EndSupersede a fault.
	Supersede func(session string) int
	// Name names the responder in the journal (default "script").
	Name string
	// Principal, when set, is recorded with Ask.SetPrincipal on every ask
	// before the first step (a step's own Principal replaces it), so that
	// the journal says a script answered, not a person: the command's
	// script=FILE sets it to ScriptPrincipal.
	Principal string

	mu      sync.Mutex
	reports []Report
}

// New returns a responder that replays steps.
func New(steps ...Step) *Responder { return &Responder{Steps: steps} }

// ResponderName names the responder in the journal.
func (r *Responder) ResponderName() string {
	if r.Name != "" {
		return r.Name
	}
	return "script"
}

// CanTakeApprovals reports true: the script plays the person, and decides
// an approval only as it is written to (see Decide).
func (r *Responder) CanTakeApprovals() bool { return true }

// Decide returns the step of a person who decides an approval: it reports
// decision (approval.ApproveOnce, ApproveSession, DenyOnce or DenySession)
// with their note as the answer to the approval's question, and submits.
func Decide(decision, note string) Step {
	return Step{
		Answer: &askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{decision}, Note: note},
		End:    EndSubmit,
	}
}

// Reports returns what happened to every step that ran, in order.
func (r *Responder) Reports() []Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Report(nil), r.reports...)
}

// Refused returns the errors of the steps that were refused.
func (r *Responder) Refused() []error {
	var errs []error
	for _, rep := range r.Reports() {
		if rep.Err != nil {
			errs = append(errs, rep.Err)
		}
	}
	return errs
}

func (r *Responder) record(a *askuser.Ask, i int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reports = append(r.reports, Report{AskID: a.ID(), Step: i, Err: err})
}

// ScriptPrincipal is the principal of a script that stands in for a
// person: never a person's name, so that no record or consent made by a
// script reads as one a person made.
const ScriptPrincipal = "script"

// Respond runs the script for one ask.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	if r.Principal != "" {
		a.SetPrincipal(r.Principal)
	}
	for i, s := range r.Steps {
		if s.Delay > 0 {
			if r.IgnoreContext {
				time.Sleep(s.Delay)
			} else {
				t := time.NewTimer(s.Delay)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				}
			}
		}
		if s.Principal != "" {
			a.SetPrincipal(s.Principal)
		}
		if s.Answer != nil {
			ans := fresh(*s.Answer)
			if s.position > 0 && s.position <= len(a.Form().Questions) {
				ans.QuestionID = a.Form().Questions[s.position-1].ID
			}
			r.record(a, i, a.Report(sealed(a.Form(), byLabel(a.Form(), ans, s.Labels, s.LabelNotes))))
		}
		if s.Draft != nil {
			r.record(a, i, a.Draft(fresh(*s.Draft)))
		}
		if s.ClearDraft != "" {
			r.record(a, i, a.Draft(askuser.Answer{QuestionID: s.ClearDraft}))
		}
		if s.Panic != nil {
			panic(s.Panic)
		}
		if s.Err != nil {
			return s.Err
		}
		if s.End != EndNone {
			err := r.end(a, s)
			r.record(a, i, err)
			return err
		}
	}
	if r.IgnoreContext {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (r *Responder) end(a *askuser.Ask, s Step) error {
	switch s.End {
	case EndSubmit:
		return a.Submit()
	case EndDecline:
		return a.Decline()
	case EndCancel:
		on := s.CancelOn
		if on == "" {
			on = firstUnanswered(a)
		}
		return a.Cancel(on)
	case EndUnreachable:
		return a.Unreachable()
	case EndSupersede:
		if r.Supersede == nil {
			return fmt.Errorf("scripted: the script supersedes the ask, but the responder has no Supersede function")
		}
		if r.Supersede(a.Session()) == 0 {
			return askuser.ErrAskEnded
		}
		return nil
	}
	return fmt.Errorf("scripted: unknown ending %q; allowed: submit, decline, cancel, supersede, unreachable", s.End)
}

// fresh copies an answer so that the orchestrator's wiping of its secret
// leaves the script replayable.
func fresh(a askuser.Answer) askuser.Answer {
	if !a.Secret.Empty() {
		b := a.Secret.Reveal()
		a.Secret = secret.New(b)
		clear(b)
	}
	return a
}

// sealed hands an answer to a secret or sensitive question over as a
// secret value, as a responder must: the text as typed, or a choice as
// responder.ChoiceSecret makes it. An answer that already carries a secret
// value, or that says nothing, is left as it is.
func sealed(c *askuser.Form, ans askuser.Answer) askuser.Answer {
	q := c.Question(ans.QuestionID)
	if q == nil || !responder.Sealed(q) || !ans.Secret.Empty() || (len(ans.Selected) == 0 && ans.Other == "") {
		return ans
	}
	if q.Kind == askuser.KindChoice {
		ans.Secret = responder.ChoiceSecret(q, ans.Selected, ans.Other)
	} else {
		ans.Secret = secret.FromString(ans.Other)
	}
	ans.Selected, ans.Other = nil, ""
	return ans
}

// byLabel adds the options named by label to the answer's selection and
// notes.
func byLabel(c *askuser.Form, ans askuser.Answer, labels []string, notes map[string]string) askuser.Answer {
	if len(labels) == 0 && len(notes) == 0 {
		return ans
	}
	q := c.Question(ans.QuestionID)
	value := func(label string) string {
		if q != nil {
			for _, o := range q.Options {
				if o.Label == label {
					return o.Value
				}
			}
		}
		return label
	}
	ans.Selected = append(append([]string(nil), ans.Selected...), mapSlice(labels, value)...)
	if len(notes) > 0 {
		m := make(map[string]string, len(ans.OptionNotes)+len(notes))
		for k, v := range ans.OptionNotes {
			m[k] = v
		}
		for label, n := range notes {
			m[value(label)] = n
		}
		ans.OptionNotes = m
	}
	return ans
}

func mapSlice(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

func firstUnanswered(a *askuser.Ask) string {
	answered := map[string]bool{}
	for _, ans := range a.Accepted() {
		answered[ans.QuestionID] = true
	}
	for _, q := range a.Form().Questions {
		if !answered[q.ID] {
			return q.ID
		}
	}
	return ""
}

var (
	_ askuser.Responder       = (*Responder)(nil)
	_ askuser.Named           = (*Responder)(nil)
	_ askuser.ApprovalCapable = (*Responder)(nil)
)
