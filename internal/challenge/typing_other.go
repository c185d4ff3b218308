//go:build !linux

package challenge

// TypingAllowed reports false where it is not known whether programs can
// type into a terminal they share (TIOCSTI): the responders then say
// nothing of it. The codes are asked for all the same.
func TypingAllowed() bool { return false }
