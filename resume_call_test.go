package askuser_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// resumeHolder shows every ask and ends none: the reply comes through
// Resume, as an MCP client's retry brings it to whichever server it
// reaches.
type resumeHolder struct{}

func (resumeHolder) Respond(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return nil
}

// TestResume: a reply reported through Resume's handle answers the ask
// itself — in one process's memory, and with a shared store from another
// orchestrator than the one that began it — its callers get the answer,
// and the journal has one record; a final ask gives its outcome replayed,
// an unknown tool call ErrUnknownAsk.
func TestResume(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "memory", true: "shared store"}[shared]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				j := &approvalJournal{}
				var st store.Pending
				if shared {
					st = store.NewMemory(0)
				}
				var orch []*askuser.Orchestrator
				for range 2 {
					o := &askuser.Orchestrator{Responder: resumeHolder{}, Asks: st, Journal: j, Logger: newDiscardLogger()}
					t.Cleanup(func() { o.Close(); o.WaitResponders() })
					if err := o.Ready(context.Background()); err != nil {
						t.Fatal(err)
					}
					orch = append(orch, o)
				}
				asker, answerer := orch[0], orch[1]
				if !shared {
					answerer = asker // in memory an ask is reachable only where it is
				}
				ctx := context.Background()
				if _, err := asker.Begin(ctx, askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(choiceCall)}); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				_, err := answerer.Resume(ctx, "s1", "call-1", func(a *askuser.Ask) error {
					if a.ToolCallID() != "call-1" || a.Form().Questions[0].ID != "env" {
						t.Errorf("the handle is of tool call %q, form %+v; want call-1's ask", a.ToolCallID(), a.Form().Questions)
					}
					answerChoice(t, a)
					return nil
				})
				if err != nil {
					t.Fatalf("Resume: %v", err)
				}
				for i, o := range orch {
					if !shared && i == 1 {
						continue
					}
					out, err := o.Await(ctx, "s1", "call-1")
					if err != nil || string(out.Result) != answeredChoice {
						t.Errorf("orchestrator %d: Await = %v, %v; want %s", i, out, err, answeredChoice)
					}
				}
				synctest.Wait()
				if recs := j.records(); len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUser {
					t.Errorf("the journal has %d records; want the one of the answer", len(recs))
				}
				called := false
				out, err := answerer.Resume(ctx, "s1", "call-1", func(*askuser.Ask) error { called = true; return nil })
				if err != nil || out == nil || !out.Replayed || string(out.Result) != answeredChoice || called {
					t.Errorf("Resume of a final ask: %+v, %v (f called: %v); want its outcome replayed, f not called", out, err, called)
				}
				_, err = answerer.Resume(ctx, "s1", "call-2", func(*askuser.Ask) error { called = true; return nil })
				if !errors.Is(err, askuser.ErrUnknownAsk) || called {
					t.Errorf("Resume of an unknown call: %v (f called: %v); want ErrUnknownAsk", err, called)
				}
			})
		})
	}
}
