package serve

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/store"
)

// fakeJournal is a journal that finds nothing, or fails with err.
type fakeJournal struct{ err error }

func (j fakeJournal) Append(context.Context, store.Record) error { return j.err }
func (j fakeJournal) FindResult(context.Context, string, string) (store.Record, bool, error) {
	return store.Record{}, false, j.err
}

// pingJournal is a journal with Ping.
type pingJournal struct {
	fakeJournal
	pinged *int
}

func (j pingJournal) Ping(context.Context) error { *j.pinged++; return j.err }

// failingGet is a store whose Get fails.
type failingGet struct{ *store.Memory }

func (failingGet) Get(context.Context, string) (store.Entry, error) {
	return store.Entry{}, errors.New("nats: timeout")
}

// stuckFeed is a store whose feed of changes never gets in place.
type stuckFeed struct{ *store.Memory }

func (stuckFeed) Changes(ctx context.Context, _ func(store.Entry)) error {
	<-ctx.Done()
	return ctx.Err()
}

func probe(t *testing.T, h http.Handler, path, host string) (int, healthJSON, http.Header) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = host
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var j healthJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil {
		t.Fatalf("GET %s: %d %q: %v", path, rec.Code, rec.Body, err)
	}
	return rec.Code, j, rec.Header()
}

// TestProbes: GET /healthz says the process is up, GET /readyz that the
// replica follows its store and that the store and the journal answer —
// whatever the Host, so that a probe naming the replica by its address
// reaches them — and which check failed, without the failure itself.
func TestProbes(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	pinged := 0
	tests := []struct {
		name    string
		asks    store.Pending
		journal store.Journal
		code    int
		want    healthJSON
	}{
		{"in memory, no journal", nil, nil, 200, healthJSON{Status: "ready", Checks: map[string]string{"feed": "ok"}}},
		{"a store and a journal", store.NewMemory(0), fakeJournal{}, 200, healthJSON{Status: "ready", Checks: map[string]string{"feed": "ok", "store": "ok", "journal": "ok"}}},
		{"a journal that pings", store.NewMemory(0), pingJournal{pinged: &pinged}, 200, healthJSON{Status: "ready", Checks: map[string]string{"feed": "ok", "store": "ok", "journal": "ok"}}},
		{"a journal that cannot say", nil, appendOnly{}, 200, healthJSON{Status: "ready", Checks: map[string]string{"feed": "ok"}}},
		{"the store fails", failingGet{store.NewMemory(0)}, fakeJournal{}, 503, healthJSON{Status: "not ready", Checks: map[string]string{"feed": "ok", "store": "the pending-ask store does not answer", "journal": "ok"}}},
		{"the journal fails", store.NewMemory(0), fakeJournal{err: errors.New("nats: stream not found")}, 503, healthJSON{Status: "not ready", Checks: map[string]string{"feed": "ok", "store": "ok", "journal": "the journal does not answer"}}},
		{"the journal's ping fails", nil, pingJournal{fakeJournal{err: errors.New("disk full")}, &pinged}, 503, healthJSON{Status: "not ready", Checks: map[string]string{"feed": "ok", "journal": "the journal does not answer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &askuser.Orchestrator{Responder: auto.New(), Asks: tt.asks, Journal: tt.journal, Logger: quiet}
			defer o.Close()
			h := NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Logger: quiet})
			for _, host := range []string{"127.0.0.1:8080", "10.1.2.3:8080"} { // the pod's address: no host check
				if code, j, _ := probe(t, h, "/healthz", host); code != 200 || j.Status != "ok" {
					t.Errorf("healthz (Host %s): %d %+v; want 200 ok", host, code, j)
				}
				code, j, hdr := probe(t, h, "/readyz", host)
				if code != tt.code {
					t.Errorf("readyz (Host %s): %d; want %d", host, code, tt.code)
				}
				if diff := cmp.Diff(tt.want, j); diff != "" {
					t.Errorf("readyz (Host %s) (-want +got):\n%s", host, diff)
				}
				if hdr.Get("Cache-Control") != "no-store" || code == 503 && hdr.Get("Retry-After") == "" {
					t.Errorf("readyz headers %v; want no-store, and Retry-After when not ready", hdr)
				}
			}
		})
	}
	if pinged == 0 {
		t.Error("a journal with Ping was not pinged")
	}
}

// appendOnly is a journal that neither pings nor finds results.
type appendOnly struct{}

func (appendOnly) Append(context.Context, store.Record) error { return nil }

// TestReadyzWaitsForTheFeed: a replica whose feed of the store's changes
// is not in place is not ready: /readyz says so once its check's time
// (readyTimeout) is up, not before.
func TestReadyzWaitsForTheFeed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := slog.New(slog.DiscardHandler)
		o := &askuser.Orchestrator{Responder: auto.New(), Asks: stuckFeed{store.NewMemory(0)}, Logger: quiet}
		h := NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Logger: quiet})
		start := time.Now()
		done := make(chan struct{})
		var code int
		var j healthJSON
		go func() {
			defer close(done)
			code, j, _ = probe(t, h, "/readyz", "localhost")
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("readyz answered before its check's time was up")
		default:
		}
		<-done
		if waited := time.Since(start); waited != readyTimeout {
			t.Errorf("readyz answered after %v; want %v, its check's time", waited, readyTimeout)
		}
		if code != 503 || j.Checks["feed"] != "the replica does not follow the pending-ask store's changes yet" {
			t.Errorf("readyz: %d %+v; want 503 naming the feed", code, j)
		}
		o.Close()
	})
}

// TestProbesMethods: the probes take GET and HEAD only.
func TestProbesMethods(t *testing.T) {
	o := &askuser.Orchestrator{Responder: auto.New()}
	h := NewHandler(Config{Orchestrator: o})
	for _, path := range []string{"/healthz", "/readyz"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", path, nil))
		if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("POST %s: %d %v; want 405 with Allow", path, rec.Code, rec.Header())
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("HEAD", path, nil))
		if rec.Code != 200 {
			t.Errorf("HEAD %s: %d; want 200", path, rec.Code)
		}
	}
}
