//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package tui

import "errors"

func flushTTY(int) error {
	return errors.New("tui: flushing a terminal's input is not supported on this system")
}

// keepOutputProcessing does nothing where there is no termios: a console
// there is not put out of its output processing by raw mode.
func keepOutputProcessing(int) error { return nil }
