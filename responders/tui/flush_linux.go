package tui

import "golang.org/x/sys/unix"

// flushTTY discards the terminal's input not yet read (tcflush TCIFLUSH).
func flushTTY(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
