// Package approval is the vocabulary of an approval: what a person is asked
// to permit (a Request: the action, why, how risky, its details), the
// digest that binds a decision to what was shown, the values a person
// picks, the statuses of a verdict, and the Policy an embedding program can
// decide some approvals by without asking.
//
// An approval asks a person for permission to act ("May I delete this
// bucket?"). approvaltool.Form builds its form: one question of
// askuser.KindApproval whose id is QuestionID and whose options are
// ApproveOnce, ApproveSession, DenyOnce and DenySession. It never decides
// by itself: the deadline, nobody to ask, a responder fault, a supersede or
// a dismissal leave it unresolved, and only a person (now, or remembered
// from their explicit choice for the same action earlier in the session) or
// the embedding program's Policy can approve it. approvaltool.VerdictOf
// says what an approval's outcome means.
package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/askuser-go/askuser/internal/canonjson"
)

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

// Limits of a Request's fields, in characters (runes), and of its details
// in bytes.
const (
	MaxActionRunes = 200
	MaxReasonRunes = 500
	MaxDetailBytes = 8 << 10
)

// A Request is what a person is asked to permit.
type Request struct {
	// Action says what will be done (1–200 characters).
	Action string `json:"action"`
	// Reason says why (1–500 characters).
	Reason string `json:"reason"`
	// Risk rates the harm the action can do.
	Risk Risk `json:"risk"`
	// Details is longer text the person can expand: a command, a diff, a
	// list of resources (at most 8 KiB).
	Details string `json:"details,omitempty"`
	// Digest binds a decision to what was shown: Digest(Action, Details).
	// approvaltool.Form writes it.
	Digest string `json:"digest"`
}

// Digest returns the digest that binds an approval to its action:
// "sha256:" and the lowercase hex SHA-256 of the JSON array [action,
// details] (an absent details is ""), written as JavaScript's
// JSON.stringify and Python's json.dumps(…, ensure_ascii=False,
// separators=(",", ":")) write it: no white space, the strings in UTF-8
// with only '"', '\\' and the control characters below U+0020 escaped (\b,
// \f, \n, \r, \t, else \u00XX). An embedding program that is about to run
// an approved action computes it from what it will run and compares it
// with the result's action_digest: a changed action is a new request.
func Digest(action, details string) string {
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

// QuestionID is the id of an approval form's one question.
const QuestionID = "approval"

// The status of an approval's verdict (approvaltool.Verdict.Status).
const (
	Approved   = "approved"
	Denied     = "denied"
	Unresolved = "unresolved"
)

// A PolicyDecision is what a Policy answers.
type PolicyDecision int

// The decisions of a Policy.
const (
	// PolicyAsk leaves the decision to a person.
	PolicyAsk PolicyDecision = iota
	// PolicyApprove approves without asking.
	PolicyApprove
	// PolicyDeny denies without asking.
	PolicyDeny
)

// A Policy decides an approval without asking, where the embedding program
// has a rule for it (an allowlist of read-only commands, say). It is given
// the session and the request; a decision other than PolicyAsk is reported
// as decided by "policy" and journaled as such. A policy that panics is
// treated as PolicyAsk, and the panic is logged.
type Policy func(ctx context.Context, session string, r *Request) PolicyDecision
