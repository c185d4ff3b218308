package serve

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/store"
)

// TestHandlerWaits: the agent API's waits on a synctest clock, with the
// Handler over an in-memory shared store. A status request
// waits the quarter second of its floor without ?wait=, and ?wait=600
// waits the 60 seconds of its cap, answering 202 while the ask is
// pending; a long poll and a blocking call end at the ask's own deadline,
// with its result.
func TestHandlerWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := slog.New(slog.DiscardHandler)
		card, err := NewCard(CardConfig{Web: web.Options{Logger: quiet}})
		if err != nil {
			t.Fatal(err)
		}
		o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0), Logger: quiet, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
		defer o.Close()
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		h := NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Card: card, Logger: quiet, Addr: "127.0.0.1:8080"})
		do := func(method, target, body string, hdr map[string]string) (*httptest.ResponseRecorder, time.Duration) {
			t.Helper()
			req := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, req)
			return rec, time.Since(start)
		}
		async := map[string]string{"Prefer": "respond-async"}
		if rec, _ := do("POST", "/v1/calls", callBody("s", "long", "", serveChoice), async); rec.Code != http.StatusAccepted {
			t.Fatalf("async call: %d %s", rec.Code, rec.Body)
		}
		for _, tt := range []struct {
			query string
			took  time.Duration
		}{
			{"", statusFloor},
			{"?wait=0", statusFloor},
			{"?wait=5", 5 * time.Second},
			{"?wait=600", maxStatusWait},
		} {
			rec, took := do("GET", "/v1/sessions/s/calls/long"+tt.query, "", nil)
			if rec.Code != http.StatusAccepted || !strings.Contains(rec.Body.String(), `"status":"pending"`) || took != tt.took {
				t.Errorf("status%s: %d %s after %v; want 202 pending after %v", tt.query, rec.Code, rec.Body, took, tt.took)
			}
		}

		// A call whose deadline comes within the long poll.
		short := strings.Replace(serveChoice, `"timeout_seconds":600`, `"timeout_seconds":30`, 1)
		const expired = `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`
		if rec, _ := do("POST", "/v1/calls", callBody("s", "short", "", short), async); rec.Code != http.StatusAccepted {
			t.Fatalf("async call: %d %s", rec.Code, rec.Body)
		}
		rec, took := do("GET", "/v1/sessions/s/calls/short?wait=60", "", nil)
		if rec.Code != http.StatusOK || rec.Body.String() != expired || took != 30*time.Second {
			t.Errorf("long poll past the deadline: %d %s after %v; want 200 %s after 30s", rec.Code, rec.Body, took, expired)
		}
		// A blocking call ends at its deadline too.
		rec, took = do("POST", "/v1/calls", callBody("s", "blocking", "", short), nil)
		if rec.Code != http.StatusOK || rec.Body.String() != expired || took != 30*time.Second {
			t.Errorf("blocking call: %d %s after %v; want 200 %s after 30s", rec.Code, rec.Body, took, expired)
		}

		// The replica stops (Close) while a caller and a long poll wait:
		// the caller is told to call again (503), the poll that the ask is
		// pending (202); the ask stays pending in the store.
		type answer struct {
			code int
			body string
		}
		blocked, polled := make(chan answer, 1), make(chan answer, 1)
		go func() {
			rec, _ := do("POST", "/v1/calls", callBody("s", "stop", "", serveChoice), nil)
			blocked <- answer{rec.Code, rec.Body.String()}
		}()
		synctest.Wait()
		go func() {
			rec, _ := do("GET", "/v1/sessions/s/calls/stop?wait=60", "", nil)
			polled <- answer{rec.Code, rec.Body.String()}
		}()
		synctest.Wait()
		o.Close()
		if r := <-blocked; r.code != http.StatusServiceUnavailable || !strings.Contains(r.body, "the ask stays pending") {
			t.Errorf("the call waiting at Close: %d %s; want 503 and that the ask stays pending", r.code, r.body)
		}
		if r := <-polled; r.code != http.StatusAccepted || !strings.Contains(r.body, `"status":"pending"`) {
			t.Errorf("the long poll at Close: %d %s; want 202 pending", r.code, r.body)
		}
	})
}
