package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
)

// journalFixture writes a journal: three records, a malformed line and a
// torn last line.
func journalFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	var lines []string
	for _, r := range []*journal.Record{
		{Version: journal.RecordVersion, AskID: "c1", Session: "s1", ToolCallID: "t1", Contract: "ask_user", Responder: "stdio",
			Status: askuser.StatusAnswered, AnsweredBy: askuser.ByUser, Reason: askuser.ReasonSubmitted, FinalizedAt: at},
		{Version: journal.RecordVersion, AskID: "c2", Session: "s2", Contract: "pi-ask", Responder: "auto",
			Status: askuser.StatusDeclined, AnsweredBy: askuser.ByUnattended, Reason: askuser.ReasonUnattended, FinalizedAt: at.Add(time.Minute)},
		{Version: journal.RecordVersion, AskID: "c3", Session: "s1", ToolCallID: "t3\tx", Contract: "ask_user", Responder: "stdio",
			Status: askuser.StatusCancelled, AnsweredBy: askuser.ByUnattended, Reason: askuser.ReasonCaller, FinalizedAt: at.Add(2 * time.Minute)},
	} {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(data))
	}
	// The second record is in the first release's format, which reads as
	// the current one.
	v1 := `{"v":1,"call_id":"c2","session":"s2","contract":"pi-ask","responder":"auto","questions":null,"status":"declined","answered_by":"unattended","reason":"unattended","answers":null,"asked_at":"0001-01-01T00:00:00Z","expires_at":"0001-01-01T00:00:00Z","finalized_at":"2026-01-02T15:05:05Z"}`
	content := lines[0] + "\n" + "not a record\n" + v1 + "\n" + lines[2][:30] + "\n" + lines[2] + "\n" + `{"v":1,"call_id":"c4","ses`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestJournalCommand(t *testing.T) {
	path := journalFixture(t)
	c2 := `{"v":3,"ask_id":"c2","session":"s2","contract":"pi-ask","responder":"auto","questions":null,"status":"declined","answered_by":"unattended","reason":"unattended","answers":null,"asked_at":"0001-01-01T00:00:00Z","expires_at":"0001-01-01T00:00:00Z","finalized_at":"2026-01-02T15:05:05Z"}` + "\n"
	notes := "askuser journal: " + path + ":2: not a journal record: invalid character 'o' in literal null (expecting 'u')\n" +
		"askuser journal: " + path + ":4: skipped an incomplete record left by a crash\n"
	missing := filepath.Join(t.TempDir(), "none")
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout       string
		stderrPrefix string
	}{
		{"table", []string{path}, exitFailure,
			"FINALIZED             SESSION  TOOL_CALL  CONTRACT  STATUS     ANSWERED_BY  REASON      RESPONDER\n" +
				"2026-01-02T15:04:05Z  s1       t1         ask_user  answered   user         submitted   stdio\n" +
				"2026-01-02T15:05:05Z  s2       -          pi-ask    declined   unattended   unattended  auto\n" +
				"2026-01-02T15:06:05Z  s1       t3\\tx      ask_user  cancelled  unattended   caller      stdio\n",
			notes},
		{"one session", []string{"--session", "s2", path}, exitFailure,
			"FINALIZED             SESSION  TOOL_CALL  CONTRACT  STATUS    ANSWERED_BY  REASON      RESPONDER\n" +
				"2026-01-02T15:05:05Z  s2       -          pi-ask    declined  unattended   unattended  auto\n",
			notes},
		{"json", []string{"--json", "--session", "s2", path}, exitFailure, c2, notes},
		{"no file", []string{}, exitUsage, "", "askuser journal: give one journal FILE, not 0\n"},
		{"a missing file", []string{missing}, exitFailure, "", "askuser journal: " + missing + ": no such file or directory\n"},
		{"an unknown flag", []string{"--colour", path}, exitUsage, "", "flag provided but not defined: -colour\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(context.Background(), append([]string{"journal"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if diff := cmp.Diff(tt.stdout, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(stderr.String(), tt.stderrPrefix) {
				t.Errorf("stderr %q, want it to start with %q", stderr.String(), tt.stderrPrefix)
			}
		})
	}
}

func TestJournalCommandCleanFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"journal", "--json", path}, strings.NewReader(""), &stdout, &stderr)
	got := []any{code, stdout.String(), stderr.String()}
	if diff := cmp.Diff([]any{exitOK, "", ""}, got); diff != "" {
		t.Errorf("(exit code, stdout, stderr) (-want +got):\n%s", diff)
	}
}

// TestAskJournal: ask --journal records the ask once; asking the same tool
// call again replays it from the journal (a new process would too) and
// adds nothing; `askuser journal` lists it.
func TestAskJournal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "j.jsonl")
	call := `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real"}]}]}`
	var results []string
	for range 2 {
		var stdout, stderr strings.Builder
		code := run(context.Background(), []string{"ask", "--responder", "auto", "--journal", path, "--session", "s9", "--tool-call", "tc-9"}, strings.NewReader(call), &stdout, &stderr)
		if code != exitOK || stderr.Len() != 0 {
			t.Fatalf("ask: exit %d, stderr %s", code, stderr.String())
		}
		results = append(results, stdout.String())
	}
	if diff := cmp.Diff(results[0], results[1]); diff != "" {
		t.Errorf("the replayed result (-first +again):\n%s", diff)
	}
	var got []string
	for rec, err := range journal.ReadFile(path) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{rec.Session, rec.ToolCallID, rec.Contract, rec.Responder, string(rec.Status), string(rec.Reason), string(rec.Result)}, " "))
	}
	want := []string{"s9 tc-9 ask_user auto answered unattended " + strings.TrimSpace(results[0])}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestAskJournalCannotOpen(t *testing.T) {
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"ask", "--responder", "auto", "--journal", t.TempDir()}, strings.NewReader("{}"), &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "askuser ask: journal: opening") {
		t.Errorf("exit %d, stderr %q; want 1 and the failure to open the journal", code, stderr.String())
	}
}

// TestJournalTableIsInert: what the table shows from the file is made
// inert: a field holding an escape sequence, a carriage return, a C1
// control or a bidi control is shown as escapes, and nothing in the
// table can act on a terminal.
func TestJournalTableIsInert(t *testing.T) {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	tests := []struct {
		name, raw, shown string
	}{
		{"CSI cursor moves", "\x1b[2A\x1b[2K", `\x1b[2A\x1b[2K`},
		{"OSC 52 ended by BEL", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\a`},
		{"OSC 52 ended by ST", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`},
		{"CR overwrite", "s1\rs2", `s1\rs2`},
		{"backspaces", "s1\b\bs2", `s1\b\bs2`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI", "\u009b2A", `\u009b2A`},
		{"right-to-left override", "\u202eexe.txt", `\u202eexe.txt`},
		{"a newline", "a\nb", `a\nb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &journal.Record{Version: journal.RecordVersion, AskID: "c1",
				Session: "S" + tt.raw, ToolCallID: "T" + tt.raw, Contract: "C" + tt.raw, Responder: "R" + tt.raw,
				Status: askuser.Status("st" + tt.raw), AnsweredBy: askuser.Provenance("by" + tt.raw), Reason: askuser.Reason("why" + tt.raw), FinalizedAt: at}
			data, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "j.jsonl")
			if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errs := cli(t, "", "journal", path)
			if code != exitOK || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("the table has %d lines, want 2: %q", len(lines), out)
			}
			want := []string{"2026-01-02T15:04:05Z", "S" + tt.shown, "T" + tt.shown, "C" + tt.shown,
				"st" + tt.shown, "by" + tt.shown, "why" + tt.shown, "R" + tt.shown}
			if diff := cmp.Diff(want, strings.Fields(lines[1])); diff != "" {
				t.Errorf("the row's cells (-want +got):\n%s", diff)
			}
			for i, r := range out {
				if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
					t.Errorf("the table holds U+%04X at byte %d: %q", r, i, out)
					break
				}
			}
		})
	}
}
