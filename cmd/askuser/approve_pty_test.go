//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestApprovePTY runs the built command as an agent's shell would: the
// call in a file, standard input a pipe, standard output a pipe. A person
// at the controlling terminal decides; without one, nobody can, and a "y"
// in the pipe is never taken for a decision.
func TestApprovePTY(t *testing.T) {
	bin := buildAskuser(t)
	call := writeFile(t, "call.json", approvalCall)

	for _, tt := range []struct {
		name, typed, status, decidedBy, note string
	}{
		{"approve typed in full approves an irreversible action", "approve: after the backup\r", "approved", "user", "after the backup"},
		{"y denies an irreversible action", "y\r", "denied", "user", "null"},
		{"Enter alone denies", "\r", "denied", "user", "null"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startOnPTY(t, bin, false, "approve", "--responder", "stdio", "--request", call)
			p.waitFor("Type approve to approve, Enter to deny: ")
			if screen := p.screen(); !strings.Contains(screen, "Delete the S3 bucket logs-2023") || !strings.Contains(screen, "IRREVERSIBLE") {
				t.Errorf("the terminal does not show the action and its risk:\n%s", screen)
			}
			p.typeIn(tt.typed)
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
