package mcpresponder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// A fleetServer is one MCP server of a fleet: its orchestrator on the
// fleet's NATS JetStream store, its Tool, served statelessly over
// streamable HTTP on loopback, as askuser mcp --listen --nats serves
// 2026-07-28 clients.
type fleetServer struct {
	o     *askuser.Orchestrator
	tool  *mcpresponder.Tool
	st    *natsstore.Store
	nc    *nats.Conn
	http  *httptest.Server
	gone  bool
	close sync.Once
}

// stop takes the server away: it stops serving and lets go of the store,
// leaving its asks pending there.
func (s *fleetServer) stop() {
	s.close.Do(func() {
		s.http.Close()
		s.tool.Close()
		s.o.Close()
		s.o.WaitResponders()
		s.nc.Close()
		s.gone = true
	})
}

// natsFleet starts an embedded NATS server with JetStream and n MCP
// servers on one store in it, sharing a key ring; everything stops when
// the test ends.
func natsFleet(t *testing.T, n int) []*fleetServer {
	t.Helper()
	emb, err := natsserver.Start(natsserver.Config{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Shutdown)
	keys := ring(t, "fleet")
	prefix := fmt.Sprintf("mcp%d", fleetPrefixes.Add(1))
	var servers []*fleetServer
	for i := range n {
		nc, err := emb.Connect()
		if err != nil {
			t.Fatal(err)
		}
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		st, err := natsstore.Open(ctx, js, natsstore.Config{Prefix: prefix, Keys: keys})
		if err != nil {
			cancel()
			t.Fatalf("server %d: opening the store: %v", i, err)
		}
		o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Asks: st.Asks(), Journal: st.Journal(), Secrets: st.Secrets(), Logger: quiet}
		err = o.Ready(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		tool := &mcpresponder.Tool{Orchestrator: o, Keys: keys, ProgressInterval: -1}
		srv := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
		if err := mcpresponder.AddTool(srv, tool); err != nil {
			t.Fatal(err)
		}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Logger: quiet, Stateless: true})
		fs := &fleetServer{o: o, tool: tool, st: st, nc: nc, http: httptest.NewServer(h)}
		t.Cleanup(fs.stop)
		servers = append(servers, fs)
	}
	return servers
}

var fleetPrefixes atomic.Int64

// A balancer is the load balancer in front of a fleet: it sends the n-th
// tools/call to the server route(n) names (the others to the first), and
// remembers where each went.
type balancer struct {
	servers []*fleetServer
	route   func(n int) int

	mu    sync.Mutex
	calls int
	went  []int
}

func (b *balancer) RoundTrip(r *http.Request) (*http.Response, error) {
	to := 0
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			b.mu.Lock()
			to = b.route(b.calls)
			b.calls++
			b.went = append(b.went, to)
			b.mu.Unlock()
		}
	}
	r = r.Clone(r.Context())
	base := b.servers[to].http.URL
	r.URL.Scheme, r.URL.Host, r.Host = "http", strings.TrimPrefix(base, "http://"), ""
	return http.DefaultTransport.RoundTrip(r)
}

// where returns where each tools/call went.
func (b *balancer) where() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.went...)
}

// alternate sends the calls to the servers in turn.
func alternate(n int) func(int) int { return func(i int) int { return i % n } }

// fleetClient connects a client of the SDK's own on 2026-07-28 through
// the balancer: with the SDK's own retry loop (h answers its forms), or,
// with h nil, driving the round trips itself.
func fleetClient(t *testing.T, b *balancer, h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{Logger: quiet, ElicitationHandler: h}
	if h == nil {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the SDK's retry loop is off; the handler must not be called")
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0.0.1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: b.servers[0].http.URL, HTTPClient: &http.Client{Transport: b}, MaxRetries: -1}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: v20260728})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// records reads the fleet's journal for session mcp, waiting up to a
// while for want records (a record is written before the result is
// final, so it is there at once; the wait only bounds a broken store).
func records(t *testing.T, s *fleetServer, want int) []*journal.Record {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		recs, err := s.st.Journal().Records(ctx, "mcp")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) >= want || time.Now().After(deadline) {
			return recs
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const answeredProduction = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`

// TestFleetRetryOnOtherServer: the SDK's own client, behind a balancer
// that alternates between two MCP servers on one JetStream store: the
// first call reaches one server, which sends the form; the client's retry
// with the reply reaches the other, which resumes the same ask, once; the
// journal has one record, of the person's answer.
func TestFleetRetryOnOtherServer(t *testing.T) {
	servers := natsFleet(t, 2)
	b := &balancer{servers: servers, route: alternate(2)}
	var forms atomic.Int32
	cs := fleetClient(t, b, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		forms.Add(1)
		return accept(map[string]any{"env": "production"}), nil
	})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall)})
	if err != nil {
		t.Fatal(err)
	}
	wantResult(t, res, answeredProduction)
	if got := b.where(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("the calls went to servers %v; want the first to 0 and the retry to 1", got)
	}
	if n := forms.Load(); n != 1 {
		t.Errorf("the person was shown %d forms; want 1", n)
	}
	recs := records(t, servers[0], 1)
	if len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUser {
		t.Fatalf("the journal has %s; want one record, answered by the user", mustJSON(t, recs))
	}
	for i, s := range servers {
		if p := s.o.Pending("mcp"); len(p) != 0 {
			t.Errorf("server %d still lists %d pending asks", i, len(p))
		}
	}
}

// TestFleetRounds: replies that do not fit take the ask from server to
// server, each retry on the other; each round is taken once on the fleet:
// a replayed requestState is refused on both servers, and of one state
// sent to both at once exactly one is taken. The journal has one record.
func TestFleetRounds(t *testing.T) {
	servers := natsFleet(t, 2)
	var route atomic.Int32 // the server the next call goes to
	b := &balancer{servers: servers, route: func(int) int { return int(route.Load()) }}
	cs := fleetClient(t, b, nil)
	to := func(i int) *mcp.ClientSession { route.Store(int32(i)); return cs }

	_, first := form(t, toolCall(t, to(0), deployCall, "", nil))
	p, second := form(t, toolCall(t, to(1), deployCall, first, accept(map[string]any{"env": "moon"})))
	if !strings.HasPrefix(p.Message, "Your last answer could not be used: Env: ") {
		t.Errorf("the second form's message %q does not say what was wrong", p.Message)
	}
	for i := range servers {
		res := toolCall(t, to(i), deployCall, first, accept(map[string]any{"env": "production"}))
		if !res.IsError || !strings.HasPrefix(text(res), "ask_user: the requestState was already used") {
			t.Errorf("the first state replayed on server %d: isError %v, %q; want the already-used refusal", i, res.IsError, text(res))
		}
	}

	// The second state, sent to both servers at once: one retry takes it.
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	for i := range servers {
		wg.Go(func() {
			c := fleetClient(t, &balancer{servers: servers, route: func(int) int { return i }}, nil)
			p := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall), RequestState: second,
				InputResponses: mcp.InputResponseMap{"askuser": accept(map[string]any{"env": "production"})}}
			res, err := c.CallTool(context.Background(), p)
			if err != nil {
				t.Errorf("server %d: CallTool: %v", i, err)
				return
			}
			results[i] = res
		})
	}
	wg.Wait()
	took := 0
	for i, res := range results {
		switch {
		case res == nil:
		case !res.IsError:
			took++
			wantResult(t, res, answeredProduction)
		case !strings.HasPrefix(text(res), "ask_user: the requestState was already used"):
			t.Errorf("server %d: %q; want the answer or the already-used refusal", i, text(res))
		}
	}
	if took != 1 {
		t.Errorf("%d servers took the one requestState; want exactly 1", took)
	}
	recs := records(t, servers[0], 1)
	if len(recs) != 1 || recs[0].AnsweredBy != askuser.ByUser {
		t.Errorf("the journal has %s; want one record, answered by the user", mustJSON(t, recs))
	}
}

// TestFleetServerGone: the server that asked goes away; the retry
// finishes on the other server, and an ask nobody retries is ended at its
// deadline by the store's timer on the server left, and journaled once.
func TestFleetServerGone(t *testing.T) {
	servers := natsFleet(t, 2)
	var route atomic.Int32
	b := &balancer{servers: servers, route: func(int) int { return int(route.Load()) }}
	cs := fleetClient(t, b, nil)

	short := strings.Replace(deployCall, `"timeout_seconds":120`, `"timeout_seconds":3`, 1)
	_, answered := form(t, toolCall(t, cs, deployCall, "", nil))
	_, abandoned := form(t, toolCall(t, cs, short, "", nil))
	servers[0].stop()
	route.Store(1)
	wantResult(t, toolCall(t, cs, deployCall, answered, accept(map[string]any{"env": "production"})), answeredProduction)

	recs := records(t, servers[1], 2)
	if len(recs) != 2 {
		t.Fatalf("the journal has %d records; want 2 (the answer, and the deadline of the ask nobody retried)", len(recs))
	}
	var timedOut *journal.Record
	for _, r := range recs {
		if r.Status == askuser.StatusTimedOut {
			timedOut = r
		}
	}
	if timedOut == nil || timedOut.AnsweredBy != askuser.ByTimeout {
		t.Fatalf("the journal has %s; want the abandoned ask timed out at its deadline", mustJSON(t, recs))
	}
	// A retry after the deadline, within the grace, gets that result.
	wantResult(t, toolCall(t, cs, short, abandoned, accept(map[string]any{"env": "production"})),
		`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
	if recs := records(t, servers[1], 0); len(recs) != 2 {
		t.Errorf("the journal has %d records after the late retry; want still 2", len(recs))
	}
}
