//go:build linux

package tui_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/tui"
)

// A glass is what a person sees on a real terminal: a terminal emulator
// fed with everything the responder writes to a pseudo-terminal, after the
// pseudo-terminal's own output processing (ONLCR and the rest), as a
// terminal window would be.
type glass struct {
	*terminal
	mu     sync.Mutex
	emu    *vt.Emulator
	answer chan struct{}
}

// openGlass opens an 80×24 pseudo-terminal and puts an emulator of the
// same size behind it.
func openGlass(t *testing.T) *glass {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	g := &glass{
		terminal: &terminal{master: master, tty: tty, copied: make(chan struct{})},
		emu:      vt.NewEmulator(80, 24),
		answer:   make(chan struct{}),
	}
	go func() {
		// The emulator's answers to queries are read and dropped: nobody
		// types them.
		defer close(g.answer)
		_, _ = io.Copy(io.Discard, g.emu)
	}()
	go func() {
		defer close(g.terminal.copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			g.terminal.mu.Lock()
			g.terminal.shown.Write(buf[:n])
			g.terminal.mu.Unlock()
			g.mu.Lock()
			_, _ = g.emu.Write(buf[:n])
			g.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		g.terminal.close() // the copy into the emulator has ended
		// The emulator's Close is not safe beside a Read: end the reader
		// by closing the pipe the answers go to, then close.
		_ = g.emu.InputPipe().(io.Closer).Close()
		<-g.answer
		g.emu.Close()
	})
	return g
}

// rows are the emulator's screen, one string a row, the spaces at the end
// of each cut.
func (g *glass) rows() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Split(g.emu.String(), "\n")
}

// waitScreen waits until the screen holds a row that is want, from the
// first column; the limit only keeps a broken test from hanging.
func (g *glass) waitScreen(t *testing.T, want string) []string {
	t.Helper()
	for limit := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		rows := g.rows()
		for _, r := range rows {
			if r == want {
				return rows
			}
		}
		if time.Now().After(limit) {
			t.Fatalf("the screen never showed the row %q; it shows:\n%s", want, strings.Join(rows, "\n"))
		}
	}
}

// TestCardOnTheScreen reads the screen of a real terminal: the card's
// rows each start at the first column, in order, on a screen that holds
// nothing else (no staircase of rows each starting where the one above
// ended, no rows of an earlier frame left behind), and after a key the
// screen shows the new frame and only it. The terminal is the
// pseudo-terminal's, with its output processing as the responder leaves
// it, read through a terminal emulator.
func TestCardOnTheScreen(t *testing.T) {
	g := openGlass(t)
	r := tui.New(g.tty, g.tty, &tui.Options{NoColor: true, Environ: []string{"TERM=xterm-256color"}})
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r}
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: &askuser.Form{TimeoutSeconds: 300, Title: "Deploy", Questions: []askuser.Question{
			{ID: "env", Header: "Env", Text: "Which environment?", Options: []askuser.Option{
				{Label: "staging", Description: "Safe to break", Default: true},
				{Label: "production", Description: "Real users"},
			}},
		}}})
		if err != nil {
			t.Error(err)
		} else if out.Status != askuser.StatusCancelled {
			t.Errorf("outcome %s", out.Status)
		}
	}()
	card := []string{
		"Which environment?",
		"",
		"› ( ) 1. staging (recommended)",
		"       Safe to break",
		"  ( ) 2. production",
		"       Real users",
	}
	rows := g.waitScreen(t, card[0])
	checkRows(t, rows, card)
	if !strings.HasPrefix(rows[0], "Deploy") {
		t.Errorf("the first row is %q, want the title from the first column:\n%s", rows[0], strings.Join(rows, "\n"))
	}
	if !strings.HasPrefix(rows[len(rows)-1], "esc") || !strings.HasPrefix(rows[len(rows)-2], "↑↓") {
		t.Errorf("the keys are not on the last rows, from the first column:\n%s", strings.Join(rows, "\n"))
	}

	g.typeIn(t, "\x1b[B") // Down
	moved := []string{
		"Which environment?",
		"",
		"  ( ) 1. staging (recommended)",
		"       Safe to break",
		"› ( ) 2. production",
		"       Real users",
	}
	rows = g.waitScreen(t, moved[4])
	checkRows(t, rows, moved)
	g.typeIn(t, "\x03") // Ctrl+C dismisses
	<-done
}

// checkRows checks that the rows of want are on the screen, each from the
// first column, one after the other, and that the cursor mark is on one
// row only: nothing of an earlier frame is left.
func checkRows(t *testing.T, rows, want []string) {
	t.Helper()
	at := -1
	for i, r := range rows {
		if r == want[0] {
			at = i
			break
		}
	}
	if at < 0 || at+len(want) > len(rows) {
		t.Fatalf("the screen does not show %q from the first column:\n%s", want[0], strings.Join(rows, "\n"))
	}
	for i, w := range want {
		if rows[at+i] != w {
			t.Errorf("row %d is %q, want %q; the screen shows:\n%s", at+i+1, rows[at+i], w, strings.Join(rows, "\n"))
		}
	}
	marks := 0
	for _, r := range rows {
		marks += strings.Count(r, "›")
	}
	if marks != 1 {
		t.Errorf("the screen shows the cursor mark %d times, want once:\n%s", marks, strings.Join(rows, "\n"))
	}
}
