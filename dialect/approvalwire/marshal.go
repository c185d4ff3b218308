package approvalwire

import (
	"errors"

	"github.com/askuser-go/askuser/internal/wire"
)

// Marshal returns c in the request_approval JSON form, one object on one
// line with its fields in this order:
//
//	{"action":…,"reason":…,"risk":…,"details":…,"timeout_seconds":…,"human_intent":…}
//
// "details" and "human_intent" are left out when empty, and
// "timeout_seconds" when zero (so that decoding the result applies the
// ceiling). Strings are written as encoding/json writes them without HTML
// escaping. Decoding the result of Marshal with the same Limits validates
// and gives the same call again.
func Marshal(c *Call) ([]byte, error) {
	if c == nil {
		return nil, errors.New("approvalwire: Marshal of a nil *Call")
	}
	w := wire.ApprovalCall{Action: c.Action, Reason: c.Reason, Risk: c.Risk}
	if c.Details != "" {
		w.Details = &c.Details
	}
	if c.TimeoutSeconds != 0 {
		w.TimeoutSeconds = &c.TimeoutSeconds
	}
	if c.HumanIntent != "" {
		w.HumanIntent = &c.HumanIntent
	}
	return wire.Marshal(w)
}
