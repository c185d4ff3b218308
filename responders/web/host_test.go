package web_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
)

// hostRequest sends a request to srv as if its host were host: the
// connection goes to srv's loopback address, the Host header and the
// Origin say host, as they do from a DNS-rebinding page.
func hostRequest(t *testing.T, srv *httptest.Server, host, method, path, body string, hdr map[string]string) (int, string) {
	t.Helper()
	// An event stream that is served does not end: the request is bounded.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestRebindingHostRefused: with web.New(nil), a page at evil.example that
// rebinds its name to the card's loopback address is same-origin with it;
// every route refuses its Host with 421, whose body names the hosts
// allowed and how to add one, and nothing leaks or changes.
func TestRebindingHostRefused(t *testing.T) {
	r := web.New(nil)
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		r.Close()
		srv.Close()
	})
	o := &askuser.Orchestrator{Responder: r, Logger: quiet}
	cs := &cardServer{t: t, r: r, o: o, srv: srv}
	done := cs.ask("s", twoQuestions, nil)
	a := cs.waitPending("s", 1)[0]
	token := r.CSRFToken("s")

	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	evil := "evil.example:" + port
	same := map[string]string{
		"Origin":         "http://" + evil,
		"Sec-Fetch-Site": "same-origin",
		"Content-Type":   "application/json",
		"X-CSRF-Token":   token,
	}
	ask := "/api/asks/" + a.AskID
	routes := []struct{ method, path, body string }{
		{"GET", "/api/sessions/s/asks", ""},
		{"GET", "/api/sessions/s/events", ""},
		{"GET", ask, ""},
		{"GET", "/sessions/s", ""},
		{"GET", "/asks/" + a.AskID, ""},
		{"PUT", ask + "/answers/env", `{"selected":["production"]}`},
		{"POST", ask + "/submit", `{"answers":{"env":{"selected":["production"]},"note":{"other_text":"rebound"}}}`},
		{"POST", ask + "/dismiss", `{"on_question":"env"}`},
		{"POST", ask + "/decline", ``},
	}
	for _, host := range []string{evil, "EVIL.example", "localhost.evil.example:" + port, "127.0.0.1.nip.io:" + port} {
		for _, rt := range routes {
			code, body := hostRequest(t, srv, host, rt.method, rt.path, rt.body, same)
			if code != http.StatusMisdirectedRequest {
				t.Errorf("Host %q: %s %s: %d %.200s; want 421", host, rt.method, rt.path, code, body)
				continue
			}
			if strings.Contains(body, token) || strings.Contains(body, a.AskID) || strings.Contains(body, "Where first?") {
				t.Errorf("Host %q: %s %s: the refusal leaks the session: %s", host, rt.method, rt.path, body)
			}
			if !strings.Contains(body, "localhost, 127.0.0.1, [::1]") || !strings.Contains(body, "AllowedHosts") {
				t.Errorf("Host %q: %s %s: the refusal does not say which hosts are allowed and how to add one: %s", host, rt.method, rt.path, body)
			}
		}
	}
	if p := o.Pending("s"); len(p) != 1 || len(p[0].Answered) != 0 {
		t.Fatalf("a refused request changed the ask: %+v", p)
	}

	// The loopback names, any port, any case, are served.
	for _, host := range []string{"localhost:" + port, "LocalHost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "localhost", "127.0.0.1:1"} {
		if code, body := hostRequest(t, srv, host, "GET", "/api/sessions/s/asks", "", nil); code != 200 || !strings.Contains(body, a.AskID) {
			t.Errorf("Host %q: %d %.200s; want 200 with the ask", host, code, body)
		}
	}
	loop := map[string]string{"Origin": "http://localhost:" + port, "Content-Type": "application/json", "X-CSRF-Token": token}
	if code, body := hostRequest(t, srv, "localhost:"+port, "POST", ask+"/decline", "", loop); code != 200 {
		t.Errorf("a decline from localhost: %d %s", code, body)
	}
	if out := wait(t, done); out.Status != askuser.StatusDeclined {
		t.Errorf("the ask ended %s, want declined", out.Status)
	}
}

// TestAllowedHosts: a program that serves the card under its own names
// lists them; they are matched exactly, without regard to case or port,
// and the loopback names are then refused unless listed.
func TestAllowedHosts(t *testing.T) {
	r := web.New(&web.Options{Logger: quiet, AllowedHosts: []string{"Card.Example", "[2001:db8::7]", "192.0.2.7:8443", "::1"}})
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		r.Close()
		srv.Close()
	})
	tests := []struct {
		host string
		code int
	}{
		{"card.example", 200},
		{"CARD.EXAMPLE:443", 200},
		{"card.example:8080", 200},
		{"[2001:db8::7]:80", 200},
		{"[2001:DB8::7]", 200},
		{"192.0.2.7", 200},
		{"192.0.2.7:1", 200},
		{"[::1]:5", 200},
		{"localhost", 421},
		{"127.0.0.1:80", 421},
		{"evil.card.example", 421},
		{"card.example.evil.example", 421},
		{"card.example.", 421},
		{"192.0.2.70", 421},
		{"[::1", 421},
	}
	for _, tt := range tests {
		code, body := hostRequest(t, srv, tt.host, "GET", "/api/sessions/s/asks", "", nil)
		if code != tt.code {
			t.Errorf("Host %q: %d %s; want %d", tt.host, code, body, tt.code)
		}
		if code == 421 && !strings.Contains(body, "card.example, [2001:db8::7], 192.0.2.7, [::1]") {
			t.Errorf("Host %q: the refusal does not list the allowed hosts: %s", tt.host, body)
		}
	}
}
