// Package builtin hands the root package's own dialects to the packages
// that export them. The ask_user and request_approval adapters take and
// return the root's model (*askuser.Form, *askuser.Outcome), so they live
// in the root, which asks with them when a Request names no dialect; the
// root's init stores them here, and dialect/askusertool and
// dialect/approvaltool, which import the root (so that init has run),
// return them as their Dialect().
package builtin

// AskUser is the root's ask_user dialect, an askuser.Dialect.
var AskUser any

// RequestApproval is the root's request_approval dialect, an
// askuser.Dialect.
var RequestApproval any
