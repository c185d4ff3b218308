// Package respondertest checks that a Responder keeps its side of askuser's
// contract, as testing/slogtest does for slog handlers. Responder authors
// run it from their own tests:
//
//	func TestConformance(t *testing.T) {
//		respondertest.Run(t, func(t *testing.T) askuser.Responder { return myresponder.New(...) })
//	}
//
// The suite cannot play the person, so it checks what every responder must
// do whatever the person does (or when nobody is there): handle every kind
// of call without a fault, return once the ask's context ends — at the
// deadline, when the ask is superseded, when the caller goes away — cope
// with several pending asks at once, and end each ask properly. Each case
// is one sentence; Check reports every failure together.
//
// The suite runs in real time with one-second deadlines, so a full run
// takes a few seconds.
package respondertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
)

// Grace is how long after an ask's end the suite waits for Respond to
// return before it reports the responder as ignoring its context.
var Grace = 3 * time.Second

// A Case is one rule of the contract.
type Case struct {
	// Name names the case.
	Name string
	// Rule is the sentence the case checks.
	Rule  string
	check func(newResponder func() askuser.Responder) error
}

// Cases returns the suite's cases.
func Cases() []Case { return cases }

// Run runs every case as a subtest of t, with a fresh responder from
// newResponder for each.
func Run(t *testing.T, newResponder func(t *testing.T) askuser.Responder) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.check(func() askuser.Responder { return newResponder(t) }); err != nil {
				t.Errorf("%s\n%v", c.Rule, err)
			}
		})
	}
}

// Check runs every case and returns their failures joined, each prefixed
// with its rule, or nil.
func Check(newResponder func() askuser.Responder) error {
	var errs []error
	for _, c := range cases {
		if err := c.check(newResponder); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", c.Name, c.Rule, err))
		}
	}
	return errors.Join(errs...)
}

// watched wraps a responder to learn when Respond returns.
type watched struct {
	r        askuser.Responder
	mu       sync.Mutex
	returned map[string]chan struct{}
}

func watch(r askuser.Responder) *watched {
	return &watched{r: r, returned: map[string]chan struct{}{}}
}

func (w *watched) ch(id string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.returned[id]
	if !ok {
		c = make(chan struct{})
		w.returned[id] = c
	}
	return c
}

func (w *watched) Respond(ctx context.Context, a *askuser.Ask) error {
	defer close(w.ch(a.ID()))
	return w.r.Respond(ctx, a)
}

func (w *watched) Unwrap() askuser.Responder { return w.r }

// Reachable passes the wrapped responder's presence through.
func (w *watched) Reachable(ctx context.Context, session string) bool {
	if p, ok := w.r.(askuser.Presence); ok {
		return p.Reachable(ctx, session)
	}
	return true
}

// returnedFor waits up to Grace for Respond to return for the ask; an ask
// the responder was never given (unattended at once) counts as returned.
func (w *watched) returnedFor(out *askuser.Outcome) error {
	w.mu.Lock()
	c, ok := w.returned[out.AskID]
	w.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-c:
		return nil
	case <-time.After(Grace):
		return fmt.Errorf("Respond had not returned %v after the ask ended (%s); it must return once its context ends", Grace, out.Reason)
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func orchestrator(r askuser.Responder) *askuser.Orchestrator {
	return &askuser.Orchestrator{Responder: r, Logger: quiet}
}

// noFault checks an outcome for a responder fault.
func noFault(out *askuser.Outcome, err error) error {
	if err != nil {
		return fmt.Errorf("the ask failed: %w", err)
	}
	if out.Reason == askuser.ReasonFault {
		return fmt.Errorf("the responder failed (an error, a panic, or a return without an ending): %w", out.Fault)
	}
	return nil
}

const (
	choice1 = `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe"},{"label":"production","description":"Real users","default":true}]}],"timeout_seconds":1}`
	multi   = `{"questions":[{"id":"regions","header":"Regions","question":"Which regions?","multi_select":true,"options":[{"label":"eu","description":"Europe","default":true},{"label":"us","description":"America","default":true},{"label":"ap","description":"Asia"}]}],"timeout_seconds":1}`
	closed  = `{"questions":[{"id":"size","header":"Size","question":"Which size?","allow_other":false,"options":[{"label":"small","description":"1 CPU"},{"label":"large","description":"8 CPUs"}]}],"timeout_seconds":1}`
	textQ   = `{"questions":[{"id":"branch","kind":"text","header":"Branch","question":"Which branch name?"}],"timeout_seconds":1}`
	secretQ = `{"questions":[{"kind":"secret","header":"Token","question":"Paste a token","secret_name":"TOKEN","purpose":"to call the API"}],"timeout_seconds":1}`
	four    = `{"questions":[
 {"id":"a","header":"A","question":"First?","options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]},
 {"id":"b","header":"B","question":"Second?","multi_select":true,"options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]},
 {"id":"c","kind":"text","header":"C","question":"Third?"},
 {"id":"d","header":"D","question":"Fourth?","allow_other":false,"options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]}],"timeout_seconds":1}`
)

func askOne(newResponder func() askuser.Responder, call string, during func(o *askuser.Orchestrator)) error {
	w := watch(newResponder())
	o := orchestrator(w)
	if during != nil {
		go during(o)
	}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "conformance", Arguments: []byte(call)})
	if err := noFault(out, err); err != nil {
		return err
	}
	return w.returnedFor(out)
}

var cases = []Case{
	{
		Name: "every-kind",
		Rule: "A responder handles every kind of call — single-select, multi-select, closed choice, text, secret, four questions — without an error, a panic or a return without an ending, and returns once the ask ends.",
		check: func(nr func() askuser.Responder) error {
			var errs []error
			for name, call := range map[string]string{"single-select": choice1, "multi-select": multi, "closed choice": closed, "text": textQ, "secret": secretQ, "four questions": four} {
				if err := askOne(nr, call, nil); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", name, err))
				}
			}
			return errors.Join(errs...)
		},
	},
	{
		Name: "deadline",
		Rule: "A responder returns promptly once its context ends at the deadline.",
		check: func(nr func() askuser.Responder) error {
			return askOne(nr, choice1, nil)
		},
	},
	{
		Name: "superseded",
		Rule: "A responder returns promptly when the embedding program supersedes the ask.",
		check: func(nr func() askuser.Responder) error {
			return askOne(nr, `{"questions":[{"id":"q","header":"Q","question":"Which?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}],"timeout_seconds":30}`,
				func(o *askuser.Orchestrator) {
					time.Sleep(200 * time.Millisecond)
					o.Supersede("conformance")
				})
		},
	},
	{
		Name: "caller-gone",
		Rule: "A responder returns promptly when the caller stops waiting.",
		check: func(nr func() askuser.Responder) error {
			w := watch(nr())
			o := orchestrator(w)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			out, err := o.Handle(ctx, askuser.Request{Session: "conformance", Arguments: []byte(`{"questions":[{"id":"q","header":"Q","question":"Which?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}],"timeout_seconds":30}`)})
			if err == nil {
				// The responder ended the ask before the caller left.
				return noFault(out, nil)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("the ask failed: %w", err)
			}
			deadline := time.Now().Add(Grace)
			for {
				w.mu.Lock()
				all := true
				for _, c := range w.returned {
					select {
					case <-c:
					default:
						all = false
					}
				}
				w.mu.Unlock()
				if all {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("Respond had not returned %v after the caller left; it must return once its context ends", Grace)
				}
				time.Sleep(10 * time.Millisecond)
			}
		},
	},
	{
		Name: "several-pending",
		Rule: "A responder copes with several asks pending at once in one session: each ends without a fault and Respond returns for each.",
		check: func(nr func() askuser.Responder) error {
			w := watch(nr())
			o := orchestrator(w)
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i, call := range []string{choice1, multi, textQ} {
				wg.Go(func() {
					out, err := o.Handle(context.Background(), askuser.Request{Session: "conformance", ToolCallID: fmt.Sprint("call-", i), Arguments: []byte(call)})
					if err = noFault(out, err); err == nil {
						err = w.returnedFor(out)
					}
					errs[i] = err
				})
			}
			wg.Wait()
			return errors.Join(errs...)
		},
	},
	{
		Name: "outcome",
		Rule: "A responder's ask ends with one of the contract's outcomes, and what it reported stands in the outcome as the person's.",
		check: func(nr func() askuser.Responder) error {
			w := watch(nr())
			o := orchestrator(w)
			out, err := o.Handle(context.Background(), askuser.Request{Session: "conformance", Arguments: []byte(four)})
			if err := noFault(out, err); err != nil {
				return err
			}
			for _, f := range out.Answers {
				if f.Source == askuser.SourcePerson && f.By != askuser.ByUser {
					return fmt.Errorf("answer %q came from the person but is marked %q", f.QuestionID, f.By)
				}
			}
			if out.Result == nil {
				return errors.New("the outcome has no result for the model")
			}
			return w.returnedFor(out)
		},
	},
}
