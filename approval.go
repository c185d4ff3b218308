package askuser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/builtin"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// An approval asks a person for permission to act ("May I delete this
// bucket?"). It is a form of one question of KindApproval, built by
// approvaltool.Form, and it never decides by itself: the deadline, nobody to
// ask, a responder fault, a supersede or a dismissal leave it unresolved,
// and only a person (now, or remembered from their explicit choice for the
// same action earlier in the session) or the embedding program's
// ApprovalPolicy can approve it. Only a responder that implements
// ApprovalCapable is given one; for any other, nobody can be asked.

func init() {
	builtin.ApprovalForm = approvalForm
	builtin.ApprovalVerdict = approvalVerdict
}

// approvalForm is approvaltool.Form: the form that asks a person to
// approve a. It checks a against the limits and returns a *dialect.CallError
// naming the first problem.
func approvalForm(a approval.Request, timeoutSeconds int) (*Form, error) {
	if err := checkApproval(&a); err != nil {
		return nil, err
	}
	a.Digest = approval.Digest(a.Action, a.Details)
	return &Form{
		Questions: []Question{{
			ID:         approval.QuestionID,
			Kind:       KindApproval,
			Header:     "Approval",
			Text:       a.Action,
			Options:    approvalOptions(),
			NoDefault:  true,
			OnDeadline: FallbackNothing,
		}},
		TimeoutSeconds: timeoutSeconds,
		Approval:       &a,
		Unattended:     FallbackNothing,
	}, nil
}

func approvalOptions() []Option {
	return []Option{
		{Value: approval.ApproveOnce, Label: "Approve once", Description: "Permit this action this one time"},
		{Value: approval.ApproveSession, Label: "Approve for this session", Description: "Permit this same action again in this session without asking"},
		{Value: approval.DenyOnce, Label: "Deny", Description: "Refuse this action"},
		{Value: approval.DenySession, Label: "Deny for this session", Description: "Refuse this same action again in this session without asking"},
	}
}

func checkApproval(a *approval.Request) error {
	bad := func(msg string) error { return formError("the approval's " + msg) }
	switch {
	case strings.TrimSpace(a.Action) == "":
		return bad("Action is empty; say what will be done")
	case utf8.RuneCountInString(a.Action) > approval.MaxActionRunes:
		return bad(fmt.Sprintf("Action is %d characters; allowed: at most %d", utf8.RuneCountInString(a.Action), approval.MaxActionRunes))
	case strings.TrimSpace(a.Reason) == "":
		return bad("Reason is empty; say why")
	case utf8.RuneCountInString(a.Reason) > approval.MaxReasonRunes:
		return bad(fmt.Sprintf("Reason is %d characters; allowed: at most %d", utf8.RuneCountInString(a.Reason), approval.MaxReasonRunes))
	case !slices.Contains(approval.Risks(), a.Risk):
		return bad(fmt.Sprintf("Risk %q is not a risk; allowed: low, medium, high, irreversible", a.Risk))
	case len(a.Details) > approval.MaxDetailBytes:
		return bad(fmt.Sprintf("Details is %d bytes; allowed: at most %d", len(a.Details), approval.MaxDetailBytes))
	case !utf8.ValidString(a.Action) || !utf8.ValidString(a.Reason) || !utf8.ValidString(a.Details):
		return bad("text is not valid UTF-8")
	}
	return nil
}

// checkApprovalForm holds a form that carries an approval question to the
// shape approvalForm gives it, so that no dialect and no Go caller can make
// an approval that a deadline, a default or a stray option could decide.
func checkApprovalForm(f *Form) error {
	n := 0
	for i := range f.Questions {
		if f.Questions[i].Kind == KindApproval {
			n++
		}
	}
	if n == 0 && f.Approval == nil {
		return nil
	}
	if f.Approval == nil {
		return formError("an approval question needs Form.Approval; build the form with approvaltool.Form")
	}
	if n != 1 || len(f.Questions) != 1 {
		return formError("an approval is the only question of its form; build the form with approvaltool.Form")
	}
	if err := checkApproval(f.Approval); err != nil {
		return err
	}
	q := &f.Questions[0]
	want := approvalOptions()
	if q.ID != approval.QuestionID || q.MultiSelect || q.AllowOther || !q.NoDefault || q.OnDeadline != FallbackNothing ||
		q.Optional || q.sealed() || len(q.Options) != len(want) || f.Unattended != FallbackNothing ||
		f.Approval.Digest != approval.Digest(f.Approval.Action, f.Approval.Details) {
		return formError("the approval question is not as approvaltool.Form makes it; build the form with approvaltool.Form")
	}
	for i := range want {
		if q.Options[i].Value != want[i].Value || q.Options[i].Default {
			return formError("the approval question is not as approvaltool.Form makes it; build the form with approvaltool.Form")
		}
	}
	return nil
}

// ApprovalCapable is implemented by a responder that can put an approval in
// front of a person and knows it is a person who answers (a real terminal,
// an authenticated page). Only a responder whose CanTakeApprovals reports
// true is given an approval; for any other the orchestrator treats the
// approval as having nobody to ask, so that no responder written for
// questions can approve by picking an option.
type ApprovalCapable interface {
	CanTakeApprovals() bool
}

// approvalVerdict is approvaltool.VerdictOf: what an approval's outcome
// means, and the one place that decides it.
func approvalVerdict(o *Outcome) (builtin.Verdict, bool) {
	if o == nil || o.Form == nil || o.Form.Approval == nil {
		return builtin.Verdict{}, false
	}
	v := builtin.Verdict{Status: approval.Unresolved, Digest: o.Form.Approval.Digest}
	if q := o.Quorum; q != nil && o.Reason != ReasonPolicy && o.Reason != ReasonRemembered {
		v.Quorum = q
		switch q.Status {
		case route.Approved, route.Denied:
			v.Status, v.DecidedBy, v.Remember = approval.Denied, string(ByUser), q.Remember
			if q.Status == route.Approved {
				v.Status = approval.Approved
			}
			if a := o.Answer(approval.QuestionID); a != nil {
				v.Note = a.Note
			}
		default:
			v.Ended = string(o.Reason)
			if o.Reason == ReasonSubmitted || o.Reason == ReasonPolicy || o.Reason == ReasonRemembered {
				v.Ended = string(ReasonFault)
			}
		}
		return v, true
	}
	var sel string
	if a := o.Answer(approval.QuestionID); a != nil && len(a.Selected) == 1 {
		sel = a.Selected[0]
		v.Note = a.Note
	}
	approve := sel == approval.ApproveOnce || sel == approval.ApproveSession
	deny := sel == approval.DenyOnce || sel == approval.DenySession
	switch o.Reason {
	case ReasonSubmitted:
		if approve || deny {
			v.DecidedBy, v.Remember = string(ByUser), sel == approval.ApproveSession || sel == approval.DenySession
			v.Status = approval.Denied
			if approve {
				v.Status = approval.Approved
			}
			return v, true
		}
	case ReasonDeclined:
		v.Status, v.DecidedBy = approval.Denied, string(ByUser)
		return v, true
	case ReasonPolicy, ReasonRemembered:
		if approve || deny {
			v.Status = approval.Denied
			if approve {
				v.Status = approval.Approved
			}
			v.DecidedBy = string(ByPolicy)
			if o.Reason == ReasonRemembered {
				v.DecidedBy, v.RememberedFrom = string(ByRemembered), o.RememberedFrom
			}
			return v, true
		}
	}
	v.Note = ""
	v.Ended = string(o.Reason)
	if o.Reason == ReasonSubmitted || o.Reason == ReasonPolicy || o.Reason == ReasonRemembered {
		v.Ended = string(ReasonFault) // an ending without a decision: cannot happen through the orchestrator
	}
	return v, true
}

// decideWithoutAsking returns the ending of an approval that the policy or
// a remembered decision settles, or nil when a person must be asked.
func (o *Orchestrator) decideWithoutAsking(ctx context.Context, a *Ask) *ending {
	ap := a.form.Approval
	if o.ApprovalPolicy != nil {
		switch o.policy(ctx, a.session, ap) {
		case approval.PolicyApprove:
			return &ending{reason: ReasonPolicy, decision: approval.ApproveOnce}
		case approval.PolicyDeny:
			return &ending{reason: ReasonPolicy, decision: approval.DenyOnce}
		}
	}
	c, ok, err := o.consents().Recall(ctx, a.session, ap.Digest)
	if err != nil {
		o.logger().Error("askuser: reading remembered approvals failed; the person is asked", "ask", a.id, "session", a.session, "err", err)
		return nil
	}
	if !ok || c.Digest != ap.Digest || c.Session != a.session {
		return nil
	}
	e := &ending{reason: ReasonRemembered, decision: approval.DenyOnce, rememberedFrom: c.AskID}
	if c.Approved {
		e.decision = approval.ApproveOnce
	}
	return e
}

// policy runs the ApprovalPolicy, containing a panic.
func (o *Orchestrator) policy(ctx context.Context, session string, ap *approval.Request) (d approval.PolicyDecision) {
	defer func() {
		if p := recover(); p != nil {
			o.logger().Error("askuser: the approval policy panicked; the person is asked", "session", session, "panic", fmt.Sprint(p))
			d = approval.PolicyAsk
		}
	}()
	cp := *ap
	d = o.ApprovalPolicy(ctx, session, &cp)
	if d != approval.PolicyApprove && d != approval.PolicyDeny {
		d = approval.PolicyAsk
	}
	return d
}

// rememberConsent keeps a person's decision for the session when they
// chose so: for a quorum, only when every approver of the full quorum (or
// the veto) chose it, under the digest with the policy, with the
// principals who decided.
func (o *Orchestrator) rememberConsent(ctx context.Context, out *Outcome) {
	v, ok := approvalVerdict(out)
	if !ok || !v.Remember || v.DecidedBy != string(ByUser) {
		return
	}
	c := store.Consent{
		Session:   out.Session,
		Digest:    v.Digest,
		Approved:  v.Status == approval.Approved,
		Action:    out.Form.Approval.Action,
		AskID:     out.AskID,
		Principal: out.Principal,
		DecidedAt: out.FinalizedAt,
	}
	if err := o.consents().Remember(ctx, c); err != nil {
		o.logger().Error("askuser: remembering an approval decision failed; the next request asks again", "ask", out.AskID, "session", out.Session, "err", err)
	}
}

func (o *Orchestrator) consents() store.Consents { o.init(); return o.consentStore }
