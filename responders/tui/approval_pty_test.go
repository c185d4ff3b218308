//go:build linux

package tui_test

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/ptytest"
	"github.com/askuser-go/askuser/responders/tui"
)

// TestApprovalOnATerminal: on a real terminal the responder takes
// approvals. An irreversible action is approved once the person types
// the code they read on the screen (drawn from crypto/rand) in the
// confirmation field, with the note and "for this session" they set; a
// second request is denied with Up and Enter. The screen shows each
// verdict, and prints them once it is given back.
func TestApprovalOnATerminal(t *testing.T) {
	g := openGlass(t)
	term := g.terminal
	r := tui.New(term.tty, term.tty, nil)
	defer r.Close()
	if !r.CanTakeApprovals() {
		t.Fatal("CanTakeApprovals is false on a terminal")
	}
	o := &askuser.Orchestrator{Responder: r}
	ask := func(a approval.Request) <-chan *askuser.Outcome {
		f, err := approvaltool.Form(a, 60)
		if err != nil {
			t.Fatal(err)
		}
		ch := make(chan *askuser.Outcome, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
			if err != nil {
				t.Error(err)
			}
			ch <- out
		}()
		return ch
	}
	verdict := func(ch <-chan *askuser.Outcome) approvaltool.Verdict {
		v, _ := approvaltool.VerdictOf(<-ch)
		v.Digest = ""
		return v
	}

	ch := ask(approval.Request{Action: "Delete the bucket logs-2019", Reason: "It is past its retention", Risk: approval.RiskIrreversible, Details: "gsutil rm -r gs://logs-2019"})
	term.waitFor(t, "IRREVERSIBLE")
	// The keys reach the card in order: n opens the note's editor, Enter
	// saves the note, s ticks "for this session", Down and Enter open the
	// confirmation field. (The screen is redrawn by its changes, so only a
	// line that is new as a whole can be waited for.)
	term.typeIn(t, "nI have a backup\rs\x1b[B\r")
	code := g.code(t)
	if challenge.TypingAllowed() {
		g.waitRow(t, "This system lets any program on this terminal type into it: only the code shown here approves.")
	}
	term.typeIn(t, strings.ToLower(code)+"\r")
	want := approvaltool.Verdict{Status: approval.Approved, DecidedBy: askuser.ByUser, Note: "I have a backup", Remember: true}
	if got := verdict(ch); got != want {
		t.Errorf("verdict %+v, want %+v", got, want)
	}
	term.waitFor(t, "Approved for the rest of this session")

	ch = ask(approval.Request{Action: "Force-push main", Reason: "To drop a commit", Risk: approval.RiskHigh})
	term.waitFor(t, "!! Risk: HIGH")
	term.typeIn(t, "\x1b[A\r") // Up, Enter: Deny
	if got, want := verdict(ch), (approvaltool.Verdict{Status: approval.Denied, DecidedBy: askuser.ByUser}); got != want {
		t.Errorf("verdict %+v, want %+v", got, want)
	}
	r.Close()
	if r.CanTakeApprovals() {
		t.Error("CanTakeApprovals is true once the responder is closed")
	}
	// Once the screen is given back, the verdict is printed after it.
	for limit := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		screen := term.screen()
		i := strings.LastIndex(screen, "\x1b[?1049l")
		last := screen[max(i, 0):]
		if i >= 0 && strings.Contains(last, "Denied: Force-push main") {
			break
		}
		if time.Now().After(limit) {
			t.Fatalf("once the screen was given back, the terminal does not show the verdict:\n%q", last)
		}
	}
}

// TestApprovalKeysOnATerminal: a typist who presses 1 and Enter for ever,
// as TestConformanceOnATerminal's does, never decides an approval: it
// stays open until its deadline, which leaves it unresolved.
func TestApprovalKeysOnATerminal(t *testing.T) {
	term := openTerminal(t)
	defer term.close()
	r := tui.New(term.tty, term.tty, nil)
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r}
	f, err := approvaltool.Form(approval.Request{Action: "Read the file config/prod.yaml", Reason: "To see which replicas are set", Risk: approval.RiskLow}, 1)
	if err != nil {
		t.Fatal(err)
	}
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
			if _, err := io.WriteString(term.master, "1\ry\r \r"); err != nil {
				return
			}
		}
	}()
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
	close(stop)
	<-typed
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Unresolved || v.Ended != askuser.ReasonDeadline {
		t.Errorf("verdict %+v, want unresolved at the deadline", v)
	}
}

// TestApprovalTypedAheadOnATerminal: keys typed on the terminal before the
// screen came up — Down and Enter, which on the card would approve — are
// discarded: the approval comes with nothing chosen, and Ctrl+C then
// dismisses it, undecided.
func TestApprovalTypedAheadOnATerminal(t *testing.T) {
	term := openTerminal(t)
	defer term.close()
	r := tui.New(term.tty, term.tty, nil)
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r}
	f, err := approvaltool.Form(approval.Request{Action: "Read the file config/prod.yaml", Reason: "To see which replicas are set", Risk: approval.RiskLow}, 60)
	if err != nil {
		t.Fatal(err)
	}
	term.typeIn(t, "\x1b[B\r\x1b[B\r")
	ch := make(chan *askuser.Outcome, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
		if err != nil {
			t.Error(err)
		}
		ch <- out
	}()
	term.waitFor(t, "Risk: low")
	term.typeIn(t, "\x03")
	v, _ := approvaltool.VerdictOf(<-ch)
	if v.Status != approval.Unresolved || v.Ended != askuser.ReasonDismissed {
		t.Errorf("verdict %+v, want unresolved, dismissed: the keys typed ahead decided it", v)
	}
}

// code waits for the confirmation field and reads the code it asks for
// off the screen, as the person does.
func (g *glass) code(t *testing.T) string {
	t.Helper()
	re := regexp.MustCompile(`Type ([` + challenge.Alphabet + `]{5,}), then Enter, to approve`)
	for limit := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := re.FindStringSubmatch(strings.Join(g.rows(), "\n")); m != nil {
			return m[1]
		}
		if time.Now().After(limit) {
			t.Fatalf("the screen never asked for a code:\n%s", strings.Join(g.rows(), "\n"))
		}
	}
}

// waitRow waits until a row of the screen holds want.
func (g *glass) waitRow(t *testing.T, want string) {
	t.Helper()
	for limit := time.Now().Add(20 * time.Second); !strings.Contains(strings.Join(strings.Fields(strings.Join(g.rows(), " ")), " "), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(limit) {
			t.Fatalf("the screen never showed %q:\n%s", want, strings.Join(g.rows(), "\n"))
		}
	}
}

// waitRowUnlessEnded waits until the screen shows want, and reports
// true, or until the ask ends first, and reports false; *ch then holds
// its outcome still.
func (g *glass) waitRowUnlessEnded(t *testing.T, want string, ch *chan *askuser.Outcome) bool {
	t.Helper()
	for limit := time.Now().Add(20 * time.Second); !strings.Contains(strings.Join(strings.Fields(strings.Join(g.rows(), " ")), " "), want); time.Sleep(5 * time.Millisecond) {
		select {
		case out := <-*ch:
			*ch <- out
			return false
		default:
		}
		if time.Now().After(limit) {
			t.Fatalf("the screen never showed %q:\n%s", want, strings.Join(g.rows(), "\n"))
		}
	}
	return true
}

// TestApprovalTypedByAnotherProgramOnATerminal is the attack: a program
// that shares the person's terminal, and cannot read it, types what
// approved before the codes (Down, Enter, "approve", Enter) with TIOCSTI
// once the card is up, and again. Nothing it types approves: the first
// "approve" is a wrong code, the second denies.
func TestApprovalTypedByAnotherProgramOnATerminal(t *testing.T) {
	ioctl := false
	for _, risk := range []approval.Risk{approval.RiskLow, approval.RiskHigh, approval.RiskIrreversible} {
		t.Run(string(risk), func(t *testing.T) {
			g := openGlass(t)
			r := tui.New(g.tty, g.tty, nil)
			defer r.Close()
			o := &askuser.Orchestrator{Responder: r}
			f, err := approvaltool.Form(approval.Request{Action: "Delete the bucket logs-2019", Reason: "It is past its retention", Risk: risk}, 60)
			if err != nil {
				t.Fatal(err)
			}
			ch := make(chan *askuser.Outcome, 1)
			go func() {
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
				if err != nil {
					t.Error(err)
				}
				ch <- out
			}()
			g.waitRow(t, "Deny this once")
			inject := func(keys string) {
				t.Helper()
				used, err := ptytest.Inject(g.tty, g.master, keys)
				if err != nil {
					t.Fatal(err)
				}
				ioctl = ioctl || used
			}
			// Down and Enter, then "approve" and Enter, twice, each once
			// the card has taken the keys before (unless they decided).
			for _, step := range []struct{ keys, then string }{
				{"\x1b[B\r", "then Enter, to approve"},
				{"approve\r", "Not approved: that is not the code."},
				{"approve\r", ""},
			} {
				inject(step.keys)
				if step.then != "" && !g.waitRowUnlessEnded(t, step.then, &ch) {
					break
				}
			}
			var out *askuser.Outcome
			select {
			case out = <-ch:
			case <-time.After(20 * time.Second):
				t.Fatalf("the approval did not end; the screen shows:\n%s", strings.Join(g.rows(), "\n"))
			}
			if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Denied {
				t.Errorf("verdict %+v; want denied, by the second wrong code", v)
			}
		})
	}
	t.Logf("typed with TIOCSTI: %v", ioctl)
}

// TestApprovalNeedsTheOutputATerminal: with the output not a terminal (a
// pipe, a buffer: a program may read it), the responder takes no
// approval, for its code would be drawn there.
func TestApprovalNeedsTheOutputATerminal(t *testing.T) {
	term := openTerminal(t)
	defer term.close()
	r := tui.New(term.tty, io.Discard, nil)
	defer r.Close()
	if r.CanTakeApprovals() {
		t.Error("CanTakeApprovals is true with the output not a terminal")
	}
}
