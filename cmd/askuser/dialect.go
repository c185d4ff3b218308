package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
)

// dialectNames lists the contracts --dialect accepts.
const dialectNames = "ask_user, pi-ask, pi, request_approval"

// dialectFlag adds --dialect to a command's flags. ask refuses
// request_approval: an approval is asked with approve, whose responders
// take a decision only from a person (a terminal, a card admitted by a code
// on the terminal), never from a card whose URL the command prints where
// an agent's shell can read it.
func dialectFlag(fs *flag.FlagSet) *string {
	v := &dialectValue{name: "ask_user", cmd: fs.Name()}
	fs.Var(v, "dialect", "the tool contract of the call, the result and the tool definition: `ask_user|pi-ask|pi|request_approval`")
	return &v.name
}

// dialectValue is --dialect's value: any name (dialectNamed checks it),
// except request_approval on ask.
type dialectValue struct{ name, cmd string }

func (v *dialectValue) String() string { return v.name }

func (v *dialectValue) Set(s string) error {
	if s == approvalwire.ToolName && v.cmd == "ask" {
		return errors.New("a request_approval call is asked with 'askuser approve', not ask")
	}
	v.name = s
	return nil
}

// dialectNamed returns the contract --dialect names.
func dialectNamed(name string) (askuser.Dialect, error) {
	switch name {
	case "", askusertool.Dialect().Name():
		return askusertool.Dialect(), nil
	case piask.Name:
		return piask.Dialect(), nil
	case pi.Name:
		return pi.Dialect(), nil
	case approvalwire.ToolName:
		return approvaltool.Dialect(), nil
	}
	return nil, fmt.Errorf("--dialect %q is not a contract; allowed: %s", name, dialectNames)
}

// marshalNormalized writes a normalized call as validate prints it: in its
// contract's own call form (each dialect package's MarshalCall), so that
// validating the output again with the same dialect gives the same call
// back (the stamps aside: only the ask_user form carries them).
func marshalNormalized(d askuser.Dialect, c *askuser.Form) ([]byte, error) {
	switch d.Name() {
	case askusertool.Dialect().Name():
		return askusertool.MarshalCall(c)
	case piask.Name:
		return piask.MarshalCall(c)
	case pi.Name:
		return pi.MarshalCall(c)
	case approvalwire.ToolName:
		return approvaltool.MarshalCall(c)
	}
	return nil, fmt.Errorf("the %s contract cannot write a call back", d.Name())
}
