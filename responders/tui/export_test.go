package tui

import "github.com/askuser-go/askuser/internal/challenge"

// SetCodes makes r draw its approvals' codes from c, for the tests; call
// it before the first ask.
func SetCodes(r *Responder, c *challenge.Source) { r.codes = c }
