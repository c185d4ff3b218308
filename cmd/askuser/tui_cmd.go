package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/term"

	"github.com/askuser-go/askuser/responders/tui"
)

// tuiUsable reports whether ask, given no --responder, draws the full
// screen: standard input and standard error are terminals and TERM names
// one that can draw it (set, and not dumb). Otherwise it asks line by
// line.
func (e env) tuiUsable() bool {
	return tui.Usable(e.stdin, e.stderr, os.Environ()) == nil
}

// tuiResponder returns the full-screen responder: keys from standard input
// and the screen drawn on standard error or, for whichever of the two is
// not a terminal (--responder tui with a pipe), the controlling terminal
// (/dev/tty). Nothing is drawn on standard output, which carries the
// result. NO_COLOR set and not empty draws without colour. done closes the
// responder, which gives the terminal back as it was and prints there what
// the ask came to; ask calls it before it prints the result, so that the
// result lands on the restored screen.
func (e env) tuiResponder() (r *tui.Responder, done func(), err error) {
	var tty *os.File
	controlling := func() (*os.File, error) {
		if tty != nil {
			return tty, nil
		}
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("--responder tui needs a terminal and there is none (%v); use --responder stdio", err)
		}
		tty = f
		return f, nil
	}
	in, out := io.Reader(e.stdin), io.Writer(e.stderr)
	if !isTerminal(in) {
		if in, err = controlling(); err != nil {
			return nil, nil, err
		}
	}
	if !isTerminal(out) {
		if out, err = controlling(); err != nil {
			return nil, nil, err
		}
	}
	if err := tui.Usable(in, out, os.Environ()); err != nil {
		if tty != nil {
			tty.Close()
		}
		return nil, nil, fmt.Errorf("--responder tui cannot draw here: %v; use --responder stdio", err)
	}
	r = tui.New(in, out, &tui.Options{NoColor: os.Getenv("NO_COLOR") != ""})
	showing(nil, func() { r.Close() })
	var once sync.Once
	return r, func() {
		once.Do(func() {
			showing(nil, nil)
			r.Close()
			if tty != nil {
				tty.Close()
			}
		})
	}, nil
}

// isTerminal reports whether v is a terminal, without putting it into
// blocking mode as os.File.Fd would.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
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
