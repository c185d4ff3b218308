package stdio

import (
	"os"

	"golang.org/x/term"
)

// fdOf returns f's descriptor without putting f into blocking mode, as
// f.Fd would: a terminal opened with os.Open keeps its read deadlines.
func fdOf(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd := -1
	if err := rc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return -1, false
	}
	return fd, true
}

// isTerminal reports whether f is a terminal whose echo this package can
// turn off.
func isTerminal(f *os.File) bool {
	if f == nil || !canHideInput {
		return false
	}
	fd, ok := fdOf(f)
	return ok && term.IsTerminal(fd)
}
