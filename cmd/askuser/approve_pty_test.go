//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/askuser-go/askuser/internal/challenge"
)

// TestApprovePTY runs the built command as an agent's shell would: the
// call in a file, standard input a pipe, standard output a pipe. A person
// at the controlling terminal decides, by typing the code it shows; what
// another program on the terminal types (TIOCSTI) never approves; without
// a terminal, nobody can decide, and a "y" in the pipe is never taken for
// a decision.
func TestApprovePTY(t *testing.T) {
	bin := buildAskuser(t)
	call := writeFile(t, "call.json", approvalCall)

	code := regexp.MustCompile(`Type ([` + challenge.Alphabet + `]{5,}) to approve, Enter to deny: $`)
	for _, tt := range []struct {
		name string
		// typed are the lines typed, each once the prompt is up; CODE in
		// one is the code the terminal shows.
		typed                   []string
		status, decidedBy, note string
		injects                 bool
	}{
		{name: "the code shown approves an irreversible action", typed: []string{"CODE: after the backup"}, status: "approved", decidedBy: "user", note: "after the backup"},
		{name: "y, then approve: two wrong codes deny", typed: []string{"y", "approve"}, status: "denied", decidedBy: "user", note: "null"},
		{name: "Enter alone denies", typed: []string{""}, status: "denied", decidedBy: "user", note: "null"},
		{name: "another program on the terminal types approve: nothing is approved", typed: []string{"approve", "approve session"}, status: "denied", decidedBy: "user", note: "null", injects: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startOnPTY(t, bin, false, "approve", "--responder", "stdio", "--request", call)
			p.waitFor(" to approve, Enter to deny: ")
			if screen := p.screen(); !strings.Contains(screen, "Delete the S3 bucket logs-2023") || !strings.Contains(screen, "IRREVERSIBLE") {
				t.Errorf("the terminal does not show the action and its risk:\n%s", screen)
			}
			for i, l := range tt.typed {
				if i > 0 {
					p.waitFor("Another wrong code denies.")
				}
				if strings.Contains(l, "CODE") {
					m := code.FindStringSubmatch(p.screen())
					if m == nil {
						t.Fatalf("no code on the terminal:\n%s", p.screen())
					}
					l = strings.ReplaceAll(l, "CODE", m[1])
				}
				if tt.injects {
					p.inject(l + "\r")
				} else {
					p.typeIn(l + "\r")
				}
			}
			r := parseApproval(t, p.wait())
			if r.Status != tt.status || str(r.DecidedBy) != tt.decidedBy || str(r.Note) != tt.note {
				t.Errorf("result %+v; want %s by %s, note %s", r, tt.status, tt.decidedBy, tt.note)
			}
		})
	}

	t.Run("no controlling terminal: a y in the pipe decides nothing", func(t *testing.T) {
		cmd := exec.Command(bin, "approve", "--request", call)
		cmd.Stdin = strings.NewReader("y\napprove\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // a new session, without a terminal
		if err := cmd.Run(); err != nil {
			t.Fatalf("askuser approve: %v\n%s", err, stderr.String())
		}
		r := parseApproval(t, stdout.String())
		if r.Status != "unresolved" || str(r.Ended) != "unattended" {
			t.Errorf("result %s", stdout.String())
		}
	})
}
