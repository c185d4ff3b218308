package mcpresponder_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/askuser-go/askuser"
)

// TestTraceparentInMeta: the traceparent in a call's params._meta reaches
// the ask as its caller's span context (an Observer sees it when the ask
// begins), on every protocol revision; a malformed one, one that is not a
// string, or none, carries nothing.
func TestTraceparentInMeta(t *testing.T) {
	const none = "00000000000000000000000000000000 0000000000000000"
	tests := []struct {
		name string
		meta mcp.Meta
		want string
	}{
		{"traceparent", mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "congo=t61rcWkgMzE"}, "4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7"},
		{"malformed", mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736"}, none},
		{"not a string", mcp.Meta{"traceparent": 7}, none},
		{"none", nil, none},
	}
	for _, v := range generations {
		t.Run(v, func(t *testing.T) {
			r := newRig(t, rigOptions{version: v})
			seen := make(chan string, 1)
			r.o.Observer = &askuser.Observer{Began: func(ctx context.Context, _ askuser.PendingAsk) {
				sc := trace.SpanContextFromContext(ctx)
				seen <- sc.TraceID().String() + " " + sc.SpanID().String()
			}}
			for _, tt := range tests {
				p := &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(deployCall), Meta: tt.meta}
				if _, err := r.cs.CallTool(context.Background(), p); err != nil {
					t.Fatalf("%s: CallTool: %v", tt.name, err)
				}
				if got := <-seen; got != tt.want {
					t.Errorf("%s: the ask began with %q, want %q", tt.name, got, tt.want)
				}
			}
		})
	}
}
