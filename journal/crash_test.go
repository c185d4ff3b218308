package journal_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askuser-go/askuser/journal"
)

const (
	crashFileEnv  = "ASKUSER_JOURNAL_CRASH_FILE"
	crashRoundEnv = "ASKUSER_JOURNAL_CRASH_ROUND"
	crashBigEnv   = "ASKUSER_JOURNAL_CRASH_BIG" // set: every record is large
)

// TestHelperJournalWriter is the child of TestCrash: it appends records
// from several goroutines until it is killed, printing "ack ID" for each
// record Append reported written.
func TestHelperJournalWriter(t *testing.T) {
	path := os.Getenv(crashFileEnv)
	if path == "" {
		t.Skip("the child process of TestCrash")
	}
	round := os.Getenv(crashRoundEnv)
	big := os.Getenv(crashBigEnv) != ""
	j, err := journal.Open(path, &journal.Options{MaxWait: time.Minute, Logger: (&logBuffer{}).logger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	var out sync.Mutex
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				r := record(fmt.Sprintf("%s-%d-%d", round, g, i))
				// Records of many lengths, some large, so that a kill can land in
				// the middle of a write.
				switch {
				case big:
					r.Questions[0].Options[0].Preview = strings.Repeat("diff --git a/x b/x\n", 1000+rand.IntN(2000))
				case i%8 == 0:
					r.Questions[0].Options[0].Preview = strings.Repeat("diff --git a/x b/x\n", rand.IntN(4000))
				}
				if err := j.Append(context.Background(), stored(r)); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(4)
				}
				out.Lock()
				_, _ = os.Stdout.WriteString("ack " + r.AskID + "\n")
				out.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestCrash kills a process appending under load with SIGKILL at random
// moments, 20 times, reopening the same file each round: every record it
// acknowledged is in the file and parses, each crash leaves at most one
// torn line, and the first record after a reopen starts on a fresh line.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	const rounds = 20
	acked := map[string]bool{}
	var ends []int64 // the file's size after each crash
	tornTails := 0   // crashes that left the file without its final '\n'
	for round := range rounds {
		got := runAndKill(t, path, round, nil)
		for _, id := range got {
			acked[id] = true
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, int64(len(data)))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			tornTails++
		}
		t.Logf("round %d: %d acknowledged, file %d bytes, ends in a newline: %v", round, len(got), len(data), len(data) == 0 || data[len(data)-1] == '\n')
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A new record never starts on a torn line: where a crash left the
	// file, the next bytes (if any) are the '\n' that Open wrote, or the
	// start of a record.
	for i, end := range ends[:len(ends)-1] {
		if end == 0 || end >= int64(len(data)) || data[end-1] == '\n' {
			continue
		}
		if data[end] != '\n' {
			t.Errorf("after crash %d the file went on at byte %d with %q, not on a fresh line", i, end, data[end:min(end+20, int64(len(data)))])
		}
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
	if len(acked) == 0 {
		t.Fatal("the child acknowledged nothing")
	}
	missing := 0
	for id := range acked {
		if present[id] == 0 {
			missing++
			if missing <= 5 {
				t.Errorf("acknowledged record %s is not in the journal", id)
			}
		}
	}
	for id, n := range present {
		if n > 1 {
			t.Errorf("record %s is in the journal %d times", id, n)
		}
	}
	if torn > tornTails {
		t.Errorf("%d torn lines, but only %d crashes left a torn line", torn, tornTails)
	}
	t.Logf("%d records acknowledged, %d in the file, %d torn lines from %d crashes", len(acked), len(present), torn, rounds)
}

// runAndKill starts the child (with env added to its environment), lets it
// append after its first acknowledgment until wait returns (nil: a random
// while), kills it with SIGKILL and returns the call ids it acknowledged.
func runAndKill(t *testing.T, path string, round int, wait func(), env ...string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperJournalWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashFileEnv+"="+path, fmt.Sprintf("%s=%d", crashRoundEnv, round))
	cmd.Env = append(cmd.Env, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	var ids []string
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		br := bufio.NewReader(stdout)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				// A line cut short by the kill was never fully printed;
				// only whole lines count as acknowledged.
				if err != io.EOF {
					t.Errorf("reading the child's output: %v", err)
				}
				if len(ids) == 0 {
					close(first)
				}
				return
			}
			if id, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "ack "); ok {
				ids = append(ids, id)
				if len(ids) == 1 {
					close(first)
				}
			}
		}
	}()
	select {
	case <-first:
	case <-time.After(3 * time.Minute):
		// A child that acknowledges nothing in three minutes is stuck: its
		// goroutines, on its stderr, say where.
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		<-readDone
		_ = cmd.Wait()
		t.Fatalf("round %d: the child acknowledged no record in three minutes; its stacks:\n%s", round, stderr.String())
	}
	if wait == nil {
		wait = func() { time.Sleep(time.Duration(rand.IntN(80)) * time.Millisecond) }
	}
	wait()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-readDone
	_ = cmd.Wait()
	if s := stderr.String(); s != "" {
		t.Errorf("round %d: the child wrote to stderr: %s", round, s)
	}
	return ids
}
