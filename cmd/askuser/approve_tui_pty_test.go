//go:build linux

package main

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"

	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/ptytest"
)

// TestApproveTUIOnPTY runs the built command on a pseudo-terminal with
// TERM set: approve shows the request on the full-screen card, the person
// decides with the keyboard, and the result is printed on standard output
// once the screen is given back.
func TestApproveTUIOnPTY(t *testing.T) {
	bin := buildAskuser(t)
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")
	call := writeFile(t, "call.json", approvalCall)

	// afterScreen is what the terminal shows once the screen is given
	// back.
	afterScreen := func(t *testing.T, p *ptyRun) string {
		t.Helper()
		screen := p.screen()
		i := strings.LastIndex(screen, "\x1b[?1049l")
		if i < 0 || !strings.Contains(screen, "\x1b[?1049h") {
			t.Fatalf("the command did not draw the full screen and give it back:\n%q", screen)
		}
		return screen[i:]
	}

	t.Run("typing the code shown approves an irreversible action", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "approve", "--responder", "tui", "--request", call)
		p.waitFor("IRREVERSIBLE")
		if p.echoOn() {
			t.Error("the terminal echoes while the screen is up")
		}
		// A note, then Down and Enter: the confirmation field, and no
		// decision yet; then the code the screen shows.
		p.typeIn("nafter the backup\r\x1b[B\r")
		p.typeIn(p.tuiCode() + "\r")
		r := parseApproval(t, p.wait())
		if r.Status != "approved" || str(r.DecidedBy) != "user" || str(r.Note) != "after the backup" || str(r.Ended) != "null" {
			t.Errorf("result %+v; want approved by user, with the note", r)
		}
		if !p.echoAfter {
			t.Error("the terminal does not echo after the command exited")
		}
		if last := afterScreen(t, p); !strings.Contains(last, `Approved, this once: Delete the S3 bucket logs-2023 — your note: "after the backup"`) {
			t.Errorf("once the screen was given back, the terminal does not show the verdict:\n%q", last)
		}
	})

	t.Run("another program on the terminal types what approved before: nothing is approved", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "approve", "--responder", "tui", "--request", call)
		p.waitFor("IRREVERSIBLE")
		p.inject("\x1b[B\r")
		p.tuiCode() // the field is open
		p.inject("approve\r")
		p.waitScreenFor("Not approved: that is not the code.")
		p.inject("approve\r")
		r := parseApproval(t, p.wait())
		if r.Status != "denied" || str(r.DecidedBy) != "user" {
			t.Errorf("result %+v; want denied, by the second wrong code", r)
		}
	})

	t.Run("the card by default, and a denial", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "approve", "--request", call)
		p.waitFor("IRREVERSIBLE")
		p.typeIn("\x1b[A\r") // Up, Enter: Deny
		r := parseApproval(t, p.wait())
		if r.Status != "denied" || str(r.DecidedBy) != "user" || str(r.Note) != "null" {
			t.Errorf("result %+v; want denied by user", r)
		}
		if last := afterScreen(t, p); !strings.Contains(last, "Denied: Delete the S3 bucket logs-2023") {
			t.Errorf("once the screen was given back, the terminal does not show the verdict:\n%q", last)
		}
	})

	t.Run("keys come from the terminal, not a pipe; y and Enter decide nothing; Ctrl+C dismisses", func(t *testing.T) {
		// Standard input is a pipe: --responder tui reads the keys from
		// the controlling terminal.
		p := startOnPTY(t, bin, false, "approve", "--responder", "tui", "--request", call)
		p.waitFor("IRREVERSIBLE")
		p.typeIn("y\r1\r")
		p.waitScreenFor("Nothing is chosen")
		p.typeIn("\x03")
		r := parseApproval(t, p.wait())
		if r.Status != "unresolved" || str(r.DecidedBy) != "null" || str(r.Ended) != "dismissed" {
			t.Errorf("result %+v; want unresolved, dismissed", r)
		}
		if last := afterScreen(t, p); !strings.Contains(last, "Dismissed: nothing was decided, and your agent has no permission for: Delete the S3 bucket logs-2023") {
			t.Errorf("once the screen was given back, the terminal does not show the verdict:\n%q", last)
		}
	})
}

// tuiCode waits for the card's confirmation field and reads the code it
// asks for off the screen, as the person does.
func (p *ptyRun) tuiCode() string {
	p.t.Helper()
	re := regexp.MustCompile(`Type ([` + challenge.Alphabet + `]{5,}), then Enter, to approve`)
	var m []string
	p.waitScreen(func(shown string) bool {
		m = re.FindStringSubmatch(shown)
		return m != nil
	}, "a code asked for")
	return m[1]
}

// waitScreenFor waits until the screen shows want, its words spaced as
// they may be wrapped.
func (p *ptyRun) waitScreenFor(want string) {
	p.t.Helper()
	p.waitScreen(func(shown string) bool { return strings.Contains(shown, want) }, want)
}

// waitScreen waits until the screen satisfies ok: the screen is what the
// command drew, played on a terminal emulator, as a person sees it (the
// bytes alone may redraw only part of a line), its words joined by single
// spaces.
func (p *ptyRun) waitScreen(ok func(shown string) bool, what string) {
	p.t.Helper()
	for limit := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		emu := vt.NewEmulator(80, 24)
		answered := make(chan struct{})
		go func() {
			// The emulator's answers to queries, read and dropped.
			defer close(answered)
			_, _ = io.Copy(io.Discard, emu)
		}()
		_, _ = emu.Write([]byte(p.screen()))
		shown := emu.String()
		// The emulator's Close is not safe beside a Read: end the reader
		// by closing the pipe the answers go to, then close.
		_ = emu.InputPipe().(io.Closer).Close()
		<-answered
		emu.Close()
		if ok(strings.Join(strings.Fields(shown), " ")) {
			return
		}
		if time.Now().After(limit) {
			p.t.Fatalf("the screen never showed %s:\n%s", what, shown)
		}
	}
}

// inject types keys on the command's terminal as another program on it
// would (TIOCSTI, where the kernel lets the test).
func (p *ptyRun) inject(keys string) {
	p.t.Helper()
	if _, err := ptytest.Inject(p.tty, p.master, keys); err != nil {
		p.t.Fatal(err)
	}
}
