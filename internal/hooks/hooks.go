// Package hooks carries functions of package askuser that package responder
// gives responder authors. Package askuser sets each variable when it is
// initialized, to a func of its own types; package responder asserts each
// to that type when it is initialized, which is after askuser's. It is not
// part of the public API.
package hooks

// The functions, each set by package askuser.
var (
	Sealed, SealName, FreeText, DeclaredDefaults, ChoiceSecret, CheckAnswer any
	Route, Told, Through, Votes, BeganHere                                  any
)
