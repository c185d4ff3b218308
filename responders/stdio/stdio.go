// Package stdio is askuser's line-based terminal responder: the person reads
// each question on an io.Writer and types the answer, one line at a time, on
// an io.Reader — a terminal or a pipe. A program asks through it with
//
//	r := stdio.New(os.Stdin, os.Stderr, &stdio.Options{Terminal: tty})
//	defer r.Close()
//	o := &askuser.Orchestrator{Responder: r}
//
// The call's title and human intent, where it has them, come first. Each
// question shows its header, its place in the call (2/4), its text and
// numbered options with their descriptions (and previews), the recommended
// ones marked, and "Something else" where free text is allowed. The person
// types one number, or for a multi-select several separated by commas (the
// "Something else" number asks for the text next); an empty line takes the
// recommended options where the question has them. At a choice prompt, a
// line "note: ..." adds a note to the answer and "note N: ..." a note on
// option N (kept when N is picked); an optional question takes a note
// alone. A text question reads
// one line; a multi-line one reads lines until a line holding only "." or
// the end of input. Input that is not accepted, and an answer the
// orchestrator refuses (a credential pasted as free text, say), re-prompts
// with the reason; the input itself is never printed back. Each answer is
// reported as it is given, and the call is submitted after the last one.
//
// The end of input after the person typed a line for the ask dismisses it
// (Ask.Cancel), and so does Interrupt, which a program calls on Ctrl-C: the
// package installs no signal handler. An input that ends before anything
// was typed for the ask (an empty one, or one the call itself used up, as
// in "cat call.json | askuser ask") is nobody: the responder says so and
// ends the ask with Ask.Unreachable, so that the contract's unattended
// rules apply. On a terminal, Ctrl-D on an empty line ends the input, with
// the same two meanings.
//
// Everything the responder prints that came from the call or from the
// person is made inert first: the title, the human intent, headers,
// question texts, labels, descriptions, previews, the other label,
// prefills, a secret's purpose and name, typed text shown back in the
// summary, the orchestrator's reasons. Control characters, escape
// sequences, C1 and bidi controls and invalid UTF-8 are shown as visible
// escapes (\x1b, \r, \u009b, \u202e, \xff, in the notation of a Go string
// literal), so that a call cannot move the cursor, write over what is
// shown, set the clipboard or hide text. A question's text keeps its
// lines, each after the first marked with "| ", and so does a preview,
// under its option; every other field is one line, a newline in it shown
// as \n. Invisible format characters (a zero-width space, a joiner, the
// tags) are shown as escapes too (\u200b, \U000e0041), and a no-break
// space as a space. The responder writes no escape sequence of its own, on
// a terminal or on a pipe.
//
// The responder breaks every line it prints that is wider than the
// terminal itself (Options.Width; by default the terminal's width), at a
// space where it can, and starts each piece after the first with "↳ ",
// which no line of its own starts with: the terminal never wraps a line,
// so a question or a reason padded to the terminal's width cannot push
// text to the start of a line where it would read as an option ("  1)
// canary (recommended)") or a block of details of the responder's own.
// The spaces at a break are dropped.
//
// A secret or sensitive question is read without echo (a sensitive choice
// shows its options, reads the pick hidden and hands it over as
// responder.ChoiceSecret makes it), from in when in is a
// terminal and otherwise from Options.Terminal, never from a pipe; the
// terminal's state is restored however the read ends, the deadline
// included. With no terminal the responder reports that it cannot reach
// anyone for the call (it implements askuser.SecretCapable, so the
// orchestrator knows before asking).
//
// An approval (approvaltool.Form) is taken only from a terminal — the
// input when it is one, else Options.Terminal (the controlling terminal) —
// never from a pipe: with no terminal, CanTakeApprovals reports false and
// the orchestrator treats the approval as having nobody to ask
// (unresolved). The responder shows the risk (in words: IRREVERSIBLE is
// the loudest), the action, the reason and the details, all made inert,
// on that terminal; where the input is a pipe it shows them on
// Options.Terminal, and where the output is not a terminal (a program
// may read it) on the input's terminal, and prints on out only that an
// approval is asked there and, at the end, how it ended.
//
// Each approval shows a code of five characters drawn at random (such as
// K7MXA), which the person types back to approve: a program that shares
// the terminal can type into it (TIOCSTI) but cannot read it, so no key
// sequence it can type approves. The code approves once, and the code
// then "session" ("K7MXA session") approves the same action for the rest
// of the session; "never" denies for the rest of the session; Enter alone
// (or "n", "no", "deny") denies once. Anything else — "y", "approve", a
// mistyped code — asks again, once, with a new code, and a second wrong
// line denies once; every wrong code makes the codes after it one
// character longer. The code is typed in either case. A note for the
// agent goes after a colon ("K7MXA: go ahead", ": not before Friday").
// Where the system lets programs type into a terminal (on Linux,
// /proc/sys/dev/tty/legacy_tiocsti reads 1), the approval says so, once.
// What was typed before the prompt appeared is discarded, never taken for
// a decision. The end of input (Ctrl-D), Interrupt and the deadline leave
// the approval unresolved.
//
// At the call's NudgeAt it prints one countdown line saying what the
// deadline will apply; at the deadline it stops asking and prints what was
// applied, read from the final outcome. Asks that arrive while one is shown
// wait their turn, with their deadlines running; one whose deadline passes
// while it waits is dropped without being shown.
package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/challenge"
)

// Options configures a Responder. The zero value works: secrets and
// approvals are then taken only when the input itself is a terminal.
type Options struct {
	// Terminal is where a secret is typed, and an approval shown and
	// answered, when the input is not a terminal: the controlling
	// terminal, opened by the caller for reading and writing (/dev/tty on
	// Unix, with os.OpenFile and os.O_RDWR). It must be a terminal that
	// supports read deadlines (a file opened with os.Open or os.OpenFile
	// does), so that a deadline can stop the read; one that is not is
	// ignored. When the input is itself a terminal, secrets and approvals
	// are read from the input and Terminal is not used. The responder
	// never closes it.
	Terminal *os.File
	// Width is the number of columns the responder wraps what it prints
	// to (see the package doc). Zero means the width of the terminal it
	// prints on, or else of the input or Terminal when one is a terminal
	// (output that is a pipe usually ends on it); with none, lines are
	// printed as they are.
	Width int
}

// A Responder asks on a line-based terminal; see the package doc. Its
// methods are safe for concurrent use. Close it when done.
type Responder struct {
	out   io.Writer
	in    *lineReader
	inTTY *os.File // in, when it is a terminal
	tty   *os.File // Options.Terminal, when in is not a terminal
	width int      // Options.Width
	// outTTY is set when out is a terminal: an approval's code is shown
	// only on a terminal.
	outTTY bool
	codes  *challenge.Source // draws the approvals' codes
	turn   chan struct{}

	mu      sync.Mutex
	closed  bool
	active  sync.WaitGroup // Respond calls in progress
	shown   *askuser.Ask
	onQ     string
	restore func() // undoes the no-echo of a secret read in progress
}

// New returns a responder that reads answers from in and writes questions
// to out. The reading starts with the first question, in one goroutine
// that lasts until the end of in or Close. opts may be nil.
func New(in io.Reader, out io.Writer, opts *Options) *Responder {
	if in == nil {
		in = strings.NewReader("")
	}
	if out == nil {
		out = io.Discard
	}
	if opts == nil {
		opts = &Options{}
	}
	r := &Responder{out: out, in: newLineReader(in), width: opts.Width, turn: make(chan struct{}, 1), codes: challenge.System()}
	if f, ok := out.(*os.File); ok {
		r.outTTY = isTerminal(f)
	}
	if f, ok := in.(*os.File); ok && isTerminal(f) {
		r.inTTY = f
	} else if t := opts.Terminal; isTerminal(t) && t.SetReadDeadline(time.Time{}) == nil {
		r.tty = t
	}
	return r
}

// ResponderName names the responder in the journal: "stdio".
func (r *Responder) ResponderName() string { return "stdio" }

// CanCollectSecrets reports whether a terminal is there to read a secret
// from without echo: the input, or Options.Terminal.
func (r *Responder) CanCollectSecrets() bool { return r.inTTY != nil || r.tty != nil }

// CanTakeApprovals reports whether a terminal is there to take an approval
// from: the input, or Options.Terminal. An approval is never taken from a
// pipe.
func (r *Responder) CanTakeApprovals() bool { return r.inTTY != nil || r.tty != nil }

// Interrupt dismisses the ask being shown, as the person closing it would
// (Ask.Cancel on the question they are on), and reports whether there was
// one. Asks waiting their turn are not touched. The askuser command calls
// it on Ctrl-C.
func (r *Responder) Interrupt() bool {
	r.mu.Lock()
	a, q := r.shown, r.onQ
	r.mu.Unlock()
	return a != nil && a.Cancel(q) == nil
}

// Close stops the reader of the input, restores a terminal whose echo a
// secret read turned off, and waits for the Respond calls in progress to
// return: asks still pending are dismissed, and so are later asks, at
// once. A Read already in progress on the input
// is not interrupted: the reader ends when it returns (when the input has
// data, ends, or is closed). Close closes nothing it was given.
func (r *Responder) Close() error {
	r.mu.Lock()
	r.closed = true
	restore := r.restore
	r.mu.Unlock()
	r.in.close()
	if restore != nil {
		restore()
	}
	r.active.Wait()
	return nil
}

// Respond shows the ask once no other ask is shown, and reports each answer
// as the person gives it; see the package doc.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	r.mu.Lock()
	closed := r.closed
	if !closed {
		r.active.Add(1)
	}
	r.mu.Unlock()
	if closed {
		return dismiss(a)
	}
	defer r.active.Done()
	select {
	case r.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err() // dropped without being shown
	case <-r.in.stop:
		return dismiss(a)
	}
	defer func() { <-r.turn }()
	if err := ctx.Err(); err != nil {
		return err
	}
	defer r.setShown(nil, "")
	s := &asking{r: r, ctx: ctx, a: a, call: a.Form()}
	return s.run()
}

// dismiss ends an ask that was never shown, as the end of input does.
func dismiss(a *askuser.Ask) error {
	if err := a.Cancel(a.Form().Questions[0].ID); err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return nil
}

func (r *Responder) setShown(a *askuser.Ask, q string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown, r.onQ = a, q
}

func (r *Responder) setRestore(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restore = f
}

// Why a question stopped before it had an answer.
var (
	errEndOfInput = errors.New("stdio: end of input")
	errNoTerminal = errors.New("stdio: no terminal to read a secret from")
	errEnded      = errors.New("stdio: the ask has ended")
	errRetry      = errors.New("stdio: ask again")
)

var (
	_ askuser.Responder       = (*Responder)(nil)
	_ askuser.Named           = (*Responder)(nil)
	_ askuser.SecretCapable   = (*Responder)(nil)
	_ askuser.ApprovalCapable = (*Responder)(nil)
)
