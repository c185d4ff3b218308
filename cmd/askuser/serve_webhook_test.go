//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser/webhook"
)

// hookReceiver is a webhook endpoint on loopback that checks every
// delivery's signature, and fails the first tries of the asks it is told
// to, or every try while it is down.
type hookReceiver struct {
	t      *testing.T
	secret []byte
	mu     sync.Mutex
	fail   map[string]int // tool call → tries still to fail
	down   bool
	tries  map[string][]int // tool call → the statuses it answered
	got    chan string      // tool calls, at every try
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := webhook.Verify(h.secret, r.Header.Get(webhook.SignatureHeader), body, time.Now(), 0); err != nil {
		h.t.Errorf("a delivery that does not verify: %v", err)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var rec struct {
		AskID      string `json:"ask_id"`
		ToolCallID string `json:"tool_call_id"`
		Status     string `json:"status"`
		Result     json.RawMessage
	}
	if err := json.Unmarshal(body, &rec); err != nil || rec.AskID != r.Header.Get(webhook.IDHeader) || rec.Status != "answered" {
		h.t.Errorf("delivery %s: %s (%v); want the answered ask's journal record, by its id", r.Header.Get(webhook.IDHeader), body, err)
	}
	h.mu.Lock()
	status := http.StatusNoContent
	switch {
	case h.down:
		status = http.StatusServiceUnavailable
	case h.fail[rec.ToolCallID] > 0:
		h.fail[rec.ToolCallID]--
		status = http.StatusInternalServerError
	}
	h.tries[rec.ToolCallID] = append(h.tries[rec.ToolCallID], status)
	h.mu.Unlock()
	w.WriteHeader(status)
	h.got <- rec.ToolCallID
}

func (h *hookReceiver) statuses(call string) []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.tries[call])
}

// wait returns once the tool call has been tried n times in all.
func (h *hookReceiver) wait(call string, n int) {
	h.t.Helper()
	timeout := time.After(serveWait)
	for len(h.statuses(call)) < n {
		select {
		case <-h.got:
		case <-timeout:
			h.t.Fatalf("the webhook got %v for %s; want %d tries", h.statuses(call), call, n)
		}
	}
}

// TestServeWebhooks: a final result is POSTed, signed, to --webhook; a
// receiver that fails twice gets it a third time and then never again;
// and a result whose replica was SIGKILLed before the receiver took it is
// delivered by another replica.
func TestServeWebhooks(t *testing.T) {
	bin := buildAskuser(t)
	dir := t.TempDir()
	const secret = "webhook-secret-0123456789abcdef"
	secretFile := writeSecretFile(t, dir, "webhook-secret", secret)
	h := &hookReceiver{t: t, secret: []byte(secret), fail: map[string]int{"c1": 2}, tries: map[string][]int{}, got: make(chan string, 64)}
	recv := httptest.NewServer(h)
	defer recv.Close()

	f := newServeFixture(t) // E: no webhook of its own
	hooks := []string{"--webhook", recv.URL + "/hooks/askuser?key=in-the-url", "--webhook-secret-file", secretFile}
	argsA := append(slices.Clone(f.args), hooks...)
	argsA[slices.Index(argsA, "--state")+1] = filepath.Join(dir, "a")
	a := startServeProc(t, bin, argsA...)
	agent := newAgentClient(t, f.token)
	person := newAgentClient(t, f.token)

	// 1. Answered on E: A delivers it; 500, 500, then taken.
	answer := func(call string) {
		t.Helper()
		p := agent.callAsync(f.srv.base, "s", call, serveChoice)
		person.answerOn(f.srv.base, p.CardURL, "s", call, serveAnswer)
		if r := agent.status(f.srv.base, "s", call, "?wait=30"); r.code != 200 || r.body != serveAnswered {
			t.Fatalf("%s: %d %s; want %s", call, r.code, r.body, serveAnswered)
		}
	}
	answer("c1")
	h.wait("c1", 3)

	// 2. The receiver is down when c2 ends; A, which tries it, is killed;
	// B, started afterwards, delivers it.
	h.mu.Lock()
	h.down = true
	h.mu.Unlock()
	answer("c2")
	h.wait("c2", 1)
	a.kill()
	h.mu.Lock()
	h.down = false
	h.mu.Unlock()
	argsB := append(slices.Clone(f.args), hooks...)
	argsB[slices.Index(argsB, "--state")+1] = filepath.Join(dir, "b")
	b := startServeProc(t, bin, argsB...)
	tries := len(h.statuses("c2"))
	h.wait("c2", tries+1)
	b.stop(t)

	if got, want := h.statuses("c1"), []int{500, 500, 204}; !slices.Equal(got, want) {
		t.Errorf("c1's tries answered %v; want %v: delivered once after two failures", got, want)
	}
	got := h.statuses("c2")
	if n := len(got); got[n-1] != 204 || slices.Contains(got[:n-1], 204) {
		t.Errorf("c2's tries answered %v; want failures while the receiver was down, then one 204", got)
	}
	for _, p := range []*serveProc{a, b} {
		if s := p.stderr.String(); strings.Contains(s, "in-the-url") || strings.Contains(s, "/hooks/") {
			t.Errorf("serve logged the webhook URL's path or query:\n%s", s)
		}
	}
	if s := a.stderr.String(); !strings.Contains(s, "a webhook delivery failed; it will be tried again") {
		t.Errorf("A did not log the failed deliveries:\n%s", s)
	}
}

// TestServeWebhookUsage: a --webhook that cannot work is refused before
// anything starts, naming only the URL's scheme and host.
func TestServeWebhookUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--webhook", "ftp://hooks.example/x"}, `--webhook: webhook URL "ftp://hooks.example": want an http:// or https:// URL with a host`},
		{[]string{"--webhook", "https://hooks.example/x?k=1", "--webhook", "https://hooks.example/x?k=1"}, "--webhook https://hooks.example is given twice"},
		{[]string{"--webhook-secret-file", "f"}, "--webhook-secret-file signs the deliveries to --webhook URL and --step-webhook NAME=URL: give at least one of them"},
	} {
		code, out, errs := cli(t, "", append([]string{"serve", "--listen", "127.0.0.1:0"}, tt.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tt.want) || strings.Contains(errs, "k=1") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, code, out, errs, tt.want)
		}
	}
}
