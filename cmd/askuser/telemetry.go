package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askuser-go/askuser/serve"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/askuser-go/askuser/otelask"
)

// telemetryStopTimeout bounds the last export when serve stops.
const telemetryStopTimeout = 5 * time.Second

// serveTelemetry is serve's OpenTelemetry: the asks' metrics, always, for
// GET /metrics in Prometheus text format, and with --otlp URL the spans
// and the metrics exported over OTLP/HTTP as well.
type serveTelemetry struct {
	obs      *otelask.Observer
	metrics  http.Handler
	shutdown func(context.Context) error
}

// newServeTelemetry sets up serve's telemetry; otlp is --otlp's URL, or
// empty.
func newServeTelemetry(otlp string) (*serveTelemetry, error) {
	reg := prometheus.NewRegistry()
	prom, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, err
	}
	res := resource.NewSchemaless(attribute.String("service.name", "askuser"))
	mopts := []sdkmetric.Option{sdkmetric.WithReader(prom), sdkmetric.WithResource(res)}
	var tp trace.TracerProvider = noop.NewTracerProvider()
	var stops []func(context.Context) error
	if otlp != "" {
		traces, metrics, err := otlpURLs(otlp)
		if err != nil {
			return nil, err
		}
		ctx := context.Background()
		texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(traces))
		if err != nil {
			return nil, fmt.Errorf("--otlp %s: %w", otlp, err)
		}
		mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metrics))
		if err != nil {
			return nil, fmt.Errorf("--otlp %s: %w", otlp, err)
		}
		stp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
		tp = stp
		stops = append(stops, stp.Shutdown)
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)))
	}
	mp := sdkmetric.NewMeterProvider(mopts...)
	stops = append(stops, mp.Shutdown)
	// The spans are made off the asks' path, by the Observer's goroutine;
	// it is closed first at shutdown, so the providers export its last.
	obs, err := otelask.New(otelask.Options{TracerProvider: tp, MeterProvider: mp, Queue: 4096})
	if err != nil {
		return nil, err
	}
	stops = append([]func(context.Context) error{func(context.Context) error { obs.Close(); return nil }}, stops...)
	return &serveTelemetry{
		obs:     obs,
		metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		shutdown: func(ctx context.Context) error {
			var errs []error
			for _, s := range stops {
				errs = append(errs, s(ctx))
			}
			return errors.Join(errs...)
		},
	}, nil
}

// otlpURLs returns the OTLP/HTTP endpoints of traces and metrics under
// --otlp's base URL (http://collector:4318, say): its /v1/traces and
// /v1/metrics.
func otlpURLs(base string) (traces, metrics string, err error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("--otlp %q is not an OTLP/HTTP collector's base URL: give http(s)://host:port, with a path prefix if any (http://127.0.0.1:4318, say); /v1/traces and /v1/metrics are added", base)
	}
	b := strings.TrimRight(u.String(), "/")
	return b + "/v1/traces", b + "/v1/metrics", nil
}

// withMetrics serves GET /metrics from t, behind the agent's bearer token
// (a Prometheus scrape sends it with authorization.credentials_file), and
// every other request from next.
func (t *serveTelemetry) withMetrics(next http.Handler, tenants []serve.Tenant) http.Handler {
	// The metrics count every session's asks: only a token for every
	// session (no prefix) reads them.
	var tokens [][]byte
	for _, tn := range tenants {
		if tn.Prefix == "" && tn.Token != "" {
			tokens = append(tokens, []byte(tn.Token))
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		auth := r.Header.Get("Authorization")
		ok := false
		if len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
			got := []byte(strings.TrimSpace(auth[7:]))
			for _, tok := range tokens {
				ok = subtle.ConstantTimeCompare(got, tok) == 1 || ok
			}
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="askuser"`)
			http.Error(w, "the bearer token is missing or wrong: scrape /metrics with Authorization: Bearer <a token of askuser serve's --token-file that has no session prefix>", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, r.Method+" /metrics: only GET and HEAD are served", http.StatusMethodNotAllowed)
			return
		}
		t.metrics.ServeHTTP(w, r)
	})
}

// stopTelemetry makes the last export, reporting a failure.
func stopTelemetry(e env, t *serveTelemetry) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryStopTimeout)
	defer cancel()
	if err := t.shutdown(ctx); err != nil {
		fmt.Fprintf(e.stderr, "askuser serve: the last export of telemetry failed: %v\n", err)
	}
}
