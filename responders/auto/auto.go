// Package auto provides the responder for agents that run with nobody
// watching: it says, at once, that nobody can be asked. The orchestrator
// then applies the unattended rules of the call's contract — for ask_user,
// the declared defaults of every choice question (answered / unattended),
// or a decline when a text or secret question is open — without waiting
// out the timeout.
package auto

import (
	"context"

	"github.com/askuser-go/askuser"
)

// Responder is nobody: every ask is unattended. The zero value is ready to
// use.
type Responder struct{}

// New returns the unattended responder.
func New() Responder { return Responder{} }

// Respond reports that nobody can be asked.
func (Responder) Respond(_ context.Context, a *askuser.Ask) error {
	return a.Unreachable()
}

// Reachable reports false: the orchestrator need not call Respond at all.
func (Responder) Reachable(context.Context, string) bool { return false }

// ResponderName names the responder in the journal.
func (Responder) ResponderName() string { return "auto" }

var (
	_ askuser.Responder = Responder{}
	_ askuser.Presence  = Responder{}
	_ askuser.Named     = Responder{}
)
