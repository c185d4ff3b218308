// Package sharedask tells this module's own responders whether an ask lives
// in a shared store (askuser.Orchestrator.Asks), which no responder of a
// user needs to know: the card and the MCP tasks leave such an ask pending
// when they close, for another replica's person, instead of ending it as
// having nobody to ask. It is not part of the public API.
package sharedask

// Is reports whether ask, an *askuser.Ask, lives in a shared store: it
// outlives this process, and other processes show it too. Package askuser
// sets it when it is initialized, so that every importer of askuser finds
// it set; it reports false for anything that is not an *askuser.Ask.
var Is func(ask any) bool
