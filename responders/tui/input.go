package tui

import (
	"io"
	"os"
	"sync"

	"github.com/muesli/cancelreader"
	"golang.org/x/term"
)

// drainedMode is the private mode number of the report that marks the end
// of a screen's input: the responder writes "CSI ? 7799 ; 2 $ y" into the
// screen's input after the last key it passes on, and the model, once it
// has that report, has had every key before it. No terminal has such a
// mode, so none sends the report by itself.
const drainedMode = 7799

// drainedReport is that report, as a terminal would send it.
const drainedReport = "\x1b[?7799;2$y"

// A screenInput is what one screen's program reads: a pipe the responder
// fills from the terminal (or from a feeder, for an input that is not
// one). Bubble Tea's reader may be left behind by a program that has
// ended, still holding keys it read and cannot deliver; the pipe lets the
// responder stop passing keys on, mark the end (drainedReport), wait until
// the program has had everything, and only then end the program, so that
// nothing is left behind and no key meant for the next screen is taken.
type screenInput struct {
	pr     *io.PipeReader
	pw     *io.PipeWriter
	stop   chan struct{} // closed to stop the pump
	once   sync.Once
	cr     cancelreader.CancelReader // the terminal's reader, when the input is a terminal
	pumped chan struct{}             // closed when the pump has returned

	markOnce sync.Once
	marked   chan struct{} // closed when the mark is written, or cannot be
}

// newTerminalInput passes on what is typed on tty, from now until stopped.
func newTerminalInput(tty *os.File) (*screenInput, error) {
	cr, err := cancelreader.NewReader(tty)
	if err != nil {
		return nil, err
	}
	in := newScreenInput()
	in.cr = cr
	go func() {
		defer close(in.pumped)
		buf := make([]byte, 256)
		defer clear(buf)
		for {
			n, err := cr.Read(buf)
			if n > 0 && !in.pass(buf[:n]) {
				return
			}
			clear(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return in, nil
}

// newFedInput passes on what f reads, once ready is closed.
func newFedInput(f *feeder, ready <-chan struct{}) *screenInput {
	f.startOnce.Do(func() { go f.run() })
	in := newScreenInput()
	go func() {
		defer close(in.pumped)
		select {
		case <-ready:
		case <-in.stop:
			return
		case <-f.stop:
			return
		}
		for {
			select {
			case b, ok := <-f.chunks:
				if !ok {
					return
				}
				ok = in.pass(b)
				clear(b)
				if !ok {
					return
				}
			case <-in.stop:
				return
			case <-f.stop:
				return
			}
		}
	}()
	return in
}

// newScreenInput makes the pipe; the caller starts the pump, which closes
// pumped when it returns.
func newScreenInput() *screenInput {
	pr, pw := io.Pipe()
	in := &screenInput{pr: pr, pw: pw, stop: make(chan struct{}), pumped: make(chan struct{}), marked: make(chan struct{})}
	return in
}

// pass writes b to the program, unless the input is stopping.
func (in *screenInput) pass(b []byte) bool {
	select {
	case <-in.stop:
		return false
	default:
	}
	_, err := in.pw.Write(b)
	return err == nil
}

func (in *screenInput) stopPump() {
	in.once.Do(func() {
		close(in.stop)
		if in.cr != nil {
			in.cr.Cancel()
		}
	})
}

// drain stops passing keys on and, once the pump has stopped, writes the
// mark; the caller then waits for the model to have it. A pump that waits
// for a program that has ended returns when close closes the pipe.
func (in *screenInput) drain() {
	in.stopPump()
	<-in.pumped
	in.markOnce.Do(func() {
		go func() {
			defer close(in.marked)
			_, _ = io.WriteString(in.pw, drainedReport)
		}()
	})
}

// close ends the input once the program has ended, and waits for the
// goroutines that filled it.
func (in *screenInput) close() {
	in.stopPump()
	in.pr.Close()
	<-in.pumped
	in.markOnce.Do(func() { close(in.marked) })
	<-in.marked
	if in.cr != nil {
		in.cr.Close()
	}
}

// A feeder is the one reader of an input that is not a terminal (a pipe,
// a test's script): a goroutine reads it, from the first screen on, and
// hands what it reads to the screen that is up.
type feeder struct {
	in     io.Reader
	chunks chan []byte // closed at the end of the input, or once stopped

	startOnce sync.Once
	stopOnce  sync.Once
	stop      chan struct{}
}

func newFeeder(in io.Reader) *feeder {
	return &feeder{in: in, chunks: make(chan []byte), stop: make(chan struct{})}
}

// run reads the input until it ends or the feeder is stopped.
func (f *feeder) run() {
	defer close(f.chunks)
	buf := make([]byte, 4096)
	defer clear(buf)
	for {
		n, err := f.in.Read(buf)
		if n > 0 {
			b := append([]byte(nil), buf[:n]...)
			clear(buf[:n])
			select {
			case f.chunks <- b:
			case <-f.stop:
				clear(b)
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// close stops the feeder. A Read in progress on the input ends when the
// input has data, ends or is closed.
func (f *feeder) close() {
	f.stopOnce.Do(func() { close(f.stop) })
}

// makeRaw puts the terminal into raw mode for its input, keeping its
// output processing (see withOutputProcessing), and returns what restores
// it as it was.
func makeRaw(tty *os.File) (restore func(), err error) {
	rc, err := tty.SyscallConn()
	if err != nil {
		return nil, err
	}
	var old *term.State
	var rawErr error
	if err := rc.Control(func(fd uintptr) {
		old, rawErr = term.MakeRaw(int(fd))
		if rawErr == nil {
			if rawErr = keepOutputProcessing(int(fd)); rawErr != nil {
				_ = term.Restore(int(fd), old)
			}
		}
	}); err != nil {
		return nil, err
	}
	if rawErr != nil {
		return nil, rawErr
	}
	var once sync.Once
	return func() {
		once.Do(func() { _ = rc.Control(func(fd uintptr) { _ = term.Restore(int(fd), old) }) })
	}, nil
}
