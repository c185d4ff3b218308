package serve

import (
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// traceContext reads W3C Trace Context (traceparent, tracestate).
var traceContext propagation.TraceContext

// traced carries a request's W3C trace context (the traceparent and
// tracestate headers) into its context, so that the ask it begins is
// reported as the caller's child (see the otelask package). A missing or
// malformed traceparent carries nothing.
func traced(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Traceparent") != "" {
			r = r.WithContext(traceContext.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		}
		next(w, r)
	}
}
