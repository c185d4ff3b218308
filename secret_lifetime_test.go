package askuser_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// secretStores are the stores that ship, each made fresh for a test.
var secretStores = []struct {
	name string
	new  func(t *testing.T) secretstore.Store
}{
	{"Memory", func(t *testing.T) secretstore.Store { return secretstore.NewMemory(nil) }},
	{"plain Store", func(t *testing.T) secretstore.Store { return plainStore{secretstore.NewMemory(nil)} }},
	{"Dir", func(t *testing.T) secretstore.Store {
		k, err := secretstore.RandomKey("test")
		if err != nil {
			t.Fatal(err)
		}
		ring, err := secretstore.NewKeyRing(k)
		if err != nil {
			t.Fatal(err)
		}
		d, err := secretstore.OpenDir(filepath.Join(t.TempDir(), "secrets"), ring)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}},
}

// plainStore is a Store and nothing more, as a user's own store may be: the
// orchestrator stages through secretstore.Staging.
type plainStore struct{ secretstore.Store }

// slowSealing takes its time to seal, as a file store's fsync on a busy
// disk would.
type slowSealing struct {
	secretstore.Store
	delay time.Duration
}

func (s slowSealing) Put(ctx context.Context, session, name string, v secret.Value) error {
	time.Sleep(s.delay)
	return s.Store.Put(ctx, session, name, v)
}

// slowStaging is slowSealing for a Stager.
type slowStaging struct {
	secretstore.Stager
	delay time.Duration
}

func (s slowStaging) Stage(ctx context.Context, session, name string, v secret.Value) (string, error) {
	time.Sleep(s.delay)
	return s.Stager.Stage(ctx, session, name, v)
}

// secretForm is a Go-built secret question whose answers a dismissal drops.
func secretForm() *askuser.Form {
	return &askuser.Form{
		TimeoutSeconds:     300,
		CancelDropsAnswers: true,
		Questions: []askuser.Question{{
			ID: "token", Kind: askuser.KindSecret, Header: "Token", Text: "Paste a GitHub token",
			SecretName: "GITHUB_TOKEN", Purpose: "to open the pull request",
		}},
	}
}

// TestLaterAskKeepsEarlierSecret: ask 1 hands out session:GITHUB_TOKEN;
// ask 2 in the same session collects a new value under the same name and
// then ends without handing the reference out. Ask 1's reference still
// resolves to ask 1's value, with every store that ships and with a store
// that only implements Store. When ask 2 does hand the reference out, its
// value replaces the record, once ask 2 is final: while it is pending, the
// reference resolves to ask 1's value.
func TestLaterAskKeepsEarlierSecret(t *testing.T) {
	const first, second = "first-value-from-ask-1", "second-value-from-ask-2"
	tests := []struct {
		name string
		// slow makes every seal take this long.
		slow time.Duration
		// form asks ask 2 as a Go-built form instead of secretCall.
		form bool
		// ask2 answers ask 2 (call-2) with second and ends it; resolve
		// returns what session:GITHUB_TOKEN resolves to now.
		ask2 func(ctx context.Context, a *askuser.Ask, resolve func() string) error
		want string // what session:GITHUB_TOKEN resolves to afterwards
		// carried: ask 2's outcome carries the reference.
		carried bool
	}{
		{name: "declined", want: first, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(second)}); err != nil {
				return err
			}
			return a.Decline()
		}},
		{name: "dismissed, answers dropped", form: true, want: first, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			if err := a.Report(askuser.Answer{QuestionID: "token", Secret: secret.FromString(second)}); err != nil {
				return err
			}
			return a.Cancel("token")
		}},
		{name: "deadline while sealing", slow: 100 * time.Second, want: first, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			time.Sleep(290 * time.Second)
			if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(second)}); !errors.Is(err, askuser.ErrAskEnded) {
				t.Errorf("a report sealed past the deadline returned %v, want ErrAskEnded", err)
			}
			return nil
		}},
		{name: "fault while sealing", slow: 100 * time.Second, want: first, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			go func() {
				if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(second)}); !errors.Is(err, askuser.ErrAskEnded) {
					t.Errorf("a report sealed past the fault returned %v, want ErrAskEnded", err)
				}
			}()
			time.Sleep(time.Second) // the report is sealing
			return errors.New("the responder broke")
		}},
		{name: "unattended", want: first, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			return a.Unreachable()
		}},
		{name: "answered", want: second, carried: true, ask2: func(ctx context.Context, a *askuser.Ask, resolve func() string) error {
			if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(second)}); err != nil {
				return err
			}
			if got := resolve(); got != first {
				t.Errorf("while ask 2 is pending, session:GITHUB_TOKEN resolves to %q, want ask 1's %q", got, first)
			}
			return a.Submit()
		}},
		{name: "answered twice", want: second, carried: true, ask2: func(ctx context.Context, a *askuser.Ask, _ func() string) error {
			if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("a typo in ask 2")}); err != nil {
				return err
			}
			if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(second)}); err != nil {
				return err
			}
			return a.Submit()
		}},
	}
	for _, st := range secretStores {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					store := st.new(t)
					var secrets secretstore.Store = store
					if stager, ok := store.(secretstore.Stager); ok && tt.slow > 0 {
						secrets = slowStaging{Stager: stager, delay: tt.slow}
					} else if tt.slow > 0 {
						secrets = slowSealing{Store: store, delay: tt.slow}
					}
					resolve := func() string {
						v, err := secretstore.ResolveFor(context.Background(), store, "s1", "session:GITHUB_TOKEN")
						if err != nil {
							return err.Error()
						}
						return string(v.Reveal())
					}
					o := &askuser.Orchestrator{
						Secrets: secrets,
						Logger:  newDiscardLogger(),
						Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
							if a.ToolCallID() == "call-2" {
								return tt.ask2(ctx, a, resolve)
							}
							if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(first)}); err != nil {
								return err
							}
							return a.Submit()
						}),
					}
					out1, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(secretCall)})
					if err != nil {
						t.Fatal(err)
					}
					if f := out1.Answer("question_1"); f == nil || f.SecretRef != "session:GITHUB_TOKEN" {
						t.Fatalf("ask 1's outcome carries no reference: %+v", out1.Answers)
					}
					req := askuser.Request{Session: "s1", ToolCallID: "call-2", Arguments: []byte(secretCall)}
					if tt.form {
						req = askuser.Request{Session: "s1", ToolCallID: "call-2", Form: secretForm()}
					}
					out2, err := o.Handle(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					o.WaitResponders()
					carried := false
					for _, f := range out2.Answers {
						carried = carried || f.SecretRef != ""
					}
					if carried != tt.carried {
						t.Errorf("ask 2 (%s / %s) carries a reference: %v, want %v", out2.Status, out2.Reason, carried, tt.carried)
					}
					if got := resolve(); got != tt.want {
						t.Errorf("after ask 2 (%s / %s), session:GITHUB_TOKEN resolves to %q, want %q", out2.Status, out2.Reason, got, tt.want)
					}
					if d, ok := store.(*secretstore.Dir); ok {
						// Every staged value was committed or discarded.
						left, err := filepath.Glob(filepath.Join(d.Path(), "*", ".stg-*"))
						if err != nil || left != nil {
							t.Errorf("staged files left behind: %v %v", left, err)
						}
					}
				})
			})
		}
	}
}
