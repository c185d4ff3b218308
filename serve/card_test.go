package serve

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// TestCardKeys: the card's tokens derive from the ring's current key, so
// that two replicas reading one key ring (written two ways) agree, and
// another key disagrees; a session's token opens only that session.
func TestCardKeys(t *testing.T) {
	const k1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	const k2 = "HxwdHhscGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	derive := func(text string) fleetKeys {
		t.Helper()
		ring, err := secretstore.ParseKeys(text)
		if err != nil {
			t.Fatal(err)
		}
		fk, err := deriveKeys(ring)
		if err != nil {
			t.Fatal(err)
		}
		return fk
	}
	one := derive("new:" + k1 + ",old:" + k2 + "\n")
	same := derive("# the fleet's ring\n  new:" + strings.TrimRight(k1, "=") + "  \nold:" + k2 + "\n")
	rotated := derive("newer:" + k2 + ",new:" + k1 + "\n")
	if one != same {
		t.Error("one ring written two ways derives two sets of keys")
	}
	if one.access == rotated.access || one.csrf == rotated.csrf {
		t.Error("another current key derives the same keys")
	}
	if one.access == one.csrf {
		t.Error("the access and CSRF keys are the same")
	}
	c := cardAccess{key: one.access, urlLife: time.Hour, cookieLife: time.Hour}
	now := time.Now()
	good := func(kind, session, tok string) bool { _, err := c.check(kind, session, tok, now); return err == nil }
	r := httptest.NewRequest("GET", "http://127.0.0.1:8080/", nil)
	if !good(urlToken, "s", c.urlTokenAt("s", now)) || good(urlToken, "s", c.urlTokenAt("t", now)) || good(urlToken, "s", "") || c.cookie(r, "s") == c.cookie(r, "t") {
		t.Error("a session's token or cookie is not the session's own")
	}
	if good(cookieToken, "s", c.urlTokenAt("s", now)) {
		t.Error("a card URL's token stands for a cookie's")
	}

	// Two cards on one ring agree; a card without one agrees with nobody.
	ring, _ := secretstore.ParseKeys("new:" + k1)
	a, _ := NewCard(CardConfig{Keys: ring})
	b, _ := NewCard(CardConfig{Keys: ring})
	lone, _ := NewCard(CardConfig{})
	if a.access.urlTokenAt("s", now) != b.access.urlTokenAt("s", now) || a.access.urlTokenAt("s", now) == lone.access.urlTokenAt("s", now) {
		t.Error("cards on one key ring hand out different tokens, or a card without one the same")
	}
	if a.web.CSRFToken("s") != b.web.CSRFToken("s") || a.web.CSRFToken("s") == lone.web.CSRFToken("s") {
		t.Error("cards on one key ring make different CSRF tokens, or a card without one the same")
	}
}

// TestCardAuthorize: a card request needs the session's access token,
// and then the Authorize of CardConfig.Web too, which names the principal
// the outcome records (without one, "card").
func TestCardAuthorize(t *testing.T) {
	asked := 0
	card, err := NewCard(CardConfig{Web: web.Options{Logger: slog.New(slog.DiscardHandler), Authorize: func(r *http.Request, session string) (string, error) {
		asked++
		if r.Header.Get("X-Person") == "" {
			return "", errors.New("sign in first")
		}
		return "person:" + r.Header.Get("X-Person"), nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0), Logger: slog.New(slog.DiscardHandler), Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
	defer o.Close()
	done := make(chan *askuser.Outcome, 1)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(serveChoice)})
		done <- out
	}()
	do := func(method, target, token, person, csrf, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, strings.NewReader(body))
		if token != "" {
			r.AddCookie(&http.Cookie{Name: card.access.cookie(r, "s"), Value: token})
		}
		if person != "" {
			r.Header.Set("X-Person", person)
		}
		if csrf != "" {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("X-CSRF-Token", csrf)
		}
		rec := httptest.NewRecorder()
		card.ServeHTTP(rec, r)
		return rec
	}
	token := card.access.token(cookieToken, "s", time.Now().Add(time.Hour))
	for _, tt := range []struct {
		token, person string
		code, asked   int
	}{
		{"", "ann", 403, 0},
		{"00", "ann", 403, 0},
		{token, "", 403, 1},
	} {
		asked = 0
		if rec := do("GET", "/api/sessions/s/asks", tt.token, tt.person, "", ""); rec.Code != tt.code || asked != tt.asked {
			t.Errorf("token %q, person %q: %d, the embedder's Authorize asked %d times; want %d, %d", tt.token, tt.person, rec.Code, asked, tt.code, tt.asked)
		}
	}
	var l cardListing
	for deadline := time.Now().Add(serveWait); len(l.Asks) == 0; time.Sleep(10 * time.Millisecond) {
		rec := do("GET", "/api/sessions/s/asks", token, "ann", "", "")
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &l) != nil || time.Now().After(deadline) {
			t.Fatalf("the card with both: %d %s; want 200 and the ask", rec.Code, rec.Body)
		}
	}
	if rec := do("POST", "/api/asks/"+l.Asks[0].ID+"/submit", token, "ann", l.CSRFToken, serveAnswer); rec.Code != 200 {
		t.Fatalf("submit: %d %s", rec.Code, rec.Body)
	}
	if out := <-done; out == nil || out.Principal != "person:ann" {
		t.Errorf("the outcome: %+v; want it answered by principal person:ann", out)
	}
	if card.CanTakeApprovals() {
		t.Error("the card takes approvals")
	}
}
