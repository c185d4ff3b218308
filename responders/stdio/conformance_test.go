package stdio_test

import (
	"io"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/stdio"
)

// TestConformanceNobodyAnswers runs the conformance suite with an input
// nobody writes to: every ask waits for its deadline, or is superseded, or
// its caller goes. An io.Pipe blocks inside a synctest bubble, so the
// deadlines pass on the bubble's clock.
func TestConformanceNobodyAnswers(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		pr, pw := io.Pipe()
		r := stdio.New(pr, io.Discard, nil)
		t.Cleanup(func() {
			r.Close()
			pw.Close()
		})
		return r
	}, &respondertest.Options{Synctest: true})
}

// TestConformanceAnswering runs the conformance suite with an input that
// answers "1" to every question, for ever. An input that never blocks
// would stop a synctest bubble's clock, so it runs in real time.
func TestConformanceAnswering(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		r := stdio.New(ones{}, io.Discard, nil)
		t.Cleanup(func() { r.Close() })
		return r
	}, nil)
}

// ones is an endless input of lines holding "1".
type ones struct{}

func (ones) Read(p []byte) (int, error) {
	n := 0
	for ; n+1 < len(p); n += 2 {
		p[n], p[n+1] = '1', '\n'
	}
	return n, nil
}
