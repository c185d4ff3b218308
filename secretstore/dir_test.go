package secretstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/secret"
)

// TestDirConcurrent has 64 goroutines put, stage, commit, get, replace and
// delete records in one Dir, some under names they share, while others
// delete a session; run it with -race.
func TestDirConcurrent(t *testing.T) {
	const workers, rounds = 64, 8
	ctx := context.Background()
	d, err := OpenDir(t.TempDir(), mustRing(t, testKey("k1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*8)
	for w := range workers {
		wg.Go(func() {
			own := fmt.Sprintf("worker-%d", w)
			for r := range rounds {
				val := fmt.Sprintf("%d/%d", w, r)
				if err := d.Put(ctx, own, "mine", secret.FromString(val)); err != nil {
					errs <- err
					continue
				}
				v, err := d.Get(ctx, own, "mine")
				if err != nil {
					errs <- fmt.Errorf("worker %d reading its own record: %w", w, err)
				} else if got := string(v.Reveal()); got != val {
					errs <- fmt.Errorf("worker %d read %q; want %q", w, got, val)
				}
				// A name every worker writes: a reader sees some worker's
				// whole value, never a torn or unopenable record.
				if err := d.Put(ctx, "shared", "name", secret.FromString(val)); err != nil {
					errs <- err
				}
				v, err = d.Get(ctx, "shared", "name")
				if err != nil {
					errs <- fmt.Errorf("worker %d reading the shared record: %w", w, err)
				} else if !strings.Contains(string(v.Reveal()), "/") {
					errs <- fmt.Errorf("worker %d read a torn shared record", w)
				}
				// A session some workers fill while others delete it.
				if w%4 == 0 {
					if err := d.DeleteSession(ctx, "churn"); err != nil {
						errs <- err
					}
				} else if err := d.Put(ctx, "churn", own, secret.FromString(val)); err != nil {
					errs <- err
				}
				if _, err := d.Get(ctx, "churn", own); err != nil && !errors.Is(err, ErrNotFound) {
					errs <- fmt.Errorf("worker %d reading the churned session: %w", w, err)
				}
				// Staged values, committed into the shared record and into
				// the churned session (where a DeleteSession may drop them
				// first), or discarded.
				if id, err := d.Stage(ctx, "shared", "staged", secret.FromString(val)); err != nil {
					errs <- err
				} else if r%2 == 0 {
					if err := d.Commit(ctx, "shared", "staged", id); err != nil {
						errs <- fmt.Errorf("worker %d committing: %w", w, err)
					}
				} else if err := d.Discard(ctx, "shared", "staged", id); err != nil {
					errs <- err
				}
				if id, err := d.Stage(ctx, "churn", "staged", secret.FromString(val)); err != nil {
					errs <- err
				} else if err := d.Commit(ctx, "churn", "staged", id); err != nil && !errors.Is(err, ErrNotFound) {
					errs <- fmt.Errorf("worker %d committing into the churned session: %w", w, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range workers {
		want := fmt.Sprintf("%d/%d", w, rounds-1)
		if diff := cmp.Diff(want, mustGet(t, d, fmt.Sprintf("worker-%d", w), "mine")); diff != "" {
			t.Errorf("worker %d's last record (-want +got):\n%s", w, diff)
		}
	}
	if got := mustGet(t, d, "shared", "staged"); !strings.Contains(got, "/") {
		t.Errorf("the shared staged record holds %q; want a whole value", got)
	}
	// No temporary or staged files are left behind by calls that returned.
	tmps, err := filepath.Glob(filepath.Join(d.Path(), "*", tmpPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	staged, err := filepath.Glob(filepath.Join(d.Path(), "*", stagePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	tmps = append(tmps, staged...)
	if diff := cmp.Diff([]string(nil), tmps); diff != "" {
		t.Errorf("temporary files left (-want +got):\n%s", diff)
	}
}

const (
	helperEnv     = "ASKUSER_SECRETSTORE_HELPER_DIR"
	helperKeyEnv  = "ASKUSER_SECRETSTORE_HELPER_KEY"
	helperNameEnv = "ASKUSER_SECRETSTORE_HELPER_NAME"
)

// TestHelperProcess is not a test: TestPutSurvivesKill runs the test binary
// again with only this test selected and helperEnv set. It puts records
// forever, printing each name once its Put has returned.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestPutSurvivesKill")
	}
	ring, err := ParseKeys(os.Getenv(helperKeyEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	d, err := OpenDir(dir, ring)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s%d", os.Getenv(helperNameEnv), i)
		if err := d.Put(context.Background(), "killed", name, secret.FromString("value of "+name)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		// Replace an earlier record too, so that a kill can land in the
		// middle of a replacement.
		if err := d.Put(context.Background(), "killed", "replaced", secret.FromString("value of "+name)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		// And through Stage and Commit (or Discard), so that a kill can
		// land in the middle of those.
		for _, commit := range []bool{false, true} {
			id, err := d.Stage(context.Background(), "killed", "committed", secret.FromString("value of "+name))
			if err == nil && commit {
				err = d.Commit(context.Background(), "killed", "committed", id)
			} else if err == nil {
				err = d.Discard(context.Background(), "killed", "committed", id)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		fmt.Println(name)
	}
}

// TestPutSurvivesKill runs two child processes that write records into one
// directory, each acknowledging its records and both replacing two shared
// records (one by Put, one by Stage and Commit), kills them with SIGKILL
// after a few acknowledgements, and checks that every acknowledged record
// opens and the shared ones are whole.
func TestPutSurvivesKill(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" || runtime.GOOS == "ios" || runtime.GOOS == "android" {
		t.Skipf("cannot run a child process on %s", runtime.GOOS)
	}
	const acks = 20
	dir := filepath.Join(t.TempDir(), "store")
	k := testKey("k1", 1)
	type child struct {
		cmd   *exec.Cmd
		acked []string
		err   error
	}
	children := []*child{{}, {}}
	var wg sync.WaitGroup
	for i, c := range children {
		c.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		c.cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperKeyEnv+"=k1:"+b64(k), fmt.Sprintf("%s=c%d-", helperNameEnv, i))
		c.cmd.Stderr = os.Stderr
		out, err := c.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				c.acked = append(c.acked, sc.Text())
				if len(c.acked) == acks {
					_ = c.cmd.Process.Kill() // SIGKILL on Unix
				}
			}
			// Names a child printed before it died are acknowledged too.
			c.err = c.cmd.Wait()
		})
	}
	wg.Wait()

	d, err := OpenDir(dir, mustRing(t, k))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range children {
		if len(c.acked) < acks {
			t.Fatalf("child %d acknowledged %d records before exiting (%v); want %d", i, len(c.acked), c.err, acks)
		}
		if c.err == nil {
			t.Errorf("child %d exited normally; want it killed", i)
		}
		for _, name := range c.acked {
			if diff := cmp.Diff("value of "+name, mustGet(t, d, "killed", name)); diff != "" {
				t.Errorf("acknowledged record %s (-want +got):\n%s", name, diff)
			}
		}
	}
	// The records both replaced at every step hold one whole value.
	for _, name := range []string{"replaced", "committed"} {
		if got := mustGet(t, d, "killed", name); !strings.HasPrefix(got, "value of c") {
			t.Errorf("the %s record holds %q; want a whole value", name, got)
		}
	}
}
