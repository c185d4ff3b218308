package askuser_test

import (
	"context"
	"errors"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// waiting is a responder that shows the ask and waits: its replies come
// by another way (Resume).
var waiting = askuser.ResponderFunc(func(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return nil
})

const takeCall = `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
	{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real"}]}],"timeout_seconds":120}`

// TestResumeTaken: a reply taken by a channel of the program's own, on the
// orchestrator that began the ask or, with a shared store, on another
// one, is the ask's answer; a final ask is replayed, and f is not called;
// Withdraw ends an ask as superseded; an unknown call is ErrUnknownAsk.
func TestResumeTaken(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := "memory"
		if shared {
			name = "shared store"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			first := &askuser.Orchestrator{Responder: waiting, Logger: newDiscardLogger()}
			other := first
			if shared {
				st := store.NewMemory(0)
				first.Asks = st
				other = &askuser.Orchestrator{Responder: waiting, Asks: st, Logger: newDiscardLogger()}
			}
			defer func() {
				for _, o := range []*askuser.Orchestrator{first, other} {
					o.Close()
					o.WaitResponders()
				}
			}()
			for _, o := range []*askuser.Orchestrator{first, other} {
				if err := o.Ready(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := first.Begin(ctx, askuser.Request{Session: "s", ToolCallID: "c1", Arguments: []byte(takeCall)}); err != nil {
				t.Fatal(err)
			}
			_, err := other.Resume(ctx, "s", "c1", func(a *askuser.Ask) error {
				if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"production"}}); err != nil {
					return err
				}
				return a.Submit()
			})
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			out, err := first.Await(ctx, "s", "c1")
			if err != nil || out.Status != askuser.StatusAnswered || out.AnsweredBy != askuser.ByUser || out.Answer("env").Selected[0] != "production" {
				t.Fatalf("the outcome: %+v, %v; want answered production, by the person", out, err)
			}
			called := false
			out, err = other.Resume(ctx, "s", "c1", func(*askuser.Ask) error { called = true; return nil })
			if err != nil || out == nil || !out.Replayed || called {
				t.Errorf("Resume of a final ask: %+v, %v, f called %v; want its outcome replayed, f not called", out, err, called)
			}

			if _, err := first.Begin(ctx, askuser.Request{Session: "s", ToolCallID: "c2", Arguments: []byte(takeCall)}); err != nil {
				t.Fatal(err)
			}
			if err := other.Withdraw(ctx, "s", "c2"); err != nil {
				t.Fatalf("Withdraw: %v", err)
			}
			if out, err := first.Await(ctx, "s", "c2"); err != nil || out.Reason != askuser.ReasonSuperseded || out.AnsweredBy != askuser.ByUnattended {
				t.Errorf("a withdrawn ask: %+v, %v; want superseded, unattended", out, err)
			}
			if err := other.Withdraw(ctx, "s", "c2"); !errors.Is(err, askuser.ErrAskEnded) {
				t.Errorf("Withdraw of an ended ask: %v; want ErrAskEnded", err)
			}
			if _, err := other.Resume(ctx, "s", "nope", func(*askuser.Ask) error { return nil }); !errors.Is(err, askuser.ErrUnknownAsk) {
				t.Errorf("Resume of an unknown call: %v; want ErrUnknownAsk", err)
			}
		})
	}
}
