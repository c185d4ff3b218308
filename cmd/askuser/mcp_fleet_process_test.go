//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// mcpProc is one `askuser mcp --listen` process of the built command.
type mcpProc struct {
	cmd      *exec.Cmd
	endpoint string // http://127.0.0.1:PORT/mcp
	stderr   *syncBuffer
	exited   chan struct{}
	err      error
}

var mcpServingLine = regexp.MustCompile(`serving MCP on (http://\S+/mcp)`)

// startMCPProc starts `askuser mcp args…` and returns once it serves. The
// process is killed when the test ends, if it still runs.
func startMCPProc(t *testing.T, bin string, args ...string) *mcpProc {
	t.Helper()
	p := &mcpProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"mcp"}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = io.Discard, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.kill)
	for deadline := time.Now().Add(serveWait); ; time.Sleep(10 * time.Millisecond) {
		if m := mcpServingLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.endpoint = m[1]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("askuser mcp %s exited before serving (%v):\n%s", strings.Join(args, " "), p.err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("askuser mcp %s did not start serving:\n%s", strings.Join(args, " "), p.stderr.String())
		}
	}
}

// kill kills the process with SIGKILL: nothing of it runs after.
func (p *mcpProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// mcpRouter is the load balancer in front of the askuser mcp processes:
// every request goes to the process to names, with the bearer token.
type mcpRouter struct {
	procs []*mcpProc
	token string
	to    atomic.Int32
}

func (r *mcpRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	p := r.procs[r.to.Load()]
	req = req.Clone(req.Context())
	host := strings.TrimSuffix(strings.TrimPrefix(p.endpoint, "http://"), "/mcp")
	req.URL.Host, req.Host = host, ""
	req.Header.Set("Authorization", "Bearer "+r.token)
	return http.DefaultTransport.RoundTrip(req)
}

// TestMCPProcessesOnFleet runs two `askuser mcp --listen --nats`
// processes on one NATS JetStream (embedded in the test) and one key
// ring, behind a load balancer, and a 2026-07-28 client of the SDK's own:
// two asks begin on A, which is then SIGKILLed; the retry of the first
// finishes on B, with the person's answer; the second, which nobody
// retries, is ended at its deadline by B; the fleet's journal has one
// record of each.
func TestMCPProcessesOnFleet(t *testing.T) {
	bin := buildAskuser(t)
	dir := t.TempDir()
	keyFile := writeKeyFile(t, dir)
	const token = "mcp-token-0123456789abcdef"
	tokenFile := writeSecretFile(t, dir, "mcp-token", token)
	const natsToken = "nats-token-0123456789abcdef"
	natsTokenFile := writeSecretFile(t, dir, "nats-token", natsToken)
	emb, err := natsserver.Start(natsserver.Config{StoreDir: filepath.Join(dir, "nats"), Token: natsToken})
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Shutdown()
	args := []string{"--listen", "127.0.0.1:0", "--token-file", tokenFile, "--key-file", keyFile, "--no-approval",
		"--nats", emb.ClientURL(), "--nats-token-file", natsTokenFile}
	a := startMCPProc(t, bin, args...)
	b := startMCPProc(t, bin, args...)
	if !strings.Contains(a.stderr.String(), "are in the NATS store at "+emb.ClientURL()) {
		t.Errorf("askuser mcp --nats does not say where its asks are:\n%s", a.stderr.String())
	}

	router := &mcpRouter{procs: []*mcpProc{a, b}, token: token}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0.0.1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.endpoint, HTTPClient: &http.Client{Transport: router}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(args, state string, content map[string]any) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(args), RequestState: state}
		if content != nil {
			p.InputResponses = mcp.InputResponseMap{"askuser": &mcp.ElicitResult{Action: "accept", Content: content}}
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("CallTool: %v", err)
		}
		return res
	}
	stateOf := func(res *mcp.CallToolResult) string {
		t.Helper()
		if !res.NeedsInput() || res.RequestState == "" {
			t.Fatalf("want an input request with a requestState; got %v", res)
		}
		return res.RequestState
	}

	short := strings.Replace(mcpDeployCall, `"timeout_seconds":60`, `"timeout_seconds":3`, 1)
	answered := stateOf(call(mcpDeployCall, "", nil))
	stateOf(call(short, "", nil)) // never retried
	a.kill()
	router.to.Store(1)
	res := call(mcpDeployCall, answered, map[string]any{"env": "production"})
	if res.IsError {
		t.Fatalf("the retry on B: %v", res.Content)
	}
	resultJSON(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
	if again := call(mcpDeployCall, answered, map[string]any{"env": "staging"}); !again.IsError {
		t.Errorf("the requestState replayed on B was taken again: %v", again.Content)
	}

	nc, err := emb.Connect(nats.Token(natsToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	st, err := natsstore.Open(ctx, js, natsstore.Config{BindOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*journal.Record
	for deadline := time.Now().Add(serveWait); ; time.Sleep(100 * time.Millisecond) {
		if recs, err = st.Journal().Records(ctx, "mcp"); err != nil {
			t.Fatal(err)
		}
		if len(recs) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	by := map[askuser.Provenance]int{}
	for _, r := range recs {
		by[r.AnsweredBy]++
	}
	if len(recs) != 2 || by[askuser.ByUser] != 1 || by[askuser.ByTimeout] != 1 {
		t.Errorf("the fleet's journal has %d records (%v); want one answered by the user and one ended at its deadline", len(recs), by)
	}
}
