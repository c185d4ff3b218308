//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package stdio

import (
	"sync"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

const canHideInput = true

// noEcho turns the terminal's echo off, leaving it line-buffered with its
// signals (Ctrl-C) working, and returns a function that restores the state
// it found; the function may be called more than once.
func noEcho(fd int) (restore func(), err error) {
	old, err := term.GetState(fd)
	if err != nil {
		return nil, err
	}
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	t.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { _ = term.Restore(fd, old) }) }, nil
}

// flushInput discards what was typed on the terminal and not yet read.
func flushInput(fd int) error { return flushTTY(fd) }
