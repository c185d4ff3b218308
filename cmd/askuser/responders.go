package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/responders/web"
)

// responders is what --responder may name, for the messages.
const responders = "tui, stdio, auto, web, slack, email, script=FILE"

// pickResponder gives o the responder that --responder names (name), for
// the command cmd ("ask", "approve"); card serves that command's web card.
// An empty name is the full-screen card where the terminal can draw it,
// else stdio. It returns what closes the responder (the caller defers it)
// and what gives the terminal back before the result is printed (for the
// full-screen card; else it does nothing) — or, when it cannot, the exit
// code, having said why on standard error.
func (e env) pickResponder(cmd, name string, o *askuser.Orchestrator, card func() (*web.Responder, func(), error)) (closeIt, giveBack func(), code int, ok bool) {
	nothing := func() {}
	fail := func(code int, err error) (func(), func(), int, bool) {
		fmt.Fprintf(e.stderr, "askuser %s: %v\n", cmd, err)
		return nil, nil, code, false
	}
	switch {
	case name == "tui" || name == "" && e.tuiUsable():
		r, done, err := e.tuiResponder()
		if err != nil {
			return fail(exitFailure, err)
		}
		o.Responder = r
		return done, done, exitOK, true
	case name == "stdio" || name == "":
		r, done := e.stdioResponder()
		o.Responder = r
		return done, nothing, exitOK, true
	case name == "auto":
		o.Responder = auto.New()
		return nothing, nothing, exitOK, true
	case name == "web":
		r, done, err := card()
		if err != nil {
			return fail(exitFailure, err)
		}
		o.Responder = r
		return done, nothing, exitOK, true
	case strings.HasPrefix(name, "script="):
		data, err := readScript(strings.TrimPrefix(name, "script="))
		if err != nil {
			return fail(exitFailure, err)
		}
		r, err := scripted.ParseFile(data)
		if err != nil {
			return fail(exitUsage, err)
		}
		if err := refuseScriptedConsent(data); err != nil {
			return fail(exitUsage, err)
		}
		// A script is no person: its records name it, and it never
		// leaves a decision remembered for the session.
		r.Principal = scripted.ScriptPrincipal
		r.Supersede = o.Supersede
		o.Responder = r
		return nothing, nothing, exitOK, true
	}
	return fail(exitUsage, fmt.Errorf("--responder %q is not a responder; allowed: %s", name, responders))
}

// refuseScriptedConsent refuses a script whose approval is approve_session
// or deny_session: remembering a decision for the session is a person's
// choice, and a consent a script made would decide later requests — of
// people — without asking.
func refuseScriptedConsent(data []byte) error {
	var f struct {
		Approval string `json:"approval"`
	}
	if json.Unmarshal(data, &f) != nil {
		return nil // ParseFile accepted it; nothing more to say
	}
	if f.Approval == approval.ApproveSession || f.Approval == approval.DenySession {
		return fmt.Errorf("a script cannot decide for the rest of the session (approval %q): that is a person's choice, remembered as theirs; a script gives approve or deny", f.Approval)
	}
	return nil
}
