package mcpresponder_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// elsewhere stands for the card: it answers the asks handed to it, after
// a while, with production.
type elsewhere struct {
	mu    sync.Mutex
	asked []string
	after time.Duration
}

func (e *elsewhere) Respond(ctx context.Context, a *askuser.Ask) error {
	e.mu.Lock()
	e.asked = append(e.asked, a.ID())
	e.mu.Unlock()
	select {
	case <-time.After(e.after):
	case <-ctx.Done():
		return nil
	}
	if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"production"}}); err != nil {
		return err
	}
	return a.Submit()
}

func (e *elsewhere) seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.asked...)
}

// waitingClient is a client whose person never answers the form in it.
func waitingClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

// TestBridgeHandsOn: a call that stays open (before 2026-07-28) returns
// at the bridge's time, saying where the ask went; the ask goes on there,
// pending, and is answered and journaled there.
func TestBridgeHandsOn(t *testing.T) {
	for _, v := range []string{v20250618, v20251125} {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				card := &elsewhere{after: 60 * time.Second}
				r := newRig(t, rigOptions{version: v, client: waitingClient(), tool: func(tl *mcpresponder.Tool) {
					tl.Bridge = &mcpresponder.Bridge{After: 30 * time.Second, To: card,
						Where: func(a *askuser.Ask) string { return "http://card.test/ask/" + a.ID() }}
				}})
				start := time.Now()
				res := r.call(t, deployCall)
				if d := time.Since(start); d != 30*time.Second {
					t.Errorf("the call returned after %v; want the bridge's 30s", d)
				}
				asked := card.seen()
				if len(asked) != 1 {
					t.Fatalf("the card was handed %d asks; want 1", len(asked))
				}
				if txt := text(res); res.IsError || !strings.Contains(txt, "went on to http://card.test/ask/"+asked[0]) || !strings.Contains(txt, "(ask "+asked[0]+")") {
					t.Errorf("the call's result: %q (isError %v); want where the ask went", txt, res.IsError)
				}
				var meta struct {
					AskID string `json:"askId"`
					Where string `json:"where"`
				}
				if err := json.Unmarshal(mustJSON(t, res.Meta["askuser/bridged"]), &meta); err != nil || meta.AskID != asked[0] {
					t.Errorf("the result's _meta: %s; want askuser/bridged with the ask's id", mustJSON(t, res.Meta))
				}
				if p := r.o.Pending("mcp"); len(p) != 1 {
					t.Errorf("%d asks pending after the call returned; want the one, still pending", len(p))
				}
				time.Sleep(61 * time.Second)
				synctest.Wait()
				recs := r.journal.records()
				if len(recs) != 1 || recs[0].Status != askuser.StatusAnswered || recs[0].AnsweredBy != askuser.ByUser || recs[0].AskID != asked[0] {
					t.Fatalf("journal: %s; want one record, answered by the person on the card", mustJSON(t, recs))
				}
			})
		})
	}
}

// TestBridgeNotNeeded: a person who answers in the client before the
// bridge's time gets the call's result as ever, and nothing goes on.
func TestBridgeNotNeeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		card := &elsewhere{}
		_, co := answering(func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(20 * time.Second)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
		})
		r := newRig(t, rigOptions{version: v20251125, client: co, tool: func(tl *mcpresponder.Tool) {
			tl.Bridge = &mcpresponder.Bridge{After: 30 * time.Second, To: card}
		}})
		wantResult(t, r.call(t, deployCall), answeredProduction)
		if n := len(card.seen()); n != 0 {
			t.Errorf("the card was handed %d asks; want none", n)
		}
	})
}

// TestBridgeDeadlineFirst: an ask whose deadline comes before the
// bridge's time ends at its deadline, in the call.
func TestBridgeDeadlineFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		card := &elsewhere{}
		r := newRig(t, rigOptions{version: v20251125, client: waitingClient(), tool: func(tl *mcpresponder.Tool) {
			tl.Bridge = &mcpresponder.Bridge{To: card} // DefaultBridgeAfter: 90s
		}})
		short := strings.Replace(deployCall, `"timeout_seconds":120`, `"timeout_seconds":60`, 1)
		wantResult(t, r.call(t, short), `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
		if n := len(card.seen()); n != 0 {
			t.Errorf("the card was handed %d asks; want none", n)
		}
	})
}

// TestBridgeRoundsEnd: before 2026-07-28, with a bridge, an ask whose
// replies did not fit the form MaxRounds times goes on through the
// bridge at once, without waiting for the bridge's time: the call
// returns a result marked isError that says what happened and where the
// ask went, and the ask is answered and journaled there, once.
func TestBridgeRoundsEnd(t *testing.T) {
	for _, v := range []string{v20250618, v20251125} {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				card := &elsewhere{after: 10 * time.Second}
				h, co := answering(reply("accept", map[string]any{"env_other": ghToken}))
				r := newRig(t, rigOptions{version: v, client: co, tool: func(tl *mcpresponder.Tool) {
					tl.Bridge = &mcpresponder.Bridge{After: 30 * time.Second, To: card,
						Where: func(a *askuser.Ask) string { return "http://card.test/ask/" + a.ID() }}
				}})
				start := time.Now()
				res := r.call(t, deployCall)
				if d := time.Since(start); d != 0 {
					t.Errorf("the call returned after %v; want at once, before the bridge's 30s", d)
				}
				if n := len(h.seen()); n != mcpresponder.MaxRounds {
					t.Errorf("%d forms shown; want %d", n, mcpresponder.MaxRounds)
				}
				asked := card.seen()
				if len(asked) != 1 {
					t.Fatalf("the card was handed %d asks; want 1", len(asked))
				}
				txt := text(res)
				for _, want := range []string{"ask_user: the person's reply did not fit the form 3 times", "went on to http://card.test/ask/" + asked[0], "this call has no answer"} {
					if !strings.Contains(txt, want) {
						t.Errorf("the call's result %q does not say %q", txt, want)
					}
				}
				if !res.IsError || strings.Contains(txt, ghToken) {
					t.Errorf("the call's result: isError %v, %q; want isError, without what was typed", res.IsError, txt)
				}
				if res.Meta["askuser/bridged"] == nil {
					t.Errorf("the result's _meta: %s; want askuser/bridged", mustJSON(t, res.Meta))
				}
				time.Sleep(11 * time.Second)
				synctest.Wait()
				recs := r.journal.records()
				if len(recs) != 1 || recs[0].Status != askuser.StatusAnswered || recs[0].AnsweredBy != askuser.ByUser || recs[0].AskID != asked[0] {
					t.Fatalf("journal: %s; want one record, answered by the person on the card", mustJSON(t, recs))
				}
			})
		})
	}
}
