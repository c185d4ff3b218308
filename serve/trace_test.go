package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/askuser-go/askuser"
)

// TestTraceparent: the traceparent of POST /v1/calls reaches the ask as
// its caller's span context (an Observer sees it when the ask begins); a
// malformed one, or none, carries nothing.
func TestTraceparent(t *testing.T) {
	seen := make(chan string, 8)
	rp := newReplica(t, nil, func(c *Config) {
		c.Orchestrator.Observer = &askuser.Observer{Began: func(ctx context.Context, ask askuser.PendingAsk) {
			sc := trace.SpanContextFromContext(ctx)
			seen <- ask.ToolCallID + " " + sc.TraceID().String() + " " + sc.SpanID().String()
		}}
	})
	a := newAgentClient(t, testToken)
	tests := []struct{ name, header, want string }{
		{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7"},
		{"malformed", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00000000000000000000000000000000 0000000000000000"},
		{"none", "", "00000000000000000000000000000000 0000000000000000"},
	}
	for _, tt := range tests {
		j := a.call(rp.base, "s1", "c-"+tt.name, serveChoice, map[string]string{"Prefer": "respond-async", "Traceparent": tt.header})
		if j.code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", tt.name, j.code, j.body)
		}
		if got := <-seen; got != "c-"+tt.name+" "+tt.want {
			t.Errorf("%s: the ask began with %q, want %q", tt.name, got, "c-"+tt.name+" "+tt.want)
		}
	}
	if n := rp.o.Supersede("s1"); n != 3 {
		t.Fatalf("superseded %d asks, want 3", n)
	}
}

// FuzzTraced: whatever traceparent and tracestate a request carries, the
// handler passes it on, with a span context only when the header is a
// valid traceparent, and never panics.
func FuzzTraced(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "congo=t61rcWkgMzE")
	f.Add("ff-0000-00", "")
	f.Add("00-00000000000000000000000000000000-0000000000000000-01", "a=b,c=d")
	f.Fuzz(func(t *testing.T, parent, state string) {
		r := httptest.NewRequest("POST", "/v1/calls", strings.NewReader("{}"))
		r.Header["Traceparent"] = []string{parent}
		r.Header["Tracestate"] = []string{state}
		called := false
		traced(func(_ http.ResponseWriter, r *http.Request) {
			called = true
			sc := trace.SpanContextFromContext(r.Context())
			if sc.IsValid() && !strings.Contains(strings.ToLower(parent), sc.TraceID().String()) {
				t.Errorf("traceparent %q gave trace %s, which it does not name", parent, sc.TraceID())
			}
		})(httptest.NewRecorder(), r)
		if !called {
			t.Error("the request was not passed on")
		}
	})
}
