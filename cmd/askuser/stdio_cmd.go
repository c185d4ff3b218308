package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/askuser-go/askuser/responders/stdio"
)

// shown is the stdio responder of the ask in progress, which Ctrl-C
// dismisses.
var shown struct {
	sync.Mutex
	r *stdio.Responder
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
	shown.Lock()
	shown.r = r
	shown.Unlock()
	return r, func() {
		shown.Lock()
		shown.r = nil
		shown.Unlock()
		r.Close()
		if tty != nil {
			tty.Close()
		}
	}
}

// exitInterrupted is the exit code after a second Ctrl-C (128 + SIGINT).
const exitInterrupted = 130

// interruptible returns a context for the command and a function that
// stops watching for Ctrl-C. The first Ctrl-C dismisses the ask the stdio
// responder shows (the result says the person dismissed it); when no such
// ask is shown, it ends the context. A second Ctrl-C restores the terminal
// and exits at once with status 130.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-sig:
			case <-done:
				return
			}
			r := currentStdio()
			if n == 1 {
				if r != nil && r.Interrupt() {
					fmt.Fprintln(os.Stderr, "\n(Ctrl-C again to quit at once)")
				} else {
					cancel()
				}
				continue
			}
			if r != nil {
				closed := make(chan struct{})
				go func() { r.Close(); close(closed) }()
				select {
				case <-closed:
				case <-time.After(time.Second):
				}
			}
			os.Exit(exitInterrupted)
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}
