// Package approvaltool is the request_approval contract as a Dialect: a
// model asks permission to act, and reads back whether it may. The
// orchestrator asks with it for a Request whose Form carries an Approval
// and that names no Dialect, so a program importing only the root speaks it
// with no setup; Dialect returns it for the places that name a dialect.
//
// The contract's wire format (the call's fields, validation with ordered,
// exact messages, the result's encoding, the tool's description and
// guidance) is package dialect/approvalwire, which knows nothing of the
// orchestrator. docs/request_approval.md is the contract.
package approvaltool

import (
	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/builtin"
)

// Dialect returns the request_approval contract. Its Decode maps a call
// onto the form askuser.ApprovalForm makes of it, with the call's
// human_intent as the form's HumanIntent; its Encode renders the outcome's
// askuser.ApprovalVerdict (approved or denied with who decided, or
// unresolved with why nobody decided), never deciding on its own what
// counts as approved, and refuses an outcome that is not an approval's. It
// is also an askuser.FormMarshaler.
func Dialect() askuser.Dialect { return builtin.RequestApproval.(askuser.Dialect) }
