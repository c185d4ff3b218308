package journal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// record returns a finalized record of call id, in session s1 under tool
// call "tc-"+id, with the result the model was given.
func record(id string) *journal.Record {
	return &journal.Record{
		Version:    journal.RecordVersion,
		AskID:      id,
		Session:    "s1",
		ToolCallID: "tc-" + id,
		Contract:   "ask_user",
		Responder:  "scripted",
		Questions: []askuser.Question{{
			ID: "env", Kind: askuser.KindChoice, Header: "Env", Text: "Which environment?",
			Options: []askuser.Option{{Label: "staging", Value: "staging", Description: "Safe to break"}, {Label: "production", Value: "production", Description: "Real users"}},
		}},
		Status:      askuser.StatusAnswered,
		AnsweredBy:  askuser.ByUser,
		Reason:      askuser.ReasonSubmitted,
		Answers:     []askuser.FinalAnswer{{QuestionID: "env", Selected: []string{"staging"}, By: askuser.ByUser}},
		AskedAt:     t0,
		ExpiresAt:   t0.Add(300 * time.Second),
		FinalizedAt: t0.Add(7 * time.Second),
		Result:      json.RawMessage(`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`),
	}
}

// stored returns r as a store.Journal is given it.
func stored(r *journal.Record) store.Record {
	if r == nil {
		return store.Record{}
	}
	sr, err := r.Stored()
	if err != nil {
		panic(err)
	}
	return sr
}

func line(t testing.TB, r *journal.Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// contents reads the journal files and returns the call ids of their
// records, in order, and the lines that held none.
func contents(t testing.TB, paths ...string) (ids []string, bad []*journal.LineError) {
	t.Helper()
	for _, p := range paths {
		for rec, err := range journal.ReadFile(p) {
			var le *journal.LineError
			switch {
			case errors.As(err, &le):
				bad = append(bad, le)
			case err != nil:
				t.Fatalf("reading %s: %v", p, err)
			default:
				ids = append(ids, rec.AskID)
			}
		}
	}
	return ids, bad
}

// allFiles returns the rotated files of path, oldest first, then path.
func allFiles(t testing.TB, path string) []string {
	t.Helper()
	rotated, err := journal.Rotated(path)
	if err != nil {
		t.Fatal(err)
	}
	return append(rotated, path)
}

// logBuffer is a logger that keeps what it was given, for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func ids(prefix string, n int) []string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("%s%03d", prefix, i))
	}
	return s
}

func mustOpen(t testing.TB, path string, opts *journal.Options) *journal.File {
	t.Helper()
	j, err := journal.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
