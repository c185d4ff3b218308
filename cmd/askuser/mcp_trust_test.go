package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	agentToken = "agent-token-0123456789abcdef"
	aliceToken = "alice-token-0123456789abcdef"
	bobToken   = "bob-token-0123456789abcdef00"
)

// mcpHTTPClient connects the SDK's own client to endpoint with token, on
// the given revision; h answers its elicitations.
func mcpHTTPClient(t *testing.T, endpoint, token, version string, h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &mcp.ClientOptions{ElicitationHandler: h})
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// selfApprove is the agent answering its own form: yes (confirmed, where
// the form asks for it), for the rest of the session.
func selfApprove(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	content := map[string]any{"approve": true, "remember": true}
	if strings.Contains(string(mustMarshal(req.Params.RequestedSchema)), `"confirm"`) {
		content["confirm"] = "approve"
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// tokenFiles writes the bearer token file and an approvers file.
func tokenFiles(t *testing.T) (token, approvers string) {
	t.Helper()
	dir := t.TempDir()
	token, approvers = filepath.Join(dir, "token"), filepath.Join(dir, "approvers")
	if err := os.WriteFile(token, []byte(agentToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(approvers, []byte("# who may approve\nalice "+aliceToken+"\nbob "+bobToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return token, approvers
}

// TestMCPHTTPSelfApprovalRefused is the attack: whoever can read the
// bearer token file (the agent's own user can) calls request_approval on
// the 2026-07-28 path (and on the older one) and answers the form itself
// with yes, confirmed, remembered. It is never approved — with or without
// --approvers, request_approval is not served on the bearer token alone —
// and nothing it did is remembered for an approver.
func TestMCPHTTPSelfApprovalRefused(t *testing.T) {
	tokenFile, approvers := tokenFiles(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"without --approvers", []string{"--token-file", tokenFile}},
		{"with --approvers", []string{"--token-file", tokenFile, "--approvers", approvers}},
	} {
		t.Run(c.name, func(t *testing.T) {
			endpoint := startMCPHTTP(t, c.args...)
			for _, v := range mcpGenerations {
				cs := mcpHTTPClient(t, endpoint, agentToken, v, selfApprove)
				tools, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range tools.Tools {
					if tl.Name == "request_approval" {
						t.Errorf("%s: request_approval is listed for the bearer token alone", v)
					}
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(mcpRestartCall)})
				if err == nil && !res.IsError {
					t.Errorf("%s: the token holder's own request_approval got %v; want it refused", v, approvalVerdict(t, res))
				}
				if err == nil && res.IsError && strings.Contains(string(mustMarshal(res)), "approved") {
					t.Errorf("%s: the token holder's own request_approval: %s", v, mustMarshal(res))
				}
			}
			if len(c.args) > 2 {
				// An approver is asked, not answered by anything the agent did.
				var asked atomic.Int32
				cs := mcpHTTPClient(t, endpoint, aliceToken, "2026-07-28", func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "decline"}, nil
				})
				wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall), `{"status":"denied","decided_by":"user","note":null,"ended":null}`)
				if n := asked.Load(); n != 1 {
					t.Errorf("the approver was shown %d forms; want 1", n)
				}
			}
		})
	}
}

// TestMCPHTTPConsentScoped: a decision an approver remembers "for this
// session" holds in that MCP session only: another approver, and the same
// approver in another MCP session, are asked again.
func TestMCPHTTPConsentScoped(t *testing.T) {
	tokenFile, approvers := tokenFiles(t)
	endpoint := startMCPHTTP(t, "--token-file", tokenFile, "--approvers", approvers)
	var forms atomic.Int32
	counting := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		forms.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "remember": true}}, nil
	}
	for _, v := range mcpGenerations {
		t.Run(v, func(t *testing.T) {
			alice := mcpHTTPClient(t, endpoint, aliceToken, v, counting)
			call := strings.Replace(mcpRestartCall, "Restart the login service", "Restart the login service on "+v, 1)
			first := approvalVerdict(t, callTool(t, alice, "request_approval", call))
			if first["status"] != "approved" || first["remember"] != "session" {
				t.Fatalf("alice's remembered approval: %v", first)
			}
			again := approvalVerdict(t, callTool(t, alice, "request_approval", call))
			if again["decided_by"] != "remembered" {
				t.Errorf("alice again, in her session: %v; want remembered", again)
			}
			others := map[string]*mcp.ClientSession{"bob": mcpHTTPClient(t, endpoint, bobToken, v, counting)}
			if v < "2026-07-28" {
				// An MCP session of alice's own, beside the first.
				others["alice in another MCP session"] = mcpHTTPClient(t, endpoint, aliceToken, v, counting)
			}
			for name, cs := range others {
				before := forms.Load()
				got := approvalVerdict(t, callTool(t, cs, "request_approval", call))
				if n := forms.Load() - before; got["decided_by"] != "user" || n != 1 {
					t.Errorf("%s: %v after %d forms; want a form of its own, decided by the user, not alice's remembered decision", name, got, n)
				}
			}
		})
	}
}
