//go:build linux

package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/stdio"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// These tests read secrets from a pseudo-terminal, in real time: the
// terminal's read deadlines are not synctest's.

// memStore keeps what the orchestrator seals, in plain text, for a test.
type memStore struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memStore) Put(_ context.Context, session, name string, v secret.Value) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[session+"/"+name] = string(v.Reveal())
	return nil
}

func (s *memStore) Delete(_ context.Context, session, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, session+"/"+name)
	return nil
}

func (s *memStore) Get(_ context.Context, session, name string) (secret.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[session+"/"+name]
	if !ok {
		return secret.Value{}, secretstore.ErrNotFound
	}
	return secret.FromString(v), nil
}

func (s *memStore) DeleteSession(context.Context, string) error { return nil }

func (s *memStore) get(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// openPTY opens a pseudo-terminal and collects what its screen shows.
func openPTY(t *testing.T) (master, tty *os.File, screen *buffer) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	screen = &buffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(screen, master)
	}()
	t.Cleanup(func() {
		tty.Close()
		master.Close()
		<-done
	})
	return master, tty, screen
}

func echoOn(t *testing.T, tty *os.File) bool {
	t.Helper()
	// Not tty.Fd, which would put the terminal in blocking mode, where
	// closing it no longer ends a read.
	rc, err := tty.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var tios *unix.Termios
	if cerr := rc.Control(func(fd uintptr) { tios, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatalf("reading the terminal's state: %v", err)
	}
	return tios.Lflag&unix.ECHO != 0
}

// waitFor waits until s shows want; the limit only keeps a broken test
// from hanging.
func waitFor(t *testing.T, s *buffer, want string) {
	t.Helper()
	for limit := time.Now().Add(10 * time.Second); !strings.Contains(s.String(), want); {
		if time.Now().After(limit) {
			t.Fatalf("%q never appeared; the output is:\n%s", want, s.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSecretFromTerminal(t *testing.T) {
	const typed = "s3cr3t-Typed-On-The-Terminal"
	for _, tt := range []struct {
		name string
		make func(tty *os.File, in io.Reader, out io.Writer) *stdio.Responder
	}{
		{"the input is the terminal", func(tty *os.File, _ io.Reader, out io.Writer) *stdio.Responder {
			return stdio.New(tty, out, nil)
		}},
		{"a terminal beside a piped input", func(tty *os.File, in io.Reader, out io.Writer) *stdio.Responder {
			return stdio.New(in, out, &stdio.Options{Terminal: tty})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			master, tty, screen := openPTY(t)
			pr, pw := io.Pipe()
			defer pw.Close()
			out := &buffer{}
			r := tt.make(tty, pr, out)
			defer r.Close()
			if !r.CanCollectSecrets() {
				t.Fatal("CanCollectSecrets reports false with a terminal")
			}
			store := &memStore{}
			o := &askuser.Orchestrator{Responder: r, Secrets: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			res := make(chan result, 1)
			go func() {
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(secretCall)})
				res <- result{out, err}
			}()
			waitFor(t, out, "Secret (typing is hidden): ")
			if echoOn(t, tty) {
				t.Error("the terminal echoes while the secret is asked")
			}
			if _, err := io.WriteString(master, typed+"\r"); err != nil {
				t.Fatal(err)
			}
			got := <-res
			if got.err != nil {
				t.Fatal(got.err)
			}
			want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:TOKEN"}]}`
			if diff := cmp.Diff(want, string(got.out.Result)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(typed, store.get("s/TOKEN")); diff != "" {
				t.Errorf("the sealed value (-want +got):\n%s", diff)
			}
			r.Close()
			if !echoOn(t, tty) {
				t.Error("the terminal does not echo after the secret was read")
			}
			for what, s := range map[string]string{"the terminal": screen.String(), "the output": out.String()} {
				if strings.Contains(s, typed) {
					t.Errorf("the secret shows on %s:\n%s", what, s)
				}
			}
		})
	}
}

// TestSecretDeadlineRestoresTerminal: the deadline ends the read, and the
// terminal echoes again.
func TestSecretDeadlineRestoresTerminal(t *testing.T) {
	_, tty, _ := openPTY(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &buffer{}
	r := stdio.New(pr, out, &stdio.Options{Terminal: tty})
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	res := make(chan result, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(strings.Replace(secretCall, `"timeout_seconds":100`, `"timeout_seconds":1`, 1))})
		res <- result{out, err}
	}()
	waitFor(t, out, "Secret (typing is hidden): ")
	if echoOn(t, tty) {
		t.Error("the terminal echoes while the secret is asked")
	}
	got := <-res
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := `{"status":"declined","answered_by":"timeout","answers":[]}`
	if diff := cmp.Diff(want, string(got.out.Result)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	r.Close() // waits for Respond, which restores the terminal on its way out
	if !echoOn(t, tty) {
		t.Error("the terminal does not echo after the deadline")
	}
	if !strings.HasSuffix(out.String(), "Time is up: nothing was applied; the ask ends unanswered.\n") {
		t.Errorf("the output does not end with what the deadline did:\n%s", out.String())
	}
}

// TestTerminalWithoutDeadlines: a terminal whose reads cannot be stopped is
// not used for secrets.
func TestTerminalWithoutDeadlines(t *testing.T) {
	_, tty, _ := openPTY(t)
	fd, err := unix.Open(tty.Name(), unix.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	blocking := os.NewFile(uintptr(fd), "blocking tty") // a blocking descriptor: no deadlines
	defer blocking.Close()
	r := stdio.New(strings.NewReader(""), io.Discard, &stdio.Options{Terminal: blocking})
	defer r.Close()
	if r.CanCollectSecrets() {
		t.Error("CanCollectSecrets reports true for a terminal whose reads cannot be stopped")
	}
}

// TestSecretPromptIsInert: what a secret prompt shows from the call (the
// header, the question, the purpose, the secret's name) is made inert.
func TestSecretPromptIsInert(t *testing.T) {
	_, tty, _ := openPTY(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &buffer{}
	r := stdio.New(pr, out, &stdio.Options{Terminal: tty})
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r, Secrets: &memStore{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	call := `{"questions":[{"kind":"secret","header":"Tok\u009b2A","question":"Paste\r\u001b[2K a token\u001b]52;c;eA==\u0007",` +
		`"secret_name":"TOKEN\u202e","purpose":"to call\b\b\b\bthe API\u007f"}],"timeout_seconds":1}`
	res := make(chan result, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(call)})
		res <- result{out, err}
	}()
	waitFor(t, out, "Secret (typing is hidden): ")
	if got := <-res; got.err != nil {
		t.Fatal(got.err)
	}
	r.Close()
	want := "[1/1] Tok\\u009b2A\n" +
		"Paste\\r\\x1b[2K a token\\x1b]52;c;eA==\\a\n" +
		"For: to call\\b\\b\\b\\bthe API\\x7f\n" +
		"It is stored as session:TOKEN\\u202e; the agent sees only that name, never the value.\n"
	got := out.String()
	if !strings.Contains(got, want) {
		t.Errorf("the output does not show %q; it is %q", want, got)
	}
	if what := inertOutput(got); what != "" {
		t.Errorf("the output holds %s: %q", what, got)
	}
}
