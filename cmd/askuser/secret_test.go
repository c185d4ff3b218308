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

	"github.com/google/go-cmp/cmp"
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
		{"secret", "exec", "--store", "d", "--env", "A=session:B", "--", "true"},
		{"secret", "exec", "--store", "d", "--session", "s", "--", "true"},
		{"secret", "exec", "--store", "d", "--session", "s", "--env", "A=session:B"},
	} {
		if code, _, errs := cli(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestSecretExecScrubsKeyMaterial checks that the child of secret exec does
// not inherit askuser's key: a tool handed one secret could otherwise open
// every record in the store. The rest of the environment is inherited.
func TestSecretExecScrubsKeyMaterial(t *testing.T) {
	key := testKey("k1", 7)
	t.Setenv("ASKUSER_SECRET_KEY", key)
	t.Setenv("ASKUSER_TEST_INHERITED", "kept")
	dir, _, _, _ := askSecret(t, "s1")

	code, out, errs := cli(t, "", "secret", "exec", "--store", dir, "--session", "s1", "--env", "TOKEN=session:DEPLOY_TOKEN", "--", "env")
	if code != 0 {
		t.Fatalf("secret exec env: exit %d, stderr %q", code, errs)
	}
	vars := map[string]string{}
	for line := range strings.Lines(out) {
		name, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		vars[name] = value
	}
	if _, ok := vars["ASKUSER_SECRET_KEY"]; ok {
		t.Error("the child inherited ASKUSER_SECRET_KEY")
	}
	if strings.Contains(out, strings.TrimPrefix(key, "k1:")) {
		t.Error("the key appears in the child's environment")
	}
	if vars["TOKEN"] != secretCanary {
		t.Error("the child did not get TOKEN")
	}
	if vars["ASKUSER_TEST_INHERITED"] != "kept" {
		t.Errorf("the child lost the rest of the environment: ASKUSER_TEST_INHERITED=%q", vars["ASKUSER_TEST_INHERITED"])
	}
}

// TestSecretExecArgumentsAreTheCommands checks that everything from COMMAND
// on is the command's, flags included, with or without "--".
func TestSecretExecArgumentsAreTheCommands(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", testKey("k1", 7))
	dir, _, _, _ := askSecret(t, "s1")
	for _, args := range [][]string{
		{"secret", "exec", "--store", dir, "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "echo", "--session", "other"},
		{"secret", "exec", "--store", dir, "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "--", "echo", "--session", "other"},
	} {
		code, out, errs := cli(t, "", args...)
		if code != 0 || out != "--session other\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the command's own --session", args, code, out, errs)
		}
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv(
		[]string{"PATH=/bin", "ASKUSER_SECRET_KEY=k1:AAAA", "TOKEN=old", "HOME=/home/u", "ASKUSER_SECRET_KEY_FILE=/keep", "=C:=C:\\"},
		[]string{"TOKEN=new", "OTHER=v"})
	want := []string{"PATH=/bin", "HOME=/home/u", "ASKUSER_SECRET_KEY_FILE=/keep", "=C:=C:\\", "TOKEN=new", "OTHER=v"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("childEnv (-want +got):\n%s", diff)
	}
}
