//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
