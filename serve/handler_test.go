package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/store"
)

// TestHandler serves the Handler on an httptest.Server over an in-memory
// shared store, with the secrets API, and drives its agent API and its
// card over loopback.
func TestHandler(t *testing.T) {
	asks := store.NewMemory(0)
	rp := newReplica(t, asks, func(c *Config) { c.Secrets = c.Orchestrator.Secrets })
	base := rp.base
	a := newAgentClient(t, testToken)

	t.Run("refusals", func(t *testing.T) {
		pi := `{"questions":[]}`
		tests := []struct {
			name         string
			method, path string
			body         string
			hdr          map[string]string
			code         int
			want         string // the body, exactly, when it starts with {; else a part of the error
		}{
			{"no token", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Authorization": ""}, 401, "the bearer token is missing or wrong"},
			{"wrong token", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Authorization": "Bearer agent-token-0123456789abcdeX"}, 401, "the bearer token is missing or wrong"},
			{"an empty token", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Authorization": "Bearer  "}, 401, "the bearer token is missing or wrong"},
			{"status without a token", "GET", "/v1/sessions/s/calls/c", "", map[string]string{"Authorization": ""}, 401, "bearer token"},
			{"supersede without a token", "POST", "/v1/sessions/s/supersede", "", map[string]string{"Authorization": ""}, 401, "bearer token"},
			{"secret without a token", "GET", "/v1/sessions/s/secrets/X", "", map[string]string{"Authorization": ""}, 401, "bearer token"},
			{"not JSON", "POST", "/v1/calls", `{"session":`, nil, 400, `the body must be one JSON object with "session", "tool_call_id", "dialect" (optional: ask_user, pi-ask or pi) and "arguments"`},
			{"two values", "POST", "/v1/calls", callBody("s", "c", "", serveChoice) + "{}", nil, 400, "the body holds more than one JSON value"},
			{"an unknown field", "POST", "/v1/calls", `{"session":"s","tool_call_id":"c","arguments":{},"answered_by":"user"}`, nil, 400, `the body has a field "answered_by"; the fields are "session", "tool_call_id"`},
			{"no tool_call_id", "POST", "/v1/calls", `{"session":"s","arguments":{}}`, nil, 400, `"tool_call_id" is required: the model's tool-call id: a retried call joins its ask, or replays its result, by session and tool_call_id`},
			{"empty session", "POST", "/v1/calls", `{"session":"","tool_call_id":"c","arguments":{}}`, nil, 400, `"session" is empty; it is required`},
			{"session not a string", "POST", "/v1/calls", `{"session":7,"tool_call_id":"c","arguments":{}}`, nil, 400, `"session" must be a string`},
			{"approval dialect", "POST", "/v1/calls", callBody("s", "c", "request_approval", `{}`), nil, 400, `"dialect" "request_approval" is not served by the agent API`},
			{"unknown dialect", "POST", "/v1/calls", callBody("s", "c", "smoke-signals", `{}`), nil, 400, `"dialect" "smoke-signals" is not a contract; allowed: ask_user, pi-ask, pi`},
			{"no arguments", "POST", "/v1/calls", `{"session":"s","tool_call_id":"c"}`, nil, 400, `"arguments" is required`},
			{"arguments a string without an object", "POST", "/v1/calls", `{"session":"s","tool_call_id":"c","arguments":"ask me"}`, nil, 400, `"arguments" is a string but does not hold a JSON object: invalid character 'a'`},
			{"invalid ask_user call", "POST", "/v1/calls", callBody("s", "c-bad", "", `{"questions":[]}`), nil, 400, "invalid ask_user arguments"},
			{"invalid pi call: the message and the contract's result", "POST", "/v1/calls", callBody("s", "c-bad-pi", "pi", pi), nil, 400,
				`{"error":"Validation failed:\n- /questions: Expected array length to be greater or equal to 1","result":{"content":[{"type":"text","text":"Validation failed:\n- /questions: Expected array length to be greater or equal to 1"}],"details":{"errors":[{"path":"/questions","message":"Expected array length to be greater or equal to 1"}]},"isError":true}}` + "\n"},
			{"a body too large", "POST", "/v1/calls", `{"session":"` + strings.Repeat("x", defaultMaxBody) + `"}`, nil, 413, "the body is larger than 256 KiB"},
			{"bad wait", "GET", "/v1/sessions/s/calls/c?wait=soon", "", nil, 400, `wait="soon" is not a whole number of seconds`},
			{"unknown call", "GET", "/v1/sessions/s/calls/never", "", nil, 404, "no ask is known for this session's tool call"},
			{"unknown route", "GET", "/v1/asks", "", nil, 404, "GET /v1/asks is not a route of the agent API"},
			{"no such secret", "GET", "/v1/sessions/s/secrets/NOPE", "", nil, 404, "no secret of this name is stored for this session"},
			{"another host (DNS rebinding)", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Host": "evil.example"}, 421, "answers only for the hosts"},
			{"another host on the card", "GET", "/sessions/s", "", map[string]string{"Host": "evil.example:80"}, 421, "answers only for the hosts"},
			{"another origin", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Origin": "http://evil.example"}, 403, "another origin"},
			{"the card without its token", "GET", "/api/sessions/s/asks", "", nil, 403, "no access token for this session: open the card URL"},
			{"the card with a wrong token", "GET", "/sessions/s?token=00", "", nil, 403, "the access token is wrong for this session"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(tt.method, base+tt.path, tt.body, tt.hdr)
				if r.code != tt.code {
					t.Fatalf("%d %s; want %d", r.code, r.body, tt.code)
				}
				if strings.HasPrefix(tt.want, "{") {
					if diff := cmp.Diff(tt.want, r.body); diff != "" {
						t.Errorf("body (-want +got):\n%s", diff)
					}
					return
				}
				msg := r.body
				var e errorJSON
				if json.Unmarshal([]byte(r.body), &e) == nil && e.Error != "" {
					msg = e.Error
				}
				if !strings.Contains(msg, tt.want) {
					t.Errorf("body %s; want it to say %q", r.body, tt.want)
				}
			})
		}
		// Another session's token opens no card of this one.
		other := a.callAsync(base, "other", "c-other", serveChoice)
		r := a.do("GET", strings.Replace(other.CardURL, "/sessions/other?", "/sessions/s?", 1), "", nil)
		if r.code != 403 {
			t.Errorf("session s's card with session other's token: %d; want 403", r.code)
		}
		if r := a.do("POST", base+"/v1/sessions/other/supersede", "", nil); r.code != 200 {
			t.Errorf("supersede: %d %s", r.code, r.body)
		}
	})

	t.Run("the agent API's headers", func(t *testing.T) {
		r := a.do("GET", base+"/v1/sessions/s/calls/c", "", map[string]string{"Authorization": ""})
		for k, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "WWW-Authenticate": `Bearer realm="askuser"`, "Content-Type": "application/json"} {
			if got := r.hdr.Get(k); got != want {
				t.Errorf("401: %s %q; want %q", k, got, want)
			}
		}
		r = a.call(base, "s0", "c0", serveChoice, map[string]string{"Prefer": "wait=10, respond-async"})
		if r.code != 202 || r.hdr.Get("Preference-Applied") != "respond-async" || r.hdr.Get("Location") != base+"/v1/sessions/s0/calls/c0" {
			t.Errorf("async call: %d, Preference-Applied %q, Location %q", r.code, r.hdr.Get("Preference-Applied"), r.hdr.Get("Location"))
		}
		a.do("POST", base+"/v1/sessions/s0/supersede", "", nil)
	})

	t.Run("blocking call answered on the card, then replayed", func(t *testing.T) {
		res := make(chan reply, 1)
		go func() { res <- a.call(base, "s1", "c1", serveChoice, nil) }()
		p := a.waitPending(base, "s1", "c1")
		a.answerOn(base, p.CardURL, "s1", "c1", serveAnswer)
		r := <-res
		if r.code != 200 || r.body != serveAnswered {
			t.Fatalf("the blocking call: %d %s; want 200 and exactly %s", r.code, r.body, serveAnswered)
		}
		if ct := r.hdr.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		// The same call again: the result, without asking anyone.
		if r := a.call(base, "s1", "c1", serveChoice, nil); r.code != 200 || r.body != serveAnswered {
			t.Errorf("the call retried: %d %s; want the replay of %s", r.code, r.body, serveAnswered)
		}
		if l := a.cardList(base, "s1", 0); len(l.Asks) != 0 {
			t.Errorf("the card lists %d asks after the replay", len(l.Asks))
		}
	})

	t.Run("async call, status and long poll", func(t *testing.T) {
		j := a.callAsync(base, "s2", "c2", serveChoice)
		if want := base + "/v1/sessions/s2/calls/c2"; j.StatusURL != want {
			t.Errorf("status_url %s; want %s", j.StatusURL, want)
		}
		if !strings.HasPrefix(j.CardURL, base+"/sessions/s2?token=") {
			t.Errorf("card_url %s; want %s/sessions/s2?token=…", j.CardURL, base)
		}
		// The same call posted again joins the ask.
		if again := a.callAsync(base, "s2", "c2", serveChoice); again.AskID != j.AskID {
			t.Errorf("the call posted again began ask %s; want it to join %s", again.AskID, j.AskID)
		}
		r := a.do("GET", j.StatusURL+"?wait=0", "", nil)
		var p asyncJSON
		if r.code != 202 || json.Unmarshal([]byte(r.body), &p) != nil || p.Status != "pending" || p.AskID != j.AskID {
			t.Fatalf("status while pending: %d %s; want 202 pending with ask %s", r.code, r.body, j.AskID)
		}
		poll := make(chan reply, 1)
		go func() { poll <- a.do("GET", j.StatusURL+"?wait=60", "", nil) }()
		a.answerOn(base, j.CardURL, "s2", "c2", serveAnswer)
		if r := <-poll; r.code != 200 || r.body != serveAnswered {
			t.Errorf("the long poll: %d %s; want 200 and %s", r.code, r.body, serveAnswered)
		}
		if r := a.do("GET", j.StatusURL, "", nil); r.code != 200 || r.body != serveAnswered {
			t.Errorf("status once final: %d %s", r.code, r.body)
		}
	})

	t.Run("supersede", func(t *testing.T) {
		a.callAsync(base, "s3", "c3", serveChoice)
		if r := a.do("POST", base+"/v1/sessions/s3/supersede", "", nil); r.code != 200 || r.body != `{"superseded":1}`+"\n" {
			t.Fatalf("supersede: %d %s; want {\"superseded\":1}", r.code, r.body)
		}
		r := a.status(base, "s3", "c3", "?wait=30")
		if want := `{"status":"cancelled","answered_by":"unattended","answers":[]}`; r.code != 200 || r.body != want {
			t.Errorf("status after supersede: %d %s; want %s", r.code, r.body, want)
		}
		if r := a.do("POST", base+"/v1/sessions/s3/supersede", "", nil); r.body != `{"superseded":0}`+"\n" {
			t.Errorf("supersede again: %s; want 0", r.body)
		}
	})

	t.Run("a secret, and the secrets API", func(t *testing.T) {
		j := a.callAsync(base, "s5", "c5", serveSecret)
		a.answerOn(base, j.CardURL, "s5", "c5", `{"answers":{"tok":{"secret":"hunter2-value"}}}`)
		r := a.status(base, "s5", "c5", "?wait=30")
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"tok","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}`
		if r.code != 200 || r.body != want {
			t.Fatalf("the secret ask: %d %s; want %s", r.code, r.body, want)
		}
		r = a.do("GET", base+"/v1/sessions/s5/secrets/DEPLOY_TOKEN", "", nil)
		if r.code != 200 || r.body != "hunter2-value" || r.hdr.Get("Content-Type") != "application/octet-stream" || r.hdr.Get("Cache-Control") != "no-store" {
			t.Errorf("the secret's value: %d %q, Content-Type %q, Cache-Control %q", r.code, r.body, r.hdr.Get("Content-Type"), r.hdr.Get("Cache-Control"))
		}
		if r := a.do("GET", base+"/v1/sessions/s4/secrets/DEPLOY_TOKEN", "", nil); r.code != 404 {
			t.Errorf("another session's secret: %d %s; want 404", r.code, r.body)
		}
	})

	// Stopping the replica (Close) tells a caller waiting there that the
	// ask stays pending (503); another replica on the store knows the ask.
	blocked := make(chan reply, 1)
	go func() { blocked <- a.call(base, "s6", "c6", serveChoice, nil) }()
	p := a.waitPending(base, "s6", "c6")
	rp.o.Close()
	if r := <-blocked; r.code != 503 || !strings.Contains(r.body, "the ask stays pending") || r.hdr.Get("Retry-After") != "1" {
		t.Errorf("the call waiting when the replica stopped: %d %s (Retry-After %q); want 503 and that the ask stays pending", r.code, r.body, r.hdr.Get("Retry-After"))
	}
	again := newReplica(t, asks, nil)
	q := a.waitPending(again.base, "s6", "c6")
	if q.AskID != p.AskID {
		t.Errorf("another replica knows ask %s for c6; want %s", q.AskID, p.AskID)
	}
	// Its card opens with the card URL the first replica handed out: the
	// same key ring, the same token.
	a.openCard(strings.Replace(p.CardURL, base, again.base, 1))
}

// TestHandlerWithoutCard: with no Card, the agent API hands out no card
// URL and every other path is 404; with no secrets store, the secrets
// route is not one.
func TestHandlerWithoutCard(t *testing.T) {
	rp := newReplica(t, nil, func(c *Config) { c.Card = nil })
	a := newAgentClient(t, testToken)
	r := a.call(rp.base, "s", "c", serveChoice, map[string]string{"Prefer": "respond-async"})
	if r.code != 202 || strings.Contains(r.body, "card_url") || !strings.Contains(r.body, `"status_url":"`+rp.base+"/v1/sessions/s/calls/c") {
		t.Errorf("async call without a card: %d %s; want 202 with a status_url and no card_url", r.code, r.body)
	}
	if r := a.do("GET", rp.base+"/sessions/s", "", nil); r.code != 404 {
		t.Errorf("the card's path without a card: %d; want 404", r.code)
	}
	if r := a.do("GET", rp.base+"/v1/sessions/s/secrets/X", "", nil); r.code != 404 || !strings.Contains(r.body, "is not a route of the agent API") || strings.Contains(r.body, "secrets/{name}") {
		t.Errorf("the secrets route without Secrets: %d %s; want 404, not a route", r.code, r.body)
	}
}

// TestHandlerTokens: any of several tokens is admitted (a rotation); empty
// ones never are, and with none the agent API admits nobody.
func TestHandlerTokens(t *testing.T) {
	rp := newReplica(t, nil, func(c *Config) { c.Tokens = []string{"", "old-token-0123456789abcdef", testToken} })
	none := newReplica(t, nil, func(c *Config) { c.Tokens = nil })
	for _, tt := range []struct {
		base, auth string
		code       int
	}{
		{rp.base, "Bearer old-token-0123456789abcdef", 404},
		{rp.base, "bearer " + testToken, 404},
		{rp.base, "Bearer ", 401},
		{rp.base, "Bearer  ", 401},
		{rp.base, "Basic " + testToken, 401},
		{none.base, "Bearer " + testToken, 401},
		{none.base, "Bearer  ", 401},
	} {
		a := newAgentClient(t, "")
		if r := a.do("GET", tt.base+"/v1/sessions/s/calls/c", "", map[string]string{"Authorization": tt.auth}); r.code != tt.code {
			t.Errorf("Authorization %q: %d %s; want %d", tt.auth, r.code, r.body, tt.code)
		}
	}
}

// TestHandlerUnderPrefix: mounted under a prefix with BaseURL naming it,
// the URLs handed out and the card's redirect stay under the prefix.
func TestHandlerUnderPrefix(t *testing.T) {
	rp := newReplica(t, nil, nil)
	mux := http.NewServeMux()
	var h http.Handler
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h = NewHandler(Config{Orchestrator: rp.o, Tokens: []string{testToken}, Card: rp.card, BaseURL: srv.URL + "/askuser/"})
	mux.Handle("/askuser/", http.StripPrefix("/askuser", h))
	a := newAgentClient(t, testToken)
	j := a.callAsync(srv.URL+"/askuser", "s", "c", serveChoice)
	if want := srv.URL + "/askuser/v1/sessions/s/calls/c"; j.StatusURL != want {
		t.Errorf("status_url %s; want %s", j.StatusURL, want)
	}
	if !strings.HasPrefix(j.CardURL, srv.URL+"/askuser/sessions/s?token=") {
		t.Errorf("card_url %s; want it under /askuser/", j.CardURL)
	}
	a.answerOn(srv.URL+"/askuser", j.CardURL, "s", "c", serveAnswer)
	if r := a.do("GET", j.StatusURL+"?wait=30", "", nil); r.code != 200 || r.body != serveAnswered {
		t.Errorf("the result under the prefix: %d %s", r.code, r.body)
	}
}

// TestHandlerBase: the URLs handed out name the request's Host when it is
// a plain host[:port], and Addr (else the address the request came in
// on) when it is not.
func TestHandlerBase(t *testing.T) {
	for _, tt := range []struct {
		addr, host, want string
	}{
		{"", "127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"", "localhost", "http://localhost"},
		{"", "[::1]:80", "http://[::1]:80"},
		{"127.0.0.1:9", "127.0.0.1:80@evil.example", "http://127.0.0.1:9"},
		{"127.0.0.1:9", "127.0.0.1:8a", "http://127.0.0.1:9"},
		{"", "127.0.0.1:80/x", "http://localhost"},
	} {
		s := &Handler{addr: tt.addr}
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tt.host
		if got := s.base(r); got != tt.want {
			t.Errorf("Addr %q, Host %q: %s; want %s", tt.addr, tt.host, got, tt.want)
		}
	}
	s := &Handler{}
	r := httptest.NewRequest("GET", "/", nil).WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, &fakeAddr{"192.0.2.7:8080"}))
	r.Host = "x/y"
	if got := s.base(r); got != "http://192.0.2.7:8080" {
		t.Errorf("no Addr, a Host that will not do: %s; want the local address", got)
	}
}

type fakeAddr struct{ s string }

func (a *fakeAddr) Network() string { return "tcp" }
func (a *fakeAddr) String() string  { return a.s }

// TestNewHandlerPanics: a Handler without an orchestrator is refused when
// it is made, not on every call.
func TestNewHandlerPanics(t *testing.T) {
	for name, c := range map[string]Config{
		"no orchestrator": {},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p, _ := recover().(string); !strings.HasPrefix(p, "serve: Config.Orchestrator") {
					t.Errorf("panic %q; want one that says what Config.Orchestrator needs", p)
				}
			}()
			NewHandler(c)
		})
	}
}
