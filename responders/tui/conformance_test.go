package tui_test

import (
	"io"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/tui"
)

// TestConformanceNobodyAnswers runs the conformance suite with a terminal
// nobody types on: an io.Pipe stands for it, so that inside a synctest
// bubble every deadline passes on the bubble's clock, with the whole
// Bubble Tea program running.
func TestConformanceNobodyAnswers(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		pr, pw := io.Pipe()
		r := tui.New(pr, io.Discard, nil)
		t.Cleanup(func() {
			r.Close()
			pw.Close()
		})
		return r
	}, &respondertest.Options{Synctest: true})
}

// TestConformanceAnswering runs the conformance suite with a scripted
// terminal that, for ever, presses 1 and then Enter: on a single choice
// that picks the first option and moves on, on a multi-select it checks
// the first option and confirms, in a text question it types "1" and
// saves, and on the review tab Enter submits. The keys come in real time,
// a pair every few milliseconds, as a fast typist's would.
func TestConformanceAnswering(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		r := tui.New(&typist{keys: "1\r", every: 2 * time.Millisecond}, io.Discard, nil)
		t.Cleanup(func() { r.Close() })
		return r
	}, nil)
}

// typist is an endless input that sends keys every so often.
type typist struct {
	keys  string
	every time.Duration
}

func (ty *typist) Read(p []byte) (int, error) {
	time.Sleep(ty.every)
	return copy(p, ty.keys), nil
}
