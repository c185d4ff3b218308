// Package askusertool is the ask_user contract, askuser's own, as a
// Dialect: the one the orchestrator asks with when a Request names none, so
// that a program importing only the root speaks it with no setup. Dialect
// returns it for the places that name a dialect (Orchestrator.Dialects, the
// responders and tools that take one).
//
// The contract's wire format (the call's fields, validation with ordered,
// exact messages, the tool's description and guidance) is package
// dialect/askuserwire, which knows nothing of the orchestrator; the dialect
// maps it onto the model. docs/ask_user.md is the contract.
package askusertool

import (
	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/builtin"
)

// Dialect returns the ask_user contract. Its Decode reads a call into a
// Form whose option values are their labels (the contract has no values of
// its own), with the call's human_intent as the form's HumanIntent; its
// Encode renders answers in question order, labels in option order, free
// text trimmed (null when none), a secret's reference, an answer's own
// answered_by only where it differs from the top level, and the person's
// note; it keeps nothing besides the result.
func Dialect() askuser.Dialect { return builtin.AskUser.(askuser.Dialect) }

// MarshalCall writes a form back as an ask_user call, so that decoding the
// output with Dialect gives the form again (the stamps aside). For a
// normalized form every default is written out; human_intent is written
// when HumanIntent is not empty; the fields the contract does not carry
// (Title, OtherLabel, Preview, Sensitive, …) are not written, and an option
// is written by its label. A nil form is refused.
func MarshalCall(f *askuser.Form) ([]byte, error) {
	return builtin.AskUser.(interface {
		MarshalForm(*askuser.Form) ([]byte, error)
	}).MarshalForm(f)
}
