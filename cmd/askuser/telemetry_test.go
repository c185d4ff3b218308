package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is an OTLP/HTTP collector for the tests: it keeps the paths
// posted to it.
type collector struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	c.mu.Lock()
	c.paths[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func (c *collector) posted(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paths["POST "+path]
}

// TestServeTelemetry: serve --otlp exports the asks' spans and metrics to
// the collector, and serves the metrics at GET /metrics in Prometheus text
// format behind the agent's bearer token.
func TestServeTelemetry(t *testing.T) {
	col := &collector{paths: map[string]int{}}
	cs := httptest.NewServer(col)
	defer cs.Close()
	f := newServeFixture(t, "--otlp", cs.URL)
	a := newAgentClient(t, f.token)
	a.callAsync(f.srv.base, "s1", "c1", serveChoice)
	if r := a.do("POST", f.srv.base+"/v1/sessions/s1/supersede", "", nil); r.code != 200 || !strings.Contains(r.body, `"superseded":1`) {
		t.Fatalf("supersede: %d %s", r.code, r.body)
	}
	for i := 0; ; i++ {
		r := a.status(f.srv.base, "s1", "c1", "?wait=10")
		if r.code == 200 {
			break
		}
		if i == 6 {
			t.Fatalf("the superseded call is not final: %d %s", r.code, r.body)
		}
	}

	// The replica that finalized the ask counts it once it has stored
	// the result, which the status request may read first.
	var r reply
	for deadline := time.Now().Add(serveWait); ; time.Sleep(10 * time.Millisecond) {
		r = a.do("GET", f.srv.base+"/metrics", "", nil)
		if r.code != 200 || !strings.HasPrefix(r.hdr.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET /metrics: %d %s %s", r.code, r.hdr.Get("Content-Type"), r.body)
		}
		if strings.Contains(r.body, "askuser_asks_total{") || time.Now().After(deadline) {
			break
		}
	}
	asks := regexp.MustCompile(`(?m)^askuser_asks_total\{askuser_answered_by="unattended",askuser_reason="superseded",askuser_responder="[^"]+",askuser_status="cancelled",gen_ai_tool_name="ask_user"[^}]*\} 1$`)
	dur := regexp.MustCompile(`(?m)^askuser_ask_duration_seconds_count\{[^}]*askuser_reason="superseded"[^}]*\} 1$`)
	pending := regexp.MustCompile(`(?m)^askuser_asks_pending\{gen_ai_tool_name="ask_user"[^}]*\} 0$`)
	for _, want := range []*regexp.Regexp{asks, dur, pending} {
		if !want.MatchString(r.body) {
			t.Errorf("GET /metrics has no line matching %s:\n%s", want, r.body)
		}
	}
	if r := a.do("GET", f.srv.base+"/metrics", "", map[string]string{"Authorization": ""}); r.code != 401 {
		t.Errorf("GET /metrics without the token: %d, want 401", r.code)
	}
	// askuser stats reads the same asks from the journal stream.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"stats", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--by", "tool"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("stats --nats: exit %d: %s", code, errb.String())
	}
	if !regexp.MustCompile(`(?m)^ask_user +1 +0 +0 +1 +0 +0 +0 +1 +- +- +- +-$`).MatchString(out.String()) {
		t.Errorf("stats --nats: want the superseded ask:\n%s", out.String())
	}
	if code := f.srv.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, f.srv.stderr.String())
	}
	if col.posted("/v1/traces") == 0 || col.posted("/v1/metrics") == 0 {
		t.Errorf("the collector was posted %v; want /v1/traces and /v1/metrics", col.paths)
	}
}

// TestServeOTLPUsage: --otlp takes a collector's base URL only.
func TestServeOTLPUsage(t *testing.T) {
	for _, bad := range []string{"127.0.0.1:4318", "grpc://collector:4317", "http://", "http://c:4318/?x=1"} {
		if _, _, err := otlpURLs(bad); err == nil || !strings.Contains(err.Error(), "http(s)://host:port") {
			t.Errorf("--otlp %q: %v; want a refusal saying what is allowed", bad, err)
		}
	}
	tr, m, err := otlpURLs("https://c.example:4318/otel/")
	if err != nil || tr != "https://c.example:4318/otel/v1/traces" || m != "https://c.example:4318/otel/v1/metrics" {
		t.Errorf("otlpURLs = %q, %q, %v", tr, m, err)
	}
}
