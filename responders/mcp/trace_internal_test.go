package mcpresponder

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"
)

// FuzzWithTrace: whatever a call's _meta holds, withTrace never panics,
// and gives a span context only for a traceparent that names its trace.
func FuzzWithTrace(f *testing.F) {
	f.Add(`{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"congo=t61rcWkgMzE"}`)
	f.Add(`{"traceparent":7,"tracestate":["a"]}`)
	f.Add(`{"traceparent":"ff-00-00-00","progressToken":1}`)
	f.Fuzz(func(t *testing.T, meta string) {
		var m map[string]any
		if json.Unmarshal([]byte(meta), &m) != nil {
			return
		}
		sc := trace.SpanContextFromContext(withTrace(context.Background(), m))
		if !sc.IsValid() {
			return
		}
		tp, _ := m["traceparent"].(string)
		if !strings.Contains(strings.ToLower(tp), sc.TraceID().String()) {
			t.Errorf("_meta %s gave trace %s, which its traceparent does not name", meta, sc.TraceID())
		}
	})
}
