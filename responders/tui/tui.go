package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/responder"
)

// Options configures a Responder. The zero value works: colour, and a
// size of 80×24 where the output is not a terminal.
type Options struct {
	// NoColor draws without colour: emphasis by bold, faint and reverse
	// video only (the askuser command sets it when NO_COLOR is set). Every
	// mark that carries meaning is text, so nothing is lost.
	NoColor bool
	// Width and Height are the size drawn at when the output is not a
	// terminal (zero: 80 and 24). On a terminal its own size is used, and
	// followed when it changes.
	Width, Height int
	// Environ is the terminal's environment (TERM, COLORTERM, …), as
	// Bubble Tea reads it to learn what the terminal can do; nil means the
	// process's own.
	Environ []string
}

// A Responder asks on a full-screen terminal; see the package doc. Its
// methods are safe for concurrent use. Close it when done.
type Responder struct {
	inTTY *os.File // the input, when it is a terminal
	feed  *feeder  // the input, when it is not
	out   io.Writer
	// outTTY is set when out is a terminal: an approval's code is drawn
	// only where a person reads it.
	outTTY bool
	codes  *challenge.Source // draws the approvals' codes
	opts   Options
	// traced is set when Bubble Tea writes a trace log (TEA_TRACE), which
	// holds every key typed: no secret is asked then.
	traced bool

	mu     sync.Mutex
	closed bool
	cur    *run // the screen asks join, or nil
	last   *run // the latest screen, which may be closing
	active sync.WaitGroup
}

// A run is one spell of the full screen: from the first pending ask to
// the last one's end.
type run struct {
	p       *tea.Program
	in      *screenInput
	pending int           // Respond calls that joined it and have not left (under Responder.mu)
	ready   chan struct{} // closed once the first ask is on screen
	once    sync.Once
	drained chan struct{} // closed by the model once it has had every key (see drainedMode)
	done    chan struct{} // closed once the terminal is given back
	err     error         // why the program stopped, if it failed
}

// New returns a responder that reads keys from in and draws on out. When
// in is a terminal (an *os.File), the screen puts it into raw mode while it
// is up and gives it back as it was; any other reader is taken as the
// bytes a terminal would send, which is how tests drive it. Nothing is read
// or drawn before the first ask. opts may be nil.
func New(in io.Reader, out io.Writer, opts *Options) *Responder {
	if in == nil {
		in = strings.NewReader("")
	}
	if out == nil {
		out = io.Discard
	}
	r := &Responder{out: out, traced: os.Getenv("TEA_TRACE") != "", codes: challenge.System()}
	if opts != nil {
		r.opts = *opts
	}
	if f, ok := in.(*os.File); ok && isTerminal(f) {
		r.inTTY = f
	} else {
		r.feed = newFeeder(in)
	}
	if f, ok := out.(*os.File); ok {
		r.outTTY = isTerminal(f)
	}
	return r
}

// ResponderName names the responder in the journal: "tui".
func (r *Responder) ResponderName() string { return "tui" }

// CanCollectSecrets reports whether a secret can be typed: only when the
// input is a real terminal, and Bubble Tea keeps no trace log of the keys.
func (r *Responder) CanCollectSecrets() bool { return r.inTTY != nil && !r.traced }

// Respond shows the ask, beside any other pending ask, and reports what
// the person does as they do it; see the package doc.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	if err := ctx.Err(); err != nil {
		return err // ended before it could be shown
	}
	for i := range a.Form().Questions {
		q := &a.Form().Questions[i]
		switch q.Kind {
		case askuser.KindChoice, askuser.KindText, askuser.KindSecret:
		case askuser.KindApproval:
			if a.Form().Approval == nil || !r.CanTakeApprovals() {
				return a.Unreachable() // no person is known to be at the keys
			}
		default:
			return a.Unreachable() // a kind of question this responder does not show
		}
		if responder.Sealed(q) && !r.CanCollectSecrets() {
			return a.Unreachable()
		}
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return dismiss(a)
	}
	r.active.Add(1)
	r.mu.Unlock()
	defer r.active.Done()

	ru, err := r.join(ctx)
	if ru == nil {
		if err != nil {
			return err
		}
		return dismiss(a)
	}
	defer r.leave(ru)
	ru.p.Send(arrivedMsg{a})
	ru.once.Do(func() { close(ru.ready) })
	select {
	case <-ctx.Done():
	case <-ru.done:
		if ctx.Err() == nil {
			if ru.err != nil {
				return fmt.Errorf("tui: the screen stopped: %w", ru.err)
			}
			return dismiss(a)
		}
	}
	select {
	case <-a.Done():
		ru.p.Send(endedMsg{a: a, o: a.Outcome()})
	case <-ru.done:
	}
	return nil
}

// dismiss ends an ask that is not on a screen, as Close does.
func dismiss(a *askuser.Ask) error {
	if err := a.Cancel(a.Form().Questions[0].ID); err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		return err
	}
	return nil
}

// join returns the screen to show an ask on, starting one when none is up
// (once the last one has given the terminal back). It returns nil once the
// responder is closed, or with ctx's error when ctx ends first.
func (r *Responder) join(ctx context.Context) (*run, error) {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, nil
		}
		if ru := r.cur; ru != nil {
			ru.pending++
			r.mu.Unlock()
			return ru, nil
		}
		if prev := r.last; prev != nil && !closed(prev.done) {
			r.mu.Unlock()
			select {
			case <-prev.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ru := r.start()
		ru.pending = 1
		r.cur, r.last = ru, ru
		r.mu.Unlock()
		return ru, nil
	}
}

// leave takes an ask off its screen's count; the screen closes after the
// last one.
func (r *Responder) leave(ru *run) {
	r.mu.Lock()
	ru.pending--
	last := ru.pending == 0 && r.cur == ru
	if last {
		r.cur = nil
	}
	r.mu.Unlock()
	if last {
		// Every key the person typed reaches the model before the
		// program ends (see screenInput).
		ru.in.drain()
		select {
		case <-ru.drained:
		case <-ru.done:
		}
		ru.p.Quit()
	}
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// start puts the screen up, in a goroutine that gives the terminal back
// when the program ends and then prints what each ask came to.
func (r *Responder) start() *run {
	ru := &run{ready: make(chan struct{}), drained: make(chan struct{}), done: make(chan struct{})}
	th := colorTheme()
	if r.opts.NoColor {
		th = monoTheme()
	}
	w, h := r.opts.Width, r.opts.Height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	m := newModel(th, time.Now(), w, h)
	m.drained = ru.drained
	m.codes = r.codes
	opts := []tea.ProgramOption{
		tea.WithOutput(r.out),
		tea.WithoutSignalHandler(), // the embedding program handles signals
		tea.WithWindowSize(w, h),
	}
	if r.opts.Environ != nil {
		opts = append(opts, tea.WithEnvironment(r.opts.Environ))
	}
	if r.opts.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	var restore func()
	var err error
	if r.inTTY != nil {
		// The program reads the terminal through a pipe of the screen's
		// own (see screenInput), so the raw mode is the responder's to set
		// and to undo.
		restore, err = makeRaw(r.inTTY)
		if err == nil {
			discardTypedAhead(r.inTTY)
			ru.in, err = newTerminalInput(r.inTTY)
			if err != nil {
				restore()
			}
		}
	} else {
		ru.in = newFedInput(r.feed, ru.ready)
	}
	if err != nil {
		ru.in = newScreenInput()
		close(ru.in.pumped)
		ru.err = fmt.Errorf("tui: the terminal cannot be used: %w", err)
	}
	opts = append(opts, tea.WithInput(ru.in.pr))
	ru.p = tea.NewProgram(m, opts...)
	if ru.err != nil {
		ru.p.Kill() // Send returns at once
		ru.in.close()
		close(ru.done)
		return ru
	}
	stopClock := make(chan struct{})
	clockDone := make(chan struct{})
	go func() {
		// The clock, for the countdown.
		defer close(clockDone)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				ru.p.Send(tickMsg(now))
			case <-stopClock:
				return
			}
		}
	}()
	go func() {
		defer close(ru.done)
		final, err := ru.p.Run()
		close(stopClock)
		<-clockDone
		ru.in.close()
		if restore != nil {
			restore()
		}
		if err != nil {
			ru.err = err
		}
		fm, ok := final.(*model)
		if !ok {
			return
		}
		fm.discardField()
		for _, o := range fm.ended {
			_, _ = fmt.Fprintln(r.out, summary(o))
		}
	}()
	return ru
}

// Close dismisses every pending ask (and any that comes later, at once),
// waits for the Respond calls in progress to return and for the terminal
// to be given back, with the summaries printed. A Read already in progress
// on an input that is not a terminal is not interrupted: the reader ends
// when it returns. Close closes nothing it was given.
func (r *Responder) Close() error {
	r.mu.Lock()
	r.closed = true
	ru := r.cur
	r.mu.Unlock()
	if ru != nil {
		ru.p.Send(closeMsg{})
	}
	r.active.Wait()
	r.mu.Lock()
	last := r.last
	r.mu.Unlock()
	if last != nil {
		<-last.done
	}
	if r.feed != nil {
		r.feed.close()
	}
	return nil
}

var (
	_ askuser.Responder     = (*Responder)(nil)
	_ askuser.Named         = (*Responder)(nil)
	_ askuser.SecretCapable = (*Responder)(nil)

	_ askuser.ApprovalCapable = (*Responder)(nil)
)
