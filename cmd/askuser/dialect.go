package main

import (
	"flag"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
)

// dialectNames lists the contracts --dialect accepts.
const dialectNames = "ask_user, pi-ask, pi"

// dialectFlag adds --dialect to a command's flags.
func dialectFlag(fs *flag.FlagSet) *string {
	return fs.String("dialect", "ask_user", "the tool contract of the call, the result and the tool definition: `ask_user|pi-ask|pi`")
}

// dialectNamed returns the contract --dialect names.
func dialectNamed(name string) (askuser.Dialect, error) {
	switch name {
	case "", askuser.AskUser().Name():
		return askuser.AskUser(), nil
	case piask.Name:
		return piask.Dialect(), nil
	case pi.Name:
		return pi.Dialect(), nil
	}
	return nil, fmt.Errorf("--dialect %q is not a contract; allowed: %s", name, dialectNames)
}

// marshalNormalized writes a normalized call as validate prints it: in its
// contract's own call form (askuser.FormMarshaler), so that validating the
// output again with the same dialect gives the same call back (the stamps
// aside: only the ask_user form carries them).
func marshalNormalized(d askuser.Dialect, c *askuser.Form) ([]byte, error) {
	m, ok := d.(askuser.FormMarshaler)
	if !ok {
		return nil, fmt.Errorf("the %s contract cannot write a call back", d.Name())
	}
	return m.MarshalForm(c)
}
