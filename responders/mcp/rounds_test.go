package mcpresponder_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// wantNoStateAlone fails on a result that carries a requestState without
// input requests, or input requests without a requestState: a
// state-only result is one some clients show as an error.
func wantNoStateAlone(t *testing.T, step string, res *mcp.CallToolResult) {
	t.Helper()
	if (res.RequestState != "") != (len(res.InputRequests) > 0) {
		t.Errorf("%s: requestState %q with %d input requests; want both or neither", step, res.RequestState, len(res.InputRequests))
	}
}

// TestInputRequestsWithState: on every path of a 2026-07-28 ask — the
// first form, a form again after a reply that did not fit, the end of the
// rounds, a refusal, a retry after the deadline, and a retry on another
// server — a result has input requests and a requestState together, or
// neither; clients of the earlier revisions never get either.
func TestInputRequestsWithState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		keys := ring(t, "fleet")
		a, _, _ := server(t, keys, nil)
		b, _, _ := server(t, keys, nil)
		ca, cb := rawClient(t, a, "client"), rawClient(t, b, "client")
		moon := accept(map[string]any{"env": "moon"})

		first := toolCall(t, ca, deployCall, "", nil)
		wantNoStateAlone(t, "first form", first)
		again := toolCall(t, ca, deployCall, first.RequestState, moon)
		wantNoStateAlone(t, "form again", again)
		third := toolCall(t, ca, deployCall, again.RequestState, moon)
		wantNoStateAlone(t, "third form", third)
		capped := toolCall(t, ca, deployCall, third.RequestState, moon)
		wantNoStateAlone(t, "rounds' end", capped)
		wantNoStateAlone(t, "replayed", toolCall(t, ca, deployCall, first.RequestState, moon))

		other := toolCall(t, ca, deployCall, "", nil)
		wantNoStateAlone(t, "form again on another server", toolCall(t, cb, deployCall, other.RequestState, moon))

		late := toolCall(t, ca, deployCall, "", nil)
		time.Sleep(130 * time.Second)
		wantNoStateAlone(t, "after the deadline", toolCall(t, ca, deployCall, late.RequestState, moon))
	})
	for _, v := range []string{v20250618, v20251125} {
		t.Run(v, func(t *testing.T) {
			_, co := answering(reply("accept", map[string]any{"env": "production"}))
			r := newRig(t, rigOptions{version: v, client: co})
			res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall)})
			if err != nil {
				t.Fatal(err)
			}
			if res.RequestState != "" || len(res.InputRequests) > 0 {
				t.Errorf("a %s client got a requestState or input requests: %s", v, mustJSON(t, res))
			}
		})
	}
	if mcpresponder.MaxRounds != 3 {
		t.Errorf("MaxRounds is %d; docs/mcp.md says 3", mcpresponder.MaxRounds)
	}
}
