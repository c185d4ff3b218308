//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package tui

import "golang.org/x/sys/unix"

// fread is FREAD of <sys/fcntl.h>: TIOCFLUSH with it flushes the input.
const fread = 0x1

// flushTTY discards the terminal's input not yet read (tcflush TCIFLUSH).
func flushTTY(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }

// keepOutputProcessing turns the terminal's output processing back on
// after raw mode turned it off: see withOutputProcessing.
func keepOutputProcessing(fd int) error {
	return withOutputProcessing(fd, unix.TIOCGETA, unix.TIOCSETA)
}
