package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
)

// MaxApprovalCodeAttempts is how many wrong approval codes a Responder
// takes in all before it stops taking approvals (see Options.ApprovalCode).
const MaxApprovalCodeAttempts = 5

// minCodeLen is the fewest characters an approval code may have, once
// spaces and dashes are left out: below it, MaxApprovalCodeAttempts
// guesses stand too good a chance.
const minCodeLen = 6

// approvalPrincipal is the principal recorded for a decision the approval
// code admitted, where Options.Authorize names none.
const approvalPrincipal = "web approval code"

// NewApprovalCode returns a new approval code for Options.ApprovalCode:
// eight random decimal digits, as "1234-5678". The person may type it with
// or without the dash.
func NewApprovalCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(100_000_000))
	if err != nil { // crypto/rand does not fail
		panic(err)
	}
	s := fmt.Sprintf("%08d", n)
	return s[:4] + "-" + s[4:]
}

// normalizeCode leaves out the spaces and dashes of a code, and folds its
// letters to lower case.
func normalizeCode(c string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '\t':
			return -1
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, c)
}

// setupApprovals reads the approval options: the code's digest, or that
// approvals are refused because the code is too short.
func (r *Responder) setupApprovals() {
	if r.opts.ApprovalCode == "" {
		return
	}
	c := normalizeCode(r.opts.ApprovalCode)
	if len(c) < minCodeLen {
		r.badCode = true
		r.logger().Error("web: the approval code is too short, so no approval is taken; use NewApprovalCode", "at_least", minCodeLen)
		return
	}
	r.codeSum = sha256.Sum256([]byte(c))
}

// CanTakeApprovals reports whether the card takes approvals: only where
// something admits the person — Options.Authorize, or Options.ApprovalCode
// — and never once the responder is closed, or has taken
// MaxApprovalCodeAttempts wrong codes. Without it the orchestrator treats
// an approval as having nobody to ask.
func (r *Responder) CanTakeApprovals() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.approvalsLocked()
}

func (r *Responder) approvalsLocked() bool {
	if r.closed || r.badCode || r.codeLocked {
		return false
	}
	return r.opts.Authorize != nil || r.opts.ApprovalCode != ""
}

// needsCode reports whether a decision on an approval must carry the
// approval code.
func (r *Responder) needsCode() bool { return r.opts.ApprovalCode != "" }

// admit checks that a request may decide the approval a: that the card
// still takes approvals, and that the request carries the approval code
// where one is set. It writes the refusal (403) and reports false when it
// may not. A wrong code counts; at MaxApprovalCodeAttempts the card stops
// taking approvals, and those pending end as having nobody to ask.
func (r *Responder) admit(w http.ResponseWriter, req *http.Request, a *askuser.Ask, code string) bool {
	r.mu.Lock()
	if !r.approvalsLocked() {
		locked := r.codeLocked
		r.mu.Unlock()
		msg := "this card takes no approvals"
		if locked {
			msg = "too many wrong approval codes: this card takes no more approvals; the agent must ask again once the program that shows the card starts anew"
		}
		writeError(w, http.StatusForbidden, errorBody{Error: msg})
		return false
	}
	if !r.needsCode() {
		r.mu.Unlock()
		return true
	}
	if strings.TrimSpace(code) == "" {
		r.mu.Unlock()
		writeError(w, http.StatusForbidden, errorBody{Error: `deciding an approval needs the approval code, in "code": the code the program that asks shows where only the person reads it (askuser's command shows it on its terminal)`})
		return false
	}
	sum := sha256.Sum256([]byte(normalizeCode(code)))
	if subtle.ConstantTimeCompare(sum[:], r.codeSum[:]) == 1 {
		r.mu.Unlock()
		if p, _ := req.Context().Value(principalKey{}).(string); p == "" {
			a.SetPrincipal(approvalPrincipal)
		}
		return true
	}
	r.wrongCodes++
	left := MaxApprovalCodeAttempts - r.wrongCodes
	var ended []*askuser.Ask
	if left <= 0 {
		r.codeLocked = true
		for _, e := range r.asks {
			if !e.ended && e.a.Form().Approval != nil {
				ended = append(ended, e.a)
			}
		}
	}
	r.mu.Unlock()
	if left > 0 {
		r.logger().Warn("web: a wrong approval code", "ask", a.ID(), "attempts_left", left)
		writeError(w, http.StatusForbidden, errorBody{Error: "the approval code is wrong; " + plural(left, "attempt") + " left before this card takes no more approvals"})
		return false
	}
	r.logger().Error("web: too many wrong approval codes; the card takes no more approvals", "pending_approvals_ended", len(ended))
	for _, p := range ended {
		_ = unreachable(p)
	}
	writeError(w, http.StatusForbidden, errorBody{Error: "the approval code is wrong, and that was the last attempt: this card takes no more approvals; the agent must ask again once the program that shows the card starts anew"})
	return false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// confirmWord is what the person types before they approve an action that
// cannot be undone.
const confirmWord = "approve"

// confirmed reports whether a decision may stand: an approval of an
// irreversible action needs the confirmation typed.
func confirmed(ap *approval.Request, decision, confirm string) bool {
	if ap.Risk != approval.RiskIrreversible || (decision != approval.ApproveOnce && decision != approval.ApproveSession) {
		return true
	}
	return strings.EqualFold(strings.TrimSpace(confirm), confirmWord)
}
