package stdio

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
)

// approval asks the person for permission to act: on a terminal only (the
// input, when it is one, else Options.Terminal), never through a pipe.
// What is asked is shown on that terminal, with a code drawn for it; the
// person's line decides (see parseDecision), and is reported with their
// note and submitted. A line that is neither the code nor a denial asks
// again, once, with a new code; a second one denies.
func (s *asking) approval() error {
	f := s.r.inTTY
	if f == nil {
		f = s.r.tty
	}
	if f == nil {
		s.printf("\nThis call asks your permission to act, which is given only on a terminal, never through a pipe; nobody can be asked for it here.\n")
		return s.settle(s.a.Unreachable())
	}
	switch {
	case s.r.inTTY == nil:
		// The input is a pipe: the approval is shown, and answered, on the
		// terminal, where the person reads what they decide.
		s.printf("\nYour agent asks your permission to act; answer on the terminal.\n")
		s.w = s.r.tty
	case !s.r.outTTY:
		// The output is not a terminal (a pipe, a file: a program may
		// read it), so the code is not shown there: the approval is
		// shown on the terminal it is answered on.
		s.printf("\nYour agent asks your permission to act; answer on the terminal.\n")
		s.w = s.r.inTTY
	}
	s.onQ = approval.QuestionID
	s.r.setShown(s.a, s.onQ)
	code := s.r.codes.Code()
	s.showApproval(code)
	missed := false
	for {
		line, err := s.readDecision(f, code)
		if err != nil {
			return s.stop(err)
		}
		decision, note, ok := parseDecision(line, code)
		if !ok {
			s.r.codes.Missed()
			if !missed {
				missed = true
				code = s.r.codes.Code()
				s.printf("  Not approved: that is not the code. The new code is %s; type it to approve, or Enter to deny. Another wrong code denies.\n", code)
				continue
			}
			s.printf("  Not approved: the code was wrong again, so this is denied.\n")
			decision = approval.DenyOnce
		}
		err = s.report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{decision}, Note: note})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return s.stop(err)
		}
		break
	}
	if err := s.a.Submit(); err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return s.finish()
}

// settle shows the outcome of an ask the responder ended by err's call.
func (s *asking) settle(err error) error {
	if err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return s.finish()
}

// showApproval prints what is asked: the call's title and intent, the
// risk, the action, the reason and the details, all made inert, and how to
// answer, with the code.
func (s *asking) showApproval(code string) {
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
	fmt.Fprintf(&b, "To approve it this once, type the code %s; \"%s session\" approves this same action for the rest of the session.\n", code, code)
	b.WriteString("\"never\" denies it for the rest of the session; Enter alone denies it this once.\n")
	fmt.Fprintf(&b, "A note for your agent goes after a colon (\"%s: go ahead\", \": not before Friday\").\n", code)
	if s.r.codes.Injectable() {
		b.WriteString("This system lets any program on this terminal type into it, so only the code shown here approves.\n")
	}
	s.printf("%s", b.String())
}

// parseDecision reads the person's line: the answer, then optionally a
// colon and a note. The code approves once, and the code followed by
// "session" for the session; "never" denies for the session; an empty
// answer (Enter alone, or a note alone), "n", "no" and "deny" deny once.
// The code is matched as challenge.Match does (either case, spaces
// ignored), the words without regard to case and to the spaces around and
// between them. Anything else is a wrong code: ok is false.
func parseDecision(line, code string) (decision, note string, ok bool) {
	head, note, _ := strings.Cut(line, ":")
	note = strings.TrimSpace(note)
	words := strings.Fields(head)
	switch strings.ToLower(strings.Join(words, " ")) {
	case "", "n", "no", "deny":
		return approval.DenyOnce, note, true
	case "never":
		return approval.DenySession, note, true
	}
	if challenge.Match(code, head) {
		return approval.ApproveOnce, note, true
	}
	if n := len(words); n > 1 && strings.EqualFold(words[n-1], "session") && challenge.Match(code, strings.Join(words[:n-1], "")) {
		return approval.ApproveSession, note, true
	}
	return approval.DenyOnce, note, false
}

// readDecision waits for the person's line on the terminal f. Input typed
// before the prompt appeared is discarded first (as far as the terminal
// lets it be), so that a line typed ahead for something else is never
// taken for a decision.
func (s *asking) readDecision(f *os.File, code string) (string, error) {
	prompt := "Type " + code + " to approve, Enter to deny: "
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
	v, _ := approvaltool.VerdictOf(o)
	s := termtext.Verdict(v) + "."
	if v.Note != "" {
		s += " Your note: " + quoted(v.Note)
	}
	return s
}
