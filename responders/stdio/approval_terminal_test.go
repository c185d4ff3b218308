//go:build linux

package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/stdio"
)

// These tests answer approvals on a pseudo-terminal, in real time, in the
// two ways a terminal can be there: as the input itself, or beside an input
// that is a pipe (Options.Terminal, the controlling terminal). In the
// second, the approval is shown on the terminal, not on the output.

// termRig is a responder with a terminal, and where the approval shows.
type termRig struct {
	t      *testing.T
	master *os.File // the person's keyboard
	tty    *os.File
	shows  *buffer // where the approval is shown
	out    *buffer // the responder's output
	r      *stdio.Responder
}

func newTermRig(t *testing.T, beside bool) *termRig {
	t.Helper()
	master, tty, screen := openPTY(t)
	g := &termRig{t: t, master: master, tty: tty, out: &buffer{}}
	if beside {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		g.r = stdio.New(pr, g.out, &stdio.Options{Terminal: tty})
		g.shows = screen
	} else {
		g.r = stdio.New(tty, g.out, nil)
		g.shows = g.out
	}
	t.Cleanup(func() { g.r.Close() })
	if !g.r.CanTakeApprovals() {
		t.Fatal("CanTakeApprovals reports false with a terminal")
	}
	return g
}

// ask asks f and returns where its outcome arrives.
func (g *termRig) ask(f *askuser.Form) <-chan result {
	o := &askuser.Orchestrator{Responder: g.r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ch := make(chan result, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Form: f})
		o.Wait()
		ch <- result{out, err}
	}()
	return ch
}

// shown is what the approval's terminal shows, with the terminal's own
// "\r\n" for a newline read as "\n".
func (g *termRig) shown() string { return strings.ReplaceAll(g.shows.String(), "\r\n", "\n") }

// waitFor waits until the terminal shows want; the limit only keeps a
// broken test from hanging.
func (g *termRig) waitFor(want string) {
	g.t.Helper()
	for limit := time.Now().Add(10 * time.Second); !strings.Contains(g.shown(), want); {
		if time.Now().After(limit) {
			g.t.Fatalf("%q never appeared; the terminal shows:\n%s", want, g.shown())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitQueued waits until what was typed has reached the terminal's input
// queue, unread.
func (g *termRig) waitQueued() {
	g.t.Helper()
	rc, err := g.tty.SyscallConn()
	if err != nil {
		g.t.Fatal(err)
	}
	for limit := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		n := 0
		if cerr := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); cerr != nil || err != nil {
			g.t.Fatalf("reading the terminal's input queue: %v %v", cerr, err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(limit) {
			g.t.Fatal("what was typed never reached the terminal's input queue")
		}
	}
}

// typeLine types s and Enter on the terminal.
func (g *termRig) typeLine(s string) {
	g.t.Helper()
	if _, err := io.WriteString(g.master, s+"\r"); err != nil {
		g.t.Fatal(err)
	}
}

func (g *termRig) verdict(ch <-chan result) askuser.Verdict {
	g.t.Helper()
	var res result
	select {
	case res = <-ch:
	case <-time.After(20 * time.Second):
		g.t.Fatalf("the approval did not end; the terminal shows:\n%s", g.shown())
	}
	if res.err != nil {
		g.t.Fatal(res.err)
	}
	if res.out.Fault != nil {
		g.t.Fatalf("responder fault: %v", res.out.Fault)
	}
	v, ok := askuser.ApprovalVerdict(res.out)
	if !ok {
		g.t.Fatal("the outcome is not an approval's")
	}
	return v
}

const (
	prompt             = "Approve? [y/N]: "
	irreversiblePrompt = "Type approve to approve, Enter to deny: "
)

func TestApprovalOnTerminal(t *testing.T) {
	tests := []struct {
		name     string
		risk     askuser.Risk
		line     string
		status   string
		remember bool
		note     string
		summary  string
	}{
		{"y approves once", askuser.RiskLow, "y", askuser.Approved, false, "", "Approved, this once."},
		{"with a note", askuser.RiskMedium, "yes: go ahead", askuser.Approved, false, "go ahead", `Approved, this once. Your note: "go ahead"`},
		{"session approves for the session", askuser.RiskHigh, "session", askuser.Approved, true, "", "Approved for the rest of this session."},
		{"Enter alone denies", askuser.RiskLow, "", askuser.Denied, false, "", "Denied."},
		{"anything else denies", askuser.RiskLow, "sure", askuser.Denied, false, "", "Denied."},
		{"never denies for the session", askuser.RiskHigh, "never: not in prod", askuser.Denied, true, "not in prod", `Denied for the rest of this session. Your note: "not in prod"`},
		{"irreversible: y denies", askuser.RiskIrreversible, "y", askuser.Denied, false, "", "Denied."},
		{"irreversible: approve in full", askuser.RiskIrreversible, "approve: I have a backup", askuser.Approved, false, "I have a backup", `Approved, this once. Your note: "I have a backup"`},
		{"irreversible: approve session", askuser.RiskIrreversible, "Approve Session", askuser.Approved, true, "", "Approved for the rest of this session."},
	}
	for _, beside := range []bool{false, true} {
		where := "the input is the terminal"
		if beside {
			where = "a terminal beside a piped input"
		}
		t.Run(where, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					g := newTermRig(t, beside)
					ch := g.ask(approvalForm(t, tt.risk))
					p := prompt
					if tt.risk == askuser.RiskIrreversible {
						p = irreversiblePrompt
					}
					g.waitFor(p)
					g.typeLine(tt.line)
					v := g.verdict(ch)
					if v.Status != tt.status || v.Remember != tt.remember || v.Note != tt.note || v.DecidedBy != askuser.ByUser {
						t.Errorf("verdict %+v; want %s by the user, remember %v, note %q", v, tt.status, tt.remember, tt.note)
					}
					g.waitFor(tt.summary + "\n")
					waitFor(t, g.out, tt.summary+"\n")
					shown := g.shown()
					for _, want := range []string{"Action: Delete the bucket logs-2019\n", "Reason: It is past its retention\n", "Details:\n  | gsutil rm -r gs://logs-2019\n  | 1,204 objects\n"} {
						if !strings.Contains(shown, want) {
							t.Errorf("the terminal does not show %q:\n%s", want, shown)
						}
					}
					if beside && strings.Contains(g.out.String(), "Delete the bucket") {
						t.Errorf("with the input a pipe, the approval is shown on the output too:\n%s", g.out.String())
					}
				})
			}
		})
	}
}

// TestApprovalRisksShown: the risk is said in words, loudest for what
// cannot be undone.
func TestApprovalRisksShown(t *testing.T) {
	for risk, want := range map[askuser.Risk]string{
		askuser.RiskLow:          "\nRisk: low\n",
		askuser.RiskMedium:       "\nRisk: medium\n",
		askuser.RiskHigh:         "\n!! Risk: HIGH\n",
		askuser.RiskIrreversible: "\n!!! Risk: IRREVERSIBLE: this cannot be undone !!!\n",
	} {
		t.Run(string(risk), func(t *testing.T) {
			g := newTermRig(t, false)
			ch := g.ask(approvalForm(t, risk))
			if risk == askuser.RiskIrreversible {
				g.waitFor(irreversiblePrompt)
			} else {
				g.waitFor(prompt)
			}
			g.typeLine("")
			<-ch
			if !strings.Contains(g.shown(), want) {
				t.Errorf("the terminal does not show %q:\n%s", want, g.shown())
			}
		})
	}
}

// TestApprovalTypedAheadIsDiscarded: a line typed before the prompt
// appeared is never taken for a decision.
func TestApprovalTypedAheadIsDiscarded(t *testing.T) {
	for _, beside := range []bool{false, true} {
		g := newTermRig(t, beside)
		g.typeLine("y") // before the approval is asked
		g.waitQueued()
		ch := g.ask(approvalForm(t, askuser.RiskLow))
		g.waitFor(prompt)
		g.typeLine("")
		if v := g.verdict(ch); v.Status != askuser.Denied {
			t.Errorf("beside %v: verdict %+v; the line typed ahead was taken, want denied by the Enter typed at the prompt", beside, v)
		}
	}
}

// TestApprovalEndOfInputOnTerminal: Ctrl-D at the prompt decides nothing.
func TestApprovalEndOfInputOnTerminal(t *testing.T) {
	for _, beside := range []bool{false, true} {
		g := newTermRig(t, beside)
		ch := g.ask(approvalForm(t, askuser.RiskLow))
		g.waitFor(prompt)
		if _, err := g.master.Write([]byte{4}); err != nil { // Ctrl-D on an empty line
			t.Fatal(err)
		}
		if v := g.verdict(ch); v.Status != askuser.Unresolved || (v.Ended != askuser.ReasonUnattended && v.Ended != askuser.ReasonDismissed) {
			t.Errorf("beside %v: verdict %+v; want unresolved", beside, v)
		}
	}
}

// TestApprovalDeadlineOnTerminal: nobody answers; at the deadline the
// approval is unresolved, and the terminal says so.
func TestApprovalDeadlineOnTerminal(t *testing.T) {
	for _, beside := range []bool{false, true} {
		g := newTermRig(t, beside)
		f, err := askuser.ApprovalForm(askuser.Approval{Action: "Restart the database", Reason: "To apply the patch", Risk: askuser.RiskHigh}, 1)
		if err != nil {
			t.Fatal(err)
		}
		ch := g.ask(f)
		g.waitFor(prompt)
		if v := g.verdict(ch); v.Status != askuser.Unresolved || v.Ended != askuser.ReasonDeadline {
			t.Errorf("beside %v: verdict %+v; want unresolved at the deadline", beside, v)
		}
		g.waitFor("Time is up: nothing was decided, and your agent has no permission.\n")
		if !strings.Contains(g.shown(), " s left: at the deadline nothing is decided, and your agent has no permission\n"+prompt) {
			t.Errorf("beside %v: no countdown before the deadline, with the prompt again after it:\n%s", beside, g.shown())
		}
		// A decision typed after the deadline changes nothing.
		g.typeLine("y")
	}
}

// TestApprovalNoteWithACredential: a note that looks like a credential is
// refused, and the person decides again.
func TestApprovalNoteWithACredential(t *testing.T) {
	g := newTermRig(t, false)
	ch := g.ask(approvalForm(t, askuser.RiskLow))
	g.waitFor(prompt)
	g.typeLine("y: use " + fakeToken)
	g.waitFor("  Not accepted: the note looks like")
	// Input typed before a prompt is discarded: answer the prompt that
	// asks again.
	g.waitFor("Not accepted: the note looks like a GitHub token; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question).\n" + prompt)
	g.typeLine("y")
	if v := g.verdict(ch); v.Status != askuser.Approved || v.Note != "" {
		t.Errorf("verdict %+v; want approved without the note", v)
	}
	if strings.Contains(g.out.String(), fakeToken) {
		t.Errorf("the responder shows the credential back:\n%s", g.out.String())
	}
}

// TestApprovalPromptIsInert: what the approval shows from the call is made
// inert, on the terminal it is shown on.
func TestApprovalPromptIsInert(t *testing.T) {
	for _, beside := range []bool{false, true} {
		g := newTermRig(t, beside)
		f, err := askuser.ApprovalForm(askuser.Approval{
			Action:  "rm -rf /\r\x1b[2Kls -la",
			Reason:  "tidy\x1b]52;c;cm0gLXJmIH4=\x07 up\u202e",
			Risk:    askuser.RiskIrreversible,
			Details: "line one\nline\b\b\b\btwo\u009b2A\n\x1b[31mred\x1b[0m",
		}, 1)
		if err != nil {
			t.Fatal(err)
		}
		f.HumanIntent = "Tidying\x1b[1A up"
		ch := g.ask(f)
		g.waitFor(irreversiblePrompt)
		g.typeLine("")
		g.verdict(ch)
		g.waitFor("Denied.")
		want := "Tidying\\x1b[1A up\n" +
			"Your agent asks your permission.\n" +
			"!!! Risk: IRREVERSIBLE: this cannot be undone !!!\n" +
			"Action: rm -rf /\\r\\x1b[2Kls -la\n" +
			"Reason: tidy\\x1b]52;c;cm0gLXJmIH4=\\a up\\u202e\n" +
			"Details:\n  | line one\n  | line\\b\\b\\b\\btwo\\u009b2A\n  | \\x1b[31mred\\x1b[0m\n"
		if !strings.Contains(g.shown(), want) {
			t.Errorf("beside %v: the terminal does not show %q; it shows %q", beside, want, g.shown())
		}
		if what := inertOutput(g.shown()); what != "" {
			t.Errorf("beside %v: the terminal shows %s: %q", beside, what, g.shown())
		}
	}
}

// TestConformanceTerminal runs the conformance suite with a terminal beside
// an input nobody writes to, so that the responder takes approvals and
// secrets and the suite's approval cases reach it. A terminal is real I/O,
// so the cases run on the real clock, each with a terminal of its own.
func TestConformanceTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite on the real clock")
	}
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		_, tty, _ := openPTY(t)
		pr, pw := io.Pipe()
		r := stdio.New(pr, io.Discard, &stdio.Options{Terminal: tty})
		t.Cleanup(func() {
			r.Close()
			pw.Close()
		})
		return r
	}, nil)
}
