package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// statsJournal writes a journal of three asks: two the person answered on
// the card (one taking the recommended option), one the deadline decided.
func statsJournal(t *testing.T) string {
	t.Helper()
	q := []askuser.Question{{ID: "env", Header: "Env\x1b[2J", Kind: askuser.KindChoice, Options: []askuser.Option{
		{Value: "staging", Label: "staging"}, {Value: "production", Label: "production", Default: true}}}}
	now := time.Now().UTC()
	mk := func(id, responder string, wait time.Duration, by askuser.Provenance, status askuser.Status, sel string) *journal.Record {
		return &journal.Record{Version: journal.RecordVersion, AskID: id, Session: "s1", Contract: "ask_user", Responder: responder,
			Questions: q, Status: status, AnsweredBy: by, Reason: askuser.ReasonSubmitted,
			Answers: []askuser.FinalAnswer{{QuestionID: "env", Selected: []string{sel}, By: by}},
			AskedAt: now.Add(-time.Hour), ExpiresAt: now, FinalizedAt: now.Add(-time.Hour + wait)}
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*journal.Record{
		mk("a1", "web", 10*time.Second, askuser.ByUser, askuser.StatusAnswered, "production"),
		mk("a2", "web", 30*time.Second, askuser.ByUser, askuser.StatusAnswered, "staging"),
		mk("a3", "stdio", 300*time.Second, askuser.ByTimeout, askuser.StatusTimedOut, "production"),
	} {
		if err := j.Append(context.Background(), stored(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStatsCommand: askuser stats prints the table of a journal file,
// with the model's headers made inert, and writes the page with --html.
func TestStatsCommand(t *testing.T) {
	path := statsJournal(t)
	page := filepath.Join(t.TempDir(), "stats.html")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"stats", "--by", "header", "--since", "24h", "--html", page, path}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := `HEADER      ASKS  ANSWERED  DECLINED  CANCELLED  TIMED_OUT  BY_USER  DEADLINE  NOBODY  P50  P90  P99  RECOMMENDED
Env\x1b[2J  3     2         0         0          1          2        1         0       10s  30s  30s  1/2 (50%)
TOTAL       3     2         0         0          1          2        1         0       10s  30s  30s  1/2 (50%)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(b, []byte(`<svg class="chart" id="chart-ended"`)) {
		t.Errorf("the page: %v\n%.300s", err, b)
	}
}

func TestStatsUsage(t *testing.T) {
	path := statsJournal(t)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--by", "session", path}, exitUsage, `--by "session" is not a dimension; allowed: tool, header, responder, principal`},
		{[]string{"--since", "-1h", path}, exitUsage, "a positive duration"},
		{[]string{}, exitUsage, "give one JOURNAL file, or --nats URL, not 0 arguments"},
		{[]string{"--nats", "nats://127.0.0.1:1", path}, exitUsage, "give no JOURNAL"},
		{[]string{"--nats-token-file", "x", path}, exitUsage, "--nats-token-file is for --nats URL"},
		{[]string{filepath.Join(t.TempDir(), "none")}, exitFailure, "none"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{"stats"}, tt.args...), strings.NewReader(""), &out, &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("stats %q: exit %d, %q; want %d and %q", tt.args, code, errb.String(), tt.code, tt.want)
		}
	}
}

// stored returns r as a store.Journal is given it.
func stored(r *journal.Record) store.Record {
	sr, err := r.Stored()
	if err != nil {
		panic(err)
	}
	return sr
}
