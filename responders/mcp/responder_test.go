package mcpresponder_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// TestAccept: on every protocol revision, the person accepts the form with
// an option picked; the result is theirs (answered by the user), and the
// journal says so.
func TestAccept(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			h, co := answering(reply("accept", map[string]any{"env": "production"}))
			r := newRig(t, rigOptions{version: v, client: co})
			res := r.call(t, deployCall)
			wantResult(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
			if n := len(h.seen()); n != 1 {
				t.Errorf("%d forms shown; want 1", n)
			}
			recs := r.journal.records()
			if len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUser || recs[0].Responder != "mcp" || !strings.HasPrefix(recs[0].ToolCallID, "mcp-") {
				t.Errorf("journal: %s; want one record answered by user, responder mcp, tool call mcp-…", mustJSON(t, recs))
			}
		})
	}
}

// TestAcceptMixed: a multi-select, a closed choice and a text question in
// one form, as each revision maps them: before 2025-11-25 one yes/no field
// per option, from it an array of titled options.
func TestAcceptMixed(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			content := map[string]any{"checks": []any{"e2e", "lint"}, "when": "now", "note": "ship it"}
			if v == v20250618 {
				content = map[string]any{"checks_1": true, "checks_2": false, "checks_3": true, "when": "now", "note": "ship it"}
			}
			_, co := answering(reply("accept", content))
			r := newRig(t, rigOptions{version: v, client: co})
			wantResult(t, r.call(t, mixedCall), `{"status":"answered","answered_by":"user","answers":[
				{"id":"checks","selected":["lint","e2e"],"other_text":null},
				{"id":"when","selected":["now"],"other_text":null},
				{"id":"note","selected":[],"other_text":"ship it"}]}`)
		})
	}
}

// TestFormMapping: what the client is shown for each kind of question, on
// each revision: titled options (oneOf / items.anyOf) with the recommended
// ones as default, the free-text field of a choice that allows it, the
// header as title and the question as description, and required where the
// one field must be answered.
func TestFormMapping(t *testing.T) {
	want := map[string]string{
		v20251125: `{"type":"object","properties":{
			"checks":{"type":"array","title":"Checks","description":"Which checks?","items":{"anyOf":[
				{"const":"lint","title":"lint — Linters"},{"const":"unit","title":"unit — Unit tests"},{"const":"e2e","title":"e2e — Browser tests"}]},
				"minItems":1,"maxItems":3,"default":["lint","unit"]},
			"when":{"type":"string","title":"When","description":"Deploy when?","oneOf":[
				{"const":"now","title":"now — Right away"},{"const":"tonight","title":"tonight — After 6pm"}],"default":"tonight"},
			"note":{"type":"string","title":"Note","description":"Anything to tell the team?","minLength":1}},
			"required":["checks","when","note"]}`,
		v20250618: `{"type":"object","properties":{
			"checks_1":{"type":"boolean","title":"lint","description":"Linters (Which checks?)","default":true},
			"checks_2":{"type":"boolean","title":"unit","description":"Unit tests (Which checks?)","default":true},
			"checks_3":{"type":"boolean","title":"e2e","description":"Browser tests (Which checks?)","default":false},
			"when":{"type":"string","title":"When","description":"Deploy when?","enum":["now","tonight"],
				"enumNames":["now — Right away","tonight — After 6pm"],"default":"tonight"},
			"note":{"type":"string","title":"Note","description":"Anything to tell the team?","minLength":1}},
			"required":["when","note"]}`,
	}
	for v, schema := range want {
		t.Run(v, func(t *testing.T) {
			h, co := answering(reply("decline", nil))
			r := newRig(t, rigOptions{version: v, client: co})
			r.call(t, mixedCall)
			seen := h.seen()
			if len(seen) != 1 {
				t.Fatalf("%d forms; want 1", len(seen))
			}
			if diff := cmp.Diff(decodeJSON(t, schema), decodeJSON(t, string(mustJSON(t, seen[0].RequestedSchema)))); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if !strings.Contains(seen[0].Message, "You have 2 minutes to answer.") {
				t.Errorf("message %q does not say how long the person has", seen[0].Message)
			}
		})
	}
	t.Run("allow_other", func(t *testing.T) {
		h, co := answering(reply("decline", nil))
		r := newRig(t, rigOptions{version: v20251125, client: co})
		r.call(t, deployCall)
		got := decodeJSON(t, string(mustJSON(t, h.seen()[0].RequestedSchema)))
		want := decodeJSON(t, `{"type":"object","properties":{
			"env":{"type":"string","title":"Env","description":"Deploy where?","oneOf":[
				{"const":"staging","title":"staging — Safe to break"},{"const":"production","title":"production — Real users"}],"default":"staging"},
			"env_other":{"type":"string","title":"Something else","description":"Your own answer to: Deploy where?"}}}`)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("schema (-want +got):\n%s", diff)
		}
	})
}

// TestDeclineAndCancel: decline declines the call, cancel dismisses it;
// both are the person's (answered by the user) and pass nothing on.
func TestDeclineAndCancel(t *testing.T) {
	for _, v := range generations {
		for action, want := range map[string]string{
			"decline": `{"status":"declined","answered_by":"user","answers":[]}`,
			"cancel":  `{"status":"cancelled","answered_by":"user","answers":[]}`,
		} {
			t.Run(v+"/"+action, func(t *testing.T) {
				_, co := answering(reply(action, nil))
				r := newRig(t, rigOptions{version: v, client: co})
				wantResult(t, r.call(t, deployCall), want)
			})
		}
	}
}

// A GitHub token and an AWS key id, which no answer may carry in clear.
const (
	ghToken = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	awsKey  = "AKIAIOSFODNN7EXAMPLE"
)

// TestMismatchAskedAgain: a reply that does not match the form is no
// answer: the person is asked again, told what was wrong (never with what
// they typed, where it looks like a credential), and what they answer then
// counts. The SDK's own client refuses to send content that breaks the
// schema, so on the multi round-trip revision the mismatches here are the
// ones only askuser's checks catch; TestRoundTripMismatch sends the others
// raw.
func TestMismatchAskedAgain(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			first := reply("accept", map[string]any{"env": "moon"}) // not offered: the client itself refuses it
			if v == v20260728 {
				first = reply("accept", map[string]any{"env_other": awsKey})
			}
			h, co := answering(
				first,
				reply("accept", map[string]any{"env_other": ghToken}),
				reply("accept", map[string]any{"env": "production", "env_other": "after 6pm"}),
			)
			r := newRig(t, rigOptions{version: v, client: co})
			wantResult(t, r.call(t, deployCall),
				`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":"after 6pm"}]}`)
			seen := h.seen()
			if len(seen) != 3 {
				t.Fatalf("%d forms shown; want 3", len(seen))
			}
			for i, p := range seen[1:] {
				if !strings.HasPrefix(p.Message, "Your last answer could not be used: ") {
					t.Errorf("form %d's message %q does not say the last answer was refused", i+2, p.Message)
				}
				if strings.Contains(p.Message, ghToken) || strings.Contains(p.Message, awsKey) {
					t.Errorf("form %d's message echoes a credential: %q", i+2, p.Message)
				}
			}
			if !strings.Contains(seen[2].Message, "looks like a GitHub token") {
				t.Errorf("form 3's message %q does not say why the answer was refused", seen[2].Message)
			}
			for _, rec := range r.journal.records() {
				if strings.Contains(string(mustJSON(t, rec)), "ghp_") || strings.Contains(string(mustJSON(t, rec)), awsKey) {
					t.Errorf("the journal holds a refused credential: %s", mustJSON(t, rec))
				}
			}
		})
	}
}

// TestMismatchThenDeadline: after three replies that do not match, the
// person is not asked a fourth time; the call gets, at once, an error
// result that says so (MaxRounds) on every protocol revision — before
// 2026-07-28 too, where the call used to stay open until the deadline —
// and the ask stays pending until its deadline, which applies the
// recommended option (timed out, by the timeout) and journals it once.
func TestMismatchThenDeadline(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, co := answering(reply("accept", map[string]any{"env_other": ghToken}))
				r := newRig(t, rigOptions{version: v, client: co})
				start := time.Now()
				res := r.call(t, deployCall)
				if n := len(h.seen()); n != mcpresponder.MaxRounds {
					t.Errorf("%d forms shown; want %d", n, mcpresponder.MaxRounds)
				}
				wantRoundsCapped(t, v, res, "ask_user", time.Since(start))
				if p := r.o.Pending("mcp"); v < v20260728 && len(p) != 1 {
					t.Errorf("%d asks pending after the rounds' end; want the one, pending until its deadline", len(p))
				}
				if recs := r.journal.records(); len(recs) != 0 {
					t.Errorf("journal %s before the deadline; want none yet", mustJSON(t, recs))
				}
				time.Sleep(121 * time.Second)
				synctest.Wait()
				if recs := r.journal.records(); len(recs) != 1 || recs[0].Status != askuser.StatusTimedOut || recs[0].AnsweredBy != askuser.ByTimeout {
					t.Errorf("journal %s; want one record, timed out at the deadline", mustJSON(t, recs))
				}
			})
		})
	}
}

// wantRoundsCapped checks that res is the error result of an ask past
// MaxRounds, returned at once (after waited), saying what happened and
// what to do on protocol revision v, and that it carries no
// requestState.
func wantRoundsCapped(t *testing.T, v string, res *mcp.CallToolResult, tool string, waited time.Duration) {
	t.Helper()
	msg := text(res)
	if !res.IsError || !strings.HasPrefix(msg, tool+": the person's reply did not fit the form 3 times") {
		t.Errorf("isError %v, %q; want the error result of the rounds' end", res.IsError, msg)
	}
	wants := []string{"stays pending until its deadline", "call the tool again without a requestState"}
	if v < v20260728 {
		wants = []string{"stays pending until its deadline", "this call has no answer", "call the tool again to ask anew"}
	}
	for _, want := range wants {
		if !strings.Contains(msg, want) {
			t.Errorf("the rounds' end %q does not say %q", msg, want)
		}
	}
	if res.RequestState != "" || len(res.InputRequests) != 0 {
		t.Errorf("the rounds' end carries a requestState or input requests: %s", mustJSON(t, res))
	}
	if strings.Contains(msg, ghToken) {
		t.Error("the rounds' end echoes what was typed")
	}
	if waited != 0 {
		t.Errorf("the rounds' end came after %v; want it at once", waited)
	}
}

// TestDeadlineWhileFormShown: the client still shows the form when the
// deadline passes: the result applies the recommended option (timed out,
// by the timeout), and the reply that comes later changes nothing.
func TestDeadlineWhileFormShown(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				late := make(chan struct{})
				_, co := answering(func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					// The person answers after the deadline (within the
					// grace a multi round-trip retry has).
					time.Sleep(150 * time.Second)
					close(late)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
				})
				r := newRig(t, rigOptions{version: v, client: co})
				res := r.call(t, deployCall)
				wantResult(t, res, `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
				<-late
				synctest.Wait()
				recs := r.journal.records()
				if len(recs) != 1 || recs[0].Status != askuser.StatusTimedOut || recs[0].AnsweredBy != askuser.ByTimeout {
					t.Errorf("journal: %s; want one record, timed out by the timeout", mustJSON(t, recs))
				}
				if p := r.o.Pending("mcp"); len(p) != 0 {
					t.Errorf("%d asks still pending after the deadline", len(p))
				}
			})
		})
	}
}

// TestNoElicitation: a client that did not declare elicitation is never
// asked: the unattended rules apply at once — the recommended option
// (answered by unattended), or a decline where a question has none.
func TestNoElicitation(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, rigOptions{version: v})
				start := time.Now()
				wantResult(t, r.call(t, deployCall),
					`{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
				wantResult(t, r.call(t, mixedCall), `{"status":"declined","answered_by":"unattended","answers":[]}`)
				if d := time.Since(start); d != 0 {
					t.Errorf("the results took %v; want them at once", d)
				}
			})
		})
	}
}

// TestSecretWithoutCard: a secret question never goes into a form; with
// no card to send the person to, the ask is unattended (declined), and
// the client is shown nothing.
func TestSecretWithoutCard(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			h, co := answering(reply("accept", map[string]any{"token": "hunter2-is-not-a-token"}))
			co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
			r := newRig(t, rigOptions{version: v, client: co})
			wantResult(t, r.call(t, secretCall), `{"status":"declined","answered_by":"unattended","answers":[]}`)
			if n := len(h.seen()); n != 0 {
				t.Errorf("the client was shown %d elicitations; want none", n)
			}
		})
	}
}

// TestInvalidCall: askuser's decoder judges the arguments, and the model
// gets its message as an error result, not a JSON-RPC error.
func TestInvalidCall(t *testing.T) {
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			h, co := answering(reply("accept", nil))
			r := newRig(t, rigOptions{version: v, client: co})
			res := r.call(t, `{"questions":[]}`)
			if !res.IsError || !strings.HasPrefix(text(res), "invalid ask_user arguments: ") || res.StructuredContent != nil {
				t.Errorf("isError %v, text %q, structured %v; want an error result with askuser's message", res.IsError, text(res), res.StructuredContent)
			}
			if len(h.seen()) != 0 {
				t.Error("the client was asked about an invalid call")
			}
		})
	}
}

// TestListTools: the client sees the tool as package schema renders it,
// with its output schema.
func TestListTools(t *testing.T) {
	r := newRig(t, rigOptions{version: v20260728})
	res, err := r.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := r.tool.Definition()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("%d tools; want 1", len(res.Tools))
	}
	got, want := map[string]any{}, map[string]any{}
	if err := json.Unmarshal(mustJSON(t, res.Tools[0]), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustJSON(t, def), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool (-definition +listed):\n%s", diff)
	}
	if got["outputSchema"] == nil || got["name"] != "ask_user" {
		t.Errorf("tool %v has no outputSchema or is not ask_user", got)
	}
}

// TestProgressWhileWaiting: a call that waits for the person sends
// progress notifications, counting up, when the client gave a progress
// token: before 2026-07-28 while the form is shown, and from it while a
// retry waits for the deadline (the person opened the card's link, and
// the card has not decided).
func TestProgressWhileWaiting(t *testing.T) {
	for _, v := range []string{v20251125, v20260728} {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var progress []float64
				wait := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					time.Sleep(60 * time.Second)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
				}
				call, ropts := deployCall, (*mcpresponder.Options)(nil)
				if v == v20260728 {
					wait = reply("accept", nil) // the link is open; the card decides
					call, ropts = secretCall, &mcpresponder.Options{Card: undecided{}, CardURL: func(*askuser.Ask) string { return "http://127.0.0.1:1/card" }}
				}
				_, co := answering(wait)
				if v == v20260728 {
					co.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
				}
				co.ProgressNotificationHandler = func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					defer mu.Unlock()
					if req.Params.ProgressToken == "tok" {
						progress = append(progress, req.Params.Progress)
					}
				}
				r := newRig(t, rigOptions{version: v, client: co, responder: ropts, tool: func(tl *mcpresponder.Tool) { tl.ProgressInterval = 25 * time.Second }})
				p := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(call)}
				p.SetProgressToken("tok")
				if _, err := r.cs.CallTool(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				mu.Lock()
				defer mu.Unlock()
				// Every 25 s: of a 60 s wait, or of the 120 s to the deadline
				// (neither a multiple of 25 s, so no tick ties with the end).
				want := []float64{1, 2}
				if v == v20260728 {
					want = []float64{1, 2, 3, 4}
				}
				if diff := cmp.Diff(want, progress); diff != "" {
					t.Errorf("progress (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// undecided is a card nobody answers: its asks wait for their deadlines.
type undecided struct{}

func (undecided) Respond(ctx context.Context, _ *askuser.Ask) error {
	<-ctx.Done()
	return nil
}

// TestMismatchNamesField: a reply that the SDK refuses as not matching the
// form's schema (an option not offered, a value of the wrong type) gets a
// form again that names the question and what it allows — not only that
// the reply did not match — and never echoes what was typed.
func TestMismatchNamesField(t *testing.T) {
	for _, v := range []string{v20250618, v20251125} {
		for _, c := range []struct {
			name, call string
			dialect    askuser.Dialect
			bad, good  map[string]any
			want       string
		}{
			{"an option not offered", deployCall, nil, map[string]any{"env": "moon-base"}, map[string]any{"env": "production"},
				`Env: the reply is not one of the options; choose one of "staging", "production"`},
			{"not yes or no", restartCall, approvaltool.Dialect(), map[string]any{"approve": "moon-base"}, map[string]any{"approve": true},
				"Approve this action: needs yes or no"},
		} {
			t.Run(v+"/"+c.name, func(t *testing.T) {
				h, co := answering(reply("accept", c.bad), reply("accept", c.good))
				r := newRig(t, rigOptions{version: v, client: co, dialect: c.dialect})
				name := "ask_user"
				if c.dialect != nil {
					name = c.dialect.Name()
				}
				if _, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(c.call)}); err != nil {
					t.Fatal(err)
				}
				seen := h.seen()
				if len(seen) != 2 {
					t.Fatalf("%d forms shown; want 2", len(seen))
				}
				if want := "Your last answer could not be used: " + c.want + "\n"; !strings.HasPrefix(seen[1].Message, want) {
					t.Errorf("the second form's message %q; want it to begin %q", seen[1].Message, want)
				}
				if strings.Contains(seen[1].Message, "moon-base") {
					t.Errorf("the second form's message echoes the reply: %q", seen[1].Message)
				}
			})
		}
	}
}
