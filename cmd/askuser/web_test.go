package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var cardURL = regexp.MustCompile(`answer on (http://127\.0\.0\.1:\d+)(/sessions/cli)\?token=([0-9a-f]{32})\n`)

// TestAskWeb: ask --responder web prints the card's URL on standard error,
// takes the answers through the card's API, and prints the result on
// standard output.
func TestAskWeb(t *testing.T) {
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), []string{"ask", "--responder", "web", "--listen", "127.0.0.1:0", "--request", "testdata/mixed.json"}, strings.NewReader(""), &stdout, &stderr)
	}()
	var m []string
	for deadline := time.Now().Add(5 * time.Second); m == nil; {
		if m = cardURL.FindStringSubmatch(stderr.String()); m == nil {
			if time.Now().After(deadline) {
				t.Fatalf("no card URL on standard error:\n%s", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	base, page, token := m[1], m[2], m[3]

	// Without the token, nothing.
	if res, err := http.Get(base + "/api/sessions/cli/asks"); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("the API without the token: %v %v; want 403", res.Status, err)
	}
	if res, err := http.Get(base + page + "?token=" + strings.Repeat("0", 32)); err != nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("a wrong token: %v %v; want 403", res.Status, err)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	res, err := client.Get(base + page + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Request.URL.RawQuery != "" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'nonce-") {
		t.Fatalf("the card: %s at %s, CSP %q", res.Status, res.Request.URL, res.Header.Get("Content-Security-Policy"))
	}
	if !bytes.Contains(body, []byte("Questions from your agent")) {
		t.Fatalf("the card page:\n%s", body)
	}

	var list struct {
		CSRFToken string `json:"csrf_token"`
		Asks      []struct {
			ID string `json:"id"`
		} `json:"asks"`
	}
	for len(list.Asks) == 0 {
		res, err := client.Get(base + "/api/sessions/cli/asks")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
	}
	req, _ := http.NewRequest("POST", base+"/api/asks/"+list.Asks[0].ID+"/submit",
		strings.NewReader(`{"answers":{"env":{"selected":["production"]},"branch":{"other_text":"feature/web"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", list.CSRFToken)
	res, err = client.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("submit: %v %v", res.Status, err)
	}
	res.Body.Close()

	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("askuser ask did not return")
	}
	want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"branch","selected":[],"other_text":"feature/web"}]}` + "\n"
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	// The server is gone.
	if res, err := http.Get(base + "/api/sessions/cli/asks"); err == nil {
		res.Body.Close()
		t.Error("the card is still served after the command returned")
	}
}

func TestAskWebBadListen(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ask", "--responder", "web", "--listen", "256.0.0.1:x", "--request", "testdata/mixed.json"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "--listen 256.0.0.1:x") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
