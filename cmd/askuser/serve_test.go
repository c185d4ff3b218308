package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/natsstore/natsserver"
)

// Calls and results the serve tests use. The deadlines are far: nothing
// here waits for one.
const (
	serveChoice   = `{"questions":[{"id":"env","header":"Env","question":"Where first?","options":[{"label":"staging","description":"s"},{"label":"production","description":"p"}]}],"timeout_seconds":600}`
	serveAnswered = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`
	serveAnswer   = `{"answers":{"env":{"selected":["production"]}}}`
	serveSecret   = `{"questions":[{"kind":"secret","id":"tok","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to push the release"}],"timeout_seconds":600}`
)

// serveWait bounds every wait of the serve tests for something to happen.
const serveWait = time.Minute

// writeKeyFile writes a key ring with one random key, mode 0600.
func writeKeyFile(t *testing.T, dir string) string {
	t.Helper()
	var k [32]byte
	_, _ = rand.Read(k[:])
	p := filepath.Join(dir, "fleet.key")
	if err := os.WriteFile(p, []byte("fleet-1:"+base64.StdEncoding.EncodeToString(k[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSecretFile writes a token file, mode 0600.
func writeSecretFile(t *testing.T, dir, name, token string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// agentClient talks to askuser serve as an agent (the API, with the
// bearer token) and as a person (the card, with its cookie jar).
type agentClient struct {
	t     *testing.T
	token string
	hc    *http.Client
}

func newAgentClient(t *testing.T, token string) *agentClient {
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &agentClient{t: t, token: token, hc: &http.Client{Transport: tr, Jar: jar}}
}

type reply struct {
	code int
	body string
	hdr  http.Header
}

// do sends a request with the bearer token (unless hdr sets
// Authorization; "" removes it).
func (a *agentClient) do(method, url, body string, hdr map[string]string) reply {
	a.t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	for k, v := range hdr {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	res, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, string(b), res.Header}
}

func callBody(session, toolCall, dialect, args string) string {
	b, _ := json.Marshal(map[string]any{"session": session, "tool_call_id": toolCall, "dialect": dialect, "arguments": json.RawMessage(args)})
	return string(b)
}

// call posts a call to base's /v1/calls.
func (a *agentClient) call(base, session, toolCall, args string, hdr map[string]string) reply {
	a.t.Helper()
	return a.do("POST", base+"/v1/calls", callBody(session, toolCall, "", args), hdr)
}

// callAsync posts a call with Prefer: respond-async and returns the 202.
func (a *agentClient) callAsync(base, session, toolCall, args string) asyncJSON {
	a.t.Helper()
	r := a.call(base, session, toolCall, args, map[string]string{"Prefer": "respond-async"})
	var j asyncJSON
	if r.code != http.StatusAccepted || json.Unmarshal([]byte(r.body), &j) != nil || j.AskID == "" {
		a.t.Fatalf("async call: %d %s; want 202 with ask_id, card_url and status_url", r.code, r.body)
	}
	return j
}

// status reads a call's status on base.
func (a *agentClient) status(base, session, toolCall, query string) reply {
	a.t.Helper()
	return a.do("GET", base+"/v1/sessions/"+session+"/calls/"+toolCall+query, "", nil)
}

// waitPending polls base until it knows the call as pending, and returns
// what its status says.
func (a *agentClient) waitPending(base, session, toolCall string) asyncJSON {
	a.t.Helper()
	deadline := time.Now().Add(serveWait)
	for {
		r := a.status(base, session, toolCall, "")
		var j asyncJSON
		if r.code == http.StatusAccepted && json.Unmarshal([]byte(r.body), &j) == nil && j.AskID != "" {
			return j
		}
		if r.code != http.StatusNotFound || time.Now().After(deadline) {
			a.t.Fatalf("status of %s on %s: %d %s; want it pending", toolCall, base, r.code, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openCard opens a card URL: the token becomes the session's cookie.
func (a *agentClient) openCard(cardURL string) {
	a.t.Helper()
	res, err := a.hc.Get(cardURL)
	if err != nil {
		a.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Request.URL.RawQuery != "" || !bytes.Contains(body, []byte("Questions from your agent")) {
		a.t.Fatalf("the card: %s at %s:\n%.300s", res.Status, res.Request.URL, body)
	}
}

// cardListing is the card's GET /api/sessions/{session}/asks.
type cardListing struct {
	CSRFToken string `json:"csrf_token"`
	Asks      []struct {
		ID         string `json:"id"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"asks"`
}

// cardList returns the session's pending asks on base's card, once it
// lists want of them.
func (a *agentClient) cardList(base, session string, want int) cardListing {
	a.t.Helper()
	deadline := time.Now().Add(serveWait)
	for {
		r := a.do("GET", base+"/api/sessions/"+session+"/asks", "", map[string]string{"Authorization": ""})
		var l cardListing
		if r.code != 200 || json.Unmarshal([]byte(r.body), &l) != nil {
			a.t.Fatalf("the card's listing on %s: %d %s", base, r.code, r.body)
		}
		if len(l.Asks) == want {
			return l
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the card on %s lists %d asks, want %d: %s", base, len(l.Asks), want, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// submit posts answers to an ask on base's card.
func (a *agentClient) submit(base, askID, csrf, answers string) reply {
	a.t.Helper()
	return a.do("POST", base+"/api/asks/"+askID+"/submit", answers, map[string]string{
		"Authorization": "", "Content-Type": "application/json", "X-CSRF-Token": csrf})
}

// answerOn opens the session's card on base (by the card URL), finds the
// ask of toolCall there, and submits answers; it returns the ask's id.
func (a *agentClient) answerOn(base, cardURL, session, toolCall, answers string) string {
	a.t.Helper()
	a.openCard(cardURL)
	l := a.cardList(base, session, 1)
	if l.Asks[0].ToolCallID != toolCall {
		a.t.Fatalf("the card on %s lists %+v; want the ask of %s", base, l.Asks, toolCall)
	}
	if r := a.submit(base, l.Asks[0].ID, l.CSRFToken, answers); r.code != 200 {
		a.t.Fatalf("submit on %s: %d %s", base, r.code, r.body)
	}
	return l.Asks[0].ID
}

var servingLine = regexp.MustCompile(`serving the agent API and the card on (http://\S+) `)

// serveInProcess is `askuser serve` run in this process.
type serveInProcess struct {
	base   string
	stderr *syncBuffer
	stop   func() int // stops it and returns its exit code
}

// startServe runs `askuser serve args…` in process and returns once it
// serves (the listener opens only once the replica is ready).
func startServe(t *testing.T, args ...string) *serveInProcess {
	t.Helper()
	s := &serveInProcess{stderr: &syncBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, s.stderr)
	}()
	var stopped bool
	var exit int
	s.stop = func() int {
		if !stopped {
			cancel()
			exit, stopped = <-code, true
		}
		return exit
	}
	t.Cleanup(func() { s.stop() })
	for deadline := time.Now().Add(serveWait); ; time.Sleep(10 * time.Millisecond) {
		if m := servingLine.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
			return s
		}
		select {
		case c := <-code:
			stopped, exit = true, c
			t.Fatalf("askuser serve exited %d before serving:\n%s", c, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("askuser serve did not start serving:\n%s", s.stderr.String())
		}
	}
}

// serveFixture is a NATS server embedded in the test and one `askuser
// serve` joining it, with the files they share.
type serveFixture struct {
	nats                              *natsserver.Server
	keyFile, tokenFile, natsTokenFile string
	token                             string
	srv                               *serveInProcess
	natsURL                           string
	stateDir                          string
	args                              []string
}

func newServeFixture(t *testing.T, extra ...string) *serveFixture {
	t.Helper()
	dir := t.TempDir()
	f := &serveFixture{token: "agent-token-0123456789abcdef", stateDir: filepath.Join(dir, "state")}
	f.keyFile = writeKeyFile(t, dir)
	f.tokenFile = writeSecretFile(t, dir, "agent-token", f.token)
	const natsToken = "nats-token-0123456789abcdef"
	f.natsTokenFile = writeSecretFile(t, dir, "nats-token", natsToken)
	emb, err := natsserver.Start(natsserver.Config{StoreDir: filepath.Join(dir, "nats"), Token: natsToken})
	if err != nil {
		t.Fatal(err)
	}
	f.nats, f.natsURL = emb, emb.ClientURL()
	t.Cleanup(emb.Shutdown)
	f.args = append([]string{"--listen", "127.0.0.1:0", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile,
		"--key-file", f.keyFile, "--token-file", f.tokenFile, "--state", f.stateDir, "--max-timeout-seconds", "900"}, extra...)
	f.srv = startServe(t, f.args...)
	return f
}

// TestServeAPI runs askuser serve in process, joined to a NATS server
// embedded in the test, and drives its agent API and its card over
// loopback.
func TestServeAPI(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newServeFixture(t, "--secrets-api")
	base := f.srv.base
	a := newAgentClient(t, f.token)

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
			{"arguments not an object", "POST", "/v1/calls", `{"session":"s","tool_call_id":"c","arguments":"ask me"}`, nil, 400, `"arguments" must be a JSON object`},
			{"invalid ask_user call", "POST", "/v1/calls", callBody("s", "c-bad", "", `{"questions":[]}`), nil, 400, "invalid ask_user arguments"},
			{"invalid pi call: the message and the contract's result", "POST", "/v1/calls", callBody("s", "c-bad-pi", "pi", pi), nil, 400,
				`{"error":"Validation failed:\n- /questions: Expected array length to be greater or equal to 1","result":{"content":[{"type":"text","text":"Validation failed:\n- /questions: Expected array length to be greater or equal to 1"}],"details":{"errors":[{"path":"/questions","message":"Expected array length to be greater or equal to 1"}]},"isError":true}}` + "\n"},
			{"a body too large", "POST", "/v1/calls", `{"session":"` + strings.Repeat("x", maxCallBody) + `"}`, nil, 413, "the body is larger than 256 KiB"},
			{"bad wait", "GET", "/v1/sessions/s/calls/c?wait=soon", "", nil, 400, `wait="soon" is not a whole number of seconds`},
			{"unknown call", "GET", "/v1/sessions/s/calls/never", "", nil, 404, "no ask is known for this session's tool call"},
			{"unknown route", "GET", "/v1/asks", "", nil, 404, "GET /v1/asks is not a route of the agent API"},
			{"no such secret", "GET", "/v1/sessions/s/secrets/NOPE", "", nil, 404, "no secret of this name is stored for this session"},
			{"another host (DNS rebinding)", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Host": "evil.example"}, 421, "answers only for the hosts"},
			{"another host on the card", "GET", "/sessions/s", "", map[string]string{"Host": "evil.example:80"}, 421, "answers only for the hosts"},
			{"another origin", "POST", "/v1/calls", callBody("s", "c", "", serveChoice), map[string]string{"Origin": "http://evil.example"}, 403, "another origin"},
			{"the card without its token", "GET", "/api/sessions/s/asks", "", nil, 403, "you may not answer this session's questions"},
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

	t.Run("ask --server", func(t *testing.T) {
		call := writeFile(t, "call.json", serveChoice)
		type result struct {
			code     int
			out, err string
		}
		done := make(chan result, 1)
		go func() {
			var out, errb syncBuffer
			code := run(context.Background(), []string{"ask", "--server", base, "--token-file", f.tokenFile, "--session", "s4", "--tool-call", "c4", "--request", call}, strings.NewReader(""), &out, &errb)
			done <- result{code, out.String(), errb.String()}
		}()
		p := a.waitPending(base, "s4", "c4")
		a.answerOn(base, p.CardURL, "s4", "c4", serveAnswer)
		r := <-done
		if r.code != 0 || r.out != serveAnswered+"\n" {
			t.Fatalf("ask --server: exit %d, stdout %q, stderr %q; want 0 and the result", r.code, r.out, r.err)
		}
		if !strings.Contains(r.err, "askuser: answer on "+base+"/sessions/s4?token=") {
			t.Errorf("stderr %q; want the card's URL", r.err)
		}
		// An invalid pi call: the contract's result on stdout, the message
		// on stderr, exit 2, as ask gives them.
		bad := writeFile(t, "bad.json", `{"questions":[]}`)
		code, out, errs := cli(t, "", "ask", "--server", base, "--token-file", f.tokenFile, "--dialect", "pi", "--request", bad)
		if code != 2 || !strings.HasPrefix(out, `{"content":[{"type":"text","text":"Validation failed:`) || !strings.Contains(errs, "Validation failed:") {
			t.Errorf("ask --server, invalid pi call: exit %d, stdout %q, stderr %q; want 2, the result and the message", code, out, errs)
		}
		wrong := writeSecretFile(t, t.TempDir(), "wrong", "wrong-token-0123456789abcdef")
		if code, _, errs := cli(t, "", "ask", "--server", base, "--token-file", wrong, "--request", call); code != 1 || !strings.Contains(errs, "401 Unauthorized: the bearer token is missing or wrong") {
			t.Errorf("ask --server with a wrong token: exit %d, stderr %q", code, errs)
		}
	})

	t.Run("secrets and the journal", func(t *testing.T) {
		j := a.callAsync(base, "s5", "c5", serveSecret)
		a.answerOn(base, j.CardURL, "s5", "c5", `{"answers":{"tok":{"secret":"hunter2-value"}}}`)
		r := a.status(base, "s5", "c5", "?wait=30")
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"tok","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}`
		if r.code != 200 || r.body != want {
			t.Fatalf("the secret ask: %d %s; want %s", r.code, r.body, want)
		}
		out := filepath.Join(t.TempDir(), "seen")
		sh := []string{"--", "sh", "-c", `printf %s "$TOKEN" > "$0"`, out}
		for _, src := range [][]string{
			{"--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--key-file", f.keyFile},
			{"--server", base, "--token-file", f.tokenFile},
		} {
			os.Remove(out)
			args := append(append([]string{"secret", "exec"}, src...), append([]string{"--session", "s5", "--env", "TOKEN=session:DEPLOY_TOKEN"}, sh...)...)
			code, stdout, errs := cli(t, "", args...)
			got, _ := os.ReadFile(out)
			if code != 0 || stdout != "" || string(got) != "hunter2-value" {
				t.Errorf("secret exec %s: exit %d, stdout %q, stderr %q; the command saw the value: %v", src[0], code, stdout, errs, string(got) == "hunter2-value")
			}
		}
		// Another session's reference is refused; the command is not run.
		code, _, errs := cli(t, "", "secret", "exec", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--key-file", f.keyFile,
			"--session", "s4", "--env", "TOKEN=session:DEPLOY_TOKEN", "--", "true")
		if code != 1 || !strings.Contains(errs, "the command was not run") {
			t.Errorf("secret exec of another session's secret: exit %d, stderr %q", code, errs)
		}

		code, stdout, errs := cli(t, "", "journal", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile, "--session", "s5", "--json")
		if code != 0 || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, `"tool_call_id":"c5"`) || strings.Contains(stdout, "hunter2") {
			t.Errorf("journal --nats --session s5: exit %d, stdout %q, stderr %q; want the one record, without the value", code, stdout, errs)
		}
		code, stdout, _ = cli(t, "", "journal", "--nats", f.natsURL, "--nats-token-file", f.natsTokenFile)
		if code != 0 || !strings.HasPrefix(stdout, "FINALIZED") || !strings.Contains(stdout, "c1") || !strings.Contains(stdout, "c5") {
			t.Errorf("journal --nats: exit %d, stdout %q", code, stdout)
		}
	})

	// Stopping the replica tells a caller waiting there (the ask exists:
	// its handler is in it) that the ask stays pending (503); a replica
	// started again knows the ask.
	blocked := make(chan reply, 1)
	go func() { blocked <- a.call(base, "s6", "c6", serveChoice, nil) }()
	p := a.waitPending(base, "s6", "c6")
	if code := f.srv.stop(); code != 0 {
		t.Errorf("askuser serve exited %d when stopped; stderr:\n%s", code, f.srv.stderr.String())
	}
	if r := <-blocked; r.code != 503 || !strings.Contains(r.body, "the ask stays pending") {
		t.Errorf("the call waiting when the replica stopped: %d %s; want 503 and that the ask stays pending", r.code, r.body)
	}
	if s := f.srv.stderr.String(); strings.Contains(s, "hunter2") || strings.Contains(s, "level=ERROR") {
		t.Errorf("serve's standard error:\n%s", s)
	}
	again := startServe(t, f.args...)
	if q := a.waitPending(again.base, "s6", "c6"); q.AskID != p.AskID {
		t.Errorf("the replica started again knows ask %s for c6; want %s", q.AskID, p.AskID)
	}
	a.hc.CloseIdleConnections()
	if code := again.stop(); code != 0 {
		t.Errorf("askuser serve exited %d when stopped; stderr:\n%s", code, again.stderr.String())
	}
	f.nats.Shutdown()
}

// TestServeUsage: flags that cannot work are refused before anything
// starts, with what to give instead.
func TestServeUsage(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", "")
	key := writeKeyFile(t, t.TempDir())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "--listen ADDR is required"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "extra"}, "serve takes no arguments"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--nats", "nats://127.0.0.1:1"}, "joining with --nats needs the fleet's key ring"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--nats", "nats://127.0.0.1:1", "--key-file", key, "--nats-listen", "127.0.0.1:4222"}, "with --nats this replica embeds none"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--nats-replicas", "7"}, "--nats-replicas 7: NATS keeps a bucket on 1 to 5 servers"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--journal-retention", "10m"}, "--journal-retention 10m0s: at least 1h0m0s, the window in which a second record of one ask is dropped"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--journal-retention", "-1h"}, "--journal-retention -1h0m0s: at least 1h0m0s"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--allowed-host", "https://card.example/"}, `--allowed-host "https://card.example/" is not a host name`},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--max-timeout-seconds", "-1"}, "--max-timeout-seconds -1 is negative"},
		{[]string{"ask", "--server", "127.0.0.1:8080"}, `--server "127.0.0.1:8080" is not the URL of askuser serve`},
		{[]string{"ask", "--server", "http://127.0.0.1:8080", "--responder", "auto", "--journal", "j"}, "--journal, --responder cannot go with --server"},
		{[]string{"ask", "--token-file", key}, "--token-file is the agent's bearer token for --server URL"},
		{[]string{"secret", "exec", "--server", "http://127.0.0.1:1", "--key-file", key, "--session", "s", "--env", "X=session:X", "--", "true"}, "--server reads the secrets from askuser serve"},
		{[]string{"secret", "exec", "--nats", "nats://127.0.0.1:1", "--store", "d", "--session", "s", "--env", "X=session:X", "--", "true"}, "--nats and --store name two stores"},
		{[]string{"secret", "exec", "--nats-token-file", key, "--session", "s", "--env", "X=session:X", "--", "true"}, "--nats-token-file is for --nats URL"},
		{[]string{"journal", "--nats", "nats://127.0.0.1:1", "file"}, "--nats lists the journal stream; give no FILE"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := cli(t, "", tt.args...)
			if code != exitUsage || out != "" || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, tt.want)
			}
		})
	}
}

// TestServeKeys: the card's tokens derive from the ring's current key, so
// that two replicas reading one key ring (written two ways) agree, and
// another key disagrees; a session's token opens only that session.
func TestServeKeys(t *testing.T) {
	const k1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	const k2 = "HxwdHhscGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	dir := t.TempDir()
	file := func(name, text string) string { return writeSecretFile(t, dir, name, text) }
	derive := func(path string) fleetKeys {
		t.Helper()
		km, err := keyFromFile("--key-file", path)
		if err != nil {
			t.Fatal(err)
		}
		fk, err := km.derive()
		if err != nil {
			t.Fatal(err)
		}
		return fk
	}
	one := derive(file("one", "new:"+k1+",old:"+k2))
	same := derive(file("same", "# the fleet's ring\n  new:"+strings.TrimRight(k1, "=")+"  \nold:"+k2))
	rotated := derive(file("rotated", "newer:"+k2+",new:"+k1))
	if one != same {
		t.Error("one ring written two ways derives two sets of keys")
	}
	if one.access == rotated.access || one.csrf == rotated.csrf {
		t.Error("another current key derives the same keys")
	}
	if one.access == one.csrf {
		t.Error("the access and CSRF keys are the same")
	}
	c := cardAccess{key: one.access}
	if !c.check("s", c.token("s")) || c.check("s", c.token("t")) || c.check("s", "") || c.cookie("s") == c.cookie("t") {
		t.Error("a session's token or cookie is not the session's own")
	}
}

// TestServeJournalRetention: --journal-retention sets the fleet's journal
// stream's retention.
func TestServeJournalRetention(t *testing.T) {
	f := newServeFixture(t, "--journal-retention", "720h")
	nc, err := f.nats.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	st, err := js.Stream(ctx, "askuser_journal")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().Config.MaxAge; got != 720*time.Hour {
		t.Fatalf("the journal stream's retention = %v; want 720h", got)
	}
}
