package approvalwire

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askuser-go/askuser/internal/wire"
)

// The statuses of a result. Only StatusApproved permits the action.
const (
	StatusApproved   = "approved"
	StatusDenied     = "denied"
	StatusUnresolved = "unresolved"
)

// Who decided a result.
const (
	DecidedByUser       = "user"       // a person, now
	DecidedByRemembered = "remembered" // the person's decision for the session, earlier
	DecidedByPolicy     = "policy"     // the embedding program's rule
)

// Why nobody decided.
const (
	EndedDeadline   = "deadline"   // the wait ran out
	EndedUnattended = "unattended" // nobody could be asked
	EndedDismissed  = "dismissed"  // the person closed the request without deciding
	EndedSuperseded = "superseded" // the person wrote a message instead
	EndedFault      = "fault"      // the request could not be shown or answered
)

// Result is what the model reads back, before encoding. The encoder adds
// the message that says in words what the result means.
type Result struct {
	// Status is StatusApproved, StatusDenied or StatusUnresolved.
	Status string
	// DecidedBy is DecidedByUser, DecidedByRemembered or DecidedByPolicy;
	// empty when unresolved.
	DecidedBy string
	// Note is the person's words with their decision; empty for none, and
	// always empty when unresolved.
	Note string
	// Ended says why nobody decided (EndedDeadline, …); empty when decided.
	Ended string
	// ActionDigest binds the decision to the action and its details:
	// "sha256:" and 64 lowercase hex digits.
	ActionDigest string
	// RememberSession reports that the person chose to decide the same
	// action the same way for the rest of the session (DecidedByUser only).
	RememberSession bool
	// RememberedFrom is, for DecidedByRemembered, the id of the request in
	// which the person decided.
	RememberedFrom string
	// Quorum is, for a request several people decide, the tally and the
	// votes; nil otherwise. A result with one says how many of how many
	// approved.
	Quorum *Quorum
}

// A Quorum is the tally of a request several people decide.
type Quorum struct {
	// Required is how many approvals it needs; Approvals how many it has.
	Required, Approvals int
	// Votes are every vote, in the order it came.
	Votes []Vote
}

// A Vote is one person's vote.
type Vote struct {
	Principal string    // the verified identity; empty when not verified
	Decision  string    // "approve" or "deny"
	Via       string    // the channel it came by
	At        time.Time // when it was taken
	Counted   bool      // whether it counted toward the verdict
}

// EncodeResult writes r as the result the model reads, one JSON object on
// one line:
//
//	{"status":…,"decided_by":…|null,"note":…|null,"ended":…|null,
//	"action_digest":"sha256:…","remember":"session","remembered_from":…,"message":…}
//
// "remember" and "remembered_from" appear only where they apply; "note" is
// trimmed, and null when blank; "message" says in words whether the model
// may act. It refuses a Result whose fields do not fit together (an
// approved result without anyone who decided, an unresolved one that says
// who decided, an unknown value), so that no result can read as a decision
// nobody made.
func EncodeResult(r *Result) ([]byte, error) {
	if r == nil {
		return nil, errors.New("approvalwire: EncodeResult of a nil *Result")
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	w := wire.ApprovalResult{Status: r.Status, ActionDigest: r.ActionDigest, RememberedFrom: r.RememberedFrom}
	if r.DecidedBy != "" {
		w.DecidedBy = &r.DecidedBy
	}
	if r.Ended != "" {
		w.Ended = &r.Ended
	}
	if n := strings.TrimSpace(r.Note); n != "" {
		w.Note = &n
	}
	if r.RememberSession {
		w.Remember = "session"
	}
	w.Message = r.message()
	if q := r.Quorum; q != nil {
		w.Quorum = &wire.ApprovalQuorum{Required: q.Required, Approvals: q.Approvals}
		w.Votes = make([]wire.ApprovalVote, len(q.Votes))
		for i, v := range q.Votes {
			w.Votes[i] = wire.ApprovalVote{Principal: v.Principal, Decision: v.Decision, Via: v.Via, At: v.At.UTC().Format(time.RFC3339Nano), Counted: v.Counted}
		}
		w.Message += fmt.Sprintf(msgQuorum, q.Approvals, q.Required)
	}
	return wire.Marshal(w)
}

func (r *Result) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("approvalwire: a result "+format, args...)
	}
	if !isDigest(r.ActionDigest) {
		return bad("needs an action digest of the form sha256:<64 lowercase hex digits>, not %q", r.ActionDigest)
	}
	switch r.Status {
	case StatusApproved, StatusDenied:
		switch r.DecidedBy {
		case DecidedByUser, DecidedByRemembered, DecidedByPolicy:
		default:
			return bad("with status %q needs decided_by user, remembered or policy, not %q", r.Status, r.DecidedBy)
		}
		if r.Ended != "" {
			return bad("with status %q has no ended, not %q", r.Status, r.Ended)
		}
	case StatusUnresolved:
		if r.DecidedBy != "" || r.Note != "" || r.RememberSession || r.RememberedFrom != "" {
			return bad("with status unresolved has nobody who decided: no decided_by, note, remember or remembered_from")
		}
		if _, ok := why[r.Ended]; !ok {
			return bad("with status unresolved needs ended deadline, unattended, dismissed, superseded or fault, not %q", r.Ended)
		}
	default:
		return bad("status %q is not a status; allowed: approved, denied, unresolved", r.Status)
	}
	if q := r.Quorum; q != nil {
		if q.Required < 1 || q.Approvals < 0 {
			return bad("quorum needs a positive required and no negative approvals, not %d of %d", q.Approvals, q.Required)
		}
		if r.Status == StatusApproved && (r.DecidedBy != DecidedByUser || q.Approvals < q.Required) {
			return bad("approved by a quorum needs decided_by user and %d approvals, not %q with %d", q.Required, r.DecidedBy, q.Approvals)
		}
		for _, v := range q.Votes {
			if v.Decision != "approve" && v.Decision != "deny" {
				return bad("vote decision %q is not one; allowed: approve, deny", v.Decision)
			}
		}
	}
	if r.RememberSession && r.DecidedBy != DecidedByUser {
		return bad("remembered for the session must be decided by the user, not %q", r.DecidedBy)
	}
	if (r.DecidedBy == DecidedByRemembered) != (r.RememberedFrom != "") {
		return bad("decided by %q must name the request it was remembered from exactly when it is remembered", r.DecidedBy)
	}
	return nil
}

func isDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// message says what a checked result means for the model.
func (r *Result) message() string {
	approved := r.Status == StatusApproved
	switch {
	case r.Status == StatusUnresolved:
		return fmt.Sprintf(msgUnresolved, why[r.Ended])
	case r.DecidedBy == DecidedByRemembered && approved:
		return msgApprovedRemembered
	case r.DecidedBy == DecidedByRemembered:
		return msgDeniedRemembered
	case r.DecidedBy == DecidedByPolicy && approved:
		return msgApprovedPolicy
	case r.DecidedBy == DecidedByPolicy:
		return msgDeniedPolicy
	case approved && r.RememberSession:
		return msgApprovedUserSession
	case approved:
		return msgApprovedUser
	case r.RememberSession:
		return msgDeniedUserSession
	}
	return msgDeniedUser
}
