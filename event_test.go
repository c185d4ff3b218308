package askuser_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
)

// events is an EventDriven responder for the tests: Asked keeps each ask
// and hands it to the test through asked; onAsked, when set, runs in Asked.
// Its Respond is the fallback FirstReachable uses.
type events struct {
	sessions  *askuser.Sessions // handed over by the orchestrator
	asked     chan *askuser.Ask
	onAsked   func(a *askuser.Ask)
	mu        sync.Mutex
	ended     []string // ask ids, in the order AfterEnd reported them
	responded int
}

func newEvents() *events { return &events{asked: make(chan *askuser.Ask, 16)} }

func (r *events) Asked(a *askuser.Ask) {
	if r.onAsked != nil {
		r.onAsked(a)
	}
	a.AfterEnd(func() {
		r.mu.Lock()
		r.ended = append(r.ended, a.ID())
		r.mu.Unlock()
	})
	r.asked <- a
}

// FollowSessions keeps what the orchestrator hands over, so that a test
// follows sessions on a fleet's replicas (see fleet.follow).
func (r *events) FollowSessions(s *askuser.Sessions) { r.sessions = s }

func (r *events) Respond(ctx context.Context, a *askuser.Ask) error {
	r.mu.Lock()
	r.responded++
	r.mu.Unlock()
	r.Asked(a)
	<-ctx.Done()
	return nil
}

func (r *events) endedIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.ended...)
}

// handleAsync asks choiceCall in a goroutine and returns where its
// outcome arrives.
func handleAsync(ctx context.Context, o *askuser.Orchestrator, session, call string) <-chan *askuser.Outcome {
	ch := make(chan *askuser.Outcome, 1)
	go func() {
		out, _ := o.Handle(ctx, askuser.Request{Session: session, Arguments: []byte(call)})
		ch <- out
	}()
	return ch
}

// TestEventDrivenAnswered: an ask ended from an event (a report and a
// submit from the test's goroutine, not from a Respond) is final with what
// was reported; Respond is never called, AfterEnd runs once, and Wait
// returns once it has.
func TestEventDrivenAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r}
		outc := handleAsync(context.Background(), o, "s1", choiceCall)
		a := <-r.asked
		synctest.Wait()
		if a.Outcome() != nil {
			t.Fatal("the ask was final before any event")
		}
		answerChoice(t, a)
		out := <-outc
		o.WaitResponders()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["us"],"other_text":null}]}`
		if got := string(out.Result); got != want {
			t.Errorf("result = %s, want %s", got, want)
		}
		if got := r.endedIDs(); len(got) != 1 || got[0] != a.ID() {
			t.Errorf("AfterEnd ran for %v, want once for %s", got, a.ID())
		}
		if r.responded != 0 {
			t.Errorf("Respond was called %d times; an EventDriven responder is told through Asked", r.responded)
		}
		// A function registered once the outcome is final runs too.
		late := make(chan *askuser.Outcome, 1)
		a.AfterEnd(func() { late <- a.Outcome() })
		if got := <-late; got != out {
			t.Errorf("a late AfterEnd saw outcome %p, want the final one %p", got, out)
		}
		o.WaitResponders()
	})
}

// TestEventDrivenDeadline: with no event, the ask ends at its deadline
// (with the declared default),
// with nothing of the responder's running; an ending from an event after
// the deadline is refused with ErrAskEnded, and so is one at exactly
// ExpiresAt (the deadline wins the tie).
func TestEventDrivenDeadline(t *testing.T) {
	for _, at := range []string{"at ExpiresAt", "after ExpiresAt"} {
		t.Run(at, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newEvents()
				var (
					mu   sync.Mutex
					late []error
				)
				o := &askuser.Orchestrator{Responder: r}
				outc := handleAsync(context.Background(), o, "s1", `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"a"},{"label":"production","description":"b"}]}],"timeout_seconds":60}`)
				a := <-r.asked
				d := time.Until(a.Form().ExpiresAt)
				if at == "after ExpiresAt" {
					d += time.Second
				}
				// An event that arrives as the deadline passes: a timer of
				// its own, the way an HTTP request would arrive.
				time.AfterFunc(d, func() {
					mu.Lock()
					defer mu.Unlock()
					late = append(late, a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"production"}}), a.Submit())
				})
				out := <-outc
				time.Sleep(2 * time.Second)
				o.WaitResponders()
				if out.Reason != askuser.ReasonDeadline || out.Status != askuser.StatusTimedOut || out.AnsweredBy != askuser.ByTimeout {
					t.Errorf("reason %s, status %s, by %s; want the deadline's timed_out by timeout", out.Reason, out.Status, out.AnsweredBy)
				}
				if f := out.Answer("env"); f == nil || len(f.Selected) != 1 || f.Selected[0] != "staging" {
					t.Errorf("answer %+v, want the declared default, not the late event's", f)
				}
				mu.Lock()
				defer mu.Unlock()
				for i, err := range late {
					if !errors.Is(err, askuser.ErrAskEnded) {
						t.Errorf("event %d %s returned %v, want ErrAskEnded", i, at, err)
					}
				}
				if len(late) != 2 {
					t.Errorf("%d events ran, want 2", len(late))
				}
			})
		})
	}
}

// TestEventDrivenSupersedeAndCaller: Supersede ends a pending ask, and a
// caller that goes away ends its own; both reach the responder through
// AfterEnd, and Wait returns with nothing left running.
func TestEventDrivenSupersedeAndCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEvents()
		o := &askuser.Orchestrator{Responder: r}
		sup := handleAsync(context.Background(), o, "s1", choiceCall)
		a1 := <-r.asked
		ctx, cancel := context.WithCancel(context.Background())
		gone := make(chan error, 1)
		go func() {
			_, err := o.Handle(ctx, askuser.Request{Session: "s2", Arguments: []byte(choiceCall)})
			gone <- err
		}()
		a2 := <-r.asked
		if n := o.Supersede("s1"); n != 1 {
			t.Errorf("Supersede ended %d asks, want 1", n)
		}
		if out := <-sup; out.Reason != askuser.ReasonSuperseded {
			t.Errorf("superseded ask ended %s", out.Reason)
		}
		cancel()
		if err := <-gone; !errors.Is(err, context.Canceled) {
			t.Errorf("Handle of a caller that went away returned %v, want context.Canceled", err)
		}
		o.WaitResponders()
		if got := a2.Outcome(); got == nil || got.Reason != askuser.ReasonCaller {
			t.Errorf("the second ask's outcome is %v, want one ended by its caller", got)
		}
		// Each ask's functions run in a goroutine of their own, so the two
		// asks' may run in either order.
		got := r.endedIDs()
		want := []string{a1.ID(), a2.ID()}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("AfterEnd ran for %v, want once for each of %v", got, want)
		}
		if err := a1.Cancel(""); !errors.Is(err, askuser.ErrAskEnded) {
			t.Errorf("an ending after Supersede returned %v, want ErrAskEnded", err)
		}
	})
}

// TestEventDrivenPanic: a panic in Asked ends the ask as a responder fault,
// logged, with the caller unharmed; so does a panic in an AfterEnd
// function, which is logged and changes nothing.
func TestEventDrivenPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		r := &events{asked: make(chan *askuser.Ask, 1), onAsked: func(a *askuser.Ask) {
			a.AfterEnd(func() { panic("after the end") })
			panic("in Asked")
		}}
		o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(&log, nil))}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		o.WaitResponders()
		if out.Reason != askuser.ReasonFault || out.Status != askuser.StatusCancelled {
			t.Errorf("reason %s, status %s; want a fault, cancelled", out.Reason, out.Status)
		}
		if v, _, ok := askuser.PanicValue(out.Fault); !ok || v != "in Asked" {
			t.Errorf("fault %v, want the panic in Asked", out.Fault)
		}
		if strings.Contains(string(out.Result), "in Asked") {
			t.Errorf("the fault reached the result: %s", out.Result)
		}
		for _, want := range []string{"responder fault", "AfterEnd panicked"} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("the log does not say %q:\n%s", want, log.String())
			}
		}
	})
}

// TestEventDrivenChecksFirst: Presence is asked before Asked, as before
// Respond: an unreachable session is unattended and Asked is not called.
// A FirstReachable over an EventDriven responder calls its Respond.
func TestEventDrivenChecksFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newEvents()
		o := &askuser.Orchestrator{Responder: nobodyThere{r}}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != askuser.ReasonUnattended || len(r.asked) != 0 {
			t.Errorf("reason %s with %d asks shown; want unattended, none shown", out.Reason, len(r.asked))
		}

		o = &askuser.Orchestrator{Responder: askuser.FirstReachable(r)}
		outc := handleAsync(context.Background(), o, "s1", choiceCall)
		a := <-r.asked
		if err := a.Decline(); err != nil {
			t.Fatal(err)
		}
		if out := <-outc; out.Reason != askuser.ReasonDeclined {
			t.Errorf("through FirstReachable the ask ended %s, want declined", out.Reason)
		}
		o.WaitResponders()
		if r.responded != 1 {
			t.Errorf("FirstReachable called Respond %d times, want 1", r.responded)
		}
	})
}

// nobodyThere wraps a responder and reports nobody reachable.
type nobodyThere struct{ r askuser.Responder }

func (w nobodyThere) Respond(ctx context.Context, a *askuser.Ask) error { return w.r.Respond(ctx, a) }
func (w nobodyThere) Unwrap() askuser.Responder                         { return w.r }
func (w nobodyThere) Reachable(context.Context, string) bool            { return false }
