package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
)

// startMCPHTTP runs `askuser mcp --listen 127.0.0.1:0 args…` in process and
// returns its endpoint once it serves; the command stops when the test
// ends.
func startMCPHTTP(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, append([]string{"mcp", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, pw)
		pw.Close()
	}()
	endpoint := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
		close(endpoint)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exited; code != exitOK {
			t.Errorf("askuser mcp exited %d; want 0 when stopped", code)
		}
	})
	u, ok := <-endpoint
	if !ok {
		t.Fatal("askuser mcp did not start serving")
	}
	return u
}

// bearerTransport adds the bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTP serves MCP over streamable HTTP behind the bearer token and
// the Host and Origin checks, and asks through the client's elicitation on
// both protocol generations (with a session before 2026-07-28, statelessly
// from it): ask_user, and request_approval beside it for an approver,
// whose decision is journaled with the approver's principal.
func TestMCPHTTP(t *testing.T) {
	// A body must arrive within a tenth of a second here; a tool call may
	// still stay open far longer.
	defer func(d time.Duration) { mcpBodyTimeout = d }(mcpBodyTimeout)
	mcpBodyTimeout = 100 * time.Millisecond
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("test-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	jf := filepath.Join(t.TempDir(), "journal.jsonl")
	approvers := filepath.Join(t.TempDir(), "approvers")
	if err := os.WriteFile(approvers, []byte("alice alice-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint := startMCPHTTP(t, "--token-file", tokenFile, "--journal", jf, "--approvers", approvers)

	t.Run("refusals", func(t *testing.T) {
		post := func(hdr map[string]string) int {
			req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range hdr {
				if k == "Host" {
					req.Host = v
					continue
				}
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res.StatusCode
		}
		for _, c := range []struct {
			name string
			hdr  map[string]string
			want int
		}{
			{"no token", nil, http.StatusUnauthorized},
			{"wrong token", map[string]string{"Authorization": "Bearer test-token-0123456789abcdeX"}, http.StatusUnauthorized},
			{"another host (DNS rebinding)", map[string]string{"Authorization": "Bearer test-token-0123456789abcdef", "Host": "evil.example:80"}, http.StatusMisdirectedRequest},
			{"another origin", map[string]string{"Authorization": "Bearer test-token-0123456789abcdef", "Origin": "http://evil.example"}, http.StatusForbidden},
		} {
			if got := post(c.hdr); got != c.want {
				t.Errorf("%s: %d; want %d", c.name, got, c.want)
			}
		}
	})

	t.Run("stalled body", func(t *testing.T) {
		c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-token-0123456789abcdef\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no response to a stalled body: %v", err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestTimeout {
			t.Errorf("a stalled body: %d; want 408", res.StatusCode)
		}
	})

	for _, v := range mcpGenerations {
		t.Run(v, func(t *testing.T) {
			e := &elicitations{reply: func(_ int, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				// The person takes longer than a body may: the call stays
				// open all the same.
				time.Sleep(5 * mcpBodyTimeout)
				if strings.Contains(p.Message, "permission") {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
			}}
			client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &mcp.ClientOptions{ElicitationHandler: e.handle})
			tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{"alice-token-0123456789abcdef"}}, MaxRetries: -1}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("the client speaks %s with the server; want %s", got, v)
			}
			resultJSON(t, callTool(t, cs, "ask_user", mcpDeployCall),
				`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
			wantApproval(t, callTool(t, cs, "request_approval", mcpRestartCall), `{"status":"approved","decided_by":"user","note":null,"ended":null}`)
			if n := len(e.shown()); n != 2 {
				t.Errorf("%d forms; want 2", n)
			}
			f, err := os.Open(jf)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var last *journal.Record
			for rec, err := range journal.Read(f) {
				if err != nil {
					t.Fatal(err)
				}
				last = rec
			}
			if last == nil || last.Approval == nil || last.Principal != "approver:alice" || last.AnsweredBy != askuser.ByUser {
				t.Errorf("the approval's record %+v; want it decided by the user, principal approver:alice", last)
			}
		})
	}
}

// TestMCPUsage: flags that cannot work together are refused before
// anything is served.
func TestMCPUsage(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", "") // --nats without --key-file has no key ring
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--token-file", "x"}, "--token-file is for --listen"},
		{[]string{"mcp", "stray"}, `unexpected argument "stray"`},
		{[]string{"mcp", "--dialect", "nope"}, `--dialect "nope" is not a contract`},
		{[]string{"mcp", "--max-timeout-seconds", "-1"}, "is negative"},
		{[]string{"mcp", "--session", " "}, "--session is empty"},
		{[]string{"mcp", "--dialect", "request_approval", "--no-approval"}, "--no-approval leaves request_approval out"},
		{[]string{"mcp", "--no-approval", "--consents", "x"}, "--consents keeps approval decisions"},
		{[]string{"mcp", "--approvers", "x"}, "--approvers is for --listen"},
		{[]string{"mcp", "--listen", "127.0.0.1:0", "--approvers", "x", "--no-approval"}, "--approvers names who may approve"},
		{[]string{"mcp", "--listen", "127.0.0.1:0", "--dialect", "request_approval"}, "needs --approvers"},
		{[]string{"mcp", "--nats-replicas", "3"}, "--nats-replicas is for --nats"},
		{[]string{"mcp", "--nats-token-file", "x"}, "--nats-token-file is for --nats"},
		{[]string{"mcp", "--nats", "nats://127.0.0.1:1"}, "--nats needs the fleet's key ring"},
		{[]string{"mcp", "--nats", "nats://127.0.0.1:1", "--key-file", "k", "--journal", "j"}, "--journal keeps in a file what --nats keeps in the fleet's store"},
		{[]string{"mcp", "--nats", "nats://127.0.0.1:1", "--key-file", "k", "--consents", "c"}, "--consents keeps in a file"},
		{[]string{"mcp", "--nats", "nats://127.0.0.1:1", "--key-file", "k", "--nats-replicas", "9"}, "--nats-replicas 9: NATS keeps a bucket on 1 to 5 servers"},
		{[]string{"mcp", "--nats", "nats://127.0.0.1:1", "--key-file", "k", "--journal-retention", "1m"}, "--journal-retention 1m0s: at least"},
	} {
		code, _, errs := cli(t, "", c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, exitUsage, c.want)
		}
	}
	tf := writeFile(t, "token", "short")
	if err := os.Chmod(tf, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cli(t, "", "mcp", "--listen", "127.0.0.1:0", "--token-file", tf)
	if code != exitFailure || !strings.Contains(errs, "at least 16 characters") {
		t.Errorf("a short token: exit %d, %q", code, errs)
	}
	if err := os.Chmod(tf, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cli(t, "", "mcp", "--listen", "127.0.0.1:0", "--token-file", tf)
	if checkKeyMode && (code != exitFailure || !strings.Contains(errs, "chmod 600")) {
		t.Errorf("a token file others may read: exit %d, %q", code, errs)
	}
}

// TestMCPHTTPUnauthenticatedConnections: connections that hold a 401
// (more than the server has slots) and connections that send nothing at
// all do not keep out a client with the token: its request completes.
// (Before, 256 idle connections holding a 401 filled every slot for the
// idle timeout, two minutes.) The deadline is a bound on the wait, not a
// timing assertion.
func TestMCPHTTPUnauthenticatedConnections(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("test-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	endpoint := startMCPHTTP(t, "--token-file", tokenFile, "--no-approval")
	addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range mcpMaxConns + 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		_ = c.SetReadDeadline(time.Now().Add(time.Minute)) // a bound on a hang
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: no response: %v", i, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("connection %d without the token: %d; want 401", i, res.StatusCode)
		}
	}
	for i := range 2 * mcpMaxPending {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("silent connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{"test-token-0123456789abcdef"}}, MaxRetries: -1}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("a client with the token could not connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("a client with the token: tools/list: %v", err)
	}
}
