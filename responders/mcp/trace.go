package mcpresponder

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
)

// traceContext reads W3C Trace Context (traceparent, tracestate).
var traceContext propagation.TraceContext

// withTrace carries the W3C trace context of a call's params._meta (its
// "traceparent" and "tracestate", as MCP clients that trace send them)
// into ctx, so that the ask the call begins is reported as the client's
// child (see the otelask package). A missing or malformed traceparent, or
// one that is not a string, carries nothing.
func withTrace(ctx context.Context, meta map[string]any) context.Context {
	if _, ok := meta["traceparent"].(string); !ok {
		return ctx
	}
	return traceContext.Extract(ctx, metaCarrier(meta))
}

// metaCarrier reads a _meta object as a propagation.TextMapCarrier: its
// string values only. It is never written to.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(string, string) {}

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
