package askuser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRefusedOnArrival: each bad answer is refused when reported, with a
// reason a person can read, while the answers accepted before stand.
func TestRefusedOnArrival(t *testing.T) {
	bad := []struct {
		name   string
		answer askuser.Answer
		reason string
	}{
		{"an id that was not asked", askuser.Answer{QuestionID: "colour", Selected: []string{"red"}},
			`this call has no question "colour"; it asks "env", "region"`},
		{"a label that was not offered", askuser.Answer{QuestionID: "region", Selected: []string{"mars"}},
			`"mars" is not one of the options; choose from "eu", "us", "ap"`},
		{"a label picked twice", askuser.Answer{QuestionID: "region", Selected: []string{"eu", "eu"}},
			`"eu" is selected twice; pick each option at most once`},
		{"two labels on a single-select", askuser.Answer{QuestionID: "env", Selected: []string{"staging", "production"}},
			"this question takes one option, not 2; pick one"},
		{"an empty answer", askuser.Answer{QuestionID: "env", Other: "   "},
			"the answer is empty; pick an option or type your own answer"},
		{"a secret value on a non-secret question", askuser.Answer{QuestionID: "env", Secret: secret.FromString("s3cr3t-value")},
			"only a secret question takes a secret value; pick an option or type your own answer"},
		{"a credential-shaped free text", askuser.Answer{QuestionID: "env", Other: "use ghp_0123456789abcdefABCDEF0123456789abcd"},
			"the answer looks like a GitHub token; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question)"},
		{"a credential-shaped note", askuser.Answer{QuestionID: "env", Selected: []string{"staging"}, Note: "key AKIAIOSFODNN7EXAMPLE"},
			"the note looks like an AWS access key id; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question)"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var refused error
				o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
					if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}); err != nil {
						t.Errorf("a good answer was refused: %v", err)
					}
					refused = a.Report(tt.answer)
					if err := a.Report(askuser.Answer{QuestionID: "region", Selected: []string{"us"}}); err != nil {
						t.Errorf("a good answer after the refusal was refused: %v", err)
					}
					return a.Submit()
				})}
				out, err := handle(t, o, choiceCall)
				got := mustResult(t, out, err)
				var ae *askuser.AnswerError
				if !errors.As(refused, &ae) {
					t.Fatalf("the bad answer returned %v, want an *AnswerError", refused)
				}
				if diff := cmp.Diff(tt.reason, ae.Reason); diff != "" {
					t.Errorf("reason (-want +got):\n%s", diff)
				}
				want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["us"],"other_text":null}]}`
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the accepted answers did not stand (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func TestFreeTextWhereNotAllowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		call := `{"questions":[{"id":"q","header":"h","question":"q?","allow_other":false,"options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]}]}`
		var refused error
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			refused = a.Report(askuser.Answer{QuestionID: "q", Other: "c"})
			return a.Decline()
		})}
		if _, err := handle(t, o, call); err != nil {
			t.Fatal(err)
		}
		var ae *askuser.AnswerError
		if !errors.As(refused, &ae) || ae.Reason != "this question takes only its options; free text is not accepted here" {
			t.Errorf("refused = %v", refused)
		}
	})
}

func TestSubmitRefusedWhileUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var first error
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			_ = a.Report(askuser.Answer{QuestionID: "region", Selected: []string{"eu"}})
			first = a.Submit()
			_ = a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}})
			return a.Submit()
		})}
		out, err := handle(t, o, choiceCall)
		if err != nil || out.Status != askuser.StatusAnswered {
			t.Fatalf("%v %v", out, err)
		}
		var ue *askuser.UnansweredError
		if !errors.As(first, &ue) || !cmp.Equal(ue.QuestionIDs, []string{"env"}) {
			t.Errorf("first submit = %v, want an UnansweredError naming env", first)
		}
		if got, want := first.Error(), `askuser: cannot submit yet: question "env" still needs an answer`; got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	})
}

func TestAcceptedAnswerMayBeReplaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: scripted.New(
			scripted.Step{Answer: pick("env", "staging")},
			scripted.Step{Answer: pick("env", "production")},
			scripted.Step{Answer: pick("region", "ap", "eu")},
			scripted.Step{End: scripted.EndSubmit},
		)}
		got := askResult(t, o, choiceCall)
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu","ap"],"other_text":null}]}`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestResponderIgnoresItsContext: a responder that never returns still
// gets the ask finalized at the deadline, and its later reports are
// refused.
func TestResponderIgnoresItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		late := make(chan error, 1)
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			_ = a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"staging"}})
			<-release // ignores ctx
			late <- a.Report(askuser.Answer{QuestionID: "region", Selected: []string{"us"}})
			return nil
		})}
		start := time.Now()
		got := askResult(t, o, choiceCall)
		if waited := time.Since(start); waited != 300*time.Second {
			t.Errorf("finalized after %v, want 300s", waited)
		}
		want := `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"},{"id":"region","selected":["eu"],"other_text":null}]}`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		close(release)
		if err := <-late; !errors.Is(err, askuser.ErrAskEnded) {
			t.Errorf("a report after the deadline returned %v, want ErrAskEnded", err)
		}
	})
}

func TestReportAfterDeadlineRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := scripted.New(scripted.Step{Delay: 301 * time.Second, Answer: pick("env", "staging")}, scripted.Step{End: scripted.EndSubmit})
		r.IgnoreContext = true
		o := &askuser.Orchestrator{Responder: r}
		out, err := handle(t, o, choiceCall)
		if err != nil || out.Reason != askuser.ReasonDeadline {
			t.Fatalf("%v %v", out, err)
		}
		o.WaitResponders() // the responder reports late, then returns
		for _, rep := range r.Reports() {
			if !errors.Is(rep.Err, askuser.ErrAskEnded) {
				t.Errorf("step %d after the deadline: %v, want ErrAskEnded", rep.Step, rep.Err)
			}
		}
		if len(r.Reports()) != 2 {
			t.Errorf("%d reports, want 2", len(r.Reports()))
		}
	})
}

// TestReportAtExactlyTheDeadline: the deadline wins a tie.
func TestReportAtExactlyTheDeadline(t *testing.T) {
	for _, end := range []scripted.End{scripted.EndSubmit, scripted.EndDecline, scripted.EndCancel, scripted.EndUnreachable} {
		t.Run(string(end), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := scripted.New(
					scripted.Step{Answer: pick("env", "staging")},
					scripted.Step{Answer: pick("region", "us")},
					scripted.Step{Delay: 300 * time.Second, End: end},
				)
				r.IgnoreContext = true
				o := &askuser.Orchestrator{Responder: r}
				out, err := handle(t, o, choiceCall)
				if err != nil {
					t.Fatal(err)
				}
				if out.Reason != askuser.ReasonDeadline || out.Status != askuser.StatusTimedOut {
					t.Errorf("ending at exactly expires_at: %s/%s, want the deadline", out.Status, out.Reason)
				}
				synctest.Wait()
				reps := r.Reports()
				if last := reps[len(reps)-1]; !errors.Is(last.Err, askuser.ErrAskEnded) {
					t.Errorf("the ending at the deadline returned %v, want ErrAskEnded", last.Err)
				}
			})
		})
	}
}

func TestReportJustBeforeTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: scripted.New(
			scripted.Step{Answer: pick("env", "staging")},
			scripted.Step{Answer: pick("region", "us")},
			scripted.Step{Delay: 300*time.Second - time.Nanosecond, End: scripted.EndSubmit},
		)}
		out, err := handle(t, o, choiceCall)
		if err != nil || out.Reason != askuser.ReasonSubmitted {
			t.Fatalf("a submit 1ns before the deadline: %v %v", out, err)
		}
	})
}

func TestResponderReturnsWithoutEnding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Logger: discard(), Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error { return nil })}
		out, err := handle(t, o, choiceCall)
		if err != nil || out.Reason != askuser.ReasonFault || !errors.Is(out.Fault, askuser.ErrNoEnding) {
			t.Fatalf("%+v %v; want a fault wrapping ErrNoEnding", out, err)
		}
	})
}

func TestPanicIsContained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := errors.New("nil map")
		var log bytes.Buffer
		o := &askuser.Orchestrator{Logger: slog.New(slog.NewJSONHandler(&log, nil)), Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error { panic(cause) })}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		// The fault's log line carries the stack, down to this function.
		var line struct{ Err, Stack string }
		if err := json.Unmarshal(log.Bytes(), &line); err != nil || !strings.Contains(line.Err, "nil map") || !strings.Contains(line.Stack, "TestPanicIsContained") {
			t.Errorf("fault log line %s (%v); want the panic and a stack through TestPanicIsContained", log.Bytes(), err)
		}
		if _, stack, ok := askuser.PanicValue(out.Fault); !ok || !errors.Is(out.Fault, cause) || len(stack) == 0 {
			t.Errorf("Fault = %v, want a panic fault wrapping the cause, with a stack", out.Fault)
		}
		if out.Status != askuser.StatusCancelled || out.AnsweredBy != askuser.ByUnattended {
			t.Errorf("%s/%s, want cancelled/unattended", out.Status, out.AnsweredBy)
		}
	})
}

func TestEndingTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var second error
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			if err := a.Decline(); err != nil {
				return err
			}
			second = a.Cancel("")
			return nil
		})}
		out, err := handle(t, o, choiceCall)
		if err != nil || out.Reason != askuser.ReasonDeclined {
			t.Fatalf("%v %v", out, err)
		}
		synctest.Wait()
		if !errors.Is(second, askuser.ErrAskEnded) {
			t.Errorf("a second ending returned %v, want ErrAskEnded", second)
		}
	})
}

// TestOutcomeThroughTheHandle: a responder learns the final outcome.
func TestOutcomeThroughTheHandle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seen := make(chan *askuser.Outcome, 1)
		o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			if a.Outcome() != nil {
				t.Error("Outcome is set before the ask ended")
			}
			<-a.Done()
			seen <- a.Outcome()
			return ctx.Err()
		})}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if got := <-seen; got != out {
			t.Errorf("the handle's outcome is not the caller's")
		}
	})
}

func TestDraftKeptAtDeadlineOnlyWhereTheRuleSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: scripted.New(scripted.Step{Draft: pick("env", "staging")})}
		// ask_user applies declared defaults, not drafts.
		got := askResult(t, o, choiceCall)
		want := `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// panickyPresence wraps a responder with a Presence check that panics.
type panickyPresence struct{ askuser.Responder }

func (panickyPresence) Reachable(context.Context, string) bool { panic("presence check broke") }
func (p panickyPresence) Unwrap() askuser.Responder            { return p.Responder }

// neverAsked is a responder, run per ask or driven by events, that fails
// the test if it is asked at all.
func neverAsked(t *testing.T) map[string]askuser.Responder {
	r := newEvents()
	r.onAsked = func(*askuser.Ask) { t.Error("Asked was called") }
	return map[string]askuser.Responder{
		"run per ask": askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			t.Error("Respond was called")
			return a.Submit()
		}),
		"driven by events": r,
	}
}

// TestCheckPanicIsContained: a responder's Presence check that panics is
// the responder's fault, as a panicking Respond is: the ask ends as a
// fault, the responder is not asked, and a retry of the tool call replays
// that outcome rather than joining an ask nothing would ever end.
func TestCheckPanicIsContained(t *testing.T) {
	for name, r := range neverAsked(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &askuser.Orchestrator{Logger: discard(), Responder: panickyPresence{r}}
				req := askuser.Request{Session: "s", ToolCallID: "tc1", Arguments: []byte(choiceCall)}
				out, err := o.Handle(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				v, stack, ok := askuser.PanicValue(out.Fault)
				if out.Reason != askuser.ReasonFault || !ok || v != "presence check broke" || len(stack) == 0 {
					t.Fatalf("%s, Fault = %v; want a fault holding the Presence check's panic, with a stack", out.Reason, out.Fault)
				}
				again, err := o.Handle(t.Context(), req)
				if err != nil || !again.Replayed || string(again.Result) != string(out.Result) {
					t.Fatalf("the retry = %+v, %v; want the fault's outcome replayed", again, err)
				}
				o.WaitResponders()
			})
		})
	}
}

// panickyJournal is a journal whose lookup of a tool call panics.
type panickyJournal struct{ store.Journal }

func (j panickyJournal) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	return storedFound(j.find(ctx, session, toolCallID))
}

func (panickyJournal) find(context.Context, string, string) (*journal.Record, bool, error) {
	panic("journal index broke")
}

// TestBeginPanicReachesCaller: an ask for a responder driven by events is
// begun on a goroutine of the orchestrator's, so that its caller waits on
// a small stack; a panic there that is nobody's fault in particular (here
// the journal's, before any ask exists) reaches Handle's caller, who can
// recover it, as it does when the ask is begun on the caller's goroutine.
func TestBeginPanicReachesCaller(t *testing.T) {
	for name, r := range neverAsked(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &askuser.Orchestrator{Journal: panickyJournal{}, Responder: r}
				got := func() (p any) {
					defer func() { p = recover() }()
					_, _ = o.Handle(t.Context(), askuser.Request{Session: "s", ToolCallID: "tc1", Arguments: []byte(choiceCall)})
					return nil
				}()
				if got != "journal index broke" {
					t.Fatalf("Handle's caller recovered %v; want the journal's panic", got)
				}
				o.WaitResponders()
			})
		})
	}
}
