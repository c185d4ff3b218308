package mcpresponder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/secretstore"
)

// BenchmarkRoundTrip measures one ask_user call answered through the
// client's elicitation, end to end over in-memory transports with the
// SDK's own client, against its baseline in the same run: a tool written
// with the SDK alone that elicits the same form (the params askuser sent,
// captured) and returns the content. On 2025-11-25 both elicit from
// within the call; on 2026-07-28 both return an input request and take the
// client's retry (askuser also seals and opens its requestState, and keeps
// the ask pending in between). The interleaved sub-benchmark makes one
// call of each per iteration and reports the ratio of their times, which
// a noisy machine disturbs least: read that one. On 2026-07-28 the fleet
// sub-benchmarks serve the same call from a shared store in NATS
// JetStream (benchFleet), and the tasks sub-benchmarks serve it as a task
// of the Tasks extension (benchTasks), against the same baseline.
//
//	go test -run '^$' -bench BenchmarkRoundTrip -benchmem -count 6 ./responders/mcp/
func BenchmarkRoundTrip(b *testing.B) {
	for _, v := range []string{v20251125, v20260728} {
		ctx := context.Background()
		handler := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
		}

		// askuser's server, whose first call captures the form it sends.
		var captured *mcp.ElicitParams
		o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Logger: quiet}
		tool := &mcpresponder.Tool{Orchestrator: o, ProgressInterval: -1}
		askSrv := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "bench"}, &mcp.ServerOptions{Logger: quiet})
		if err := mcpresponder.AddTool(askSrv, tool); err != nil {
			b.Fatal(err)
		}
		askCS := benchClient(b, askSrv, v, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if captured == nil {
				captured = req.Params
			}
			return handler(ctx, req)
		})
		askParams := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall)}
		if _, err := askCS.CallTool(ctx, askParams); err != nil || captured == nil {
			b.Fatalf("askuser's call: %v (form captured: %v)", err, captured != nil)
		}

		// The baseline: the same form, elicited by the SDK alone, in the
		// multi round-trip style the SDK serves on every revision.
		rawSrv := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "bench"}, &mcp.ServerOptions{Logger: quiet})
		rawSrv.AddTool(&mcp.Tool{Name: "raw_ask", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res, ok := req.Params.InputResponses["form"].(*mcp.ElicitResult)
				if !ok {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"form": captured}, RequestState: "s"}, nil
				}
				out, _ := json.Marshal(res.Content)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
			})
		rawCS := benchClient(b, rawSrv, v, handler)
		rawParams := &mcp.CallToolParams{Name: "raw_ask", Arguments: json.RawMessage(deployCall)}

		b.Run(v+"/askuser", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := askCS.CallTool(ctx, askParams)
				if err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
		b.Run(v+"/baseline", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := rawCS.CallTool(ctx, rawParams)
				if err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
		// Both, call by call, so that a machine whose speed drifts during
		// the run slows each alike: the ratio is askuser's time over the
		// baseline's.
		b.Run(v+"/interleaved", func(b *testing.B) {
			var ask, raw time.Duration
			for b.Loop() {
				t0 := time.Now()
				if res, err := askCS.CallTool(ctx, askParams); err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
				t1 := time.Now()
				if res, err := rawCS.CallTool(ctx, rawParams); err != nil || res.IsError {
					b.Fatalf("%v %v", err, res)
				}
				ask += t1.Sub(t0)
				raw += time.Since(t1)
			}
			b.ReportMetric(float64(ask)/float64(b.N), "askuser-ns/op")
			b.ReportMetric(float64(raw)/float64(b.N), "baseline-ns/op")
			b.ReportMetric(float64(ask)/float64(raw), "ratio")
		})
		if v == v20260728 {
			benchFleet(b, v, rawCS, rawParams, handler)
			benchTasks(b, v, rawCS, rawParams)
		}
		tool.Close()
		o.WaitResponders()
	}
}

// benchFleet is the 2026-07-28 round trip of BenchmarkRoundTrip with
// askuser's server on a shared store in NATS JetStream (embedded in the
// process, its files in a temporary directory), against the same
// baseline in the same run: every ask is a record in the store, with its
// timer; the retry claims its round there, reports the reply through
// Orchestrator.Resume, and reads the result back from the store.
func benchFleet(b *testing.B, v string, rawCS *mcp.ClientSession, rawParams *mcp.CallToolParams, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) {
	ctx := context.Background()
	emb, err := natsserver.Start(natsserver.Config{StoreDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer emb.Shutdown()
	nc, err := emb.Connect()
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	keys := benchRing(b)
	st, err := natsstore.Open(ctx, js, natsstore.Config{Prefix: "bench", Keys: keys})
	if err != nil {
		b.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Asks: st.Asks(), Journal: st.Journal(), Secrets: st.Secrets(), Logger: quiet}
	defer o.Close()
	if err := o.Ready(ctx); err != nil {
		b.Fatal(err)
	}
	tool := &mcpresponder.Tool{Orchestrator: o, Keys: keys, ProgressInterval: -1}
	defer o.WaitResponders()
	defer tool.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "bench"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(srv, tool); err != nil {
		b.Fatal(err)
	}
	cs := benchClient(b, srv, v, handler)
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall)}
	call := func(b *testing.B, cs *mcp.ClientSession, p *mcp.CallToolParams) {
		if res, err := cs.CallTool(ctx, p); err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	b.Run(v+"/fleet", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(b, cs, params)
		}
	})
	b.Run(v+"/fleet-interleaved", func(b *testing.B) {
		var ask, raw time.Duration
		for b.Loop() {
			t0 := time.Now()
			call(b, cs, params)
			t1 := time.Now()
			call(b, rawCS, rawParams)
			ask += t1.Sub(t0)
			raw += time.Since(t1)
		}
		b.ReportMetric(float64(ask)/float64(b.N), "askuser-ns/op")
		b.ReportMetric(float64(raw)/float64(b.N), "baseline-ns/op")
		b.ReportMetric(float64(ask)/float64(raw), "ratio")
	})
}

func benchRing(b *testing.B) *secretstore.KeyRing {
	k, err := secretstore.RandomKey("bench")
	if err != nil {
		b.Fatal(err)
	}
	r, err := secretstore.NewKeyRing(k)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func benchClient(b *testing.B, s *mcp.Server, version string, h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, &mcp.ClientOptions{Logger: quiet, ElicitationHandler: h})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// benchTasks is the 2026-07-28 round trip of BenchmarkRoundTrip as a task
// of the Tasks extension, for a client that declares it: tools/call
// answered with a task, tasks/get to its input request, tasks/update with
// the reply, and tasks/get until it is completed, with the tool's result.
// Each request is a JSON-RPC request through Tasks.Handler, in process
// (an httptest recorder: no network), against the same baseline in the
// same run (the SDK alone over in-memory transports: the call and its
// retry). It also reports how many tasks/get a round trip took until the
// result was there.
func benchTasks(b *testing.B, v string, rawCS *mcp.ClientSession, rawParams *mcp.CallToolParams) {
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Logger: quiet}
	tool := &mcpresponder.Tool{Orchestrator: o, ProgressInterval: -1}
	tasks := &mcpresponder.Tasks{Tools: []*mcpresponder.Tool{tool}, Logger: quiet}
	srv := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "bench"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(srv, tool); err != nil {
		b.Fatal(err)
	}
	h := tasks.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: quiet}))
	defer o.WaitResponders()
	defer tool.Close()
	defer tasks.Close()
	meta := taskMeta(true)
	id := 0
	rpc := func(b *testing.B, method, name string, params map[string]any) map[string]any {
		id++
		params["_meta"] = meta
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err != nil {
			b.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", v)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		data := w.Body.Bytes()
		if i := bytes.Index(data, []byte("data: ")); i >= 0 { // an event stream
			data = data[i+len("data: "):]
			if j := bytes.IndexByte(data, '\n'); j >= 0 {
				data = data[:j]
			}
		}
		var reply struct {
			Result map[string]any `json:"result"`
			Error  map[string]any `json:"error"`
		}
		if err := json.Unmarshal(data, &reply); err != nil || reply.Error != nil || reply.Result == nil {
			b.Fatalf("%s: %v %v\n%s", method, err, reply.Error, data)
		}
		return reply.Result
	}
	args := json.RawMessage(deployCall)
	gets := 0
	roundTrip := func(b *testing.B) {
		task, _ := rpc(b, "tools/call", "ask_user", map[string]any{"name": "ask_user", "arguments": args})["taskId"].(string)
		if task == "" {
			b.Fatal("tools/call made no task")
		}
		got := rpc(b, "tasks/get", task, map[string]any{"taskId": task})
		gets++
		reqs, _ := got["inputRequests"].(map[string]any)
		if got["status"] != "input_required" || len(reqs) != 1 {
			b.Fatalf("tasks/get: %v; want input_required", got)
		}
		for key := range reqs {
			rpc(b, "tasks/update", task, map[string]any{"taskId": task, "inputResponses": map[string]any{
				key: map[string]any{"action": "accept", "content": map[string]any{"env": "production"}}}})
		}
		for {
			got = rpc(b, "tasks/get", task, map[string]any{"taskId": task})
			gets++
			if got["status"] == "completed" {
				return
			}
			if got["status"] != "working" {
				b.Fatalf("tasks/get: %v; want working, then completed", got)
			}
			runtime.Gosched()
		}
	}
	b.Run(v+"/tasks", func(b *testing.B) {
		b.ReportAllocs()
		gets = 0
		for b.Loop() {
			roundTrip(b)
		}
		b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
	})
	b.Run(v+"/tasks-interleaved", func(b *testing.B) {
		var ask, raw time.Duration
		for b.Loop() {
			t0 := time.Now()
			roundTrip(b)
			t1 := time.Now()
			if res, err := rawCS.CallTool(context.Background(), rawParams); err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
			ask += t1.Sub(t0)
			raw += time.Since(t1)
		}
		b.ReportMetric(float64(ask)/float64(b.N), "askuser-ns/op")
		b.ReportMetric(float64(raw)/float64(b.N), "baseline-ns/op")
		b.ReportMetric(float64(ask)/float64(raw), "ratio")
	})
}
