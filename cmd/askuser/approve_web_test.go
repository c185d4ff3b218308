//go:build linux

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// These tests run the web card for approvals with a pseudo-terminal as the
// controlling terminal, and read the approval code where the person reads
// it: on the terminal, never on standard output or standard error.

var (
	decideURL   = regexp.MustCompile(`askuser: decide on (http://127\.0\.0\.1:\d+)(/sessions/cli)\?token=([0-9a-f]{32}) \(the approval code is on the terminal\)\n`)
	codeOnTTY   = regexp.MustCompile(`with the approval code (\d{4}-\d{4}) \(shown only here\)`)
	anyCodeLike = regexp.MustCompile(`\d{4}-\d{4}`)
)

// screen collects what a terminal shows.
type screen struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withTerminal makes a pseudo-terminal the controlling terminal the card
// shows its code on, for the test, and returns its screen.
func withTerminal(t *testing.T) *screen {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	s := &screen{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(s, master)
	}()
	saved := controllingTerminal
	controllingTerminal = tty.Name()
	t.Cleanup(func() {
		controllingTerminal = saved
		tty.Close()
		master.Close()
		<-copied
	})
	return s
}

// waitMatch waits until re matches what text returns.
func waitMatch(t *testing.T, re *regexp.Regexp, text func() string, where string) []string {
	t.Helper()
	for limit := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if m := re.FindStringSubmatch(text()); m != nil {
			return m
		}
		if time.Now().After(limit) {
			t.Fatalf("%s never showed %s; it shows:\n%s", where, re, text())
		}
	}
}

// decideOn decides the card's pending approval through its API, as the
// page does, and returns the status code and body.
func decideOn(t *testing.T, client *http.Client, base string, body string) (int, string) {
	t.Helper()
	var list listing
	for limit := time.Now().Add(10 * time.Second); len(list.Asks) == 0; time.Sleep(5 * time.Millisecond) {
		res, err := client.Get(base + "/api/sessions/cli/asks")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("the listing: %s %v", res.Status, err)
		}
		if time.Now().After(limit) {
			t.Fatal("no approval on the card")
		}
	}
	req, _ := http.NewRequest("POST", base+"/api/asks/"+list.Asks[0].ID+"/submit", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", list.CSRFToken)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, string(b)
}

// TestApproveWeb runs approve --responder web: the card's URL is on
// standard error, the approval code only on the terminal; the URL (and its
// token) alone decides nothing, the code does, and the result is on
// standard output.
func TestApproveWeb(t *testing.T) {
	tty := withTerminal(t)
	call := writeFile(t, "call.json", `{"action":"Delete the bucket logs-2019","reason":"It is past its retention","risk":"irreversible","details":"gsutil rm -r gs://logs-2019","timeout_seconds":60}`)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"approve", "--responder", "web", "--listen", "127.0.0.1:0", "--request", call}, strings.NewReader(""), stdout, stderr)
	}()
	m := waitMatch(t, decideURL, stderr.String, "standard error")
	base, page, token := m[1], m[2], m[3]
	code := waitMatch(t, codeOnTTY, tty.String, "the terminal")[1]
	if !strings.Contains(tty.String(), base+page+"?token="+token) {
		t.Errorf("the terminal does not show the card's URL:\n%s", tty.String())
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := client.Get(base + page + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	decision := func(c, confirm string) string {
		b, _ := json.Marshal(map[string]any{"answers": map[string]any{"approval": map[string]any{"selected": []string{"approve"}, "note": "backed up"}}, "code": c, "confirm": confirm})
		return string(b)
	}
	// What an agent holding the URL can do: nothing.
	for _, c := range []string{"", "0000-0000"} {
		if st, body := decideOn(t, client, base, decision(c, "approve")); st != 403 {
			t.Errorf("a decision with the code %q: %d %s; want 403", c, st, body)
		}
	}
	if st, body := decideOn(t, client, base, decision(code, "")); st != 400 || !strings.Contains(body, "cannot be undone") {
		t.Errorf("an unconfirmed approve of an irreversible action: %d %s; want 400", st, body)
	}
	if st, body := decideOn(t, client, base, decision(code, "approve")); st != 200 {
		t.Fatalf("the decision with the code: %d %s", st, body)
	}
	select {
	case c := <-exit:
		if c != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", c, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("askuser approve did not return")
	}
	var r struct {
		Status    string  `json:"status"`
		DecidedBy *string `json:"decided_by"`
		Note      *string `json:"note"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if r.Status != "approved" || r.DecidedBy == nil || *r.DecidedBy != "user" || r.Note == nil || *r.Note != "backed up" {
		t.Errorf("result %s; want approved by the user, with the note", stdout.String())
	}
	for where, s := range map[string]string{"standard output": stdout.String(), "standard error": stderr.String()} {
		if strings.Contains(s, code) || anyCodeLike.MatchString(s) {
			t.Errorf("%s shows the approval code:\n%s", where, s)
		}
	}
}

// TestApproveWebNeedsATerminal: with no terminal to show the code on, the
// web card takes no approval, and says why.
func TestApproveWebNeedsATerminal(t *testing.T) {
	saved := controllingTerminal
	defer func() { controllingTerminal = saved }()
	for _, tt := range []struct{ name, path, want string }{
		{"none", filepath.Join(t.TempDir(), "no-tty"), "approvals over the web card need a terminal to show the approval code on, where the agent cannot read it, and there is none"},
		{"a file, not a terminal", writeFile(t, "not-a-tty", ""), "is not one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			controllingTerminal = tt.path
			r, done, err := env{strings.NewReader(""), io.Discard, io.Discard}.approvalWebResponder("127.0.0.1:0", "cli")
			if err == nil {
				done()
				t.Fatalf("served the card for approvals (%v) with no terminal", r)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "run askuser approve from a terminal") {
				t.Errorf("error %q; want it to say %q, and what to do", err, tt.want)
			}
			code, out, errs := cli(t, `{"action":"Restart the database","reason":"To apply the patch","risk":"high"}`, "approve", "--responder", "web")
			if code != exitFailure || out != "" || !strings.HasPrefix(errs, "askuser approve: approvals over the web card need a terminal") {
				t.Errorf("askuser approve --responder web: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}
