package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spaces is an endless standard input of spaces that counts what was read
// from it.
type spaces struct{ n int64 }

func (r *spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestCallReadIsCapped checks that a call on standard input is read no
// further than the 64 KiB call cap and one byte more, so that the
// decoder's own message about the cap is what the caller sees.
func TestCallReadIsCapped(t *testing.T) {
	for _, args := range [][]string{{"validate"}, {"validate", "-"}, {"ask", "--responder", "auto"}, {"ask", "--responder", "auto", "--request", "-"}} {
		in := &spaces{}
		code, out, errs := cliIn(t, in, args...)
		if code != 2 || out != "" || errs != "invalid ask_user arguments: the call is 65537 bytes; at most 65536 bytes are accepted\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		if in.n > 64<<10+1 {
			t.Errorf("%q: read %d bytes of standard input; want at most 65537", args, in.n)
		}
	}

	// A call file is read the same way.
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", 1<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"validate", big}, {"ask", "--responder", "auto", "--request", big}} {
		code, _, errs := cli(t, "", args...)
		if code != 2 || errs != "invalid ask_user arguments: the call is 65537 bytes; at most 65536 bytes are accepted\n" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestFileCaps checks the caps on a script and a key file: a larger file is
// refused before it is read, with a message naming the file and the cap.
func TestFileCaps(t *testing.T) {
	t.Setenv("ASKUSER_SECRET_KEY", "")
	script := writeFile(t, "script.json", `{"end":"decline"}`+strings.Repeat(" ", 1<<20))
	code, _, errs := cli(t, "", "ask", "--responder", "script="+script, "--request", "testdata/mixed.json")
	if code != 1 || !strings.Contains(errs, script) || !strings.Contains(errs, "1 MiB") {
		t.Errorf("a script of 1 MiB and more: exit %d, stderr %q; want 1, the file and its cap", code, errs)
	}
	// At the cap it is read.
	script = writeFile(t, "script.json", `{"end":"decline"}`+strings.Repeat(" ", 1<<20-len(`{"end":"decline"}`)))
	if code, out, errs := cli(t, "", "ask", "--responder", "script="+script, "--request", "testdata/mixed.json"); code != 0 || !strings.Contains(out, `"declined"`) {
		t.Errorf("a script of exactly 1 MiB: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	keys := writeFile(t, "keys", testKey("k1", 1)+"\n"+strings.Repeat("#", 64<<10))
	for _, args := range [][]string{
		{"ask", "--responder", "auto", "--store", t.TempDir(), "--key-file", keys, "--request", "testdata/mixed.json"},
		{"secret", "exec", "--store", t.TempDir(), "--key-file", keys, "--session", "s", "--env", "T=session:X", "--", "true"},
	} {
		code, _, errs := cli(t, "", args...)
		if code != 1 || !strings.Contains(errs, keys) || !strings.Contains(errs, "64 KiB") {
			t.Errorf("%s: a key file over 64 KiB: exit %d, stderr %q; want 1, the file and its cap", args[0], code, errs)
		}
	}
}

// TestNonRegularFilesRefused checks that a FIFO, a device or a directory
// given where a regular file is expected is refused at once, naming it,
// instead of hanging on the FIFO (or reading a device without end). A
// directory as --journal is left to the journal package, which refuses it
// at once (TestAskJournalCannotOpen).
func TestNonRegularFilesRefused(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no FIFOs here")
	}
	t.Setenv("ASKUSER_SECRET_KEY", "")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		file string
	}{
		{"validate FIFO", []string{"validate", fifo}, fifo},
		{"ask --request FIFO", []string{"ask", "--responder", "auto", "--request", fifo}, fifo},
		{"ask script=FIFO", []string{"ask", "--responder", "script=" + fifo, "--request", "testdata/mixed.json"}, fifo},
		{"ask --journal FIFO", []string{"ask", "--responder", "auto", "--journal", fifo, "--request", "testdata/mixed.json"}, fifo},
		{"ask --key-file FIFO", []string{"ask", "--responder", "auto", "--store", t.TempDir(), "--key-file", fifo, "--request", "testdata/mixed.json"}, fifo},
		{"secret exec --key-file FIFO", []string{"secret", "exec", "--store", t.TempDir(), "--key-file", fifo, "--session", "s", "--env", "T=session:X", "--", "true"}, fifo},
		{"journal FIFO", []string{"journal", fifo}, fifo},
		{"journal directory", []string{"journal", dir}, dir},
		{"validate device", []string{"validate", os.DevNull}, os.DevNull},
		{"validate directory", []string{"validate", dir}, dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code      int
				out, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errs := cli(t, "", tt.args...)
				done <- result{code, out, errs}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("the command hangs on %s", tt.file)
				unblock(fifo)
				r = <-done
			}
			if r.code != 1 || r.out != "" || !strings.Contains(r.errs, tt.file+" is ") || !strings.Contains(r.errs, "not a regular file") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, nothing, and a refusal naming %s", r.code, r.out, r.errs, tt.file)
			}
		})
	}
}

// unblock opens and closes the writing end of a FIFO, so that a reader
// blocked opening it goes on (and reads an end of file).
func unblock(fifo string) {
	for range 100 {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close()
			return
		}
		if !errors.Is(err, syscall.ENXIO) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSymlinksAreFollowed checks the decision on symbolic links: a FILE may
// be a link to a regular file (dotfiles often are), and the file it names is
// read, or appended to, as if given directly. A key file's mode is that of
// the file the link names.
func TestSymlinksAreFollowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges here")
	}
	t.Setenv("ASKUSER_SECRET_KEY", "")
	links, n := t.TempDir(), 0
	link := func(target string) string {
		n++
		p := filepath.Join(links, fmt.Sprintf("%d-%s.link", n, filepath.Base(target)))
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	call, err := filepath.Abs("testdata/mixed.json")
	if err != nil {
		t.Fatal(err)
	}
	keys := writeFile(t, "keys", testKey("k1", 1)+"\n")
	journalFile := filepath.Join(t.TempDir(), "journal.jsonl")
	if err := os.WriteFile(journalFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	script := writeFile(t, "script.json", `{"end":"decline"}`)

	if code, _, errs := cli(t, "", "validate", link(call)); code != 0 {
		t.Errorf("validate LINK: exit %d, stderr %q", code, errs)
	}
	code, out, errs := cli(t, "", "ask", "--responder", "script="+link(script), "--store", t.TempDir(), "--key-file", link(keys), "--journal", link(journalFile), "--request", link(call))
	if code != 0 || out != `{"status":"declined","answered_by":"user","answers":[]}`+"\n" {
		t.Errorf("ask with links: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if b, err := os.ReadFile(journalFile); err != nil || !strings.Contains(string(b), `"status":"declined"`) {
		t.Errorf("the journal the link names holds %q (%v); want the record", b, err)
	}

	// The mode checked is the key file's, not the link's.
	open := writeFile(t, "open-keys", testKey("k1", 1)+"\n")
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cli(t, "", "ask", "--responder", "auto", "--store", t.TempDir(), "--key-file", link(open), "--request", call)
	if code != 1 || !strings.Contains(errs, "chmod 600") {
		t.Errorf("a link to a key file readable by others: exit %d, stderr %q; want 1 and a refusal", code, errs)
	}
}

// TestServeStateDirMustBePrivate: serve refuses a --state directory that
// exists with a mode group or others may use (0755, say), saying how to
// make it private, and leaves its mode as it was; one it makes is 0700.
func TestServeStateDirMustBePrivate(t *testing.T) {
	if !checkKeyMode {
		t.Skip("file modes do not say who may read a directory here")
	}
	t.Setenv("ASKUSER_SECRET_KEY", "")
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// --nats-listen is wrong too, so that a serve that took the directory
	// stops soon after, with another message.
	code, out, errs := cli(t, "", "serve", "--listen", "127.0.0.1:0", "--nats-listen", "nowhere", "--state", dir)
	if want := "askuser serve: --state " + dir + " has mode 0755: group or others may reach the tokens, keys and asks askuser keeps there; make it private (chmod 700 " + dir + ") or give another directory\n"; code != exitFailure || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errs, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the directory's mode is now %v (%v); want it left at 0755", fi.Mode().Perm(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("serve wrote %v into the refused directory", entries)
	}

	fresh := filepath.Join(t.TempDir(), "a", "state")
	if err := makePrivateDir("--state", fresh); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("a directory serve made has mode %v (%v); want 0700", fi.Mode().Perm(), err)
	}
	file := filepath.Join(fresh, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := makePrivateDir("--state", file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as the state directory: %v; want it refused as not a directory", err)
	}
}
