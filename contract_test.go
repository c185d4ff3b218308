package askuser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// wrapper wraps a responder the way a logging or metrics middleware would:
// it implements nothing but Respond and Unwrap.
type wrapper struct {
	inner askuser.Responder
	calls atomic.Int32
}

func (w *wrapper) Respond(ctx context.Context, a *askuser.Ask) error {
	w.calls.Add(1)
	return w.inner.Respond(ctx, a)
}

func (w *wrapper) Unwrap() askuser.Responder { return w.inner }

// noSecrets is a responder that cannot collect a credential safely.
type noSecrets struct{ askuser.ResponderFunc }

func (noSecrets) CanCollectSecrets() bool { return false }

// namedSubmitter submits whatever it is asked, and names itself.
type namedSubmitter struct{}

func (namedSubmitter) Respond(_ context.Context, a *askuser.Ask) error {
	for _, q := range a.Form().Questions {
		if err := a.Report(askuser.Answer{QuestionID: q.ID, Selected: responder.DeclaredDefaults(&q)}); err != nil {
			return err
		}
	}
	return a.Submit()
}

func (namedSubmitter) ResponderName() string { return "inner" }

// TestWrapperHidesNothing: every optional interface is found on what a
// responder wraps, however deep.
func TestWrapperHidesNothing(t *testing.T) {
	t.Run("Presence", func(t *testing.T) {
		w := &wrapper{inner: &wrapper{inner: auto.New()}}
		o := &askuser.Orchestrator{Responder: w}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if n := w.calls.Load(); n != 0 {
			t.Errorf("Respond was called %d times on a wrapper around a responder that reaches nobody", n)
		}
		if out.Reason != askuser.ReasonUnattended || out.Responder != "auto" {
			t.Errorf("outcome %s by %q, want unattended by auto", out.Reason, out.Responder)
		}
	})
	t.Run("SecretCapable", func(t *testing.T) {
		inner := noSecrets{func(context.Context, *askuser.Ask) error { return errors.New("asked for a secret") }}
		w := &wrapper{inner: inner}
		o := &askuser.Orchestrator{Responder: w}
		out, err := handle(t, o, secretCall)
		if err != nil {
			t.Fatal(err)
		}
		if n := w.calls.Load(); n != 0 || out.Reason != askuser.ReasonUnattended {
			t.Errorf("Respond called %d times, outcome %s; want 0 and unattended", n, out.Reason)
		}
	})
	t.Run("Named", func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: &wrapper{inner: namedSubmitter{}}}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if out.Responder != "inner" || out.Reason != askuser.ReasonSubmitted {
			t.Errorf("responder %q, reason %s; want inner, submitted", out.Responder, out.Reason)
		}
	})
	t.Run("FirstReachable", func(t *testing.T) {
		w := &wrapper{inner: auto.New()}
		o := &askuser.Orchestrator{Responder: askuser.FirstReachable(w, namedSubmitter{})}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if w.calls.Load() != 0 || out.Reason != askuser.ReasonSubmitted {
			t.Errorf("the unreachable wrapped responder was asked (%d), or the next one was not: %s", w.calls.Load(), out.Reason)
		}
	})
	t.Run("a cycle", func(t *testing.T) {
		// Unwrap returns the responder itself: the search ends, finding
		// nothing it does not implement.
		o := &askuser.Orchestrator{Responder: &cyclic{}}
		out, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != askuser.ReasonSubmitted || out.Responder != "inner" {
			t.Errorf("outcome %s by %q, want submitted by inner", out.Reason, out.Responder)
		}
	})
}

// cyclic unwraps to itself.
type cyclic struct{ namedSubmitter }

func (c *cyclic) Unwrap() askuser.Responder { return c }

// badDialect decodes every call to a form that breaks the model's rules.
type badDialect struct{ form askuser.Form }

func (badDialect) Name() string { return "bad" }
func (d badDialect) Decode([]byte, dialect.Limits) (*askuser.Form, error) {
	f := d.form
	return &f, nil
}
func (badDialect) Encode(*askuser.Outcome, bool) ([]byte, json.RawMessage, error) {
	return []byte(`{}`), nil, nil
}

// TestDialectOutputIsChecked: a form a dialect returns is held to the
// model's rules before any responder sees it; a dialect that breaks them
// is a logged bug and a clear error, never an ask.
func TestDialectOutputIsChecked(t *testing.T) {
	two := []askuser.Option{{Value: "a", Label: "a"}, {Value: "a", Label: "a"}}
	for name, f := range map[string]askuser.Form{
		"options sharing a value": {TimeoutSeconds: 60, Questions: []askuser.Question{{ID: "q", Kind: askuser.KindChoice, Text: "Which?", Options: two}}},
		"no id":                   {TimeoutSeconds: 60, Questions: []askuser.Question{{Kind: askuser.KindText, Text: "Why?"}}},
		"no timeout":              {Questions: []askuser.Question{{ID: "q", Kind: askuser.KindText, Text: "Why?"}}},
		"an unknown kind":         {TimeoutSeconds: 60, Questions: []askuser.Question{{ID: "q", Kind: "essay", Text: "Why?"}}},
	} {
		t.Run(name, func(t *testing.T) {
			var logs bytes.Buffer
			called := false
			o := &askuser.Orchestrator{
				Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				Responder: askuser.ResponderFunc(func(context.Context, *askuser.Ask) error {
					called = true
					return nil
				}),
			}
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Dialect: badDialect{f}})
			var ce *dialect.CallError
			if !errors.As(err, &ce) || !strings.Contains(ce.Message, "the bad contract could not read this call") {
				t.Fatalf("Handle = %v, %v; want a *dialect.CallError naming the dialect", out, err)
			}
			if called {
				t.Error("a responder was given the form")
			}
			if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "bug in the dialect") {
				t.Errorf("the dialect's bug was not logged: %s", logs.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestErrorAfterTheEndingIsLogged: an error a responder returns after the
// ask has ended changes nothing, and is logged as a warning; the expected
// ways out (ctx's error, ErrAskEnded) are not.
func TestErrorAfterTheEndingIsLogged(t *testing.T) {
	for name, tt := range map[string]struct {
		ret  func(ctx context.Context, a *askuser.Ask) error
		warn bool
	}{
		"another error": {func(context.Context, *askuser.Ask) error { return errors.New("the screen went away") }, true},
		"ctx's error":   {func(ctx context.Context, _ *askuser.Ask) error { return ctx.Err() }, false},
		"ErrAskEnded":   {func(_ context.Context, a *askuser.Ask) error { return a.Submit() }, false},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var logs syncBuffer
				o := &askuser.Orchestrator{
					Logger: slog.New(slog.NewTextHandler(&logs, nil)),
					Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
						<-ctx.Done() // the deadline
						return tt.ret(ctx, a)
					}),
				}
				out, err := handle(t, o, choiceCall)
				if err != nil || out.Reason != askuser.ReasonDeadline || out.Fault != nil {
					t.Fatalf("outcome %v, %v; want the deadline and no fault", out, err)
				}
				o.WaitResponders()
				if got := strings.Contains(logs.String(), "failed after the ask ended"); got != tt.warn {
					t.Errorf("warned %v, want %v: %s", got, tt.warn, logs.String())
				}
			})
		})
	}
}

// slowStore takes its time to seal, as a file store's fsync on a busy disk
// would.
type slowStore struct {
	secretstore.Store
	delay time.Duration
}

func (s slowStore) Put(ctx context.Context, session, name string, v secret.Value) error {
	time.Sleep(s.delay)
	return s.Store.Put(ctx, session, name, v)
}

// TestSealingDoesNotHoldTheDeadline: a secret whose sealing is still under
// way when the deadline comes does not hold the deadline back, is not
// accepted, and is removed from the store.
func TestSealingDoesNotHoldTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newRecordingStore()
		var reported error
		o := &askuser.Orchestrator{
			Secrets: slowStore{Store: store, delay: 100 * time.Second},
			Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
				time.Sleep(290 * time.Second)
				reported = a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("s3cr3t-typed-too-late")})
				return nil
			}),
		}
		start := time.Now()
		out, err := handle(t, o, secretCall)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != askuser.ReasonDeadline || !out.FinalizedAt.Equal(start.Add(300*time.Second).UTC()) {
			t.Errorf("outcome %s at %v, want the deadline at %v", out.Reason, out.FinalizedAt.Sub(start), 300*time.Second)
		}
		if len(out.Answers) != 0 {
			t.Errorf("a secret sealed after the deadline was kept: %+v", out.Answers)
		}
		o.WaitResponders()
		if !errors.Is(reported, askuser.ErrAskEnded) {
			t.Errorf("the late report returned %v, want ErrAskEnded", reported)
		}
		if _, ok := store.get("s1", "GITHUB_TOKEN"); ok {
			t.Error("the late secret is still in the store")
		}
	})
}
