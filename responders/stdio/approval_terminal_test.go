//go:build linux

package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/ptytest"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/stdio"
)

// These tests answer approvals on a pseudo-terminal, in real time, in the
// three ways a terminal can be there: as the input and the output, as the
// input beside an output that is not a terminal, or beside an input that
// is a pipe (Options.Terminal, the controlling terminal). In the last two
// the approval is shown on the terminal, not on the output.

// The ways a terminal can be there.
const (
	inputAndOutput = iota
	inputOnly
	beside
)

var wheres = map[int]string{
	inputAndOutput: "the input and output are the terminal",
	inputOnly:      "the input is the terminal, the output a pipe",
	beside:         "a terminal beside a piped input",
}

// termRig is a responder with a terminal, and where the approval shows.
type termRig struct {
	t      *testing.T
	master *os.File // the person's keyboard
	tty    *os.File
	shows  *buffer // where the approval is shown: the terminal
	out    *buffer // the responder's output, when it is not the terminal
	r      *stdio.Responder
}

// cycle reads 0, 1, 2, … 19, 0, 1, …: the codes it makes are known
// (firstCode, then secondCode after a wrong one, then thirdCode).
type cycle struct{ n byte }

func (c *cycle) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = c.n
		c.n = (c.n + 1) % byte(len(challenge.Alphabet))
	}
	return len(b), nil
}

const (
	firstCode  = "ACEFH"
	secondCode = "JKMNPR"
	thirdCode  = "TWXY346"
)

// knownCodes is a source of the codes above, which says that programs can
// type into the terminal when injectable is set.
func knownCodes(injectable bool) *challenge.Source { return challenge.New(&cycle{}, injectable) }

func newTermRig(t *testing.T, where int) *termRig {
	t.Helper()
	return newTermRigCodes(t, where, knownCodes(false))
}

func newTermRigCodes(t *testing.T, where int, codes *challenge.Source) *termRig {
	t.Helper()
	master, tty, screen := openPTY(t)
	g := &termRig{t: t, master: master, tty: tty, out: &buffer{}, shows: screen}
	switch where {
	case inputAndOutput:
		g.r = stdio.New(tty, tty, nil)
		g.out = screen
	case inputOnly:
		g.r = stdio.New(tty, g.out, nil)
	case beside:
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close() })
		g.r = stdio.New(pr, g.out, &stdio.Options{Terminal: tty})
	}
	if codes != nil {
		stdio.SetCodes(g.r, codes)
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
		o.WaitResponders()
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

// waitUnlessEnded waits until the terminal shows want, and reports true,
// or until the ask ends first, and reports false; *ch then holds its
// result still.
func (g *termRig) waitUnlessEnded(want string, ch *<-chan result) bool {
	g.t.Helper()
	for limit := time.Now().Add(10 * time.Second); !strings.Contains(g.shown(), want); time.Sleep(5 * time.Millisecond) {
		select {
		case res := <-*ch:
			again := make(chan result, 1)
			again <- res
			*ch = again
			return false
		default:
		}
		if time.Now().After(limit) {
			g.t.Fatalf("%q never appeared; the terminal shows:\n%s", want, g.shown())
		}
	}
	return true
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

func (g *termRig) verdict(ch <-chan result) approvaltool.Verdict {
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
	v, ok := approvaltool.VerdictOf(res.out)
	if !ok {
		g.t.Fatal("the outcome is not an approval's")
	}
	return v
}

// prompt is the prompt for firstCode.
const prompt = "Type " + firstCode + " to approve, Enter to deny: "

// TestApprovalOnTerminal: the code shown approves; a wrong line asks
// again with a new code, and a second one denies; the words that approved
// before the codes are wrong codes. The terminal shows the approval;
// where the output is not the terminal, it never shows the code.
func TestApprovalOnTerminal(t *testing.T) {
	tests := []struct {
		name     string
		risk     approval.Risk
		lines    []string
		status   string
		remember bool
		note     string
		summary  string
	}{
		{"the code approves once", approval.RiskLow, []string{firstCode}, approval.Approved, false, "", "Approved, this once."},
		{"in lower case, with a note", approval.RiskMedium, []string{"acefh: go ahead"}, approval.Approved, false, "go ahead", `Approved, this once. Your note: "go ahead"`},
		{"the code and session approve for the session", approval.RiskHigh, []string{firstCode + " session"}, approval.Approved, true, "", "Approved for the rest of this session."},
		{"Enter alone denies", approval.RiskLow, []string{""}, approval.Denied, false, "", "Denied."},
		{"never denies for the session", approval.RiskHigh, []string{"never: not in prod"}, approval.Denied, true, "not in prod", `Denied for the rest of this session. Your note: "not in prod"`},
		{"irreversible: the code approves", approval.RiskIrreversible, []string{firstCode + ": I have a backup"}, approval.Approved, false, "I have a backup", `Approved, this once. Your note: "I have a backup"`},
		{"irreversible: the code and session", approval.RiskIrreversible, []string{"acefh Session"}, approval.Approved, true, "", "Approved for the rest of this session."},
		{"a wrong code, then the new one approves", approval.RiskLow, []string{"ACEFX", secondCode}, approval.Approved, false, "", "Approved, this once."},
		{"the first code does not approve once it is replaced", approval.RiskLow, []string{"y", firstCode}, approval.Denied, false, "", "Denied."},
		{"y, then approve: two wrong codes deny", approval.RiskLow, []string{"y", "approve"}, approval.Denied, false, "", "Denied."},
		{"a wrong code, then Enter denies", approval.RiskIrreversible, []string{"approve", ""}, approval.Denied, false, "", "Denied."},
	}
	for where, name := range wheres {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					g := newTermRig(t, where)
					ch := g.ask(approvalForm(t, tt.risk))
					g.waitFor(prompt)
					for i, l := range tt.lines {
						if i > 0 {
							// Input typed before a prompt is discarded:
							// answer the one that asks again.
							g.waitFor("The new code is " + secondCode + "; type it to approve, or Enter to deny. Another wrong code denies.\nType " + secondCode + " to approve, Enter to deny: ")
						}
						g.typeLine(l)
					}
					v := g.verdict(ch)
					if v.Status != tt.status || v.Remember != tt.remember || v.Note != tt.note || v.DecidedBy != askuser.ByUser {
						t.Errorf("verdict %+v; want %s by the user, remember %v, note %q", v, tt.status, tt.remember, tt.note)
					}
					g.waitFor(tt.summary + "\n")
					if where != inputAndOutput {
						waitFor(t, g.out, tt.summary+"\n")
					}
					shown := g.shown()
					for _, want := range []string{
						"Action: Delete the bucket logs-2019\n", "Reason: It is past its retention\n", "Details:\n  | gsutil rm -r gs://logs-2019\n  | 1,204 objects\n",
						"To approve it this once, type the code " + firstCode + "; \"" + firstCode + " session\" approves this same action for the rest of the session.\n",
					} {
						if !strings.Contains(shown, want) {
							t.Errorf("the terminal does not show %q:\n%s", want, shown)
						}
					}
					if where != inputAndOutput {
						if out := g.out.String(); strings.Contains(out, "Delete the bucket") || strings.Contains(out, firstCode) || strings.Contains(out, secondCode) {
							t.Errorf("with the output not the terminal, the approval or its code is shown there too:\n%s", out)
						}
					}
				})
			}
		})
	}
}

// TestApprovalTypedByAnotherProgram is the attack: a program that shares
// the person's terminal, and cannot read it, types what approved before
// the codes — "y", "approve", "session", "approve session" — with
// TIOCSTI once the prompt is up. Nothing it types approves: a wrong line
// asks again, and the second denies.
func TestApprovalTypedByAnotherProgram(t *testing.T) {
	attacks := [][]string{
		{"approve", "y"},
		{"y", "approve"},
		{"yes", "session"},
		{"approve session", "approve"},
		{"approve\rapprove\ry", "y"},
	}
	ioctl := false
	for where, name := range wheres {
		for _, risk := range []approval.Risk{approval.RiskLow, approval.RiskIrreversible} {
			for _, lines := range attacks {
				g := newTermRigCodes(t, where, nil) // codes from crypto/rand, as in use
				ch := g.ask(approvalForm(t, risk))
				g.waitFor(" to approve, Enter to deny: ")
				for i, l := range lines {
					if i > 0 && !g.waitUnlessEnded("Another wrong code denies.\n", &ch) {
						break // the line before decided
					}
					used, err := ptytest.Inject(g.tty, g.master, l+"\r")
					if err != nil {
						t.Fatal(err)
					}
					ioctl = ioctl || used
				}
				if v := g.verdict(ch); v.Status == approval.Approved {
					t.Errorf("%s, %s: %q typed by another program approved: %+v", name, risk, lines, v)
				}
			}
		}
	}
	t.Logf("typed with TIOCSTI: %v", ioctl)
}

// TestApprovalTheShownCodeApproves: a person who reads the code off the
// terminal and types it approves, with codes from crypto/rand; the codes
// of two approvals differ.
func TestApprovalTheShownCodeApproves(t *testing.T) {
	re := regexp.MustCompile(`Type ([` + challenge.Alphabet + `]{5}) to approve, Enter to deny: $`)
	var codes []string
	for where, name := range wheres {
		g := newTermRigCodes(t, where, nil)
		ch := g.ask(approvalForm(t, approval.RiskIrreversible))
		g.waitFor(" to approve, Enter to deny: ")
		m := re.FindStringSubmatch(g.shown())
		if m == nil {
			t.Fatalf("%s: no code on the terminal:\n%s", name, g.shown())
		}
		codes = append(codes, m[1])
		g.typeLine(strings.ToLower(m[1]))
		if v := g.verdict(ch); v.Status != approval.Approved || v.DecidedBy != askuser.ByUser {
			t.Errorf("%s: verdict %+v; want approved by the user", name, v)
		}
	}
	if codes[0] == codes[1] && codes[1] == codes[2] {
		t.Errorf("three approvals had the same code %s", codes[0])
	}
}

// TestApprovalCodesGrow: every wrong code typed on a responder makes its
// next codes one character longer.
func TestApprovalCodesGrow(t *testing.T) {
	g := newTermRig(t, inputAndOutput)
	ch := g.ask(approvalForm(t, approval.RiskLow))
	g.waitFor(prompt)
	g.typeLine("y")
	g.waitFor("Type " + secondCode + " to approve, Enter to deny: ")
	g.typeLine("y")
	g.waitFor("Not approved: the code was wrong again, so this is denied.\n")
	if v := g.verdict(ch); v.Status != approval.Denied || v.Remember {
		t.Errorf("verdict %+v; want denied this once", v)
	}
	ch = g.ask(approvalForm(t, approval.RiskLow))
	g.waitFor("Type " + thirdCode[:7] + " to approve, Enter to deny: ")
	g.typeLine(thirdCode)
	if v := g.verdict(ch); v.Status != approval.Approved {
		t.Errorf("verdict %+v; want approved with the longer code", v)
	}
}

// TestApprovalSaysProgramsCanType: where the system lets programs type
// into a terminal, the approval says so, once; where it does not, it says
// nothing of it.
func TestApprovalSaysProgramsCanType(t *testing.T) {
	const warning = "This system lets any program on this terminal type into it, so only the code shown here approves.\n"
	for _, injectable := range []bool{true, false} {
		g := newTermRigCodes(t, inputAndOutput, knownCodes(injectable))
		ch := g.ask(approvalForm(t, approval.RiskLow))
		g.waitFor(prompt)
		g.typeLine("y")
		g.waitFor("Type " + secondCode + " to approve")
		g.typeLine("")
		g.verdict(ch)
		g.waitFor("Denied.\n")
		if n := strings.Count(g.shown(), warning); n != map[bool]int{true: 1, false: 0}[injectable] {
			t.Errorf("injectable %v: the warning is shown %d times:\n%s", injectable, n, g.shown())
		}
	}
}

// TestApprovalRisksShown: the risk is said in words, loudest for what
// cannot be undone.
func TestApprovalRisksShown(t *testing.T) {
	for risk, want := range map[approval.Risk]string{
		approval.RiskLow:          "\nRisk: low\n",
		approval.RiskMedium:       "\nRisk: medium\n",
		approval.RiskHigh:         "\n!! Risk: HIGH\n",
		approval.RiskIrreversible: "\n!!! Risk: IRREVERSIBLE: this cannot be undone !!!\n",
	} {
		t.Run(string(risk), func(t *testing.T) {
			g := newTermRig(t, inputAndOutput)
			ch := g.ask(approvalForm(t, risk))
			g.waitFor(prompt)
			g.typeLine("")
			<-ch
			if !strings.Contains(g.shown(), want) {
				t.Errorf("the terminal does not show %q:\n%s", want, g.shown())
			}
		})
	}
}

// TestApprovalTypedAheadIsDiscarded: a line typed before the prompt
// appeared is never taken for a decision, the code included.
func TestApprovalTypedAheadIsDiscarded(t *testing.T) {
	for where, name := range wheres {
		g := newTermRig(t, where)
		g.typeLine(firstCode) // before the approval is asked
		g.waitQueued()
		ch := g.ask(approvalForm(t, approval.RiskLow))
		g.waitFor(prompt)
		g.typeLine("")
		if v := g.verdict(ch); v.Status != approval.Denied {
			t.Errorf("%s: verdict %+v; the line typed ahead was taken, want denied by the Enter typed at the prompt", name, v)
		}
	}
}

// TestApprovalEndOfInputOnTerminal: Ctrl-D at the prompt decides nothing.
func TestApprovalEndOfInputOnTerminal(t *testing.T) {
	for where, name := range wheres {
		g := newTermRig(t, where)
		ch := g.ask(approvalForm(t, approval.RiskLow))
		g.waitFor(prompt)
		if _, err := g.master.Write([]byte{4}); err != nil { // Ctrl-D on an empty line
			t.Fatal(err)
		}
		if v := g.verdict(ch); v.Status != approval.Unresolved || (v.Ended != askuser.ReasonUnattended && v.Ended != askuser.ReasonDismissed) {
			t.Errorf("%s: verdict %+v; want unresolved", name, v)
		}
	}
}

// TestApprovalDeadlineOnTerminal: nobody answers; at the deadline the
// approval is unresolved, and the terminal says so.
func TestApprovalDeadlineOnTerminal(t *testing.T) {
	for where, name := range wheres {
		g := newTermRig(t, where)
		f, err := approvaltool.Form(approval.Request{Action: "Restart the database", Reason: "To apply the patch", Risk: approval.RiskHigh}, 1)
		if err != nil {
			t.Fatal(err)
		}
		ch := g.ask(f)
		g.waitFor(prompt)
		if v := g.verdict(ch); v.Status != approval.Unresolved || v.Ended != askuser.ReasonDeadline {
			t.Errorf("%s: verdict %+v; want unresolved at the deadline", name, v)
		}
		g.waitFor("Time is up: nothing was decided, and your agent has no permission.\n")
		if !strings.Contains(g.shown(), " s left: at the deadline nothing is decided, and your agent has no permission\n"+prompt) {
			t.Errorf("%s: no countdown before the deadline, with the prompt again after it:\n%s", name, g.shown())
		}
		// A decision typed after the deadline changes nothing.
		g.typeLine(firstCode)
	}
}

// TestApprovalNoteWithACredential: a note that looks like a credential is
// refused, and the person decides again, with the same code.
func TestApprovalNoteWithACredential(t *testing.T) {
	g := newTermRig(t, inputOnly)
	ch := g.ask(approvalForm(t, approval.RiskLow))
	g.waitFor(prompt)
	g.typeLine(firstCode + ": use " + fakeToken)
	g.waitFor("  Not accepted: the note looks like")
	// Input typed before a prompt is discarded: answer the prompt that
	// asks again.
	g.waitFor("Not accepted: the note looks like a GitHub token; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question).\n" + prompt)
	g.typeLine(firstCode)
	if v := g.verdict(ch); v.Status != approval.Approved || v.Note != "" {
		t.Errorf("verdict %+v; want approved without the note", v)
	}
	if strings.Contains(g.out.String(), fakeToken) || strings.Contains(strings.ReplaceAll(g.shown(), "\r\n", "\n"), "use "+fakeToken[:12]+"\n  Not") {
		t.Errorf("the responder shows the credential back:\n%s", g.out.String())
	}
}

// TestApprovalPromptIsInert: what the approval shows from the call is made
// inert, on the terminal it is shown on.
func TestApprovalPromptIsInert(t *testing.T) {
	for where, name := range wheres {
		g := newTermRig(t, where)
		f, err := approvaltool.Form(approval.Request{
			Action:  "rm -rf /\r\x1b[2Kls -la",
			Reason:  "tidy\x1b]52;c;cm0gLXJmIH4=\x07 up\u202e",
			Risk:    approval.RiskIrreversible,
			Details: "line one\nline\b\b\b\btwo\u009b2A\n\x1b[31mred\x1b[0m",
		}, 1)
		if err != nil {
			t.Fatal(err)
		}
		f.HumanIntent = "Tidying\x1b[1A up"
		ch := g.ask(f)
		g.waitFor(prompt)
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
			t.Errorf("%s: the terminal does not show %q; it shows %q", name, want, g.shown())
		}
		if what := inertOutput(g.shown()); what != "" {
			t.Errorf("%s: the terminal shows %s: %q", name, what, g.shown())
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
