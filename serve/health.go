package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/askuser-go/askuser/store"
)

// readyTimeout bounds each check of GET /readyz: a store or journal that
// takes longer is not ready.
const readyTimeout = 2 * time.Second

// probeKey is the key GET /readyz reads from the pending-ask store: it is
// never written, so the store answers "not found" when it is reachable.
const probeKey = "readyz.probe"

// probeSession and probeCall name the tool call GET /readyz looks up in
// the journal: never asked, so a reachable journal finds nothing.
const (
	probeSession = "askuser-readyz"
	probeCall    = "probe"
)

// A Pinger is a journal (Orchestrator.Journal) that can say whether it is
// reachable: GET /readyz calls Ping, and a journal without it that is a
// ResultFinder is asked for a tool call that was never made instead.
type Pinger interface {
	// Ping returns nil when the journal would take a record now.
	Ping(ctx context.Context) error
}

// probes serves GET /healthz and GET /readyz whatever the request's Host,
// so that a load balancer's or an orchestrator's probe, which names the
// replica by its address, reaches them; they tell nothing but whether the
// replica is up. Every other request goes to next.
func (s *Handler) probes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" && r.URL.Path != "/readyz" {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			apiError(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": only GET and HEAD are served here")
			return
		}
		if r.URL.Path == "/healthz" {
			writeAPI(w, http.StatusOK, healthJSON{Status: "ok"})
			return
		}
		s.ready(w, r)
	})
}

// healthJSON is the body of GET /healthz and GET /readyz. Checks names
// each check of /readyz ("feed", "store", "journal") with "ok", or what
// is wrong with it.
type healthJSON struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// ready serves GET /readyz: 200 when the orchestrator follows its store's
// changes, the store answers, and the journal is reachable; 503 naming
// what is not. The failures themselves go to the log: the probe's body is
// for anybody who reaches the port.
func (s *Handler) ready(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ok := true
	check := func(name string, err error, what string) {
		switch {
		case err == nil:
			checks[name] = "ok"
		default:
			ok = false
			checks[name] = what
			s.logger.Warn("askuser serve: not ready", "check", name, "err", err)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	check("feed", s.o.Ready(ctx), "the replica does not follow the pending-ask store's changes yet")
	if s.o.Asks != nil {
		check("store", probeStore(ctx, s.o.Asks), "the pending-ask store does not answer")
	}
	if s.o.Journal != nil {
		if checked, err := probeJournal(ctx, s.o.Journal); checked {
			check("journal", err, "the journal does not answer")
		}
	}
	if !ok {
		w.Header().Set("Retry-After", "1")
		writeAPI(w, http.StatusServiceUnavailable, healthJSON{Status: "not ready", Checks: checks})
		return
	}
	writeAPI(w, http.StatusOK, healthJSON{Status: "ready", Checks: checks})
}

// probeStore reads a key nobody writes: "not found" is an answer.
func probeStore(ctx context.Context, st store.Pending) error {
	_, err := st.Get(ctx, probeKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// probeJournal asks the journal whether it is reachable, and reports
// whether it could: with Ping, else by looking up a tool call nobody made.
func probeJournal(ctx context.Context, j store.Journal) (checked bool, err error) {
	switch j := j.(type) {
	case Pinger:
		return true, j.Ping(ctx)
	case store.ResultFinder:
		_, _, err := j.FindResult(ctx, probeSession, probeCall)
		return true, err
	}
	return false, nil
}
