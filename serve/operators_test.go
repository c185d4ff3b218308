package serve

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/store"
)

// TestOperatorsPage: the page of pending asks opens with the admin token
// only (never an agent's), once, through a cookie of its own that expires;
// it lists who asked what and shows no answer, with model text escaped.
func TestOperatorsPage(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	card, err := NewCard(CardConfig{Keys: testRing(t)})
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0), Logger: quiet, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
	defer o.Close()
	h := NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, AdminTokens: []string{adminToken}, Card: card, Logger: quiet})
	srv := httptest.NewServer(h)
	defer srv.Close()
	a := newAgentClient(t, testToken)
	a.callAsync(srv.URL, "team-a/run-1", "call_1", `{"questions":[{"id":"env","header":"<b>Env</b>","question":"Where?","options":[{"label":"staging","description":"s"},{"label":"production","description":"p"}]}],"timeout_seconds":600}`)

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	get := func(c *http.Client, path string, hdr ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if len(hdr) == 2 {
			req.Header.Set(hdr[0], hdr[1])
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get(browser, "/operators"); code != 401 || !strings.Contains(body, "/operators?token=ADMIN") {
		t.Errorf("without a token: %d %s", code, body)
	}
	if code, _ := get(browser, "/operators?token="+testToken); code != 401 {
		t.Errorf("with the agent's token: %d; want 401", code)
	}
	if code, _ := get(browser, "/operators", "Authorization", "Bearer "+testToken); code != 401 {
		t.Errorf("with the agent's bearer token: %d; want 401", code)
	}
	code, body := get(browser, "/operators?token="+url.QueryEscape(adminToken))
	if code != 200 || !strings.Contains(body, "team-a/run-1") || !strings.Contains(body, "call_1") || !strings.Contains(body, "&lt;b&gt;Env&lt;/b&gt;") || strings.Contains(body, "<b>Env") {
		t.Fatalf("admitted: %d %s", code, body)
	}
	if strings.Contains(body, "production") || strings.Contains(body, adminToken) {
		t.Errorf("the page shows an option or the token: %s", body)
	}
	u, _ := url.Parse(srv.URL + "/operators")
	ck := jar.Cookies(u)
	if len(ck) != 1 || !strings.HasPrefix(ck[0].Name, "askuser_ops_") || strings.Contains(ck[0].Value, adminToken) {
		t.Fatalf("cookies %+v; want one admission that does not hold the token", ck)
	}
	// The cookie admits on its own, and stops at its expiry.
	if code, _ := get(browser, "/operators"); code != 200 {
		t.Errorf("with the cookie: %d", code)
	}
	old := h.opsCookie(adminToken, time.Now().Add(-time.Second))
	stale := &http.Client{}
	if code, _ := get(stale, "/operators", "Cookie", ck[0].Name+"="+old); code != 401 {
		t.Errorf("an expired admission: %d; want 401", code)
	}
	if code, _ := get(stale, "/operators", "Cookie", ck[0].Name+"="+h.opsCookie("another-token-0123456789", time.Now().Add(time.Hour))); code != 401 {
		t.Errorf("an admission signed with another token: %d; want 401", code)
	}
	if code, _ := get(stale, "/operators", "Authorization", "Bearer "+adminToken); code != 200 {
		t.Errorf("with the admin bearer token: %d", code)
	}
}
