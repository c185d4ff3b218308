package stdio

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
)

// approval asks the person for permission to act: on a terminal only (the
// input, when it is one, else Options.Terminal), never through a pipe.
// What is asked is shown on that terminal; the person's line decides (see
// parseDecision), and is reported with their note and submitted.
func (s *asking) approval() error {
	f := s.r.inTTY
	if f == nil {
		f = s.r.tty
	}
	if f == nil {
		s.printf("\nThis call asks your permission to act, which is given only on a terminal, never through a pipe; nobody can be asked for it here.\n")
		return s.settle(s.a.Unreachable())
	}
	if s.r.inTTY == nil {
		// The input is a pipe: the approval is shown, and answered, on the
		// terminal, where the person reads what they decide.
		s.printf("\nYour agent asks your permission to act; answer on the terminal.\n")
		s.w = s.r.tty
	}
	s.onQ = askuser.ApprovalQuestionID
	s.r.setShown(s.a, s.onQ)
	irreversible := s.call.Approval.Risk == askuser.RiskIrreversible
	s.showApproval(irreversible)
	for {
		line, err := s.readDecision(f, irreversible)
		if err != nil {
			return s.stop(err)
		}
		decision, note := parseDecision(line, irreversible)
		err = s.report(askuser.Answer{QuestionID: askuser.ApprovalQuestionID, Selected: []string{decision}, Note: note})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return s.stop(err)
		}
		break
	}
	if err := s.a.Submit(); err != nil && !errors.Is(err, askuser.ErrClosed) {
		return err
	}
	return s.finish()
}

// settle shows the outcome of an ask the responder ended by err's call.
func (s *asking) settle(err error) error {
	if err != nil && !errors.Is(err, askuser.ErrClosed) {
		return err
	}
	return s.finish()
}

// showApproval prints what is asked: the call's title and intent, the
// risk, the action, the reason and the details, all made inert, and how to
// answer.
func (s *asking) showApproval(irreversible bool) {
	ap := s.call.Approval
	var b strings.Builder
	b.WriteString("\n")
	if s.call.Title != "" {
		fmt.Fprintf(&b, "%s\n", inert.Line(s.call.Title))
	}
	if s.call.HumanIntent != "" {
		fmt.Fprintf(&b, "%s\n", inert.Line(s.call.HumanIntent))
	}
	b.WriteString("Your agent asks your permission.\n")
	fmt.Fprintf(&b, "%s\n", termtext.Risk(ap.Risk))
	fmt.Fprintf(&b, "Action: %s\n", inert.Line(ap.Action))
	fmt.Fprintf(&b, "Reason: %s\n", inert.Line(ap.Reason))
	if ap.Details != "" {
		b.WriteString("Details:\n")
		for _, l := range strings.Split(inert.Text(strings.TrimRight(ap.Details, "\n")), "\n") {
			fmt.Fprintf(&b, "  | %s\n", l)
		}
	}
	if irreversible {
		b.WriteString("Type \"approve\" in full to approve it this once, or \"approve session\" to approve this same action for the rest of the session;\n" +
			"\"never\" denies it for the rest of the session; Enter alone or anything else denies it this once.\n")
	} else {
		b.WriteString("Type y to approve it this once, or \"session\" to approve this same action for the rest of the session;\n" +
			"\"never\" denies it for the rest of the session; Enter alone or anything else denies it this once.\n")
	}
	b.WriteString("A note for your agent goes after a colon (\"y: go ahead\", \": not before Friday\").\n")
	s.printf("%s", b.String())
}

// parseDecision reads the person's line: the answer, then optionally a
// colon and a note. "y" and "yes" approve once and "session" for the
// session, except for an irreversible action, which needs "approve" (or
// "approve session") typed in full; "approve" and "approve session" do for
// every risk. "never" denies for the session. Anything else, an empty line
// included, denies once. Words are matched without regard to case and to
// the spaces around and between them.
func parseDecision(line string, irreversible bool) (decision, note string) {
	head, note, _ := strings.Cut(line, ":")
	note = strings.TrimSpace(note)
	switch strings.ToLower(strings.Join(strings.Fields(head), " ")) {
	case "approve":
		return askuser.ApproveOnce, note
	case "approve session":
		return askuser.ApproveSession, note
	case "y", "yes":
		if !irreversible {
			return askuser.ApproveOnce, note
		}
	case "session":
		if !irreversible {
			return askuser.ApproveSession, note
		}
	case "never":
		return askuser.DenySession, note
	}
	return askuser.DenyOnce, note
}

// readDecision waits for the person's line on the terminal f. Input typed
// before the prompt appeared is discarded first (as far as the terminal
// lets it be), so that a line typed ahead for something else is never
// taken for a decision.
func (s *asking) readDecision(f *os.File, irreversible bool) (string, error) {
	prompt := "Approve? [y/N]: "
	if irreversible {
		prompt = "Type approve to approve, Enter to deny: "
	}
	if fd, ok := fdOf(f); ok {
		_ = flushInput(fd)
	}
	if s.r.inTTY != nil {
		s.r.in.start()
		if s.r.in.drain() {
			s.typed = true
		}
		s.ask(prompt)
		b, err := s.wait(s.r.in.lines)
		return string(b), err
	}
	ch, stop := readTerminal(f)
	defer stop()
	s.ask(prompt)
	b, err := s.wait(ch)
	return string(b), err
}

// readTerminal reads one line from a terminal that is not the input, in a
// goroutine; stop ends the read and waits for it.
func readTerminal(f *os.File) (lines <-chan []byte, stop func()) {
	c := make(chan []byte, 1)
	_ = f.SetReadDeadline(time.Time{})
	go func() {
		defer close(c)
		if b, err := readTTYLine(f); err == nil || len(b) > 0 {
			c <- b
		}
	}()
	return c, func() {
		_ = f.SetReadDeadline(time.Unix(1, 0))
		for b := range c {
			clear(b)
		}
	}
}

// approvalSummary says how an approval ended, from its verdict, as a
// sentence: the action was shown above it.
func approvalSummary(o *askuser.Outcome) string {
	v, _ := askuser.ApprovalVerdict(o)
	s := termtext.Verdict(v) + "."
	if v.Note != "" {
		s += " Your note: " + quoted(v.Note)
	}
	return s
}
