package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// tasksMeta is the _meta of a 2026-07-28 request that takes forms and
// declares the Tasks extension.
var tasksMeta = map[string]any{
	mcp.MetaKeyProtocolVersion: "2026-07-28",
	mcp.MetaKeyClientCapabilities: map[string]any{
		"elicitation": map[string]any{"form": map[string]any{}},
		"extensions":  map[string]any{mcpresponder.TasksExtension: map[string]any{}},
	},
	mcp.MetaKeyClientInfo: map[string]any{"name": "raw-client", "version": "v0.0.1"},
}

const tasksDeploy = `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
	{"label":"staging","description":"Safe to break","default":true},{"label":"production","description":"Real users"}]}],"timeout_seconds":120}`

// TestMCPTasksStdio: askuser mcp serves the Tasks extension over standard
// input and output: a call becomes a task, polled to its form, answered
// by tasks/update and polled to its result, which is journaled.
func TestMCPTasksStdio(t *testing.T) {
	jf := filepath.Join(t.TempDir(), "journal.jsonl")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"mcp", "--journal", jf}, inR, outW, io.Discard)
		outW.Close()
	}()
	defer func() {
		inW.Close()
		cancel()
		if code := <-exited; code != exitOK {
			t.Errorf("askuser mcp exited %d; want 0", code)
		}
	}()
	dec := json.NewDecoder(outR)
	id := 0
	send := func(method string, params map[string]any) map[string]any {
		t.Helper()
		id++
		params["_meta"] = tasksMeta
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(frame, '\n')); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		res, _ := m["result"].(map[string]any)
		if m["id"] != float64(id) || res == nil {
			t.Fatalf("%s: %v; want a result for request %d", method, m, id)
		}
		return res
	}
	created := send("tools/call", map[string]any{"name": "ask_user", "arguments": json.RawMessage(tasksDeploy)})
	task, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || task == "" {
		t.Fatalf("tools/call: %v; want a task", created)
	}
	got := send("tasks/get", map[string]any{"taskId": task})
	if reqs, _ := got["inputRequests"].(map[string]any); got["status"] != "input_required" || reqs["askuser-1"] == nil {
		t.Fatalf("tasks/get: %v; want input_required with askuser-1", got)
	}
	send("tasks/update", map[string]any{"taskId": task, "inputResponses": map[string]any{
		"askuser-1": map[string]any{"action": "accept", "content": map[string]any{"env": "production"}}}})
	for range 200 {
		if got = send("tasks/get", map[string]any{"taskId": task}); got["status"] == "completed" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, _ := got["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if got["status"] != "completed" || sc["status"] != "answered" || sc["answered_by"] != "user" {
		t.Fatalf("the task at the end: %v; want completed, answered by the person", got)
	}
	data, err := os.ReadFile(jf)
	if err != nil || bytes.Count(data, []byte("\n")) != 1 || !bytes.Contains(data, []byte(task)) {
		t.Errorf("journal: %s (%v); want one record, of the task's ask", data, err)
	}
}

// TestMCPTasksHTTP: over HTTP the Tasks extension serves each caller the
// tools of its server: request_approval becomes a task for an approver,
// never for a caller with the bearer token alone, and a task is not
// found by another caller.
func TestMCPTasksHTTP(t *testing.T) {
	dir := t.TempDir()
	tokenFile, approvers := filepath.Join(dir, "token"), filepath.Join(dir, "approvers")
	if err := os.WriteFile(tokenFile, []byte("test-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(approvers, []byte("alice alice-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint := startMCPHTTP(t, "--token-file", tokenFile, "--approvers", approvers)
	post := func(token, method string, params map[string]any) (map[string]any, map[string]any) {
		t.Helper()
		params["_meta"] = tasksMeta
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req, _ := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if n, ok := params["name"].(string); ok {
			req.Header.Set("Mcp-Name", n)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, line := range strings.Split(string(data), "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok {
					data = []byte(d)
				}
			}
		}
		var m struct {
			Result map[string]any `json:"result"`
			Error  map[string]any `json:"error"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v\n%s", method, err, data)
		}
		return m.Result, m.Error
	}
	approval := json.RawMessage(`{"action":"Delete the bucket logs-2019","reason":"It is past its retention","risk":"high","timeout_seconds":120}`)
	res, rerr := post("test-token-0123456789abcdef", "tools/call", map[string]any{"name": "request_approval", "arguments": approval})
	if res["resultType"] == "task" || (rerr == nil && res["isError"] != true) {
		t.Errorf("request_approval with the bearer token alone: %v %v; want it refused, no task", res, rerr)
	}
	res, rerr = post("alice-token-0123456789abcdef", "tools/call", map[string]any{"name": "request_approval", "arguments": approval})
	task, _ := res["taskId"].(string)
	if rerr != nil || res["resultType"] != "task" || task == "" {
		t.Fatalf("request_approval for an approver: %v %v; want a task", res, rerr)
	}
	if _, rerr := post("test-token-0123456789abcdef", "tasks/get", map[string]any{"taskId": task}); rerr == nil || rerr["code"] != -32602.0 {
		t.Errorf("the approver's task, asked for with the bearer token: %v; want -32602, not found", rerr)
	}
	got, rerr := post("alice-token-0123456789abcdef", "tasks/get", map[string]any{"taskId": task})
	if rerr != nil || got["status"] != "input_required" {
		t.Errorf("the approver's task, for the approver: %v %v; want input_required", got, rerr)
	}
	if res, _ := post("alice-token-0123456789abcdef", "tasks/cancel", map[string]any{"taskId": task}); res["resultType"] != "complete" {
		t.Errorf("tasks/cancel: %v", res)
	}
}

// TestMCPBridgeFlags: --bridge-to names a responder the command has, and
// needs what it names.
func TestMCPBridgeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--bridge-to", "email"}, `--bridge-to "email": the ask can go on to card`},
		{[]string{"mcp", "--bridge-to", "card"}, "--bridge-to card needs --card ADDR"},
		{[]string{"mcp", "--bridge-to", "card", "--card", "127.0.0.1:0", "--bridge-timeout", "0s"}, "--bridge-timeout must be a positive duration"},
	} {
		code, _, errs := cli(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}
