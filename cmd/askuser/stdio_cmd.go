package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/askuser-go/askuser/responders/stdio"
)

// shown is the terminal responder of the ask in progress: the stdio one,
// which Ctrl-C dismisses, or the full-screen card (whose keys, Ctrl-C
// among them, it reads itself); quit closes either, which gives the
// terminal back as it was.
var shown struct {
	sync.Mutex
	r     *stdio.Responder
	close func() // closes the responder shown, whichever it is
}

// showing records the terminal responder in use (nil: none).
func showing(r *stdio.Responder, close func()) {
	shown.Lock()
	defer shown.Unlock()
	shown.r, shown.close = r, close
}

func currentCloser() func() {
	shown.Lock()
	defer shown.Unlock()
	return shown.close
}

func currentStdio() *stdio.Responder {
	shown.Lock()
	defer shown.Unlock()
	return shown.r
}

// stdioResponder returns the terminal responder: questions on standard
// error, answers from standard input, and secrets typed without echo on the
// controlling terminal (/dev/tty) when standard input is not one. done
// stops it and closes the terminal.
func (e env) stdioResponder() (r *stdio.Responder, done func()) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		tty = nil // no terminal: a secret call reaches nobody
	}
	r = stdio.New(e.stdin, e.stderr, &stdio.Options{Terminal: tty})
	showing(r, func() { r.Close() })
	return r, func() {
		showing(nil, nil)
		r.Close()
		if tty != nil {
			tty.Close()
		}
	}
}

// exitInterrupted is the exit code after a second Ctrl-C (128 + SIGINT).
const exitInterrupted = 130

// graceAfterTerm is how long the command has, after SIGTERM or SIGHUP, to
// end the ask and exit as usual before it restores the terminal and exits
// at once.
const graceAfterTerm = 5 * time.Second

// interruptible returns a context for the command and a function that
// stops watching for signals.
//
// The first Ctrl-C (SIGINT) dismisses the ask the stdio responder shows
// (the result says the person dismissed it); when no such ask is shown, it
// ends the context. SIGTERM and SIGHUP end the context: the command is
// being stopped, or its terminal has gone, so the ask ends as one whose
// caller went away (cancelled / unattended, nothing passed on, journaled
// so), the responder returns and restores a terminal whose echo a secret
// prompt turned off, and the command exits as usual. A second signal of
// any of these, or a command still running graceAfterTerm after SIGTERM or
// SIGHUP, restores the terminal and exits at once, with 128 + the signal's
// number: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		var first os.Signal
		var grace <-chan time.Time
		for {
			var s os.Signal
			select {
			case s = <-sig:
			case <-grace:
				quit(first)
			case <-done:
				return
			}
			if first != nil {
				quit(s)
			}
			first = s
			if s != os.Interrupt {
				cancel()
				grace = time.After(graceAfterTerm)
				continue
			}
			if r := currentStdio(); r != nil && r.Interrupt() {
				fmt.Fprintln(os.Stderr, "\n(Ctrl-C again to quit at once)")
			} else {
				cancel()
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}

// quit restores the terminal that a secret prompt may hold without echo,
// or the full-screen card holds in raw mode (closing the responder shown,
// for at most a second), and exits at once, with 128 + the number of the
// signal s.
func quit(s os.Signal) {
	if closeShown := currentCloser(); closeShown != nil {
		closed := make(chan struct{})
		go func() { closeShown(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(time.Second):
		}
	}
	code := exitInterrupted
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	os.Exit(code)
}
