// Package approvaltool is the request_approval contract as a Dialect: a
// model asks permission to act, and reads back whether it may. The
// orchestrator asks with it for a Request whose Form carries an Approval
// and that names no Dialect, so a program importing only the root speaks it
// with no setup; Dialect returns it for the places that name a dialect.
//
// Form builds an approval's form for a Go caller, and VerdictOf says what
// an approval's outcome means — the one place that decides it, which every
// contract and responder that shows approvals renders.
//
// The contract's wire format (the call's fields, validation with ordered,
// exact messages, the result's encoding, the tool's description and
// guidance) is package dialect/approvalwire, which knows nothing of the
// orchestrator. docs/request_approval.md is the contract.
package approvaltool

import (
	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/builtin"
	"github.com/askuser-go/askuser/route"
)

// Dialect returns the request_approval contract. Its Decode maps a call
// onto the form Form makes of it, with the call's
// human_intent as the form's HumanIntent; its Encode renders the outcome's
// verdict (VerdictOf: approved or denied with who decided, or
// unresolved with why nobody decided), never deciding on its own what
// counts as approved, and refuses an outcome that is not an approval's.
func Dialect() askuser.Dialect { return builtin.RequestApproval.(askuser.Dialect) }

// MarshalCall writes an approval's form (one Form made) back as a
// request_approval call: its approval's action, reason, risk and details,
// the timeout, and human_intent when it is not empty, so that decoding the
// output with Dialect gives the form again (the stamps aside). A form
// without an Approval is not an approval's and is refused.
func MarshalCall(f *askuser.Form) ([]byte, error) {
	return builtin.RequestApproval.(interface {
		MarshalForm(*askuser.Form) ([]byte, error)
	}).MarshalForm(f)
}

// Form returns the form that asks a person to approve a: one question of
// askuser.KindApproval whose id is approval.QuestionID and whose options
// are, in order, approval.ApproveOnce, approval.ApproveSession,
// approval.DenyOnce and approval.DenySession, none recommended, none
// applied at the deadline, no free text (the person may add a note). It
// checks a against the limits and returns a *dialect.CallError naming the
// first problem. timeoutSeconds 0 is the ceiling. The orchestrator asks
// such a form with or without this dialect; it refuses an approval
// question in any other shape.
func Form(a approval.Request, timeoutSeconds int) (*askuser.Form, error) {
	return builtin.ApprovalForm.(func(approval.Request, int) (*askuser.Form, error))(a, timeoutSeconds)
}

// A Verdict is what an approval's outcome means: whether the action is
// permitted, who decided, and, when nobody did, why. Every contract and
// responder that shows approvals renders this, so that none decides on
// its own what counts as permission.
type Verdict struct {
	// Status is approval.Approved, approval.Denied or
	// approval.Unresolved. Only approval.Approved permits the action.
	Status string
	// DecidedBy is askuser.ByUser, ByRemembered or ByPolicy; empty when
	// unresolved.
	DecidedBy askuser.Provenance
	// Note is the person's words, where they added any.
	Note string
	// Ended says why nobody decided: askuser.ReasonDeadline,
	// ReasonUnattended, ReasonDismissed, ReasonSuperseded, ReasonFault or
	// ReasonCaller; empty when decided.
	Ended askuser.Reason
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

// VerdictOf returns the verdict of an approval's outcome. It is
// approval.Approved only when the person submitted an approval, a
// remembered decision of theirs approved the same action in the session,
// or the policy approved; approval.Denied when the person (or a
// remembered denial, or the policy) refused — a person's Decline is a
// refusal; otherwise approval.Unresolved. For an approval decided by a
// quorum (askuser.Outcome.Quorum), it is what route.Decide made of the
// votes: approval.Approved only when Required distinct eligible verified
// principals approved with no veto before, approval.Denied on a veto, and
// approval.Unresolved — however many approved — when the ask ended
// otherwise; decided by askuser.ByUser, remembered only when the full
// quorum (or the veto) chose "for this session". It returns false for an
// outcome that is not an approval's.
func VerdictOf(o *askuser.Outcome) (Verdict, bool) {
	v, ok := builtin.ApprovalVerdict.(func(*askuser.Outcome) (builtin.Verdict, bool))(o)
	if !ok {
		return Verdict{}, false
	}
	return Verdict{
		Status:         v.Status,
		DecidedBy:      askuser.Provenance(v.DecidedBy),
		Note:           v.Note,
		Ended:          askuser.Reason(v.Ended),
		Remember:       v.Remember,
		RememberedFrom: v.RememberedFrom,
		Digest:         v.Digest,
		Quorum:         v.Quorum,
	}, true
}
