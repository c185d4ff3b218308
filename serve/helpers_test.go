package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Calls and results the tests use. The deadlines are far: nothing here
// waits for one unless it says so.
const (
	serveChoice   = `{"questions":[{"id":"env","header":"Env","question":"Where first?","options":[{"label":"staging","description":"s"},{"label":"production","description":"p"}]}],"timeout_seconds":600}`
	serveAnswered = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`
	serveAnswer   = `{"answers":{"env":{"selected":["production"]}}}`
	serveSecret   = `{"questions":[{"kind":"secret","id":"tok","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to push the release"}],"timeout_seconds":600}`
)

// testToken is the agent's bearer token in the tests.
const testToken = "agent-token-0123456789abcdef"

// serveWait bounds every wait of the tests for something to happen.
const serveWait = time.Minute

// testRing is a key ring of one fixed key.
func testRing(t *testing.T) *secretstore.KeyRing {
	t.Helper()
	ring, err := secretstore.ParseKeys("fleet-1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// A replica is one Handler on an httptest.Server, with its orchestrator
// and card, over a pending-ask store replicas may share.
type replica struct {
	o    *askuser.Orchestrator
	card *Card
	srv  *httptest.Server
	base string
}

// newReplica serves a Handler over asks (nil: a store of its own) and
// closes everything when the test ends. setup, if not nil, changes the
// Handler's config before it is made.
func newReplica(t *testing.T, asks store.Pending, setup func(*Config)) *replica {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	if asks == nil {
		asks = store.NewMemory(0)
	}
	card, err := NewCard(CardConfig{Keys: testRing(t), Web: web.Options{Logger: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: card, Asks: asks, Logger: quiet, Limits: dialect.Limits{MaxTimeoutSeconds: 900},
		Secrets: secretstore.NewMemory(nil), Dialects: []askuser.Dialect{pi.Dialect(), piask.Dialect()}}
	t.Cleanup(func() { o.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), serveWait)
	defer cancel()
	if err := o.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	c := Config{Orchestrator: o, Tokens: []string{testToken}, Card: card, Logger: quiet}
	if setup != nil {
		setup(&c)
	}
	srv := httptest.NewServer(validated(t, NewHandler(c)))
	t.Cleanup(srv.Close)
	return &replica{o: o, card: card, srv: srv, base: srv.URL}
}

// agentClient talks to the service as an agent (the API, with the bearer
// token) and as a person (the card, with its cookie jar).
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
