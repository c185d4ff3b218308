package mcpresponder_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
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
// a noisy machine disturbs least: read that one.
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
		tool.Close()
		o.Wait()
	}
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
