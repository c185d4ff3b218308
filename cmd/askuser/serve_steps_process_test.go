//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser/responders/slack/slacktest"
	"github.com/askuser-go/askuser/webhook"
)

// stepReceiver is a loopback endpoint of --step-webhook: it checks each
// notice's signature and counts them by channel and ask.
type stepReceiver struct {
	t      *testing.T
	secret []byte
	mu     sync.Mutex
	told   map[string][]string // channel -> ask ids, in order
}

func (s *stepReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := webhook.Verify(s.secret, r.Header.Get(webhook.SignatureHeader), body, time.Now(), time.Minute); err != nil {
		s.t.Errorf("a step notice with a bad signature: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var n stepNotice
	if err := json.Unmarshal(body, &n); err != nil || n.Event != "step" {
		s.t.Errorf("a step notice that is not one: %s", body)
	}
	s.mu.Lock()
	s.told[n.Channel] = append(s.told[n.Channel], n.AskID)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *stepReceiver) count(channel string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.told[channel]...)
}

// TestServeRouteStepsSurviveKill runs three `askuser serve` processes on
// one NATS (E embeds it; A and B join) with a route of three steps: the
// card, then webhook:two 3 s later, then webhook:three 3 s after that,
// both --step-webhook endpoints on loopback. A call begins on A, and A is
// SIGKILLed as soon as the ask is pending (its first step told). Each
// later step is told exactly once across E and B; the deadline (12 s)
// still ends the ask, with the recommended default; the journal holds one
// record of it.
func TestServeRouteStepsSurviveKill(t *testing.T) {
	bin := buildAskuser(t)
	dir := t.TempDir()
	keyFile := writeKeyFile(t, dir)
	const token = "agent-token-0123456789abcdef"
	const hookSecret = "step-webhook-secret-0123456789abcdef"
	tokenFile := writeSecretFile(t, dir, "agent-token", token)
	natsTokenFile := writeSecretFile(t, dir, "nats-token", "nats-token-0123456789abcdef")
	secretFile := writeSecretFile(t, dir, "webhook-secret", hookSecret)
	routes := filepath.Join(dir, "routes.yaml")
	if err := os.WriteFile(routes, []byte(`routes:
  escalate:
    steps:
      - responders: [card]
      - after: 3s
        responders: [webhook:two]
      - after: 3s
        responders: [webhook:three]
rules:
  - route: escalate
`), 0o600); err != nil {
		t.Fatal(err)
	}
	recv := &stepReceiver{t: t, secret: []byte(hookSecret), told: map[string][]string{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: recv, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	hook := "http://" + ln.Addr().String()

	natsListen := "127.0.0.1:" + freePort(t)
	natsURL := "nats://" + natsListen
	common := []string{"--key-file", keyFile, "--token-file", tokenFile, "--nats-token-file", natsTokenFile,
		"--routes", routes, "--webhook-secret-file", secretFile,
		"--step-webhook", "two=" + hook + "/two", "--step-webhook", "three=" + hook + "/three"}
	e := startServeProc(t, bin, append([]string{"--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "e"), "--nats-listen", natsListen}, common...)...)
	joining := func(name string) []string {
		return append([]string{"--listen", "127.0.0.1:0", "--state", filepath.Join(dir, name), "--nats", natsURL}, common...)
	}
	a := startServeProc(t, bin, joining("a")...)
	b := startServeProc(t, bin, joining("b")...)
	agent := newAgentClient(t, token)

	call := strings.Replace(serveChoice, `"timeout_seconds":600`, `"timeout_seconds":12`, 1)
	p := agent.callAsync(a.base, "s", "c1", call)
	a.kill() // right after the first step: the ask is pending, on the card
	if n := len(recv.count("webhook:two")) + len(recv.count("webhook:three")); n != 0 {
		t.Fatalf("a later step was told before its delay: %d notices", n)
	}
	r := agent.status(e.base, "s", "c1", "?wait=30")
	if r.code != http.StatusOK || !strings.Contains(r.body, `"status":"timed_out"`) || !strings.Contains(r.body, `"selected":["staging"]`) {
		t.Fatalf("the call after its deadline: %d %s; want 200, timed_out with the recommended default", r.code, r.body)
	}
	// A notice sent just before the deadline may still be on its way.
	time.Sleep(500 * time.Millisecond)
	for _, ch := range []string{"webhook:two", "webhook:three"} {
		if got := recv.count(ch); len(got) != 1 || got[0] != p.AskID {
			t.Errorf("%s was told %v; want once, of ask %s", ch, got, p.AskID)
		}
	}
	out, err := exec.Command(bin, "journal", "--nats", natsURL, "--nats-token-file", natsTokenFile, "--session", "s", "--json").Output()
	if err != nil {
		t.Fatalf("journal --nats: %v", err)
	}
	if n := strings.Count(string(out), `"ask_id":"`+p.AskID+`"`); n != 1 {
		t.Errorf("the journal holds %d records of the ask; want 1:\n%s", n, out)
	}
	b.stop(t)
	e.stop(t)
	for _, s := range []*serveProc{b, e} {
		if log := s.stderr.String(); strings.Contains(log, "level=ERROR") {
			t.Errorf("serve on %s logged an error:\n%s", s.base, log)
		}
	}
}

// oncallRoutes is docs/routing.md's on-call escalation, its delays in
// seconds: the card first; 3 s later the #ops channel on Slack; 3 s after
// that the on-call lead by email.
const oncallRoutes = `routes:
  oncall:
    steps:
      - responders: [card]
      - after: 3s
        responders: [slack:#ops]
      - after: 3s
        people: [lead@example.com]
        responders: [email]
rules:
  - route: oncall
`

// asksPosted drains the fake's chat.postMessage calls of asks (not the
// nudges in their threads), by channel.
func asksPosted(fake *slacktest.Fake) map[string][]slacktest.Call {
	out := map[string][]slacktest.Call{}
	for {
		select {
		case c := <-fake.Posted:
			if c.Form.Get("thread_ts") == "" {
				out[c.Form.Get("channel")] = append(out[c.Form.Get("channel")], c)
			}
		default:
			return out
		}
	}
}

// mailsTo drains the mailbox, and returns the recipients of the mails.
func mailsTo(t *testing.T, mb *mailbox) []string {
	t.Helper()
	var out []string
	for {
		select {
		case raw := <-mb.got:
			msg, err := mail.ReadMessage(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, msg.Header.Get("To"))
		default:
			return out
		}
	}
}

// TestServeRouteSlackEmailSteps runs three `askuser serve` processes on
// one NATS (E embeds it; A and B join), each with Slack (a fake Web API on
// loopback), email (an SMTP server on loopback) and the on-call routes
// file. A call begins on A, and A is SIGKILLed as soon as it is pending:
// nothing is posted or mailed then (the first step is the card alone);
// at 3 s one message is posted, to #ops, by E or B (the step's timer on a
// replica that did not begin the ask); at 6 s one mail goes to the lead;
// the deadline (12 s) still ends it with the recommended default. A second
// call begun on B is answered by a click on its #ops message sent to E:
// the journal says it was answered via slack:#ops in step 1.
func TestServeRouteSlackEmailSteps(t *testing.T) {
	bin := buildAskuser(t)
	dir := t.TempDir()
	fake := slacktest.New()
	defer fake.Close()
	mb := newMailbox(t)
	keyFile := writeKeyFile(t, dir)
	const token = "agent-token-0123456789abcdef"
	tokenFile := writeSecretFile(t, dir, "agent-token", token)
	natsTokenFile := writeSecretFile(t, dir, "nats-token", "nats-token-0123456789abcdef")
	routes := filepath.Join(dir, "routes.yaml")
	if err := os.WriteFile(routes, []byte(oncallRoutes), 0o600); err != nil {
		t.Fatal(err)
	}
	natsListen := "127.0.0.1:" + freePort(t)
	natsURL := "nats://" + natsListen
	common := append([]string{"--key-file", keyFile, "--token-file", tokenFile, "--nats-token-file", natsTokenFile, "--routes", routes,
		"--public-url", "http://askuser.test", "--smtp", mb.addr, "--smtp-from", "askuser@example.test", "--email-to", "oncall@example.test"},
		slackArgs(t, fake, dir)...)
	e := startServeProc(t, bin, append([]string{"--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "e"), "--nats-listen", natsListen}, common...)...)
	joining := func(name string) []string {
		return append([]string{"--listen", "127.0.0.1:0", "--state", filepath.Join(dir, name), "--nats", natsURL}, common...)
	}
	a := startServeProc(t, bin, joining("a")...)
	b := startServeProc(t, bin, joining("b")...)
	agent := newAgentClient(t, token)

	call := strings.Replace(serveChoice, `"timeout_seconds":600`, `"timeout_seconds":12`, 1)
	p := agent.callAsync(a.base, "s", "c1", call)
	a.kill() // right after the first step: the ask is pending, on the card
	if got := asksPosted(fake); len(got) != 0 {
		t.Fatalf("posted %v at the first step; want nothing (the card alone)", got)
	}
	r := agent.status(e.base, "s", "c1", "?wait=30")
	if r.code != http.StatusOK || !strings.Contains(r.body, `"status":"timed_out"`) || !strings.Contains(r.body, `"selected":["staging"]`) {
		t.Fatalf("the call after its deadline: %d %s; want 200, timed_out with the recommended default", r.code, r.body)
	}
	time.Sleep(500 * time.Millisecond) // a mail sent just before the deadline may still be on its way
	posted := asksPosted(fake)
	if len(posted) != 1 || len(posted["#ops"]) != 1 {
		t.Fatalf("posted %v; want one message, to #ops", posted)
	}
	if id := posted["#ops"][0].Form.Get("blocks"); !strings.Contains(id, p.AskID) {
		t.Errorf("the #ops message does not name ask %s: %s", p.AskID, id)
	}
	if got := mailsTo(t, mb); len(got) != 1 || got[0] != "lead@example.com" {
		t.Fatalf("mailed %q; want one mail, to lead@example.com", got)
	}

	// A click at step 2 answers.
	call = strings.Replace(serveChoice, `"timeout_seconds":600`, `"timeout_seconds":30`, 1)
	agent.callAsync(b.base, "s", "c2", call)
	msg := nextCall(t, fake.Posted, "the #ops message of the second call")
	if ch := msg.Form.Get("channel"); ch != "#ops" {
		t.Fatalf("the second call posted to %s; want #ops", ch)
	}
	pick := slacktest.Buttons(msg)["askuser_pick"]
	if len(pick) != 2 {
		t.Fatalf("buttons %v; want one per option", slacktest.Buttons(msg))
	}
	click := slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[1])
	if code := do(t, slacktest.Signed(e.base+"/slack/interactivity", click, time.Now(), slacktest.SigningSecret)); code != http.StatusOK {
		t.Fatalf("the click on E: %d", code)
	}
	r = agent.status(e.base, "s", "c2", "?wait=30")
	if r.code != http.StatusOK || !strings.Contains(r.body, `"status":"answered"`) || !strings.Contains(r.body, `"selected":["production"]`) {
		t.Fatalf("the second call after the click: %d %s; want answered, production", r.code, r.body)
	}
	out, err := exec.Command(bin, "journal", "--nats", natsURL, "--nats-token-file", natsTokenFile, "--session", "s", "--json").Output()
	if err != nil {
		t.Fatalf("journal --nats: %v", err)
	}
	var c1, c2 map[string]any
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		n++
		switch rec["tool_call_id"] {
		case "c1":
			c1 = rec
		case "c2":
			c2 = rec
		}
	}
	if n != 2 || c1 == nil || c2 == nil {
		t.Fatalf("the journal holds %d records; want one of each call:\n%s", n, out)
	}
	if step, _ := c1["step"].(map[string]any); step == nil || fmt.Sprint(step["step"]) != "2" || c1["answered_by"] != "timeout" {
		t.Errorf("the first call's record: step %v, answered_by %v; want step 2 (the lead's), the deadline", c1["step"], c1["answered_by"])
	}
	step, _ := c2["step"].(map[string]any)
	if c2["answered_via"] != "slack:#ops" || step == nil || fmt.Sprint(step["step"]) != "1" || c2["answered_by"] != "user" {
		t.Errorf("the second call's record: answered_via %v, step %v, answered_by %v; want slack:#ops, step 1, user", c2["answered_via"], c2["step"], c2["answered_by"])
	}
	b.stop(t)
	e.stop(t)
	if got := asksPosted(fake); len(got) != 0 {
		t.Errorf("more messages were posted: %v", got)
	}
	// The second call was answered about 3 s before its mail was due: a
	// replica slow enough may have begun that step first, and mailed the
	// lead once; never more, and nobody else.
	if got := mailsTo(t, mb); len(got) > 1 || len(got) == 1 && got[0] != "lead@example.com" {
		t.Errorf("more mails were sent: %q; want at most the second call's one to the lead", got)
	}
	for _, s := range []*serveProc{b, e} {
		if log := s.stderr.String(); strings.Contains(log, "level=ERROR") {
			t.Errorf("serve on %s logged an error:\n%s", s.base, log)
		}
	}
}
