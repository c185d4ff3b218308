//go:build unix

package main

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askuser-go/askuser/internal/testport"
)

// serveProc is one `askuser serve` process of the built command.
type serveProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	stderr *syncBuffer
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

// startServeProc starts `askuser serve args…` and returns once it serves
// (its listener opens only once the replica is ready). The process is
// killed when the test ends, if it is still running.
func startServeProc(t *testing.T, bin string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = io.Discard, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	for deadline := time.Now().Add(serveWait); ; time.Sleep(10 * time.Millisecond) {
		if m := servingLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.base = m[1]
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("askuser serve %s exited before serving (%v):\n%s", strings.Join(args, " "), p.err, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("askuser serve %s did not start serving:\n%s", strings.Join(args, " "), p.stderr.String())
		}
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(serveWait):
		t.Fatalf("askuser serve on %s did not stop after SIGTERM:\n%s", p.base, p.stderr.String())
	}
	if p.err != nil {
		t.Errorf("askuser serve on %s: %v after SIGTERM; want exit 0:\n%s", p.base, p.err, p.stderr.String())
	}
}

// kill kills the process with SIGKILL: nothing of it runs after.
func (p *serveProc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// freePort returns a loopback port free a moment ago, below the
// ephemeral range: E is started again on the same ports, and no outgoing
// connection can take them there while it is down.
func freePort(t *testing.T) string {
	t.Helper()
	return strconv.Itoa(testport.Free(t))
}

// TestServeProcesses runs a fleet of three `askuser serve` processes: E
// embeds NATS on a port the test picks, A and B join it; one key file, one
// agent token. A call waiting on A is answered on B's card, with nobody
// waiting on B; A is SIGKILLed in the middle of a second call, which is
// retried on E, joins the ask (nobody is asked twice) and gets the answer;
// a third call is left pending on B, every process is stopped, and E is
// started again with the same --state and ports: the ask is still pending,
// listed on the card and answerable, and the journal stream holds one
// record per ask.
func TestServeProcesses(t *testing.T) {
	bin := buildAskuser(t)
	dir := t.TempDir()
	keyFile := writeKeyFile(t, dir)
	const token = "agent-token-0123456789abcdef"
	tokenFile := writeSecretFile(t, dir, "agent-token", token)
	natsTokenFile := writeSecretFile(t, dir, "nats-token", "nats-token-0123456789abcdef")
	natsListen := "127.0.0.1:" + freePort(t)
	natsURL := "nats://" + natsListen
	common := []string{"--key-file", keyFile, "--token-file", tokenFile, "--nats-token-file", natsTokenFile, "--max-timeout-seconds", "900"}
	argsE := append([]string{"--listen", "127.0.0.1:" + freePort(t), "--state", filepath.Join(dir, "e"), "--nats-listen", natsListen}, common...)
	joining := func(name string) []string {
		return append([]string{"--listen", "127.0.0.1:0", "--state", filepath.Join(dir, name), "--nats", natsURL}, common...)
	}

	e := startServeProc(t, bin, argsE...)
	a := startServeProc(t, bin, joining("a")...)
	b := startServeProc(t, bin, joining("b")...)
	agent := newAgentClient(t, token)
	person := newAgentClient(t, token) // a browser of its own

	// 1. A blocking call on A, answered on B's card with nobody waiting on B.
	res := make(chan reply, 1)
	go func() { res <- agent.call(a.base, "s", "c1", serveChoice, nil) }()
	p := agent.waitPending(b.base, "s", "c1")
	if !strings.HasPrefix(p.CardURL, b.base+"/sessions/s?token=") {
		t.Fatalf("B's card URL %s; want %s/sessions/s?token=…", p.CardURL, b.base)
	}
	person.answerOn(b.base, p.CardURL, "s", "c1", serveAnswer)
	select {
	case r := <-res:
		if r.code != 200 || r.body != serveAnswered {
			t.Fatalf("A's caller: %d %s; want 200 and %s", r.code, r.body, serveAnswered)
		}
	case <-time.After(serveWait):
		t.Fatal("the answer on B never reached the caller waiting on A")
	}

	// 2. A is killed in the middle of a call; the call retried on E joins
	// the same ask, which the person answers on E's card.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		// The connection breaks when A dies: nothing to check here.
		hreq, _ := http.NewRequest("POST", a.base+"/v1/calls", strings.NewReader(callBody("s", "c2", "", serveChoice)))
		hreq.Header.Set("Authorization", "Bearer "+token)
		if res, err := agent.hc.Do(hreq); err == nil {
			res.Body.Close()
		}
	}()
	before := agent.waitPending(e.base, "s", "c2")
	a.kill()
	<-gone
	retried := make(chan reply, 1)
	go func() { retried <- agent.call(e.base, "s", "c2", serveChoice, nil) }()
	person.openCard(before.CardURL)
	l := person.cardList(e.base, "s", 1)
	if l.Asks[0].ID != before.AskID || l.Asks[0].ToolCallID != "c2" {
		t.Fatalf("E's card lists %+v; want only the ask %s begun on A", l.Asks, before.AskID)
	}
	if r := person.submit(e.base, l.Asks[0].ID, l.CSRFToken, serveAnswer); r.code != 200 {
		t.Fatalf("submit on E: %d %s", r.code, r.body)
	}
	select {
	case r := <-retried:
		if r.code != 200 || r.body != serveAnswered {
			t.Fatalf("the call retried on E: %d %s; want 200 and %s", r.code, r.body, serveAnswered)
		}
	case <-time.After(serveWait):
		t.Fatal("the call retried on E never got the answer")
	}

	// 3. A call left pending on B; then every process stops, and E starts
	// again on the same state and ports.
	pending := agent.callAsync(b.base, "s", "c3", serveChoice)
	b.stop(t)
	e.stop(t)
	e = startServeProc(t, bin, argsE...)
	r := agent.status(e.base, "s", "c3", "")
	var st pendingJSON
	if r.code != 202 || json.Unmarshal([]byte(r.body), &st) != nil || st.AskID != pending.AskID {
		t.Fatalf("after the restart, status of c3: %d %s; want 202 with ask %s", r.code, r.body, pending.AskID)
	}
	restarted := newAgentClient(t, token) // a new browser: the card URL from before the restart opens it
	restarted.answerOn(e.base, strings.Replace(pending.CardURL, b.base, e.base, 1), "s", "c3", serveAnswer)
	if r := agent.status(e.base, "s", "c3", "?wait=30"); r.code != 200 || r.body != serveAnswered {
		t.Errorf("after the restart, the pending call's result: %d %s; want %s", r.code, r.body, serveAnswered)
	}

	// One record per ask in the journal stream.
	out, err := exec.Command(bin, "journal", "--nats", natsURL, "--nats-token-file", natsTokenFile, "--session", "s", "--json").Output()
	if err != nil {
		t.Fatalf("journal --nats: %v", err)
	}
	calls := map[string]int{}
	for line := range strings.Lines(string(out)) {
		var rec struct {
			ToolCallID string `json:"tool_call_id"`
			Status     string `json:"status"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		calls[rec.ToolCallID]++
	}
	if want := map[string]int{"c1": 1, "c2": 1, "c3": 1}; !maps.Equal(calls, want) {
		t.Errorf("journal records by tool call %v; want %v", calls, want)
	}
	e.stop(t)
	for _, p := range []*serveProc{a, b, e} {
		if s := p.stderr.String(); strings.Contains(s, "level=ERROR") {
			t.Errorf("serve on %s logged an error:\n%s", p.base, s)
		}
	}
}
