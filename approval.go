package askuser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/askuser-go/askuser/internal/canonjson"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// An approval asks a person for permission to act ("May I delete this
// bucket?"). It is a form of one question of KindApproval, built by
// ApprovalForm, and it never decides by itself: the deadline, nobody to
// ask, a responder fault, a supersede or a dismissal leave it unresolved,
// and only a person (now, or remembered from their explicit choice for the
// same action earlier in the session) or the embedding program's
// ApprovalPolicy can approve it. Only a responder that implements
// ApprovalCapable is given one; for any other, nobody can be asked.

// Risk says how much harm the action can do, as the model rates it.
type Risk string

// The risks an approval can carry.
const (
	RiskLow          Risk = "low"
	RiskMedium       Risk = "medium"
	RiskHigh         Risk = "high"
	RiskIrreversible Risk = "irreversible" // a responder asks for a deliberate confirmation
)

// Risks lists the risks in order, lowest first.
func Risks() []Risk { return []Risk{RiskLow, RiskMedium, RiskHigh, RiskIrreversible} }

// Limits of an approval's fields, in characters (runes), and of its details
// in bytes.
const (
	MaxApprovalActionRunes = 200
	MaxApprovalReasonRunes = 500
	MaxApprovalDetailBytes = 8 << 10
)

// An Approval is what a person is asked to permit.
type Approval struct {
	// Action says what will be done (1–200 characters).
	Action string `json:"action"`
	// Reason says why (1–500 characters).
	Reason string `json:"reason"`
	// Risk rates the harm the action can do.
	Risk Risk `json:"risk"`
	// Details is longer text the person can expand: a command, a diff, a
	// list of resources (at most 8 KiB).
	Details string `json:"details,omitempty"`
	// Digest binds a decision to what was shown: ApprovalDigest(Action,
	// Details). ApprovalForm writes it.
	Digest string `json:"digest"`
}

// ApprovalDigest returns the digest that binds an approval to its action:
// "sha256:" and the lowercase hex SHA-256 of the JSON array [action,
// details] (an absent details is ""), written as JavaScript's
// JSON.stringify and Python's json.dumps(…, ensure_ascii=False,
// separators=(",", ":")) write it: no white space, the strings in UTF-8
// with only '"', '\\' and the control characters below U+0020 escaped (\b,
// \f, \n, \r, \t, else \u00XX). An embedding program that is about to run
// an approved action computes it from what it will run and compares it
// with the result's action_digest: a changed action is a new request.
func ApprovalDigest(action, details string) string {
	b := make([]byte, 0, len(action)+len(details)+8)
	b = append(b, '[')
	b = canonjson.AppendString(b, action)
	b = append(b, ',')
	b = canonjson.AppendString(b, details)
	b = append(b, ']')
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// The option values of an approval question. A person approves or denies
// either once or for the rest of the session (see store.Consents).
const (
	ApproveOnce    = "approve"
	ApproveSession = "approve_session"
	DenyOnce       = "deny"
	DenySession    = "deny_session"
)

// ApprovalQuestionID is the id of an approval form's one question.
const ApprovalQuestionID = "approval"

// ApprovalForm returns the form that asks a person to approve a: one
// question of KindApproval whose options are, in order, ApproveOnce,
// ApproveSession, DenyOnce and DenySession, none recommended, none applied
// at the deadline, no free text (the person may add a note). It checks a
// against the limits and returns a *CallError naming the first problem.
// timeoutSeconds 0 is the ceiling.
func ApprovalForm(a Approval, timeoutSeconds int) (*Form, error) {
	if err := checkApproval(&a); err != nil {
		return nil, err
	}
	a.Digest = ApprovalDigest(a.Action, a.Details)
	return &Form{
		Questions: []Question{{
			ID:         ApprovalQuestionID,
			Kind:       KindApproval,
			Header:     "Approval",
			Text:       a.Action,
			Options:    approvalOptions(),
			NoDefault:  true,
			OnDeadline: DeadlineNothing,
		}},
		TimeoutSeconds: timeoutSeconds,
		Approval:       &a,
		Unattended:     UnattendedNothing,
	}, nil
}

func approvalOptions() []Option {
	return []Option{
		{Value: ApproveOnce, Label: "Approve once", Description: "Permit this action this one time"},
		{Value: ApproveSession, Label: "Approve for this session", Description: "Permit this same action again in this session without asking"},
		{Value: DenyOnce, Label: "Deny", Description: "Refuse this action"},
		{Value: DenySession, Label: "Deny for this session", Description: "Refuse this same action again in this session without asking"},
	}
}

func checkApproval(a *Approval) error {
	bad := func(msg string) error { return formError("the approval's " + msg) }
	switch {
	case strings.TrimSpace(a.Action) == "":
		return bad("Action is empty; say what will be done")
	case utf8.RuneCountInString(a.Action) > MaxApprovalActionRunes:
		return bad(fmt.Sprintf("Action is %d characters; allowed: at most %d", utf8.RuneCountInString(a.Action), MaxApprovalActionRunes))
	case strings.TrimSpace(a.Reason) == "":
		return bad("Reason is empty; say why")
	case utf8.RuneCountInString(a.Reason) > MaxApprovalReasonRunes:
		return bad(fmt.Sprintf("Reason is %d characters; allowed: at most %d", utf8.RuneCountInString(a.Reason), MaxApprovalReasonRunes))
	case !slices.Contains(Risks(), a.Risk):
		return bad(fmt.Sprintf("Risk %q is not a risk; allowed: low, medium, high, irreversible", a.Risk))
	case len(a.Details) > MaxApprovalDetailBytes:
		return bad(fmt.Sprintf("Details is %d bytes; allowed: at most %d", len(a.Details), MaxApprovalDetailBytes))
	case !utf8.ValidString(a.Action) || !utf8.ValidString(a.Reason) || !utf8.ValidString(a.Details):
		return bad("text is not valid UTF-8")
	}
	return nil
}

// checkApprovalForm holds a form that carries an approval question to the
// shape ApprovalForm gives it, so that no dialect and no Go caller can make
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
		return formError("an approval question needs Form.Approval; build the form with ApprovalForm")
	}
	if n != 1 || len(f.Questions) != 1 {
		return formError("an approval is the only question of its form; build the form with ApprovalForm")
	}
	if err := checkApproval(f.Approval); err != nil {
		return err
	}
	q := &f.Questions[0]
	want := approvalOptions()
	if q.ID != ApprovalQuestionID || q.MultiSelect || q.AllowOther || !q.NoDefault || q.OnDeadline != DeadlineNothing ||
		q.Optional || q.Sealed() || len(q.Options) != len(want) || f.Unattended != UnattendedNothing ||
		f.Approval.Digest != ApprovalDigest(f.Approval.Action, f.Approval.Details) {
		return formError("the approval question is not as ApprovalForm makes it; build the form with ApprovalForm")
	}
	for i := range want {
		if q.Options[i].Value != want[i].Value || q.Options[i].Default {
			return formError("the approval question is not as ApprovalForm makes it; build the form with ApprovalForm")
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

// A PolicyDecision is what an ApprovalPolicy answers.
type PolicyDecision int

// The decisions of an ApprovalPolicy.
const (
	// PolicyAsk leaves the decision to a person.
	PolicyAsk PolicyDecision = iota
	// PolicyApprove approves without asking.
	PolicyApprove
	// PolicyDeny denies without asking.
	PolicyDeny
)

// An ApprovalPolicy decides an approval without asking, where the
// embedding program has a rule for it (an allowlist of read-only commands,
// say). It is given the session and the approval; a decision other than
// PolicyAsk is reported as decided by "policy" and journaled as such. A
// policy that panics is treated as PolicyAsk, and the panic is logged.
type ApprovalPolicy func(ctx context.Context, session string, a *Approval) PolicyDecision

// The status of an approval's verdict.
const (
	Approved   = "approved"
	Denied     = "denied"
	Unresolved = "unresolved"
)

// A Verdict is what an approval's outcome means: whether the action is
// permitted, who decided, and, when nobody did, why. Every contract that
// carries approvals renders this, so that no encoder decides on its own
// what counts as permission.
type Verdict struct {
	// Status is Approved, Denied or Unresolved. Only Approved permits the
	// action.
	Status string
	// DecidedBy is ByUser, ByRemembered or ByPolicy; empty when
	// unresolved.
	DecidedBy Provenance
	// Note is the person's words, where they added any.
	Note string
	// Ended says why nobody decided: ReasonDeadline, ReasonUnattended,
	// ReasonDismissed, ReasonSuperseded, ReasonFault or ReasonCaller;
	// empty when decided.
	Ended Reason
	// Remember reports that the person chose to decide for the rest of
	// the session.
	Remember bool
	// RememberedFrom is, for a remembered decision, the ask in which the
	// person decided.
	RememberedFrom string
	// Digest is the approval's digest: with a quorum, bound to the
	// policy too (route.ActionDigest).
	Digest string
	// Quorum is, for an approval decided by votes, what they add up to:
	// every vote, counted or not, and the tally. Nil otherwise.
	Quorum *route.Verdict
}

// ApprovalVerdict returns the verdict of an approval's outcome. It is
// Approved only when the person submitted an approval, a remembered
// decision of theirs approved the same action in the session, or the
// policy approved; Denied when the person (or a remembered denial, or the
// policy) refused — a person's Decline is a refusal; otherwise Unresolved.
// For an approval decided by a quorum (Outcome.Quorum), it is what
// route.Decide made of the votes: Approved only when Required distinct
// eligible verified principals approved with no veto before, Denied on a
// veto, and Unresolved — however many approved — when the ask ended
// otherwise; decided by ByUser, remembered only when the full quorum (or
// the veto) chose "for this session". It returns false for an outcome that
// is not an approval's.
func ApprovalVerdict(o *Outcome) (Verdict, bool) {
	if o == nil || o.Form == nil || o.Form.Approval == nil {
		return Verdict{}, false
	}
	v := Verdict{Status: Unresolved, Digest: o.Form.Approval.Digest}
	if q := o.Quorum; q != nil && o.Reason != ReasonPolicy && o.Reason != ReasonRemembered {
		v.Quorum = q
		switch q.Status {
		case route.Approved, route.Denied:
			v.Status, v.DecidedBy, v.Remember = Denied, ByUser, q.Remember
			if q.Status == route.Approved {
				v.Status = Approved
			}
			if a := o.Answer(ApprovalQuestionID); a != nil {
				v.Note = a.Note
			}
		default:
			v.Ended = o.Reason
			if v.Ended == ReasonSubmitted || v.Ended == ReasonPolicy || v.Ended == ReasonRemembered {
				v.Ended = ReasonFault
			}
		}
		return v, true
	}
	var sel string
	if a := o.Answer(ApprovalQuestionID); a != nil && len(a.Selected) == 1 {
		sel = a.Selected[0]
		v.Note = a.Note
	}
	approve := sel == ApproveOnce || sel == ApproveSession
	deny := sel == DenyOnce || sel == DenySession
	switch o.Reason {
	case ReasonSubmitted:
		if approve || deny {
			v.DecidedBy, v.Remember = ByUser, sel == ApproveSession || sel == DenySession
			v.Status = Denied
			if approve {
				v.Status = Approved
			}
			return v, true
		}
	case ReasonDeclined:
		v.Status, v.DecidedBy = Denied, ByUser
		return v, true
	case ReasonPolicy, ReasonRemembered:
		if approve || deny {
			v.Status = Denied
			if approve {
				v.Status = Approved
			}
			v.DecidedBy = ByPolicy
			if o.Reason == ReasonRemembered {
				v.DecidedBy, v.RememberedFrom = ByRemembered, o.RememberedFrom
			}
			return v, true
		}
	}
	v.Note = ""
	v.Ended = o.Reason
	if v.Ended == ReasonSubmitted || v.Ended == ReasonPolicy || v.Ended == ReasonRemembered {
		v.Ended = ReasonFault // an ending without a decision: cannot happen through the orchestrator
	}
	return v, true
}

// decideWithoutAsking returns the ending of an approval that the policy or
// a remembered decision settles, or nil when a person must be asked.
func (o *Orchestrator) decideWithoutAsking(ctx context.Context, a *Ask) *ending {
	ap := a.form.Approval
	if o.ApprovalPolicy != nil {
		switch o.policy(ctx, a.session, ap) {
		case PolicyApprove:
			return &ending{reason: ReasonPolicy, decision: ApproveOnce}
		case PolicyDeny:
			return &ending{reason: ReasonPolicy, decision: DenyOnce}
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
	e := &ending{reason: ReasonRemembered, decision: DenyOnce, rememberedFrom: c.AskID}
	if c.Approved {
		e.decision = ApproveOnce
	}
	return e
}

// policy runs the ApprovalPolicy, containing a panic.
func (o *Orchestrator) policy(ctx context.Context, session string, ap *Approval) (d PolicyDecision) {
	defer func() {
		if p := recover(); p != nil {
			o.logger().Error("askuser: the approval policy panicked; the person is asked", "session", session, "panic", fmt.Sprint(p))
			d = PolicyAsk
		}
	}()
	cp := *ap
	d = o.ApprovalPolicy(ctx, session, &cp)
	if d != PolicyApprove && d != PolicyDeny {
		d = PolicyAsk
	}
	return d
}

// rememberConsent keeps a person's decision for the session when they
// chose so: for a quorum, only when every approver of the full quorum (or
// the veto) chose it, under the digest with the policy, with the
// principals who decided.
func (o *Orchestrator) rememberConsent(ctx context.Context, out *Outcome) {
	v, ok := ApprovalVerdict(out)
	if !ok || !v.Remember || v.DecidedBy != ByUser {
		return
	}
	c := store.Consent{
		Session:   out.Session,
		Digest:    v.Digest,
		Approved:  v.Status == Approved,
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
