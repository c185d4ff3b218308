package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// appendAll appends the records of ids from workers goroutines and fails
// the test on any error.
func appendAll(t *testing.T, j *journal.File, ids []string, workers int) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan string)
	for range workers {
		wg.Go(func() {
			for id := range next {
				if err := j.Append(context.Background(), stored(record(id))); err != nil {
					t.Errorf("Append(%s): %v", id, err)
				}
			}
		})
	}
	for _, id := range ids {
		next <- id
	}
	close(next)
	wg.Wait()
}

func TestConcurrentAppendsAreAllWritten(t *testing.T) {
	for _, workers := range []int{1, 8, 64} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.jsonl")
			j := mustOpen(t, path, nil)
			want := ids("r", 300)
			appendAll(t, j, want, workers)
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			got, bad := contents(t, path)
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if len(bad) != 0 {
				t.Errorf("malformed lines: %v", bad)
			}
		})
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := mustOpen(t, path, nil)
	want := record("a")
	want.Principal = "alice@example.com"
	want.CancelledOn = "env"
	want.ContractRecord = json.RawMessage(`[{"id":"env","decision":"staging"}]`)
	want.Answers[0].OptionNotes = map[string]string{"staging": "for now"}
	if err := j.Append(context.Background(), stored(want)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var got []*journal.Record
	for rec, err := range journal.ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	if diff := cmp.Diff([]*journal.Record{want}, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestOpenEndsATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	a, b := line(t, record("a")), line(t, record("b"))
	torn := b[:50]
	writeFile(t, path, a+"\n"+torn)
	var logs logBuffer
	j := mustOpen(t, path, &journal.Options{Logger: logs.logger()})
	if err := j.Append(context.Background(), stored(record("c"))); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a+"\n"+torn+"\n"+line(t, record("c"))+"\n", string(data)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	got, bad := contents(t, path)
	if diff := cmp.Diff([]string{"a", "c"}, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if len(bad) != 1 || !bad[0].Torn || bad[0].Line != 2 {
		t.Errorf("malformed lines %v, want the torn line 2", bad)
	}
	if !strings.Contains(logs.String(), "torn line") {
		t.Errorf("Open did not log the torn line; log:\n%s", logs.String())
	}
}

func TestFindResult(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	j := mustOpen(t, path, &journal.Options{RotateBytes: 2000})

	callerGone := record("gone") // no result: the caller went away
	callerGone.ToolCallID = "tc-later"
	callerGone.Result = nil
	later := record("later")
	noToolCall := record("plain")
	noToolCall.ToolCallID = ""
	otherSession := record("other")
	otherSession.Session = "s2"
	otherSession.ToolCallID = "tc-a"
	first := record("a")
	second := record("a2")
	second.ToolCallID = "tc-a" // the same tool call again: the last one wins
	for _, r := range []*journal.Record{first, record("b"), callerGone, later, noToolCall, otherSession, second} {
		if err := j.Append(context.Background(), stored(r)); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		session, toolCall string
		want              string // the call id found, "" for none
	}{
		{"s1", "tc-a", "a2"},
		{"s1", "tc-b", "b"},
		{"s2", "tc-a", "other"},
		{"s1", "tc-later", "later"},
		{"s1", "tc-plain", ""},
		{"s1", "", ""},
		{"s3", "tc-a", ""},
	}
	check := func(t *testing.T, f store.ResultFinder) {
		for _, tt := range tests {
			rec, ok, err := f.FindResult(context.Background(), tt.session, tt.toolCall)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if ok {
				got = rec.AskID
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FindResult(%s, %s) (-want +got):\n%s", tt.session, tt.toolCall, diff)
			}
		}
	}
	t.Run("appended", func(t *testing.T) { check(t, j) })
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if rotated, _ := journal.Rotated(path); len(rotated) == 0 {
		t.Fatal("the journal was not rotated; the test wants its records spread over several files")
	}
	t.Run("after reopening", func(t *testing.T) { check(t, mustOpen(t, path, nil)) })
}

func TestFindResultReturnsAWholeRecord(t *testing.T) {
	j := mustOpen(t, filepath.Join(t.TempDir(), "j.jsonl"), nil)
	want := record("a")
	if err := j.Append(context.Background(), stored(want)); err != nil {
		t.Fatal(err)
	}
	sr, ok, err := j.FindResult(context.Background(), "s1", "tc-a")
	if err != nil || !ok {
		t.Fatalf("FindResult = %v, %v", ok, err)
	}
	if sr.AskID != "a" || sr.Session != "s1" || sr.ToolCallID != "tc-a" || !sr.HasResult {
		t.Errorf("FindResult's ids = %q %q %q, result %v; want a s1 tc-a with a result", sr.AskID, sr.Session, sr.ToolCallID, sr.HasResult)
	}
	got, err := journal.Decode(sr.Data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

func TestRotationLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var logs logBuffer
	j := mustOpen(t, path, &journal.Options{RotateBytes: 4 << 10, Logger: logs.logger()})
	want := ids("r", 400)
	appendAll(t, j, want, 16)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	files := allFiles(t, path)
	if len(files) < 3 {
		t.Fatalf("files %v, want the journal rotated", files)
	}
	got, bad := contents(t, files...)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records over %d files (-want +got):\n%s", len(files), diff)
	}
	if len(bad) != 0 {
		t.Errorf("malformed lines: %v", bad)
	}
	if !strings.Contains(logs.String(), "rotated by size") {
		t.Errorf("rotation was not logged")
	}
}

func TestOutsideRenameLosesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	var logs logBuffer
	j := mustOpen(t, path, &journal.Options{Logger: logs.logger()})

	// One rename between two appends: the old file keeps its record, the
	// new one gets the next.
	if err := j.Append(context.Background(), stored(record("before"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), stored(record("after"))); err != nil {
		t.Fatal(err)
	}
	old, _ := contents(t, path+".1")
	cur, _ := contents(t, path)
	if diff := cmp.Diff([][]string{{"before"}, {"after"}}, [][]string{old, cur}); diff != "" {
		t.Errorf("records in (renamed, new) (-want +got):\n%s", diff)
	}
	if !strings.Contains(logs.String(), "moved away") {
		t.Errorf("the reopening was not logged")
	}

	// Renames while appends are under way, as logrotate would do them:
	// each time the journal has made a new file, it is renamed away.
	want := ids("r", 300)
	appending := make(chan struct{})
	renamerDone := make(chan struct{})
	var renamed []string
	go func() {
		defer close(renamerDone)
		for i := 2; ; {
			select {
			case <-appending:
				return
			default:
			}
			if _, err := os.Stat(path); err != nil {
				time.Sleep(100 * time.Microsecond)
				continue
			}
			name := fmt.Sprintf("%s.%d", path, i)
			if err := os.Rename(path, name); err != nil {
				t.Errorf("rename: %v", err)
				return
			}
			renamed = append(renamed, name)
			i++
		}
	}()
	appendAll(t, j, want, 8)
	close(appending)
	<-renamerDone
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if len(renamed) < 2 {
		t.Logf("only %d renames happened during the appends", len(renamed))
	}
	files := renamed
	if _, err := os.Stat(path); err == nil {
		files = append(files, path)
	}
	all, bad := contents(t, files...)
	var got []string
	for _, id := range all {
		if strings.HasPrefix(id, "r") {
			got = append(got, id)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if len(bad) != 0 {
		t.Errorf("malformed lines: %v", bad)
	}
}

func TestFailedWriteIsReturnedAndLogged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var logs logBuffer
	j := mustOpen(t, path, &journal.Options{Logger: logs.logger()})
	if err := j.Append(context.Background(), stored(record("a"))); err != nil {
		t.Fatal(err)
	}
	// The path becomes a directory: the journal cannot reopen it.
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	err := j.Append(context.Background(), stored(record("b")))
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Append = %v, want the failure to open the path", err)
	}
	if !strings.Contains(logs.String(), "writing a batch of records failed") {
		t.Errorf("the failure was not logged; log:\n%s", logs.String())
	}
	// Once the path can be opened again, appends succeed.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(context.Background(), stored(record("c"))); err != nil {
		t.Fatalf("Append after the path was freed: %v", err)
	}
	got, _ := contents(t, path+".old", path)
	if diff := cmp.Diff([]string{"a", "c"}, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestFullDiskIsReturnedAndLogged(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	var logs logBuffer
	j := mustOpen(t, "/dev/full", &journal.Options{Logger: logs.logger()})
	err := j.Append(context.Background(), stored(record("a")))
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("Append = %v, want the write's failure", err)
	}
	if !strings.Contains(logs.String(), "no space left") {
		t.Errorf("the failure was not logged; log:\n%s", logs.String())
	}
}

func TestAppendAfterClose(t *testing.T) {
	var logs logBuffer
	j := mustOpen(t, filepath.Join(t.TempDir(), "j.jsonl"), &journal.Options{Logger: logs.logger()})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
	if err := j.Append(context.Background(), stored(record("a"))); !errors.Is(err, journal.ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if !strings.Contains(logs.String(), "append after Close") {
		t.Errorf("the failure was not logged; log:\n%s", logs.String())
	}
}

// TestCloseRacingAppends: an Append that races with Close either is
// written (and returns nil) or returns ErrClosed and is not.
func TestCloseRacingAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := mustOpen(t, path, &journal.Options{Logger: (&logBuffer{}).logger()})
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("g%02d-%04d", g, i)
				err := j.Append(context.Background(), stored(record(id)))
				if errors.Is(err, journal.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				mu.Lock()
				acked = append(acked, id)
				n := len(acked)
				mu.Unlock()
				if n == 200 {
					go j.Close()
				}
			}
		})
	}
	wg.Wait()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := contents(t, path)
	slices.Sort(got)
	slices.Sort(acked)
	if diff := cmp.Diff(acked, got); diff != "" {
		t.Errorf("records (-acknowledged +in the file):\n%s", diff)
	}
}

// TestAppendRefusesWhatIsNotOneRecord: Data that is not one JSON object
// on one line is refused with what is wrong, and the journal holds only
// the records it took.
func TestAppendRefusesWhatIsNotOneRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := mustOpen(t, path, &journal.Options{Logger: slog.New(slog.DiscardHandler)})
	for _, tt := range []struct {
		data, want string
	}{
		{"", "its Data is empty; a record is one JSON object"},
		{`["x"]`, "its Data is not a JSON object"},
		{"{\"v\":2,\n\"ask_id\":\"x\"}", "its Data holds a line break; a record is one JSON object on one line"},
	} {
		err := j.Append(context.Background(), store.Record{AskID: "x", Session: "s1", Data: []byte(tt.data)})
		if err == nil || !strings.Contains(err.Error(), "the record of ask x was not written: "+tt.want) {
			t.Errorf("Append(%q) = %v; want %q", tt.data, err, tt.want)
		}
	}
	if err := j.Append(context.Background(), stored(record("ok"))); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if ids, bad := contents(t, path); !slices.Equal(ids, []string{"ok"}) || len(bad) != 0 {
		t.Errorf("journal holds %v (bad lines %v); want only ok", ids, bad)
	}
}

func TestOpenFails(t *testing.T) {
	_, err := journal.Open(filepath.Join(t.TempDir(), "no", "such", "dir", "j.jsonl"), nil)
	if err == nil || !strings.Contains(err.Error(), "journal: opening") {
		t.Errorf("Open = %v, want an error opening the file", err)
	}
}
