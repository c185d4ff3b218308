package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// asking is one ask being shown.
type asking struct {
	r     *Responder
	ctx   context.Context
	a     *askuser.Ask
	call  *askuser.Form
	nudge <-chan time.Time
	onQ   string // the question shown
	// typed is set once the person has typed a line for this ask: from
	// then on, the end of input is a dismissal, not an absence.
	typed bool
	// prompt is the prompt waiting for input, printed again after the
	// countdown; empty when no prompt is open.
	prompt string
	// w is where the ask is shown, when not on the responder's output: the
	// terminal an approval is answered on.
	w io.Writer
	// writers wrap what is printed on the output and on w.
	writers []*lineWriter
}

// printf writes to the output, wrapped to its width (see lineWriter).
// The responder writes no escape sequence of its own; whatever it prints
// that came from the call or the person goes through inert.Line or
// inert.Text first.
func (s *asking) printf(format string, args ...any) {
	w := s.w
	if w == nil {
		w = s.r.out
	}
	s.fprintf(w, format, args...)
}

func (s *asking) ask(p string) {
	s.prompt = p
	s.printf("%s", p)
}

func (s *asking) run() error {
	if s.call.Approval == nil && s.needsTerminal() && !s.r.CanCollectSecrets() {
		return s.stop(errNoTerminal)
	}
	t := time.NewTimer(time.Until(s.call.NudgeAt))
	defer t.Stop()
	s.nudge = t.C
	if s.call.Approval != nil {
		return s.approval()
	}
	if s.call.Title != "" || s.call.HumanIntent != "" {
		s.printf("\n")
	}
	if s.call.Title != "" {
		s.printf("%s\n", inert.Line(s.call.Title))
	}
	if s.call.HumanIntent != "" {
		s.printf("%s\n", inert.Line(s.call.HumanIntent))
	}
	for i := range s.call.Questions {
		if err := s.question(i); err != nil {
			return s.stop(err)
		}
	}
	if err := s.a.Submit(); err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return s.finish()
}

func (s *asking) needsTerminal() bool {
	for i := range s.call.Questions {
		if responder.Sealed(&s.call.Questions[i]) {
			return true
		}
	}
	return false
}

// stop ends the ask for why the question in hand stopped, then shows the
// outcome.
func (s *asking) stop(why error) error {
	var err error
	switch {
	case s.ctx.Err() != nil, errors.Is(why, errEnded):
		// The ask has ended: the deadline, Interrupt, or the program.
	case errors.Is(why, errEndOfInput) && !s.typed && !s.r.in.stopped():
		// Nothing was typed for this ask before the input ended (a call
		// piped in on standard input used it up): nobody is there.
		s.endPrompt()
		s.printf("The input ended before anything was typed; nobody can be asked here.\n")
		err = s.a.Unreachable()
	case errors.Is(why, errEndOfInput):
		err = s.a.Cancel(s.onQ)
	case errors.Is(why, errNoTerminal):
		s.printf("\nThis call asks for a secret, which is read only from a terminal, without echo; nobody can be asked for it here.\n")
		err = s.a.Unreachable()
	default:
		return why
	}
	if err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return s.finish()
}

// endPrompt ends the line of a prompt still waiting for input.
func (s *asking) endPrompt() {
	if s.prompt != "" {
		s.printf("\n")
		s.prompt = ""
	}
}

// finish waits for the outcome and shows it.
func (s *asking) finish() error {
	s.endPrompt()
	<-s.a.Done()
	sum := summary(s.a.Outcome())
	s.printf("%s\n", sum)
	if s.w != nil {
		// Shown on the terminal: the output says how it ended too.
		s.fprintf(s.r.out, "%s\n", sum)
	}
	return nil
}

func (s *asking) question(i int) error {
	q := &s.call.Questions[i]
	s.onQ = q.ID
	s.r.setShown(s.a, q.ID)
	s.show(i, q)
	switch {
	case responder.Sealed(q) && q.Kind == askuser.KindChoice:
		return s.askSealedChoice(q)
	case responder.Sealed(q):
		return s.askSecret(q)
	case q.Kind == askuser.KindText:
		return s.askText(q)
	}
	return s.askChoice(q)
}

// show prints the question.
func (s *asking) show(i int, q *askuser.Question) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n[%d/%d] %s\n", i+1, len(s.call.Questions), inert.Line(q.Header))
	writeQuestion(&b, q.Text)
	if responder.Sealed(q) {
		if q.Purpose != "" {
			fmt.Fprintf(&b, "For: %s\n", inert.Line(q.Purpose))
		}
		fmt.Fprintf(&b, "It is stored as session:%s; the agent sees only that name, never the value.\n", inert.Line(responder.SealName(q)))
		if q.Kind != askuser.KindChoice {
			s.printf("%s", b.String())
			return
		}
	}
	recommended := map[string]bool{}
	for _, v := range responder.DeclaredDefaults(q) {
		recommended[v] = true
	}
	for n, o := range q.Options {
		fmt.Fprintf(&b, "  %d) %s", n+1, inert.Line(o.Label))
		if recommended[o.Value] {
			b.WriteString(" (recommended)")
		}
		b.WriteString("\n")
		if o.Description != "" {
			fmt.Fprintf(&b, "     %s\n", inert.Line(o.Description))
		}
		if o.Preview != "" {
			for _, l := range strings.Split(inert.Text(strings.TrimRight(o.Preview, "\n")), "\n") {
				fmt.Fprintf(&b, "     | %s\n", l)
			}
		}
	}
	if q.Kind == askuser.KindChoice && responder.FreeText(q) {
		fmt.Fprintf(&b, "  %d) %s\n", len(q.Options)+1, otherLabel(q))
	}
	if q.Kind == askuser.KindChoice && !responder.Sealed(q) {
		b.WriteString(noteHint)
	}
	s.printf("%s", b.String())
}

// writeQuestion writes a question's text: its first line as it is, and
// every line after it marked with "| ", so that no line of the text can
// pose as an option or a prompt of the responder's own.
func writeQuestion(b *strings.Builder, text string) {
	lines := strings.Split(inert.Text(strings.TrimSpace(text)), "\n")
	b.WriteString(lines[0] + "\n")
	for _, l := range lines[1:] {
		if l == "" {
			b.WriteString("|\n")
		} else {
			b.WriteString("| " + l + "\n")
		}
	}
}

// otherLabel is the label of the free-text row, made inert.
func otherLabel(q *askuser.Question) string {
	if q.OtherLabel != "" {
		return inert.Line(q.OtherLabel)
	}
	return "Something else"
}

// readLine waits for the next line of the input.
func (s *asking) readLine() (string, error) {
	s.r.in.start()
	b, err := s.wait(s.r.in.lines)
	if err != nil {
		return "", err
	}
	if s.r.inTTY == nil {
		// A pipe echoes nothing: end the prompt's line here.
		s.printf("\n")
	}
	return string(b), nil
}

// wait waits for a line on ch (closed at the end of input), printing the
// countdown when its time comes.
func (s *asking) wait(ch <-chan []byte) ([]byte, error) {
	for {
		select {
		case line, ok := <-ch:
			if !ok {
				return nil, errEndOfInput
			}
			s.prompt = ""
			s.typed = true
			for _, lw := range s.writers {
				lw.typed()
			}
			return line, nil
		case <-s.nudge:
			s.nudge = nil
			s.printf("\n%s\n%s", s.countdown(), s.prompt)
		case <-s.ctx.Done():
			return nil, s.ctx.Err()
		case <-s.r.in.stop:
			return nil, errEndOfInput
		}
	}
}

// report reports an answer; a refused one is explained and returns
// errRetry.
func (s *asking) report(ans askuser.Answer) error {
	err := s.a.Report(ans)
	var ae *askuser.AnswerError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae):
		s.printf("  Not accepted: %s.\n", inert.Line(strings.TrimSuffix(ae.Reason, ".")))
		return errRetry
	case errors.Is(err, askuser.ErrAskEnded):
		return errEnded
	}
	return err
}

// noteHint tells the person how to add notes to a choice.
const noteHint = "  (a line \"note: ...\" adds a note to your answer; \"note N: ...\" a note on option N)\n"

// parseNote reads a note line: "note: text" (opt -1) or "note N: text"
// (opt N-1, an option of q). ok is false for any other line.
func parseNote(q *askuser.Question, line string) (opt int, text string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimLeft(line, " \t"), "note")
	if !found {
		return 0, "", false
	}
	head, text, found := strings.Cut(rest, ":")
	if !found {
		return 0, "", false
	}
	head = strings.TrimSpace(head)
	if head == "" {
		return -1, strings.TrimSpace(text), true
	}
	n, err := strconv.Atoi(head)
	if err != nil || n < 1 || n > len(q.Options) {
		return 0, "", false
	}
	return n - 1, strings.TrimSpace(text), true
}

// withNotes attaches the notes the person wrote to an answer: the note on
// the answer, and the notes on options it selects (a note on an option not
// picked is dropped, saying so).
func (s *asking) withNotes(q *askuser.Question, ans askuser.Answer, note string, optNotes map[string]string) askuser.Answer {
	ans.Note = note
	for v, n := range optNotes {
		if !slices.Contains(ans.Selected, v) {
			s.printf("  The note on %s is dropped: it is not picked.\n", inert.Line(q.Option(v).Label))
			continue
		}
		if ans.OptionNotes == nil {
			ans.OptionNotes = map[string]string{}
		}
		ans.OptionNotes[v] = n
	}
	return ans
}

func (s *asking) askChoice(q *askuser.Question) error {
	defaults := responder.DeclaredDefaults(q)
	var note string
	optNotes := map[string]string{}
	n := len(q.Options)
	if responder.FreeText(q) {
		n++
	}
	var prompt string
	if q.MultiSelect {
		prompt = fmt.Sprintf("Pick one or more of 1-%d, separated by commas", n)
	} else {
		prompt = fmt.Sprintf("Pick 1-%d", n)
	}
	switch {
	case defaults != nil:
		prompt += " (Enter for " + numbers(q, defaults) + ")"
	case q.Optional:
		prompt += " (Enter to skip)"
	}
	prompt += ": "
	for {
		s.ask(prompt)
		line, err := s.readLine()
		if err != nil {
			return err
		}
		if n, text, ok := parseNote(q, line); ok {
			if n < 0 {
				note = text
			} else {
				optNotes[q.Options[n].Value] = text
			}
			s.printf("  Noted.\n")
			continue
		}
		ans := askuser.Answer{QuestionID: q.ID}
		picks, other, ok := termtext.Picks(q, line)
		switch {
		case !ok:
			s.printf("  Not accepted: %s.\n", accepted(q, defaults))
			continue
		case len(picks) == 0 && !other && defaults != nil:
			ans.Selected = defaults
		case len(picks) == 0 && !other && q.Optional && note != "":
			// a note alone
		case len(picks) == 0 && !other && q.Optional:
			return nil // skipped
		case len(picks) == 0 && !other:
			s.printf("  Not accepted: %s.\n", accepted(q, defaults))
			continue
		default:
			for _, p := range picks {
				ans.Selected = append(ans.Selected, q.Options[p].Value)
			}
		}
		if other {
			s.ask(otherLabel(q) + ": ")
			text, err := s.readLine()
			if err != nil {
				return err
			}
			if strings.TrimSpace(text) == "" {
				s.printf("  Not accepted: the answer is empty; type it, or pick another number.\n")
				continue
			}
			ans.Other = text
		}
		if err := s.report(s.withNotes(q, ans, note, optNotes)); !errors.Is(err, errRetry) {
			return err
		}
	}
}

// askSealedChoice asks a sensitive choice: the options are shown, the pick
// (and any text of one's own) is typed without echo, and handed over as
// responder.ChoiceSecret makes it.
func (s *asking) askSealedChoice(q *askuser.Question) error {
	for {
		b, err := s.readHidden()
		if err != nil {
			return err
		}
		picks, other, ok := termtext.Picks(q, string(b))
		clear(b)
		if !ok || len(picks) == 0 && !other {
			if ok && q.Optional {
				return nil
			}
			s.printf("  Not accepted: %s.\n", accepted(q, nil))
			continue
		}
		var values []string
		for _, p := range picks {
			values = append(values, q.Options[p].Value)
		}
		var text []byte
		if other {
			if text, err = s.readHidden(); err != nil {
				return err
			}
		}
		ans := askuser.Answer{QuestionID: q.ID, Secret: responder.ChoiceSecret(q, values, string(text))}
		clear(text)
		if err := s.report(ans); !errors.Is(err, errRetry) {
			return err
		}
	}
}

// accepted says what a choice prompt accepts.
func accepted(q *askuser.Question, defaults []string) string {
	n := len(q.Options)
	if responder.FreeText(q) {
		n++
	}
	var s string
	if q.MultiSelect {
		s = fmt.Sprintf("type one or more numbers from 1 to %d, separated by commas, each at most once", n)
	} else {
		s = fmt.Sprintf("type one number from 1 to %d", n)
	}
	switch {
	case defaults != nil:
		s += ", or press Enter for " + numbers(q, defaults)
	case q.Optional:
		s += ", or press Enter to skip"
	}
	return s
}

// numbers lists the option numbers of values.
func numbers(q *askuser.Question, values []string) string {
	var ns []string
	for _, v := range values {
		for i, o := range q.Options {
			if o.Value == v {
				ns = append(ns, strconv.Itoa(i+1))
			}
		}
	}
	return strings.Join(ns, ",")
}

func (s *asking) askText(q *askuser.Question) error {
	if q.Multiline {
		s.printf("Type your answer over as many lines as you need; end it with a line holding only \".\" (or the end of input).\n")
		if q.Prefill != "" {
			s.printf("A \".\" on the first line keeps this text:\n")
			for _, l := range strings.Split(inert.Text(q.Prefill), "\n") {
				s.printf("  | %s\n", l)
			}
		}
	}
	for {
		text, err := s.readText(q)
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) == "" {
			switch {
			case q.Prefill != "":
				text = q.Prefill
			case q.Optional:
				return nil
			default:
				s.printf("  Not accepted: the answer is empty; type an answer.\n")
				continue
			}
		}
		if err := s.report(askuser.Answer{QuestionID: q.ID, Other: text}); !errors.Is(err, errRetry) {
			return err
		}
	}
}

// readText reads a text answer: one line, or for a multi-line question the
// lines up to one holding only "." or the end of input.
func (s *asking) readText(q *askuser.Question) (string, error) {
	if !q.Multiline {
		p := "Answer: "
		switch {
		case q.Prefill != "":
			p = "Answer (Enter for " + quoted(q.Prefill) + "): "
		case q.Optional:
			p = "Answer (Enter to skip): "
		}
		s.ask(p)
		return s.readLine()
	}
	var lines []string
	for {
		s.ask("> ")
		line, err := s.readLine()
		if errors.Is(err, errEndOfInput) && len(lines) > 0 {
			s.prompt = ""
			break
		}
		if err != nil {
			return "", err
		}
		if line == "." {
			break
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), nil
}

func (s *asking) askSecret(q *askuser.Question) error {
	for {
		b, err := s.readHidden()
		if err != nil {
			return err
		}
		v := bytes.TrimSpace(b)
		if len(v) == 0 && q.Optional {
			return nil
		}
		ans := askuser.Answer{QuestionID: q.ID, Secret: secret.New(v)}
		clear(b)
		if err := s.report(ans); !errors.Is(err, errRetry) {
			return err
		}
	}
}

// readHidden reads one line from the terminal with its echo off, and
// restores the terminal however the read ends.
func (s *asking) readHidden() ([]byte, error) {
	r := s.r
	f := r.inTTY
	if f == nil {
		f = r.tty
	}
	if f == nil {
		return nil, errNoTerminal
	}
	fd, ok := fdOf(f)
	if !ok {
		return nil, errNoTerminal
	}
	restore, err := noEcho(fd)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoTerminal, err)
	}
	r.setRestore(restore)
	defer func() {
		restore()
		r.setRestore(nil)
	}()

	var ch <-chan []byte
	if r.inTTY != nil {
		r.in.start()
		if r.in.drain() { // typed ahead, with echo on: never a secret
			s.typed = true
		}
		ch = r.in.lines
	} else {
		c, stop := readTerminal(f)
		defer stop()
		ch = c
	}
	s.ask("Secret (typing is hidden): ")
	b, err := s.wait(ch)
	if err == nil {
		s.printf("\n") // the Enter the terminal did not echo
	}
	return b, err
}

// readTTYLine reads one line from a terminal, which in canonical mode
// hands over at most one line per read.
func readTTYLine(f *os.File) ([]byte, error) {
	var line []byte
	buf := make([]byte, 256)
	defer clear(buf)
	for {
		n, err := f.Read(buf)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			line = append(line, buf[:i]...)
			return bytes.TrimSuffix(line, []byte("\r")), nil
		}
		line = append(line, buf[:n]...)
		if err != nil {
			return line, err
		}
	}
}
