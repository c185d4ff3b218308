package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

// TestServeSlackFleet: two replicas of askuser serve with the same
// --slack-* flags, on one NATS with JetStream, work as one: an ask begun
// on A is posted once; a click posted to B's endpoint answers it; the same
// signed click replayed to A changes nothing; an ask answered on B's card
// has the message A posted edited; each message is edited once.
func TestServeSlackFleet(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	f := newServeFixture(t, slackArgs(t, fake, dir)...)
	srvA := f.srv
	srvB := startServe(t, f.args...)
	a := newAgentClient(t, f.token)

	j := a.callAsync(srvA.base, "s", "c1", slackChoice)
	posted := nextCall(t, fake.Posted, "chat.postMessage")
	pick := slacktest.Buttons(posted)["askuser_pick"]
	if len(pick) != 2 {
		t.Fatalf("buttons %v; want one per option", slacktest.Buttons(posted))
	}
	click := slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[1])
	at := time.Now()
	req := slacktest.Signed(srvB.base+"/slack/interactivity", click, at, slacktest.SigningSecret)
	replay := slacktest.Signed(srvA.base+"/slack/interactivity", click, at, slacktest.SigningSecret) // the same signed request
	if code := do(t, req); code != http.StatusOK {
		t.Fatalf("the click on B: %d", code)
	}
	s := a.status(srvA.base, "s", "c1", "?wait=30")
	if s.code != http.StatusOK || !strings.Contains(s.body, `"production"`) {
		t.Fatalf("the ask after the click on B: %d %s; want production", s.code, s.body)
	}
	up := nextCall(t, fake.Updated, "chat.update")
	if !strings.Contains(up.Form.Get("blocks"), "U1") || strings.Contains(up.Form.Get("blocks"), `"actions"`) {
		t.Errorf("the edited message %s; want who decided, no buttons", up.Form.Get("blocks"))
	}
	if code := do(t, replay); code != http.StatusOK {
		t.Errorf("the replay on A: %d", code)
	}

	// An ask begun on A, answered on B's card.
	j = a.callAsync(srvA.base, "s", "c2", slackChoice)
	nextCall(t, fake.Posted, "chat.postMessage")
	a.answerOn(srvB.base, strings.Replace(j.CardURL, srvA.base, srvB.base, 1), "s", "c2", `{"answers":{"env":{"selected":["staging"]}}}`)
	up = nextCall(t, fake.Updated, "chat.update")
	if !strings.Contains(up.Form.Get("blocks"), "staging") || strings.Contains(up.Form.Get("blocks"), `"actions"`) {
		t.Errorf("the message of the ask answered on B's card %s; want the answer and no buttons", up.Form.Get("blocks"))
	}

	// Once both replicas have stopped (every post, edit and click done),
	// nothing more was posted or edited: each message once, each edit once,
	// the replay not acted on.
	srvB.stop()
	srvA.stop()
	if n := len(fake.Posted); n != 0 {
		t.Errorf("%d more messages were posted; want one per ask", n)
	}
	if n := len(fake.Updated); n != 0 {
		t.Errorf("%d more edits were made; want one per ask", n)
	}
	for _, e := range fake.Ephemerals() {
		t.Errorf("an ephemeral reply %q: the replay was acted on", e)
	}
}

// do sends req on a connection of its own and returns its status code.
func do(t *testing.T, req *http.Request) int {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeSlackFleetOneTimeLink: the one-time card link replica A sends
// for a secret (a click on A's endpoint) opens on replica B — its page,
// then its button, which admits the browser to the ask (303 and a
// cookie) — and, used, is refused on A and on B: the link's note is in
// the fleet's shared store, not in A's memory.
func TestServeSlackFleetOneTimeLink(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	f := newServeFixture(t, slackArgs(t, fake, dir)...)
	srvA := f.srv
	srvB := startServe(t, f.args...)
	a := newAgentClient(t, f.token)

	a.callAsync(srvA.base, "s", "c1", slackSecret)
	posted := nextCall(t, fake.Posted, "chat.postMessage")
	card := slacktest.Buttons(posted)["askuser_card"]
	if len(card) != 1 {
		t.Fatalf("buttons %v; want the card button", slacktest.Buttons(posted))
	}
	click := slacktest.Click(slacktest.Team, "U1", "askuser_card", card[0])
	if code := do(t, slacktest.Signed(srvA.base+"/slack/interactivity", click, time.Now(), slacktest.SigningSecret)); code != http.StatusOK {
		t.Fatalf("the click on A: %d", code)
	}
	var path string
	for deadline := time.Now().Add(serveWait); path == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, e := range fake.Ephemerals() {
			if m := onceRE.FindStringSubmatch(e); m != nil {
				path = m[1]
			}
		}
	}
	if path == "" {
		t.Fatalf("no one-time link was sent to U1: ephemerals %q", fake.Ephemerals())
	}
	open := func(method, base string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := open(http.MethodGet, srvB.base); resp.StatusCode != http.StatusOK || !strings.Contains(body, `<form method="post">`) {
		t.Fatalf("GET of A's link on B: %d %s; want its page with the button", resp.StatusCode, body)
	}
	if resp, body := open(http.MethodPost, srvB.base); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("POST of A's link on B: %d %v %s; want 303 and the cookie that admits to the ask", resp.StatusCode, resp.Header, body)
	}
	for name, base := range map[string]string{"A": srvA.base, "B": srvB.base} {
		if resp, body := open(http.MethodPost, base); resp.StatusCode != http.StatusGone || !strings.Contains(body, "used already") {
			t.Errorf("the used link on %s: %d %s; want 410 saying it was used", name, resp.StatusCode, body)
		}
	}
}

// slackSecret is a call with a secret question, which Slack links to the
// card.
const slackSecret = `{"questions":[{"id":"token","header":"Token","question":"Paste the deploy token","kind":"secret","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":300}`

// onceRE finds the path of a one-time card link in a Slack message.
var onceRE = regexp.MustCompile(`https?://[^/|>\s]+(/once/[A-Za-z0-9_-]+)`)
