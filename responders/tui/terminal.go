package tui

import (
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal. It reads the descriptor
// without putting f into blocking mode, as f.Fd would.
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	is := false
	if err := rc.Control(func(fd uintptr) { is = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return is
}

// Usable says why the full screen cannot be drawn on in and out, or
// returns nil: both must be terminals, and the TERM in environ must name
// one that can draw a screen (set, and not "dumb"). A program that gets an
// error asks line by line instead (responders/stdio), as the askuser
// command does.
func Usable(in io.Reader, out io.Writer, environ []string) error {
	fi, ok := in.(*os.File)
	if !ok || !isTerminal(fi) {
		return errors.New("the input is not a terminal")
	}
	fo, ok := out.(*os.File)
	if !ok || !isTerminal(fo) {
		return errors.New("the output is not a terminal")
	}
	t := ""
	for _, kv := range environ {
		if v, found := strings.CutPrefix(kv, "TERM="); found {
			t = v
		}
	}
	switch t {
	case "":
		return errors.New("TERM is not set, so what the terminal can draw is unknown")
	case "dumb":
		return errors.New("TERM is dumb: the terminal cannot draw a screen")
	}
	return nil
}

// discardTypedAhead discards what was typed on the terminal f before the
// screen came up and not yet read, so that keys typed for something else
// (the shell, a prompt before) never act on a card, as the line-based
// terminal discards a line typed ahead of an approval. Where the system
// cannot, nothing is discarded.
func discardTypedAhead(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _ = flushTTY(int(fd)) })
}
