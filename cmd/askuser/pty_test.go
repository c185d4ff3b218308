//go:build linux

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/askuser-go/askuser/journal"
)

// TestPTY runs the built command on a pseudo-terminal, as a person would:
// the terminal is its controlling terminal and its standard error; its
// standard output, where the result goes, is a pipe.
func TestPTY(t *testing.T) {
	bin := buildAskuser(t)
	secretCall := writeFile(t, "secret.json", `{"questions":[{"kind":"secret","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":60}`)
	choiceCall := writeFile(t, "choice.json", `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]}],"timeout_seconds":60}`)
	const typed = "tok-Typed-4-The-Deploy-xyz"

	t.Run("a secret typed on the terminal", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "ask", "--responder", "stdio", "--request", secretCall)
		p.waitFor("Secret (typing is hidden): ")
		if p.echoOn() {
			t.Error("the terminal echoes while the secret is asked")
		}
		p.typeIn(typed + "\r")
		stdout := p.wait()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if !p.echoAfter {
			t.Error("the terminal does not echo after the command exited")
		}
		if screen := p.screen(); strings.Contains(screen, typed) {
			t.Errorf("the secret shows on the terminal:\n%s", screen)
		}
	})

	t.Run("a secret on /dev/tty while standard input is a pipe", func(t *testing.T) {
		p := startOnPTY(t, bin, false, "ask", "--request", secretCall)
		p.waitFor("Secret (typing is hidden): ")
		if p.echoOn() {
			t.Error("the terminal echoes while the secret is asked")
		}
		p.typeIn(typed + "\r")
		stdout := p.wait()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:DEPLOY_TOKEN"}]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if !p.echoAfter {
			t.Error("the terminal does not echo after the command exited")
		}
		if screen := p.screen(); strings.Contains(screen, typed) {
			t.Errorf("the secret shows on the terminal:\n%s", screen)
		}
	})

	t.Run("a choice", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "ask", "--responder", "stdio", "--request", choiceCall)
		p.waitFor("Pick 1-3 (Enter for 1): ")
		p.typeIn("2\r")
		stdout := p.wait()
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if screen := p.screen(); !strings.Contains(screen, "Submitted: Env → production") {
			t.Errorf("the terminal does not show the summary:\n%s", screen)
		}
	})

	// SIGTERM and SIGHUP mean the caller is going away: the ask ends as
	// the caller's (cancelled / unattended, journaled, no result printed),
	// and the terminal whose echo the secret prompt turned off echoes
	// again.
	for _, sig := range []struct {
		name string
		sig  syscall.Signal
	}{{"SIGTERM", syscall.SIGTERM}, {"SIGHUP", syscall.SIGHUP}} {
		for _, stdinTTY := range []bool{true, false} {
			name := sig.name + " during a secret prompt restores the terminal"
			if !stdinTTY {
				name += ", standard input a pipe"
			}
			t.Run(name, func(t *testing.T) {
				journalFile := filepath.Join(t.TempDir(), "j.jsonl")
				p := startOnPTY(t, bin, stdinTTY, "ask", "--responder", "stdio", "--journal", journalFile, "--request", secretCall)
				p.waitFor("Secret (typing is hidden): ")
				if p.echoOn() {
					t.Fatal("the terminal echoes while the secret is asked")
				}
				if err := p.cmd.Process.Signal(sig.sig); err != nil {
					t.Fatal(err)
				}
				stdout, state := p.exit()
				if !p.echoAfter {
					t.Errorf("the terminal does not echo after %s", sig.name)
				}
				if !state.Exited() {
					t.Errorf("askuser did not exit on its own: %v", state)
				}
				if stdout != "" {
					t.Errorf("a result was printed for a caller that went away: %q", stdout)
				}
				var got []string
				for rec, err := range journal.ReadFile(journalFile) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(rec.Status)+" "+string(rec.AnsweredBy)+" "+string(rec.Reason))
				}
				if diff := cmp.Diff([]string{"cancelled unattended caller"}, got); diff != "" {
					t.Errorf("the journal's records (-want +got):\n%s", diff)
				}
			})
		}
	}

	t.Run("Ctrl-C dismisses", func(t *testing.T) {
		p := startOnPTY(t, bin, true, "ask", "--responder", "stdio", "--request", choiceCall)
		p.waitFor("Pick 1-3 (Enter for 1): ")
		p.typeIn("\x03")
		stdout := p.wait()
		want := `{"status":"cancelled","answered_by":"user","answers":[]}` + "\n"
		if diff := cmp.Diff(want, stdout); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if screen := p.screen(); !strings.Contains(screen, "Dismissed; no answer was given.") {
			t.Errorf("the terminal does not show the dismissal:\n%s", screen)
		}
	})
}

// ptyRun is the command running on a pseudo-terminal.
type ptyRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	tty    *os.File
	stdout bytes.Buffer
	mu     sync.Mutex
	shown  bytes.Buffer
	copied chan struct{}
	// echoAfter is whether the terminal echoed once the command exited.
	echoAfter bool
}

// startOnPTY starts bin with the terminal as its controlling terminal and
// standard error, and as its standard input when stdinTTY is set (else an
// empty pipe).
func startOnPTY(t *testing.T, bin string, stdinTTY bool, args ...string) *ptyRun {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	p := &ptyRun{t: t, master: master, tty: tty, copied: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = tty
	ctty := 2
	if stdinTTY {
		p.cmd.Stdin = tty
		ctty = 0
	} else {
		p.cmd.Stdin = strings.NewReader("")
	}
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.copied)
		_, _ = io.Copy(writerFunc(func(b []byte) (int, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.shown.Write(b)
		}), master)
	}()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
		tty.Close()
		<-p.copied // the terminal's last writer is gone: the copy ends
		master.Close()
	})
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (p *ptyRun) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.shown.String()
}

// waitFor waits until the terminal shows want; the limit only keeps a
// broken test from hanging.
func (p *ptyRun) waitFor(want string) {
	p.t.Helper()
	for limit := time.Now().Add(20 * time.Second); !strings.Contains(p.screen(), want); {
		if time.Now().After(limit) {
			p.t.Fatalf("%q never appeared; the terminal shows:\n%s", want, p.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *ptyRun) typeIn(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.master, s); err != nil {
		p.t.Fatal(err)
	}
}

// wait waits for the command to exit with status 0, notes whether the
// terminal echoes then, waits until everything the command wrote to the
// terminal is read, and returns its standard output.
func (p *ptyRun) wait() string {
	p.t.Helper()
	stdout, state := p.exit()
	if !state.Success() {
		p.t.Fatalf("askuser: %v; the terminal shows:\n%s", state, p.screen())
	}
	return stdout
}

// exit is wait for any ending: it returns the standard output and how the
// command ended.
func (p *ptyRun) exit() (string, *os.ProcessState) {
	p.t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.t.Fatal(err)
	}
	p.echoAfter = p.echoOn()
	p.tty.Close()
	<-p.copied
	return p.stdout.String(), p.cmd.ProcessState
}

// echoOn reports whether the terminal echoes what is typed.
func (p *ptyRun) echoOn() bool {
	p.t.Helper()
	rc, err := p.tty.SyscallConn()
	if err != nil {
		p.t.Fatal(err)
	}
	var tios *unix.Termios
	if cerr := rc.Control(func(fd uintptr) { tios, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) }); cerr != nil {
		p.t.Fatal(cerr)
	}
	if err != nil {
		p.t.Fatalf("reading the terminal's state: %v", err)
	}
	return tios.Lflag&unix.ECHO != 0
}
