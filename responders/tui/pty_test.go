//go:build linux

package tui_test

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/tui"
	"github.com/askuser-go/askuser/secretstore"
)

// terminal is a pseudo-terminal: the responder reads keys from its
// terminal end (tty) and the test types on the other (master), and reads
// what is drawn there when the responder draws on tty.
type terminal struct {
	master, tty *os.File
	mu          sync.Mutex
	shown       strings.Builder
	copied      chan struct{}
}

func openTerminal(t *testing.T) *terminal {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	term := &terminal{master: master, tty: tty, copied: make(chan struct{})}
	go func() {
		defer close(term.copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			term.mu.Lock()
			term.shown.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return term
}

// close closes both ends, once the responder is done with them.
func (term *terminal) close() {
	term.tty.Close()
	term.master.Close()
	<-term.copied
}

func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.shown.String()
}

// typeIn types keys on the terminal.
func (term *terminal) typeIn(t *testing.T, keys string) {
	t.Helper()
	if _, err := io.WriteString(term.master, keys); err != nil {
		t.Fatal(err)
	}
}

// waitFor waits until the terminal shows want; the limit only keeps a
// broken test from hanging.
func (term *terminal) waitFor(t *testing.T, want string) {
	t.Helper()
	for limit := time.Now().Add(20 * time.Second); !strings.Contains(term.screen(), want); {
		if time.Now().After(limit) {
			t.Fatalf("%q never appeared", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (term *terminal) echoes(t *testing.T) bool {
	t.Helper()
	tios, err := unix.IoctlGetTermios(int(term.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tios.Lflag&unix.ECHO != 0
}

// TestConformanceOnATerminal runs the conformance suite on real
// pseudo-terminals, where the responder can collect secrets: a typist
// presses 1 and Enter for ever, which also types "1" as a secret, picks
// the first of the suite's sensitive options, and submits.
func TestConformanceOnATerminal(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		term := openTerminal(t)
		r := tui.New(term.tty, term.tty, nil)
		stop := make(chan struct{})
		typed := make(chan struct{})
		go func() {
			defer close(typed)
			for {
				select {
				case <-stop:
					return
				case <-time.After(2 * time.Millisecond):
				}
				if _, err := io.WriteString(term.master, "1\r"); err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() {
			r.Close()
			close(stop)
			<-typed
			term.close()
		})
		return r
	}, nil)
}

// TestOnATerminal: on a real terminal the screen puts it into raw mode
// while it is up (no echo) and gives it back as it was; a secret typed
// there is never drawn, and it is sealed as typed.
func TestOnATerminal(t *testing.T) {
	term := openTerminal(t)
	defer term.close()
	r := tui.New(term.tty, term.tty, nil)
	defer r.Close()
	if !r.CanCollectSecrets() {
		t.Fatal("CanCollectSecrets is false on a terminal")
	}
	o := &askuser.Orchestrator{Responder: r, Secrets: secretstore.NewMemory(nil)}
	const typed = "tok-Typed-On-The-Terminal-42"
	ch := make(chan *askuser.Outcome, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
			{ID: "token", Kind: askuser.KindSecret, Header: "Token", Text: "Paste the deploy token", SecretName: "DEPLOY_TOKEN"},
		}}})
		if err != nil {
			t.Error(err)
		}
		ch <- out
	}()
	term.waitFor(t, "nothing typed yet")
	if term.echoes(t) {
		t.Error("the terminal echoes while the screen is up")
	}
	term.typeIn(t, typed)
	term.waitFor(t, "••••")
	term.typeIn(t, "\r")
	term.waitFor(t, "handed over")
	term.typeIn(t, "\r")
	out := <-ch
	if out.Status != askuser.StatusAnswered || out.Answers[0].SecretRef != "session:DEPLOY_TOKEN" {
		t.Errorf("outcome %s %+v", out.Status, out.Answers)
	}
	r.Close()
	if !term.echoes(t) {
		t.Error("the terminal does not echo once the screen is gone")
	}
	v, err := o.Secrets.Get(context.Background(), "s", "DEPLOY_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	if string(v.Reveal()) != typed {
		t.Error("the sealed value is not what was typed")
	}
	term.waitFor(t, "Submitted: Token → sealed as session:DEPLOY_TOKEN")
	if strings.Contains(term.screen(), typed) || strings.Contains(term.screen(), typed[4:12]) {
		t.Error("the secret was drawn on the terminal")
	}
}

// TestUsableOnATerminal: two terminals and a TERM that can draw a screen
// are usable; TERM unset or dumb is not.
func TestUsableOnATerminal(t *testing.T) {
	term := openTerminal(t)
	defer term.close()
	for _, c := range []struct {
		env []string
		ok  bool
	}{
		{[]string{"TERM=xterm-256color"}, true},
		{[]string{"TERM=dumb"}, false},
		{nil, false},
	} {
		if err := tui.Usable(term.tty, term.tty, c.env); (err == nil) != c.ok {
			t.Errorf("Usable with %v: %v, want usable %v", c.env, err, c.ok)
		}
	}
}
