package askuser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/route"
)

// routing is what an ask keeps of its route, snapshotted when it begins:
// in the Ask, and in its pending record, so that a restart or another
// replica goes on with the same route and the same policy whatever the
// configuration says by then.
type routing struct {
	// Route is the route chosen (Orchestrator.Routes), its groups
	// expanded; nil when only the request's own quorum applies.
	Route *route.Route `json:"route,omitempty"`
	// Quorum is the policy that decides an approval by votes: the
	// request's own, else the route's. Nil for a question, and for an
	// approval the first person decides.
	Quorum *route.Quorum `json:"quorum,omitempty"`
	// Requester and Owner may never approve (see route.Parties).
	Requester string `json:"requester,omitempty"`
	Owner     string `json:"owner,omitempty"`
}

func (rt *routing) parties() route.Parties {
	return route.Parties{Requester: rt.Requester, Owner: rt.Owner}
}

// routeFor chooses the request's route and policy, once, when its ask
// begins, and binds an approval's digest to the policy (see
// route.ActionDigest). It returns nil when the ask is not routed, which
// leaves it exactly as it is without routes. A route or policy that is not
// valid refuses the ask: it is the program's configuration that is wrong,
// and asking without it could let fewer people approve than it says.
func (o *Orchestrator) routeFor(req *Request, d Dialect, form *Form) (rt *routing, err error) {
	var chosen *route.Route
	if o.Routes != nil {
		rr := route.Request{Tool: d.Name(), Session: req.Session}
		if form.Approval != nil {
			rr.Risk = string(form.Approval.Risk)
		}
		r, ok, err := o.selectRoute(rr)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := r.Check(); err != nil {
				return nil, fmt.Errorf("askuser: the route Orchestrator.Routes chose (%q) is not valid: %w", r.Name, err)
			}
			chosen = &r
		}
	}
	who := req.Approvers
	if who == nil {
		who = &route.Approvers{}
	}
	q := who.Quorum
	if q == nil && chosen != nil {
		q = chosen.Quorum
	}
	if q != nil {
		if err := q.Check(); err != nil {
			return nil, fmt.Errorf("askuser: the approval's quorum is not valid: quorum.%w", err)
		}
		cq := cloneQuorum(*q)
		q = &cq
	}
	if form.Approval == nil {
		q = nil // a quorum decides approvals only
	}
	if chosen == nil && q == nil {
		return nil, nil
	}
	if q != nil {
		ap := *form.Approval
		ap.Digest = route.ActionDigest(ap.Action, ap.Details, q)
		form.Approval = &ap
	}
	return &routing{Route: chosen, Quorum: q, Requester: who.Requester, Owner: who.Owner}, nil
}

// selectRoute calls Orchestrator.Routes, containing a panic.
func (o *Orchestrator) selectRoute(rr route.Request) (r route.Route, ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("askuser: Orchestrator.Routes panicked choosing the route of a %s request: %v", rr.Tool, p)
		}
	}()
	r, ok = o.Routes(rr)
	return r, ok, nil
}

func cloneQuorum(q route.Quorum) route.Quorum {
	q.Eligible = slices.Clone(q.Eligible)
	for i := range q.Eligible {
		q.Eligible[i].Members = slices.Clone(q.Eligible[i].Members)
	}
	return q
}

// endingOf says, for route.Decide, how an ask ended otherwise than by its
// votes: nil for an ending the votes made (ReasonSubmitted).
func endingOf(r Reason, expires time.Time) *route.Ending {
	switch r {
	case ReasonSubmitted:
		return nil
	case ReasonDeadline:
		return &route.Ending{How: route.EndDeadline, At: expires}
	case ReasonUnattended:
		return &route.Ending{How: route.EndUnattended}
	case ReasonSuperseded:
		return &route.Ending{How: route.EndSuperseded}
	case ReasonDismissed:
		return &route.Ending{How: route.EndDismissed}
	}
	return &route.Ending{How: route.EndFault}
}

// decisionOf turns a person's pick on an approval question into a vote's
// decision and "for this session" choice.
func decisionOf(sel string) (route.Decision, bool) {
	switch sel {
	case approval.ApproveOnce:
		return route.Approve, false
	case approval.ApproveSession:
		return route.Approve, true
	case approval.DenySession:
		return route.Deny, true
	}
	return route.Deny, false
}

// decisive reports whether v ends the ask: approved or denied.
func decisive(v route.Verdict) bool { return v.Status == route.Approved || v.Status == route.Denied }

// vote takes a person's decision on a routed approval as v — a vote of
// the principal the voting handle was given (empty: not verified, and it
// never counts), by channel via — and re-evaluates the quorum on every vote
// accepted so far: an approved or denied verdict ends the ask
// (ReasonSubmitted), and an open one leaves it open for the others. What
// the person picked is cleared, so that the next person decides for
// themselves.
func (rt *routing) vote(st *askState, v route.Vote, via string, now time.Time) error {
	v.Via, v.At = via, now.UTC()
	votes := append(slices.Clip(st.votes), v)
	verdict, err := route.Decide(*rt.Quorum, rt.parties(), votes, nil)
	if err != nil {
		return err
	}
	st.votes = votes
	st.accepted = nil
	if decisive(verdict) {
		st.end = &ending{reason: ReasonSubmitted}
	}
	return nil
}

// quorumOutcome fills in a routed approval's outcome from its votes: the
// verdict, the answer the deciding votes give, and the principals who
// decided.
func (rt *routing) quorumOutcome(o *Outcome, votes []route.Vote, expires time.Time) {
	v, err := route.Decide(*rt.Quorum, rt.parties(), votes, endingOf(o.Reason, expires))
	if err != nil {
		v = route.Verdict{Status: route.Unresolved, Ended: route.EndFault, Required: rt.Quorum.Required}
	}
	if o.Reason == ReasonSubmitted && !decisive(v) {
		v.Status, v.Ended = route.Unresolved, route.EndFault // cannot happen: only a deciding vote submits
	}
	o.Quorum = &v
	o.Answers = nil
	if !decisive(v) {
		return
	}
	sel := approval.DenyOnce
	switch {
	case v.Status == route.Approved && v.Remember:
		sel = approval.ApproveSession
	case v.Status == route.Approved:
		sel = approval.ApproveOnce
	case v.Remember:
		sel = approval.DenySession
	}
	o.Answers = []FinalAnswer{{QuestionID: approval.QuestionID, Selected: []string{sel}, Note: decidingNote(v), By: ByUser}}
	o.Principal = strings.Join(v.DecidedBy, ", ")
}

// decidingNote is the words of the votes that decided: the veto's, or the
// counted approvers', one line each.
func decidingNote(v route.Verdict) string {
	var notes []string
	for _, cv := range v.Votes {
		if cv.Counted && strings.TrimSpace(cv.Note) != "" && (v.Status == route.Approved) == (cv.Decision == route.Approve) {
			notes = append(notes, strings.TrimSpace(cv.Note))
		}
	}
	return strings.Join(notes, "\n")
}

// answeredVia is the channel of the vote that decided, for the journal.
func answeredVia(v *route.Verdict) string {
	via := ""
	for _, cv := range v.Votes {
		if cv.Counted {
			via = cv.Via
		}
		if cv.Counted && cv.Decision == route.Deny {
			return cv.Via
		}
	}
	return via
}

// stepAt is the step (and pass) of r's plan that had begun by t: the one
// an answer given at t was given in.
func stepAt(r *route.Route, f *Form, t time.Time) *route.Begin {
	var at *route.Begin
	for _, b := range r.Plan(route.Times{Start: f.AskedAt, Nudge: f.NudgeAt, Expires: f.ExpiresAt}) {
		if b.At.After(t) {
			break
		}
		at = &b
	}
	return at
}

// A recordQuorum is what a journal record keeps of the policy that decided
// an approval by votes (journal.RecordQuorum).
type recordQuorum struct {
	// Policy is the quorum, its groups expanded.
	Policy route.Quorum `json:"policy"`
	// Requester and Owner are the parties who could never approve.
	Requester string `json:"requester,omitempty"`
	Owner     string `json:"owner,omitempty"`
	// Required is how many approver places the policy needs; Approvals
	// how many were filled.
	Required  int `json:"required"`
	Approvals int `json:"approvals"`
}

// recordVerdict computes again the verdict of a journal record of an
// approval decided by votes (one with Quorum): route.Decide on its
// policy, its parties, its votes in order, and its ending. It returns nil
// for a record without a quorum.
func recordVerdict(rec *record) (*route.Verdict, error) {
	if rec == nil || rec.Quorum == nil {
		return nil, nil
	}
	votes := make([]route.Vote, len(rec.Votes))
	for i, cv := range rec.Votes {
		votes[i] = cv.Vote
	}
	v, err := route.Decide(rec.Quorum.Policy, route.Parties{Requester: rec.Quorum.Requester, Owner: rec.Quorum.Owner}, votes, endingOf(rec.Reason, rec.ExpiresAt))
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// plan is the ask's route's schedule: every step beginning before its
// deadline (route.Route.Plan), or nil when it takes no route.
func (rt *routing) plan(f *Form) []route.Begin {
	if rt == nil || rt.Route == nil {
		return nil
	}
	return rt.Route.Plan(route.Times{Start: f.AskedAt, Nudge: f.NudgeAt, Expires: f.ExpiresAt})
}

// nextTimer is when an ask's timer comes due: the earlier of its deadline
// and the next step of its route not begun yet (begun of them have).
func (rt *routing) nextTimer(f *Form, begun int) time.Time {
	if plan := rt.plan(f); begun < len(plan) && plan[begun].At.Before(f.ExpiresAt) {
		return plan[begun].At
	}
	return f.ExpiresAt
}

// channel finds the responder a step's channel name reaches:
// Orchestrator.Channels under the whole name ("slack:#ops"), else under
// its kind ("slack").
func (o *Orchestrator) channel(name string) (Responder, bool) {
	if r, ok := o.Channels[name]; ok && r != nil {
		return r, true
	}
	if c, err := route.ParseChannel(name); err == nil && c.Target != "" {
		if r, ok := o.Channels[c.Kind]; ok && r != nil {
			return r, true
		}
	}
	return nil, false
}

// tell shows the ask to the responders of the step b begins: each
// channel the step names, as Orchestrator.Channels resolves it, is given
// a handle on the ask — with the answers and votes so far — as its own
// responder would be (Asked, or Respond until the ask ends). Each channel
// is given a handle of its own, named by the channel as the route names
// it, so that an answer or a vote through it has that via, and Told says
// which step it is. A name the orchestrator has no responder for is
// logged and passed over. hold, when
// set, is called once per responder told, and returns what to call when
// it is done with the ask.
func (o *Orchestrator) tell(a *Ask, b route.Begin, hold func() func()) {
	step := a.rt.Route.Steps[b.Step]
	for _, name := range step.Responders {
		r, ok := o.channel(name)
		if !ok {
			o.logger().Warn("askuser: a route's step names a channel this orchestrator has no responder for (Orchestrator.Channels); it is not told", "ask", a.id, "route", a.rt.Route.Name, "step", b.Step, "channel", name)
			continue
		}
		if a.form.Approval != nil {
			if c, ok := findOptional[ApprovalCapable](r); !ok || !c.CanTakeApprovals() {
				o.logger().Warn("askuser: a route's step names a channel that cannot take approvals; it is not told", "ask", a.id, "channel", name)
				continue
			}
		}
		done := func() {}
		if hold != nil {
			done = hold()
		}
		// A handle of the channel's own: what is answered or voted
		// through it is by this channel (answered_via, a vote's via),
		// its voter is its own, and it says which step told it (Told).
		h := a.channelHandle(name, &route.Told{Channel: name, Begin: b, People: slices.Clone(step.People)})
		o.running.Add(1)
		if ev, ok := findOptional[EventDriven](r); ok {
			a.AfterEnd(done)
			h.notify(ev)
			continue
		}
		ctx, cancel := context.WithDeadline(a.base, a.form.ExpiresAt)
		stop := func() bool { return false }
		if a.fa != nil {
			stop = context.AfterFunc(o.fl.ctx, cancel) // Close stops it, as it stops Responder
		}
		a.AfterEnd(func() { stop(); cancel(); done() })
		go h.run(ctx, r)
	}
}

// escalate begins the later steps of an ask held in this process's
// memory on timers of its own, stopped when the ask ends.
func (o *Orchestrator) escalate(a *Ask) {
	plan := a.rt.plan(a.form)
	var next func(k int)
	next = func(k int) {
		if k >= len(plan) {
			return
		}
		t := time.AfterFunc(time.Until(plan[k].At), func() {
			if a.open() != nil {
				return
			}
			o.tell(a, plan[k], nil)
			next(k + 1)
		})
		a.AfterEnd(func() { t.Stop() })
	}
	next(1)
}
