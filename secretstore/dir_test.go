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

// TestDirConcurrent has 64 goroutines put, get, replace and delete records
// in one Dir, some under names they share, while others delete a session;
// run it with -race.
func TestDirConcurrent(t *testing.T) {
	const workers, rounds = 64, 8
	ctx := context.Background()
	d, err := OpenDir(t.TempDir(), mustRing(t, testKey("k1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*4)
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
	// No temporary files are left behind by Puts that returned.
	tmps, err := filepath.Glob(filepath.Join(d.Path(), "*", tmpPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), tmps); diff != "" {
		t.Errorf("temporary files left (-want +got):\n%s", diff)
	}
}

const (
	helperEnv    = "ASKUSER_SECRETSTORE_HELPER_DIR"
	helperKeyEnv = "ASKUSER_SECRETSTORE_HELPER_KEY"
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
		name := fmt.Sprintf("n%d", i)
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
		fmt.Println(name)
	}
}

// TestPutSurvivesKill runs a child process that writes records and
// acknowledges each, kills it with SIGKILL after a few acknowledgements, and
// checks that every acknowledged record opens.
func TestPutSurvivesKill(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" || runtime.GOOS == "ios" || runtime.GOOS == "android" {
		t.Skipf("cannot run a child process on %s", runtime.GOOS)
	}
	dir := filepath.Join(t.TempDir(), "store")
	k := testKey("k1", 1)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperKeyEnv+"=k1:"+b64(k))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		acked = append(acked, sc.Text())
		if len(acked) == 20 {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
				t.Fatalf("killing the child: %v", err)
			}
			break
		}
	}
	// Names the child printed before it died are acknowledged as well.
	for sc.Scan() {
		acked = append(acked, sc.Text())
	}
	err = cmd.Wait()
	if len(acked) < 20 {
		t.Fatalf("the child acknowledged %d records before exiting (%v); want 20", len(acked), err)
	}
	if err == nil {
		t.Fatal("the child exited normally; want it killed")
	}

	d, err := OpenDir(dir, mustRing(t, k))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range acked {
		if diff := cmp.Diff("value of "+name, mustGet(t, d, "killed", name)); diff != "" {
			t.Errorf("acknowledged record %s (-want +got):\n%s", name, diff)
		}
	}
	// The record replaced at every step holds a whole value.
	if got := mustGet(t, d, "killed", "replaced"); !strings.HasPrefix(got, "value of n") {
		t.Errorf("the replaced record holds %q; want a whole value", got)
	}
}
