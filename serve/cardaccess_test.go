package serve

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/store"
)

// TestCardTokensExpireAndRotate, on a synctest clock: a card URL opens
// the card for an hour only, and then is refused saying it expired; the
// cookie it sets lasts 12 hours without use, is replaced by a fresh one
// once a quarter of that has passed and the card is used, and an expired
// cookie is refused saying so, while its successor still admits.
func TestCardTokensExpireAndRotate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := slog.New(slog.DiscardHandler)
		card, err := NewCard(CardConfig{Keys: testRing(t), Web: web.Options{Logger: quiet}})
		if err != nil {
			t.Fatal(err)
		}
		o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0), Logger: quiet, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
		defer o.Close()
		h := NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Card: card, Logger: quiet})
		do := func(method, target, body string, hdr map[string]string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
			t.Helper()
			req := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, strings.NewReader(body))
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			for _, c := range cookies {
				req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		cookieOf := func(rec *httptest.ResponseRecorder) *http.Cookie {
			for _, c := range rec.Result().Cookies() {
				if strings.HasPrefix(c.Name, "askuser_card_") {
					return c
				}
			}
			return nil
		}
		rec := do("POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Authorization": "Bearer " + testToken, "Prefer": "respond-async"})
		var j asyncJSON
		if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &j) != nil {
			t.Fatalf("async call: %d %s", rec.Code, rec.Body)
		}
		u, err := url.Parse(j.CardURL)
		if err != nil {
			t.Fatal(err)
		}
		open := func() *httptest.ResponseRecorder { return do("GET", u.RequestURI(), "", nil) }
		list := func(c *http.Cookie) *httptest.ResponseRecorder { return do("GET", "/api/sessions/s/asks", "", nil, c) }
		// The card URL, opened within its hour: a cookie good for 12 hours.
		time.Sleep(59 * time.Minute)
		rec = open()
		set := time.Now()
		first := cookieOf(rec)
		if rec.Code != http.StatusSeeOther || first == nil || !first.HttpOnly || first.SameSite != http.SameSiteStrictMode {
			t.Fatalf("the card URL within its hour: %d, cookie %+v; want 303 and an HttpOnly, SameSite=Strict cookie", rec.Code, first)
		}
		if want := time.Now().Add(12 * time.Hour); !first.Expires.Equal(want.Truncate(time.Second)) || first.MaxAge != 12*3600 {
			t.Errorf("the cookie expires %v (max-age %d); want %v (43200)", first.Expires, first.MaxAge, want)
		}
		if strings.Contains(first.Value, u.Query().Get("token")) {
			t.Error("the cookie holds the card URL's token; want a token of its own")
		}
		// The same URL, past its hour: refused, saying it expired.
		time.Sleep(time.Minute)
		if rec := open(); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "has expired") || cookieOf(rec) != nil {
			t.Errorf("the card URL after its hour: %d %q; want 403 saying it expired, and no cookie", rec.Code, rec.Body)
		}
		// The next call hands out a fresh card URL, which opens the card.
		rec = do("POST", "/v1/calls", callBody("s", "c2", "", serveChoice), map[string]string{"Authorization": "Bearer " + testToken, "Prefer": "respond-async"})
		var p asyncJSON
		if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &p) != nil || p.CardURL == j.CardURL {
			t.Errorf("the next call: %d %s; want 202 with a fresh card URL", rec.Code, rec.Body)
		} else if pu, _ := url.Parse(p.CardURL); do("GET", pu.RequestURI(), "", nil).Code != http.StatusSeeOther {
			t.Error("the fresh card URL does not open the card")
		}

		// Used within the first quarter of its life: admitted, kept.
		if rec := list(first); rec.Code != 200 || cookieOf(rec) != nil {
			t.Errorf("the card with its cookie: %d %s, cookie %v; want 200 and the cookie kept", rec.Code, rec.Body, cookieOf(rec))
		}
		// Used past it: admitted, and a fresh cookie replaces it.
		time.Sleep(time.Until(set.Add(3*time.Hour + time.Second)))
		rec = list(first)
		second := cookieOf(rec)
		if rec.Code != 200 || second == nil || second.Name != first.Name || second.Value == first.Value {
			t.Fatalf("the card after a quarter of the cookie's life: %d, cookie %+v; want 200 and a fresh cookie of the same name", rec.Code, second)
		}
		if want := time.Now().Add(12 * time.Hour).Truncate(time.Second); !second.Expires.Equal(want) {
			t.Errorf("the fresh cookie expires %v; want %v", second.Expires, want)
		}

		// 12 hours after it was set, the first cookie is refused, saying
		// it expired; the fresh one admits.
		time.Sleep(time.Until(set.Add(12 * time.Hour)))
		if rec := list(first); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "has expired") {
			t.Errorf("the expired cookie: %d %s; want 403 saying it expired", rec.Code, rec.Body)
		}
		if rec := do("GET", "/sessions/s", "", nil, first); rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "open a fresh card URL") {
			t.Errorf("the page with the expired cookie: %d %s; want 403 saying to open a fresh card URL", rec.Code, rec.Body)
		}
		if rec := list(second); rec.Code != 200 {
			t.Errorf("the fresh cookie: %d %s; want 200", rec.Code, rec.Body)
		}
		// The card URL's token is no cookie, nor the cookie's a card URL's.
		if rec := list(&http.Cookie{Name: first.Name, Value: u.Query().Get("token")}); rec.Code != http.StatusForbidden {
			t.Errorf("the card URL's token as a cookie: %d; want 403", rec.Code)
		}
		if rec := do("GET", "/sessions/s?token="+url.QueryEscape(second.Value), "", nil); rec.Code != http.StatusForbidden {
			t.Errorf("a cookie's token as a card URL's: %d; want 403", rec.Code)
		}
		o.Close()
		card.Close()
	})
}

// TestCardCookiePerPort: two services on one host, on two ports, with
// keys of their own, answer the same session id; one browser opens both
// cards, and each keeps its own cookie (a browser sends a host's cookies
// to every port, so cookies of one name would overwrite each other's).
func TestCardCookiePerPort(t *testing.T) {
	one := newReplicaKeys(t)
	two := newReplicaKeys(t)
	a := newAgentClient(t, testToken)
	j1 := a.callAsync(one.base, "s", "c1", serveChoice)
	j2 := a.callAsync(two.base, "s", "c2", serveChoice)
	a.openCard(j1.CardURL)
	a.openCard(j2.CardURL)
	for _, rp := range []*replica{one, two} {
		if r := a.do("GET", rp.base+"/api/sessions/s/asks", "", map[string]string{"Authorization": ""}); r.code != 200 {
			t.Errorf("the card on %s after opening both: %d %s; want 200", rp.base, r.code, r.body)
		}
	}
	u, _ := url.Parse(one.base)
	names := map[string]bool{}
	for _, c := range a.hc.Jar.Cookies(u) {
		names[c.Name] = true
	}
	if len(names) != 2 {
		t.Errorf("the browser holds the cookies %v for %s; want one per port", names, u.Host)
	}
}

// newReplicaKeys is newReplica with a card whose keys are its own, as
// two unrelated services have.
func newReplicaKeys(t *testing.T) *replica {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	card, err := NewCard(CardConfig{Web: web.Options{Logger: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0), Logger: quiet, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
	t.Cleanup(func() { o.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	if err := o.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, Card: card, Logger: quiet}))
	t.Cleanup(srv.Close)
	return &replica{o: o, card: card, srv: srv, base: srv.URL}
}
