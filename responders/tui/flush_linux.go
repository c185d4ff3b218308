package tui

import "golang.org/x/sys/unix"

// flushTTY discards the terminal's input not yet read (tcflush TCIFLUSH).
func flushTTY(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }

// keepOutputProcessing turns the terminal's output processing back on
// after raw mode turned it off: see withOutputProcessing.
func keepOutputProcessing(fd int) error {
	return withOutputProcessing(fd, unix.TCGETS, unix.TCSETS)
}
