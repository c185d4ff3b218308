// Package builtin hands the root package's own dialects, and its approval
// form and verdict, to the packages that export them. The ask_user and request_approval adapters take and
// return the root's model (*askuser.Form, *askuser.Outcome), so they live
// in the root, which asks with them when a Request names no dialect; the
// root's init stores them here, and dialect/askusertool and
// dialect/approvaltool, which import the root (so that init has run),
// return them as their Dialect(); dialect/approvaltool exports the
// approval's form and verdict (Form, VerdictOf) the same way.
package builtin

import "github.com/askuser-go/askuser/route"

// AskUser is the root's ask_user dialect, an askuser.Dialect.
var AskUser any

// RequestApproval is the root's request_approval dialect, an
// askuser.Dialect.
var RequestApproval any

// ApprovalForm is the root's builder of an approval's form, a
// func(approval.Request, int) (*askuser.Form, error).
var ApprovalForm any

// ApprovalVerdict is the root's verdict of an approval's outcome, a
// func(*askuser.Outcome) (Verdict, bool).
var ApprovalVerdict any

// A Verdict is what an approval's outcome means, as the root computes it
// (approvaltool.Verdict, whose fields it fills: DecidedBy is an
// askuser.Provenance, Ended an askuser.Reason).
type Verdict struct {
	Status         string
	DecidedBy      string
	Note           string
	Ended          string
	Remember       bool
	RememberedFrom string
	Digest         string
	Quorum         *route.Verdict
}
