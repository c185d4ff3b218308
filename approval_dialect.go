package askuser

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/internal/builtin"
)

// approvalDialect is the request_approval contract: a model asks
// permission to act, and reads back whether it may. Handle uses it for a
// Request whose Form carries an Approval and that names no Dialect; it is
// exported as approvaltool.Dialect(). Its wire format is package
// dialect/approvalwire; this adapter maps a call onto the approval's form
// (approvaltool.Form) and renders the outcome's verdict (approvaltool.VerdictOf), never deciding on its own what
// counts as approved. The contract is documented in
// docs/request_approval.md.
type approvalDialect struct{}

func init() { builtin.RequestApproval = approvalDialect{} }

func (approvalDialect) Name() string { return approvalwire.ToolName }

// Decode reads a request_approval call into the form approvaltool.Form
// makes of it, with the call's human_intent as the form's HumanIntent.
func (approvalDialect) Decode(data []byte, lim dialect.Limits) (*Form, error) {
	c, err := approvalwire.Decode(data, lim)
	if err != nil {
		var e *approvalwire.Error
		if errors.As(err, &e) {
			return nil, &dialect.CallError{Path: e.Path, Message: e.Message}
		}
		return nil, err
	}
	f, err := approvalForm(approval.Request{Action: c.Action, Reason: c.Reason, Risk: approval.Risk(c.Risk), Details: c.Details}, c.TimeoutSeconds)
	if err != nil {
		// The decoder's rules hold every limit approvalForm checks.
		return nil, fmt.Errorf("askuser: the request_approval decoder accepted a call that approvaltool.Form refuses: %w", err)
	}
	f.HumanIntent = c.HumanIntent
	f.Contract = approvalwire.ToolName
	return f, nil
}

// MarshalForm writes an approval form as a request_approval call: its
// approval's action, reason, risk and details, the timeout, and
// human_intent when it is not empty. A form without an Approval is not an
// approval's and is refused.
func (approvalDialect) MarshalForm(f *Form) ([]byte, error) {
	if f == nil || f.Approval == nil {
		return nil, errors.New("askuser: the request_approval contract writes only an approval's form (see approvaltool.Form)")
	}
	a := f.Approval
	return approvalwire.Marshal(&approvalwire.Call{
		Action:         a.Action,
		Reason:         a.Reason,
		Risk:           string(a.Risk),
		Details:        a.Details,
		TimeoutSeconds: f.TimeoutSeconds,
		HumanIntent:    f.HumanIntent,
	})
}

// Encode renders the outcome's verdict (approvaltool.VerdictOf): approved or denied with who
// decided (and the person's note, whether they chose to decide for the
// session, or the ask a remembered decision came from), or unresolved with
// why nobody decided — a deadline, nobody to ask, a dismissal, a supersede;
// any other ending (a responder fault, the caller going away) is a fault.
// An approval several people decide (a quorum) adds its votes and its
// tally. The contract keeps nothing besides the result. An outcome that is not an
// approval's cannot be encoded.
func (approvalDialect) Encode(o *Outcome, _ bool) ([]byte, json.RawMessage, error) {
	v, ok := approvalVerdict(o)
	if !ok {
		return nil, nil, errors.New("askuser: the request_approval contract encodes only an approval's outcome (see approvaltool.Form)")
	}
	r := approvalwire.Result{
		Status:          v.Status,
		Note:            v.Note,
		ActionDigest:    v.Digest,
		RememberSession: v.Remember,
		RememberedFrom:  v.RememberedFrom,
	}
	if q := v.Quorum; q != nil {
		r.Quorum = &approvalwire.Quorum{Required: q.Required, Approvals: q.Approvals, Votes: make([]approvalwire.Vote, len(q.Votes))}
		for i, cv := range q.Votes {
			r.Quorum.Votes[i] = approvalwire.Vote{Principal: cv.Principal, Decision: string(cv.Decision), Via: cv.Via, At: cv.At, Counted: cv.Counted}
		}
	}
	if v.Status == approval.Unresolved {
		r.Note = ""
		r.Ended = endedOf(Reason(v.Ended))
	} else {
		r.DecidedBy = string(v.DecidedBy)
	}
	b, err := approvalwire.EncodeResult(&r)
	return b, nil, err
}

// endedOf names, in the contract's words, why nobody decided.
func endedOf(r Reason) string {
	switch r {
	case ReasonDeadline:
		return approvalwire.EndedDeadline
	case ReasonUnattended:
		return approvalwire.EndedUnattended
	case ReasonDismissed:
		return approvalwire.EndedDismissed
	case ReasonSuperseded:
		return approvalwire.EndedSuperseded
	}
	return approvalwire.EndedFault
}
