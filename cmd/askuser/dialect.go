package main

import (
	"encoding/json"
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

// marshalNormalized writes a normalized call as validate prints it: the
// ask_user call for ask_user, askuser's own form of the model (the Form's
// JSON) for the other contracts.
func marshalNormalized(d askuser.Dialect, c *askuser.Form) ([]byte, error) {
	if d == askuser.AskUser() {
		return d.(askuser.FormMarshaler).MarshalForm(c)
	}
	return json.Marshal(c)
}

// toolDefinition is the tool definition of a contract other than ask_user.
func toolDefinition(d askuser.Dialect) []byte {
	switch d {
	case piask.Dialect():
		return piask.Tool()
	case pi.Dialect():
		return pi.Tool()
	}
	return nil
}
