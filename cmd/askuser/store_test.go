package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// stateHome points the default store at a fresh state directory, with no
// key in the environment, and returns askuser's directory under it.
func stateHome(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ASKUSER_SECRET_KEY", "")
	return filepath.Join(state, "askuser")
}

// askDefault answers the secret call through a script, without --store.
func askDefault(t *testing.T, session string, extra ...string) (code int, out, errs string) {
	t.Helper()
	call := writeFile(t, "call.json", secretCallJSON)
	script := writeFile(t, "script.json", `{"answers":[{"secret":"`+secretCanary+`"}]}`)
	args := append([]string{"ask", "--responder", "script=" + script, "--session", session, "--request", call}, extra...)
	return cli(t, "", args...)
}

// checkSecret runs secret exec with the given flags and checks that the
// child sees the canary as $T.
func checkSecret(t *testing.T, flags ...string) {
	t.Helper()
	args := append(append([]string{"secret", "exec"}, flags...), "--env", "T=session:DEPLOY_TOKEN", "--", "sh", "-c", `test "$T" = "`+secretCanary+`"`)
	if code, _, errs := cli(t, "", args...); code != 0 {
		t.Errorf("secret exec %q: exit %d, stderr %q; want the child to see the secret", flags, code, errs)
	}
}

// TestDefaultStore checks that a secret asked without --store goes to a
// store that outlives the command: under $XDG_STATE_HOME/askuser, with a
// key file made on first use, mode 0600 in a 0700 directory; that ask says
// on standard error where it went; and that secret exec finds it there.
func TestDefaultStore(t *testing.T) {
	home := stateHome(t)
	code, out, errs := askDefault(t, "s1")
	if code != 0 || out != `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}`+"\n" {
		t.Fatalf("ask: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	store, key := filepath.Join(home, "store"), filepath.Join(home, "key")
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "session:DEPLOY_TOKEN") || !strings.Contains(errs, store) || strings.Contains(errs, secretCanary) {
		t.Errorf("stderr %q; want one line saying where session:DEPLOY_TOKEN went, without its value", errs)
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		for p, want := range map[string]os.FileMode{home: 0o700 | os.ModeDir, key: 0o600} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Errorf("the default store: %v", err)
			} else if fi.Mode() != want {
				t.Errorf("%s has mode %v; want %v", p, fi.Mode(), want)
			}
		}
	}
	before, _ := os.ReadFile(key)

	checkSecret(t, "--session", "s1")

	// A second ask uses the same key.
	if code, _, errs := askDefault(t, "s2"); code != 0 {
		t.Fatalf("second ask: exit %d, stderr %q", code, errs)
	}
	if after, _ := os.ReadFile(key); string(after) != string(before) {
		t.Error("the second ask replaced the key file")
	}
	checkSecret(t, "--session", "s1")
	checkSecret(t, "--session", "s2")
}

// TestDefaultStoreUnderHome checks the fallback to ~/.local/state when
// XDG_STATE_HOME is unset, or not an absolute path (which the XDG base
// directory specification says to ignore).
func TestDefaultStoreUnderHome(t *testing.T) {
	for _, xdg := range []string{"", "relative/state"} {
		stateHome(t)
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("XDG_STATE_HOME", xdg)
		if xdg != "" {
			t.Chdir(t.TempDir())
		}
		if code, _, errs := askDefault(t, "s1"); code != 0 {
			t.Fatalf("XDG_STATE_HOME=%q: exit %d, stderr %q", xdg, code, errs)
		}
		if _, err := os.Stat(filepath.Join(home, ".local", "state", "askuser", "key")); err != nil {
			t.Errorf("XDG_STATE_HOME=%q: %v", xdg, err)
		}
		if xdg != "" {
			if _, err := os.Stat(xdg); err == nil {
				t.Errorf("XDG_STATE_HOME=%q: a relative state directory was used", xdg)
			}
		}
	}
}

// TestDefaultStoreOnlyWhenNeeded checks that an ask without a secret
// question touches no state directory, and that secret exec, before any
// secret was sealed, says so and runs nothing.
func TestDefaultStoreOnlyWhenNeeded(t *testing.T) {
	home := stateHome(t)
	if code, _, errs := cli(t, "", "ask", "--responder", "auto", "--request", "testdata/mixed.json"); code != 0 || errs != "" {
		t.Fatalf("ask: exit %d, stderr %q", code, errs)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	code, out, errs := cli(t, "", "secret", "exec", "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "--", "touch", marker)
	if code != 1 || out != "" || !strings.Contains(errs, filepath.Join(home, "key")) || !strings.Contains(errs, "the command was not run") {
		t.Errorf("secret exec before any ask: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	if _, err := os.Stat(home); err == nil {
		t.Errorf("%s was made, though no secret was sealed", home)
	}
}

// TestDefaultKeyFileMode checks that a default key file readable or
// writable by group or others is refused, as ssh refuses such a key.
func TestDefaultKeyFileMode(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no Unix modes here")
	}
	home := stateHome(t)
	if code, _, errs := askDefault(t, "s1"); code != 0 {
		t.Fatalf("ask: exit %d, stderr %q", code, errs)
	}
	key := filepath.Join(home, "key")
	if err := os.Chmod(key, 0o640); err != nil {
		t.Fatal(err)
	}
	code, out, errs := askDefault(t, "s1")
	if code != 1 || out != "" || !strings.Contains(errs, key) || !strings.Contains(errs, "chmod 600") {
		t.Errorf("ask: exit %d, stdout %q, stderr %q; want 1 and a refusal naming the key file", code, out, errs)
	}
	code, _, errs = cli(t, "", "secret", "exec", "--session", "s1", "--env", "T=session:DEPLOY_TOKEN", "--", "true")
	if code != 1 || !strings.Contains(errs, key) || !strings.Contains(errs, "chmod 600") {
		t.Errorf("secret exec: exit %d, stderr %q; want 1 and a refusal naming the key file", code, errs)
	}
}

// TestDefaultStoreOverrides checks that --store, --key-file and
// ASKUSER_SECRET_KEY override the default: a key without --store seals
// into the default directory with that key (no key file is made there);
// --store without a key is still an error.
func TestDefaultStoreOverrides(t *testing.T) {
	home := stateHome(t)
	keys := writeFile(t, "keys", testKey("k1", 1)+"\n")
	if code, _, errs := askDefault(t, "s1", "--key-file", keys); code != 0 || !strings.Contains(errs, filepath.Join(home, "store")) || !strings.Contains(errs, keys) {
		t.Fatalf("ask --key-file: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(home, "key")); err == nil {
		t.Error("a default key file was made, though --key-file was given")
	}
	checkSecret(t, "--session", "s1", "--key-file", keys)

	t.Setenv("ASKUSER_SECRET_KEY", testKey("k2", 2))
	if code, _, errs := askDefault(t, "s2"); code != 0 || !strings.Contains(errs, "ASKUSER_SECRET_KEY") {
		t.Fatalf("ask with ASKUSER_SECRET_KEY: exit %d, stderr %q", code, errs)
	}
	checkSecret(t, "--session", "s2")
	if _, err := os.Stat(filepath.Join(home, "key")); err == nil {
		t.Error("a default key file was made, though ASKUSER_SECRET_KEY was set")
	}

	store := t.TempDir()
	if code, _, errs := askDefault(t, "s3", "--store", store); code != 0 || !strings.Contains(errs, store) {
		t.Fatalf("ask --store: exit %d, stderr %q", code, errs)
	}
	checkSecret(t, "--session", "s3", "--store", store)

	t.Setenv("ASKUSER_SECRET_KEY", "")
	if code, _, errs := askDefault(t, "s4", "--store", store); code != 2 || !strings.Contains(errs, "--store needs a key") {
		t.Errorf("ask --store without a key: exit %d, stderr %q", code, errs)
	}
}

// TestDefaultKeyFileMadeOnce checks that commands making the default key
// file at once agree on one key, and leave no temporary file behind.
func TestDefaultKeyFileMadeOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "askuser")
	key := filepath.Join(dir, keyFileName)
	const n = 16
	ids := make(chan string, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ring, err := defaultKeys(key, filepath.Join(dir, storeDirName), true)
			if err != nil {
				errs <- err
				return
			}
			ids <- ring.Current()
		})
	}
	wg.Wait()
	close(ids)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	first := ""
	for id := range ids {
		if first == "" {
			first = id
		}
		if id != first {
			t.Errorf("key ids %q and %q: the commands made different keys", first, id)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != keyFileName {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the state directory holds %q; want only the key file", names)
	}
	if !strings.HasPrefix(first, "default-") {
		t.Errorf("key id %q; want default-…", first)
	}
}

// TestNoStateDirectory checks that without XDG_STATE_HOME and HOME an ask
// that seals nothing still works, and one that would seal says why it
// cannot, asking nobody.
func TestNoStateDirectory(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the home directory comes from elsewhere here")
	}
	stateHome(t)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	if code, _, errs := cli(t, "", "ask", "--responder", "auto", "--request", "testdata/mixed.json"); code != 0 || errs != "" {
		t.Errorf("an ask without a secret: exit %d, stderr %q", code, errs)
	}
	code, out, errs := askDefault(t, "s1")
	if code != 1 || out != "" || !strings.Contains(errs, "no state directory for the default secret store: set XDG_STATE_HOME or HOME, or give --store DIR") {
		t.Errorf("an ask with a secret: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
