//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package tui

import "errors"

func flushTTY(int) error {
	return errors.New("tui: flushing a terminal's input is not supported on this system")
}
