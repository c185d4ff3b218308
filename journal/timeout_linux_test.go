//go:build linux

package journal_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askuser-go/askuser/journal"
)

// TestLateWriteIsBounded: when the write blocks (here: a pipe nobody
// reads), Append returns ErrTimeout after MaxWait rather than holding the
// caller, and says whether the record may still be written; both are
// logged. Once the pipe drains, the writer goes on.
func TestLateWriteIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Keep the pipe open so that what the journal writes stays in it and,
	// past the pipe's buffer, the write blocks.
	hold, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	var logs logBuffer
	j, err := journal.Open(path, &journal.Options{MaxWait: 50 * time.Millisecond, Logger: logs.logger()})
	if err != nil {
		t.Fatal(err)
	}

	big := record("big")
	big.Questions[0].Text = strings.Repeat("x", 1<<20) // more than a pipe holds
	if err := j.Append(context.Background(), stored(big)); !errors.Is(err, journal.ErrTimeout) || !strings.Contains(err.Error(), "may still complete") {
		t.Errorf("Append of a blocked write = %v, want ErrTimeout, under way", err)
	}
	// The writer is stuck in the first write: this record is still queued,
	// and giving up takes it out.
	if err := j.Append(context.Background(), stored(record("queued"))); !errors.Is(err, journal.ErrTimeout) || !strings.Contains(err.Error(), "was not written") {
		t.Errorf("Append behind a blocked write = %v, want ErrTimeout, not written", err)
	}
	// A cancelled context ends the wait too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := j.Append(ctx, stored(record("cancelled"))); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a cancelled context = %v, want context.Canceled", err)
	}
	if got := strings.Count(logs.String(), "gave up waiting"); got != 3 {
		t.Errorf("%d late appends logged, want 3; log:\n%s", got, logs.String())
	}

	// Drain the pipe: the blocked write completes (a pipe cannot be
	// fsynced, so that batch fails and is logged) and Close returns.
	drained := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, hold)
		drained <- err
	}()
	if err := j.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	hold.Close()
	<-drained
	if !strings.Contains(logs.String(), "syncing") {
		t.Errorf("the failed fsync of the pipe was not logged; log:\n%s", logs.String())
	}
}
