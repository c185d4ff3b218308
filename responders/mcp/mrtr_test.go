package mcpresponder_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/secretstore"
)

// rawClient connects a client on 2026-07-28 that drives the multi
// round-trip itself: it sees each input request and its requestState, and
// retries with whatever content the test gives, which the SDK's own retry
// loop would have checked against the schema first.
func rawClient(t *testing.T, server *mcp.Server, name string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0.0.1"}, &mcp.ClientOptions{
		Logger:         quiet,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the SDK's retry loop is off; the handler must not be called")
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v20260728})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// server makes a server whose Tool seals with ring; tool may change the
// Tool before it serves.
func server(t *testing.T, ring *secretstore.KeyRing, tool func(*mcpresponder.Tool)) (*mcp.Server, *mcpresponder.Tool, *memJournal) {
	t.Helper()
	j := &memJournal{}
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Journal: j, Logger: quiet}
	tl := &mcpresponder.Tool{Orchestrator: o, Keys: ring, ProgressInterval: -1}
	if tool != nil {
		tool(tl)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(s, tl); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tl.Close()
		o.WaitResponders()
	})
	return s, tl, j
}

func ring(t *testing.T, id string) *secretstore.KeyRing {
	t.Helper()
	k, err := secretstore.RandomKey(id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := secretstore.NewKeyRing(k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// toolCall calls ask_user with args, and, on a retry, the reply to the last
// form and its requestState.
func toolCall(t *testing.T, cs *mcp.ClientSession, args, state string, res *mcp.ElicitResult) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(args), RequestState: state}
	if res != nil {
		p.InputResponses = mcp.InputResponseMap{"askuser": res}
	}
	out, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("CallTool: %v (a JSON-RPC error; a refusal must be a result)", err)
	}
	return out
}

// form checks that a result is an input request for one form, and returns
// it with its requestState.
func form(t *testing.T, res *mcp.CallToolResult) (*mcp.ElicitParams, string) {
	t.Helper()
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("want an input request with a requestState; got %s", mustJSON(t, res))
	}
	p, ok := res.InputRequests["askuser"].(*mcp.ElicitParams)
	if !ok || p.Mode != "form" {
		t.Fatalf("the input request is %T %s; want a form elicitation", res.InputRequests["askuser"], mustJSON(t, res.InputRequests))
	}
	return p, res.RequestState
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

// TestRoundTripOpaqueState: the first call returns the form and a
// requestState that reveals nothing of the ask.
func TestRoundTripOpaqueState(t *testing.T) {
	s, tl, _ := server(t, nil, nil)
	cs := rawClient(t, s, "client")
	p, state := form(t, toolCall(t, cs, deployCall, "", nil))
	pending := tl.Orchestrator.Pending("mcp")
	if len(pending) != 1 {
		t.Fatalf("%d asks pending; want 1", len(pending))
	}
	if !strings.Contains(string(mustJSON(t, p.RequestedSchema)), `"oneOf"`) {
		t.Errorf("the form is not the titled mapping: %s", mustJSON(t, p.RequestedSchema))
	}
	raw, err := base64.RawURLEncoding.DecodeString(state)
	if err != nil {
		t.Fatalf("the requestState is not base64url: %v", err)
	}
	// The key's id is in clear, by design (a ring holds several); nothing
	// of the ask is.
	for _, clear := range []string{pending[0].ToolCallID, "ask_user", "session", "expires", `"v"`} {
		if strings.Contains(string(raw), clear) {
			t.Errorf("the requestState shows %q in clear", clear)
		}
	}
}

// TestRoundTripMismatch: content the SDK's own client would not send — an
// option not offered, a wrong type, a field not asked for — is no answer
// on the multi round-trip revision either: the retry returns the form
// again, with what was wrong and a new requestState, and an answer that
// then matches counts.
func TestRoundTripMismatch(t *testing.T) {
	s, _, j := server(t, nil, nil)
	cs := rawClient(t, s, "client")
	_, state := form(t, toolCall(t, cs, deployCall, "", nil))
	for i, bad := range []map[string]any{{"env": "moon"}, {"env": 42.0}} {
		p, next := form(t, toolCall(t, cs, deployCall, state, accept(bad)))
		if !strings.HasPrefix(p.Message, "Your last answer could not be used: Env: ") {
			t.Errorf("reply %d: message %q does not say what was wrong", i+1, p.Message)
		}
		if next == state {
			t.Errorf("reply %d: the requestState did not change", i+1)
		}
		state = next
	}
	wantResult(t, toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "production"})),
		`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
	if recs := j.records(); len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUser {
		t.Errorf("journal %s; want one record answered by the user", mustJSON(t, recs))
	}
}

// TestRoundTripThreeMismatches: after the third reply that does not
// match, nothing more is asked: the retry gets, at once, an error result
// that says what happened and what to do, and carries no requestState; the
// ask ends at its deadline, with the recommended option applied, and is
// journaled once; the spent requestState is refused.
func TestRoundTripThreeMismatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _, j := server(t, nil, nil)
		cs := rawClient(t, s, "client")
		_, state := form(t, toolCall(t, cs, deployCall, "", nil))
		_, state = form(t, toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "moon"})))
		_, state = form(t, toolCall(t, cs, deployCall, state, accept(map[string]any{"bogus": "x"})))
		start := time.Now()
		res := toolCall(t, cs, deployCall, state, accept(map[string]any{"env": []any{"staging"}}))
		wantRoundsCapped(t, v20260728, res, "ask_user", time.Since(start))
		if again := toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "production"})); !strings.Contains(text(again), "already used") {
			t.Errorf("the spent requestState again: %q; want the already-used refusal", text(again))
		}
		time.Sleep(121 * time.Second)
		synctest.Wait()
		if recs := j.records(); len(recs) != 1 || recs[0].Status != askuser.StatusTimedOut {
			t.Errorf("journal %s; want one record, timed out at the deadline", mustJSON(t, recs))
		}
	})
}

// TestRoundTripOtherServer: the retry reaches another server that shares
// the key ring: it resumes the ask there, with the deadline it had, and
// the person's answer counts.
func TestRoundTripOtherServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		keys := ring(t, "fleet")
		a, toolA, _ := server(t, keys, nil)
		b, _, jb := server(t, keys, nil)
		_, state := form(t, toolCall(t, rawClient(t, a, "client"), deployCall, "", nil))
		pending := toolA.Orchestrator.Pending("mcp")
		if len(pending) != 1 {
			t.Fatalf("%d asks pending on the first server; want 1", len(pending))
		}
		time.Sleep(30 * time.Second)
		res := toolCall(t, rawClient(t, b, "client"), deployCall, state, accept(map[string]any{"env": "production"}))
		wantResult(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
		recs := jb.records()
		if len(recs) != 1 {
			t.Fatalf("the second server journaled %d records; want 1", len(recs))
		}
		if !recs[0].ExpiresAt.Equal(pending[0].Form.ExpiresAt) || recs[0].ToolCallID != pending[0].ToolCallID {
			t.Errorf("resumed ask: tool call %s, expires %v; want the first server's %s, %v",
				recs[0].ToolCallID, recs[0].ExpiresAt, pending[0].ToolCallID, pending[0].Form.ExpiresAt)
		}
	})
}

// TestRoundTripAfterDeadline: a retry after the deadline, within the
// grace, gets the ask's result — timed out, the recommended option applied
// — and the late reply changes nothing; after the grace the requestState
// has expired.
func TestRoundTripAfterDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _, j := server(t, nil, nil)
		cs := rawClient(t, s, "client")
		_, state := form(t, toolCall(t, cs, deployCall, "", nil))
		time.Sleep(130 * time.Second)
		wantResult(t, toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "production"})),
			`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
		if recs := j.records(); len(recs) != 1 || recs[0].AnsweredBy != askuser.ByTimeout {
			t.Errorf("journal %s; want the one record of the deadline", mustJSON(t, recs))
		}

		_, state = form(t, toolCall(t, cs, deployCall, "", nil))
		time.Sleep(120*time.Second + mcpresponder.StateGrace)
		res := toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "production"}))
		if !res.IsError || !strings.Contains(text(res), "has expired") {
			t.Errorf("isError %v, %q; want the expired refusal", res.IsError, text(res))
		}
	})
}

// TestRoundTripRefused: a requestState that is altered, sealed under
// another key, used before, or of another session, principal or call is
// refused with a result that says which — never a JSON-RPC error — and
// the ask it names is not answered by it.
func TestRoundTripRefused(t *testing.T) {
	byName := func(req *mcp.CallToolRequest) string { return req.Session.InitializeParams().ClientInfo.Name }
	ok := accept(map[string]any{"env": "production"})
	cases := []struct {
		name string
		tool func(*mcpresponder.Tool)
		run  func(t *testing.T, s *mcp.Server) *mcp.CallToolResult
		want string
	}{{
		name: "tampered",
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			cs := rawClient(t, s, "client")
			_, state := form(t, toolCall(t, cs, deployCall, "", nil))
			b := []byte(state)
			i := len(b) / 2
			b[i] = "AB"[boolInt(b[i] == 'A')]
			return toolCall(t, cs, deployCall, string(b), ok)
		},
		want: "the requestState does not open",
	}, {
		name: "other key",
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			other, _, _ := server(t, ring(t, "other"), nil)
			_, state := form(t, toolCall(t, rawClient(t, other, "client"), deployCall, "", nil))
			return toolCall(t, rawClient(t, s, "client"), deployCall, state, ok)
		},
		want: "the requestState does not open",
	}, {
		name: "replayed",
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			cs := rawClient(t, s, "client")
			_, state := form(t, toolCall(t, cs, deployCall, "", nil))
			form(t, toolCall(t, cs, deployCall, state, accept(map[string]any{"env": "moon"})))
			return toolCall(t, cs, deployCall, state, ok)
		},
		want: "the requestState was already used",
	}, {
		name: "other session",
		tool: func(tl *mcpresponder.Tool) { tl.Session = byName },
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			_, state := form(t, toolCall(t, rawClient(t, s, "alice"), deployCall, "", nil))
			return toolCall(t, rawClient(t, s, "mallory"), deployCall, state, ok)
		},
		want: "the requestState belongs to another session",
	}, {
		name: "other principal",
		tool: func(tl *mcpresponder.Tool) { tl.Principal = byName },
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			_, state := form(t, toolCall(t, rawClient(t, s, "alice"), deployCall, "", nil))
			return toolCall(t, rawClient(t, s, "mallory"), deployCall, state, ok)
		},
		want: "the requestState belongs to another principal",
	}, {
		name: "other call",
		run: func(t *testing.T, s *mcp.Server) *mcp.CallToolResult {
			cs := rawClient(t, s, "client")
			_, state := form(t, toolCall(t, cs, deployCall, "", nil))
			return toolCall(t, cs, strings.Replace(deployCall, "Deploy where?", "Delete where?", 1), state, ok)
		},
		want: "the requestState belongs to another tool call",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, j := server(t, nil, c.tool)
			res := c.run(t, s)
			if !res.IsError || !strings.HasPrefix(text(res), "ask_user: "+c.want) {
				t.Errorf("isError %v, %q; want an error result starting %q", res.IsError, text(res), "ask_user: "+c.want)
			}
			for _, r := range j.records() {
				if r.Status == askuser.StatusAnswered {
					t.Errorf("an ask was answered through a refused requestState: %s", mustJSON(t, r))
				}
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestRoundTripNeverRetried: a client that never retries leaves the ask
// pending until its deadline, which finalizes and journals it.
func TestRoundTripNeverRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, tl, j := server(t, nil, nil)
		form(t, toolCall(t, rawClient(t, s, "client"), deployCall, "", nil))
		if n := len(tl.Orchestrator.Pending("mcp")); n != 1 {
			t.Fatalf("%d asks pending; want 1", n)
		}
		time.Sleep(121 * time.Second)
		synctest.Wait()
		recs := j.records()
		if len(recs) != 1 || recs[0].Status != askuser.StatusTimedOut || recs[0].AnsweredBy != askuser.ByTimeout {
			t.Errorf("journal %s; want one record, timed out", mustJSON(t, recs))
		}
	})
}

// TestClose: closing the Tool ends the multi round-trip asks still
// pending (as their caller gone, journaled), and refuses later calls with
// an error result.
func TestClose(t *testing.T) {
	s, tl, j := server(t, nil, nil)
	cs := rawClient(t, s, "client")
	form(t, toolCall(t, cs, deployCall, "", nil))
	tl.Close()
	recs := j.records()
	if len(recs) != 1 || recs[0].Reason != askuser.ReasonCaller {
		t.Errorf("journal %s; want the pending ask ended as its caller gone", mustJSON(t, recs))
	}
	if n := len(tl.Orchestrator.Pending("mcp")); n != 0 {
		t.Errorf("%d asks still pending after Close", n)
	}
	res := toolCall(t, cs, deployCall, "", nil)
	if !res.IsError || !strings.Contains(text(res), "shutting down") {
		t.Errorf("a call after Close: isError %v, %q; want the shutting-down refusal", res.IsError, text(res))
	}
}
