package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretCanary is typed by the "person" in these tests.
const secretCanary = "cli-canary-93b1d7-SECRET"

const secretCallJSON = `{"questions":[{"kind":"secret","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}]}`

// testKey returns an ASKUSER_SECRET_KEY value.
func testKey(id string, b byte) string {
	k := make([]byte, 32)
	for i := range k {
		k[i] = b
	}
	return id + ":" + base64.StdEncoding.EncodeToString(k)
}

// askSecret answers the secret call through a script with a file store and
// a journal, and returns the store dir and what the command printed.
func askSecret(t *testing.T, session string) (dir, journalFile, out, errs string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "store")
	journalFile = filepath.Join(t.TempDir(), "journal.jsonl")
	call := writeFile(t, "call.json", secretCallJSON)
	script := writeFile(t, "script.json", `{"answers":[{"secret":"`+secretCanary+`"}]}`)
	code, out, errs := cli(t, "", "ask", "--responder", "script="+script, "--store", dir, "--session", session, "--journal", journalFile, "--request", call)
	if code != 0 {
		t.Fatalf("ask: exit %d, stderr %q", code, errs)
	}
	return dir, journalFile, out, errs
}

func TestAskStoreNeedsAKey(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", "")
	code, _, errs := cli(t, "", "ask", "--responder", "auto", "--store", t.TempDir(), "--request", "testdata/mixed.json")
	if code != 2 || !strings.Contains(errs, "--store needs a key: give --key-file FILE or set ASKUSER_SECRET_KEY") {
		t.Errorf("exit %d stderr %q", code, errs)
	}
}

func TestSecretExec(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", testKey("k1", 7))
	dir, journalFile, out, errs := askSecret(t, "s1")
	if want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}` + "\n"; out != want {
		t.Fatalf("result %s, want %s", out, want)
	}

	// The child gets the value and prints only a hash of it.
	sum := sha256.Sum256([]byte(secretCanary))
	code, execOut, execErr := cli(t, "", "secret", "exec", "--store", dir, "--session", "s1", "--env", "TOKEN=session:DEPLOY_TOKEN", "--",
		"sh", "-c", `printf %s "$TOKEN" | sha256sum | cut -d' ' -f1`)
	if code != 0 {
		t.Fatalf("secret exec: exit %d stderr %q", code, execErr)
	}
	if got := strings.TrimSpace(execOut); got != hex.EncodeToString(sum[:]) {
		t.Errorf("the child saw a different value: hash %s", got)
	}

	// The exit status is the command's.
	if code, _, _ := cli(t, "", "secret", "exec", "--store", dir, "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "--", "sh", "-c", "exit 7"); code != 7 {
		t.Errorf("exit %d, want the command's 7", code)
	}

	// Another session's reference, or a name never stored: refused, the
	// command not run.
	marker := filepath.Join(t.TempDir(), "ran")
	for _, tt := range []struct{ session, ref string }{{"s2", "session:DEPLOY_TOKEN"}, {"s1", "session:NEVER_STORED"}, {"s1", "DEPLOY_TOKEN"}} {
		code, stdout, stderr := cli(t, "", "secret", "exec", "--store", dir, "--session", tt.session, "--env", "T="+tt.ref, "--", "touch", marker)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "the command was not run") {
			t.Errorf("%s %s: exit %d stdout %q stderr %q; want 1, nothing, a refusal", tt.session, tt.ref, code, stdout, stderr)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s %s: the command ran", tt.session, tt.ref)
		}
	}

	// The canary appears nowhere: not in what the commands printed, not in
	// the store's files in clear, not in the journal.
	places := map[string]string{"ask stdout": out, "ask stderr": errs, "exec stdout": execOut, "exec stderr": execErr}
	for _, root := range []string{dir, journalFile} {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b, _ := os.ReadFile(p)
				places[p] = string(b)
			}
			return nil
		})
	}
	if len(places) < 6 {
		t.Fatalf("read only %d places; the store and the journal should have files", len(places))
	}
	for where, text := range places {
		if strings.Contains(text, secretCanary) || strings.Contains(text, fmt.Sprintf("%x", secretCanary)) {
			t.Errorf("the secret appears in %s", where)
		}
	}
}

func TestSecretExecRotation(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", testKey("k1", 1))
	dir, _, _, _ := askSecret(t, "s1")
	run := func(key string) int {
		t.Setenv("ASKUSER_SECRET_KEY", key)
		code, _, _ := cli(t, "", "secret", "exec", "--store", dir, "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "--", "true")
		return code
	}
	if code := run(testKey("k2", 2) + "," + testKey("k1", 1)); code != 0 {
		t.Errorf("after rotating to k2 with k1 kept: exit %d, want 0", code)
	}
	if code := run(testKey("k2", 2)); code != 1 {
		t.Errorf("after dropping k1: exit %d, want 1", code)
	}
}

func TestSecretExecUsage(t *testing.T) {
	for _, args := range [][]string{
		{"secret"},
		{"secret", "exec", "--session", "s", "--env", "A=session:B", "--", "true"},
		{"secret", "exec", "--store", "d", "--env", "A=session:B", "--", "true"},
		{"secret", "exec", "--store", "d", "--session", "s", "--", "true"},
		{"secret", "exec", "--store", "d", "--session", "s", "--env", "A=session:B"},
	} {
		if code, _, errs := cli(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d stderr %q; want 2 and a message", args, code, errs)
		}
	}
}
