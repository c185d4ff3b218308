package journal_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/journal"
)

// TestAppendAfterAnotherWritersTornLine: another process appending to the
// same file was killed in the middle of a record. The next record a
// long-lived File appends starts a line of its own, so it is read back
// whole, and the fragment is reported as torn.
func TestAppendAfterAnotherWritersTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := mustOpen(t, path, &journal.Options{MaxWait: time.Minute})
	if err := j.Append(context.Background(), stored(record("a"))); err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	frag := line(t, record("other"))[:60]
	if _, err := other.WriteString(frag); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "c"} {
		if err := j.Append(context.Background(), stored(record(id))); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := line(t, record("a")) + "\n" + frag + "\n" + line(t, record("b")) + "\n" + line(t, record("c")) + "\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	got, bad := contents(t, path)
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if len(bad) != 1 || !bad[0].Torn {
		t.Errorf("malformed lines %v, want the one torn fragment", bad)
	}
}

// TestCrashBesideALiveWriter: two processes append to one file. One is
// killed with SIGKILL in the middle of its writes (and started again), while
// the other keeps appending all along. No record either of them
// acknowledged is lost: a record of the live writer never shares a line
// with what the killed one left.
func TestCrashBesideALiveWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "two.jsonl")
	j, err := journal.Open(path, &journal.Options{MaxWait: time.Minute, Logger: (&logBuffer{}).logger()})
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu         sync.Mutex
		liveAcked  []string
		liveFailed error
		stop       atomic.Bool
		wg         sync.WaitGroup
	)
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				r := record(fmt.Sprintf("live-%d-%d", g, i))
				if err := j.Append(context.Background(), stored(r)); err != nil {
					mu.Lock()
					liveFailed = err
					mu.Unlock()
					return
				}
				mu.Lock()
				liveAcked = append(liveAcked, r.AskID)
				mu.Unlock()
				time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			}
		})
	}

	// midWrite returns once the file does not end with '\n' — a write of
	// the child's is under way — or after a while.
	midWrite := func() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var last [1]byte
		for deadline := time.Now().Add(100 * time.Millisecond); time.Now().Before(deadline); {
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := f.ReadAt(last[:], fi.Size()-1); n == 1 && last[0] != '\n' {
				return
			}
		}
	}
	const rounds = 10
	var childAcked []string
	for round := range rounds {
		childAcked = append(childAcked, runAndKill(t, path, round, midWrite, crashBigEnv+"=1")...)
		time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond) // the live writer goes on alone
	}
	stop.Store(true)
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if liveFailed != nil {
		t.Fatalf("the live writer's Append failed: %v", liveFailed)
	}

	present := map[string]int{}
	torn := 0
	for rec, err := range journal.ReadFile(path) {
		var le *journal.LineError
		switch {
		case errors.As(err, &le) && le.Torn:
			torn++
		case err != nil:
			t.Errorf("a line that is neither a record nor torn: %v", err)
		default:
			present[rec.AskID]++
		}
	}
	check := func(who string, acked []string) {
		if len(acked) == 0 {
			t.Errorf("the %s writer acknowledged nothing", who)
		}
		missing := 0
		for _, id := range acked {
			if present[id] != 1 {
				missing++
				if missing <= 5 {
					t.Errorf("the %s writer's acknowledged record %s is in the journal %d times, want once", who, id, present[id])
				}
			}
		}
		if missing > 0 {
			t.Errorf("%d of the %s writer's %d acknowledged records are not in the journal once", missing, who, len(acked))
		}
	}
	check("live", liveAcked)
	check("killed", childAcked)
	t.Logf("%d records from the live writer, %d from the killed one, %d torn lines from %d kills", len(liveAcked), len(childAcked), torn, rounds)
}
