package stdio

import "github.com/askuser-go/askuser/internal/challenge"

// ParseDecision is parseDecision, for the tests.
var ParseDecision = parseDecision

// SetCodes makes r draw its approvals' codes from c, for the tests; call
// it before the first ask.
func SetCodes(r *Responder, c *challenge.Source) { r.codes = c }
