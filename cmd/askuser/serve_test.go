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
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

// pendingJSON is a 202 of the agent API: a call begun with Prefer:
// respond-async, or a status while the ask is pending.
type pendingJSON struct {
	Status    string `json:"status"`
	AskID     string `json:"ask_id"`
	CardURL   string `json:"card_url"`
	StatusURL string `json:"status_url"`
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
func (a *agentClient) callAsync(base, session, toolCall, args string) pendingJSON {
	a.t.Helper()
	r := a.call(base, session, toolCall, args, map[string]string{"Prefer": "respond-async"})
	var j pendingJSON
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
func (a *agentClient) waitPending(base, session, toolCall string) pendingJSON {
	a.t.Helper()
	deadline := time.Now().Add(serveWait)
	for {
		r := a.status(base, session, toolCall, "")
		var j pendingJSON
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
// loopback: what the command wires (the bearer token, the hosts, the card
// and its key ring, --secrets-api, the shared store), and the commands
// that talk to it (ask --server, secret exec, journal --nats). The agent
// API itself is the serve package's, and tested there.
func TestServeAPI(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	f := newServeFixture(t, "--secrets-api")
	base := f.srv.base
	a := newAgentClient(t, f.token)

	t.Run("wiring", func(t *testing.T) {
		tests := []struct {
			name         string
			method, path string
			hdr          map[string]string
			code         int
			want         string // a part of the body
		}{
			{"no token", "POST", "/v1/calls", map[string]string{"Authorization": ""}, 401, "the bearer token is missing or wrong"},
			{"wrong token", "POST", "/v1/calls", map[string]string{"Authorization": "Bearer agent-token-0123456789abcdeX"}, 401, "the bearer token is missing or wrong"},
			{"unknown route, with the secrets API", "GET", "/v1/asks", nil, 404, "GET /v1/asks is not a route of the agent API; its routes are POST /v1/calls, GET /v1/sessions/{session}/calls/{tool_call_id}, POST /v1/sessions/{session}/supersede, GET /v1/sessions/{session}/secrets/{name}"},
			{"no such secret", "GET", "/v1/sessions/s/secrets/NOPE", nil, 404, "no secret of this name is stored for this session"},
			{"another host (DNS rebinding)", "POST", "/v1/calls", map[string]string{"Host": "evil.example"}, 421, "answers only for the hosts"},
			{"another host on the card", "GET", "/sessions/s", map[string]string{"Host": "evil.example:80"}, 421, "answers only for the hosts"},
			{"the card without its token", "GET", "/api/sessions/s/asks", nil, 403, "no access token for this session: open the card URL"},
			{"the card with a wrong token", "GET", "/sessions/s?token=00", nil, 403, "the access token is wrong for this session"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := a.do(tt.method, base+tt.path, callBody("s", "c", "", serveChoice), tt.hdr)
				if r.code != tt.code || !strings.Contains(r.body, tt.want) {
					t.Errorf("%d %s; want %d and %q", r.code, r.body, tt.code, tt.want)
				}
			})
		}
	})

	t.Run("blocking call answered on the card, then replayed", func(t *testing.T) {
		res := make(chan reply, 1)
		go func() { res <- a.call(base, "s1", "c1", serveChoice, nil) }()
		p := a.waitPending(base, "s1", "c1")
		if want := base + "/v1/sessions/s1/calls/c1"; p.StatusURL != want || !strings.HasPrefix(p.CardURL, base+"/sessions/s1?token=") {
			t.Errorf("status_url %s, card_url %s; want %s and %s/sessions/s1?token=…", p.StatusURL, p.CardURL, want, base)
		}
		a.answerOn(base, p.CardURL, "s1", "c1", serveAnswer)
		if r := <-res; r.code != 200 || r.body != serveAnswered {
			t.Fatalf("the blocking call: %d %s; want 200 and exactly %s", r.code, r.body, serveAnswered)
		}
		if r := a.call(base, "s1", "c1", serveChoice, nil); r.code != 200 || r.body != serveAnswered {
			t.Errorf("the call retried: %d %s; want the replay of %s", r.code, r.body, serveAnswered)
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

// TestServeKeyFiles: a key file's ring is its current key however the
// file is written, so that two replicas reading one key ring (written two
// ways) derive the same card keys, and another current key others.
func TestServeKeyFiles(t *testing.T) {
	const k1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	const k2 = "HxwdHhscGxoZGBcWFRQTEhEQDw4NDAsKCQgHBgUEAwI="
	dir := t.TempDir()
	file := func(name, text string) string { return writeSecretFile(t, dir, name, text) }
	derive := func(path string) [32]byte {
		t.Helper()
		km, err := keyFromFile("--key-file", path)
		if err != nil {
			t.Fatal(err)
		}
		k, err := km.ring.Derive("askuser serve: card access tokens")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	one := derive(file("one", "new:"+k1+",old:"+k2))
	same := derive(file("same", "# the fleet's ring\n  new:"+strings.TrimRight(k1, "=")+"  \nold:"+k2))
	rotated := derive(file("rotated", "newer:"+k2+",new:"+k1))
	if one != same {
		t.Error("one ring written two ways derives two keys")
	}
	if one == rotated {
		t.Error("another current key derives the same key")
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

// TestServerRefusals: ask --server and secret exec --server say what a
// service that refuses said, and exit 1 (2 for an invalid call).
func TestServerRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/v1/calls" && strings.Contains(r.Header.Get("Prefer"), "respond-async") && r.Header.Get("X-Test") == "":
			var c struct{ Session string }
			_ = json.NewDecoder(r.Body).Decode(&c)
			switch c.Session {
			case "proxy":
				http.Error(w, "<html>bad gateway\x1b[2J</html>", http.StatusBadRequest)
			case "broken":
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"error":"the store is on fire"}`))
			default:
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid ask_user arguments: no"}`))
			}
		case strings.Contains(r.URL.Path, "/secrets/"):
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"GET ` + r.URL.Path + ` is not a route of the agent API"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	tokenFile := writeSecretFile(t, dir, "agent-token", "agent-token-0123456789abcdef")
	call := writeFile(t, "call.json", serveChoice)
	for _, tt := range []struct {
		session string
		code    int
		stdout  string
		stderr  string
	}{
		{"proxy", 1, "", "askuser ask: the server refused the call: 400 Bad Request: <html>bad gateway\\x1b[2J</html>\n"},
		{"broken", 1, "", "askuser ask: the server refused the call: 500 Internal Server Error: the store is on fire\n"},
		{"invalid", 2, "", "invalid ask_user arguments: no\n"},
	} {
		code, out, errs := cli(t, "", "ask", "--server", srv.URL, "--token-file", tokenFile, "--session", tt.session, "--request", call)
		if code != tt.code || out != tt.stdout || errs != tt.stderr {
			t.Errorf("ask --server, session %s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.session, code, out, errs, tt.code, tt.stdout, tt.stderr)
		}
	}
	code, _, errs := cli(t, "", "secret", "exec", "--server", srv.URL, "--token-file", tokenFile, "--session", "s", "--env", "X=session:X", "--", "true")
	if code != 1 || !strings.Contains(errs, "the server does not serve secrets to the agent's token (askuser serve runs without --secrets-api): resolve them with --nats and the key ring instead") {
		t.Errorf("secret exec --server without --secrets-api: exit %d, stderr %q", code, errs)
	}
}
