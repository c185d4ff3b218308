package main

import (
	"io"
	"net/http"
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
