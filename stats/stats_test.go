package stats_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/stats"
	"github.com/askuser-go/askuser/store"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

var (
	envQ = askuser.Question{ID: "env", Header: "Env", Text: "Deploy where?", Kind: askuser.KindChoice, Options: []askuser.Option{
		{Value: "staging", Label: "staging"}, {Value: "production", Label: "production", Default: true}}}
	regionQ = askuser.Question{ID: "region", Header: "Region", Text: "Which regions?", Kind: askuser.KindChoice, MultiSelect: true, Options: []askuser.Option{
		{Value: "eu", Label: "eu"}, {Value: "us", Label: "us"}}}
)

// rec is one journal record: asked at t0 plus start, finalized wait later.
func rec(id, contract, responder, principal string, start, wait time.Duration, status askuser.Status, by askuser.Provenance, qs []askuser.Question, answers ...askuser.FinalAnswer) *journal.Record {
	if answers == nil {
		answers = []askuser.FinalAnswer{}
	}
	return &journal.Record{
		Version: journal.RecordVersion, AskID: id, Session: "s1", ToolCallID: "call-" + id, Contract: contract,
		Responder: responder, Principal: principal, Questions: qs, Status: status, AnsweredBy: by, Reason: askuser.ReasonSubmitted,
		Answers: answers, AskedAt: t0.Add(start), ExpiresAt: t0.Add(start + 300*time.Second), FinalizedAt: t0.Add(start + wait),
	}
}

func user(q string, sel ...string) askuser.FinalAnswer {
	return askuser.FinalAnswer{QuestionID: q, Selected: sel, By: askuser.ByUser}
}

// knownJournal writes a journal of known figures with the journal
// package's own writer, and a line no reader can read at its end:
//
//	a1 ask_user  web  ana  Env=production (took), Region=us (not)  user 10s
//	a2 ask_user  web  ana  Env=production (took)                   user 20s
//	a3 ask_user  tui  bo   Env=staging (not)                       user 30s
//	a4 ask_user  web  -    the deadline: its defaults              timeout 300s
//	a5 ask_user  none -    nobody: its defaults                    unattended
//	a6 request_approval web bo  approved                           user 40s
//	a7 ask_user  web  ana  declined                                user 50s
//	a0 ask_user  web  ana  finalized a day before the others (for Since)
func knownJournal(t *testing.T) string {
	t.Helper()
	env := []askuser.Question{envQ}
	ap, err := approvaltool.Form(approval.Request{Action: "Delete the bucket", Reason: "archived", Risk: approval.RiskHigh}, 60)
	if err != nil {
		t.Fatal(err)
	}
	def := func(by askuser.Provenance) askuser.FinalAnswer {
		return askuser.FinalAnswer{QuestionID: "env", Selected: []string{"production"}, By: by}
	}
	recs := []*journal.Record{
		rec("a0", "ask_user", "web", "ana", -24*time.Hour, 5*time.Second, askuser.StatusAnswered, askuser.ByUser, env, user("env", "staging")),
		rec("a1", "ask_user", "web", "ana", 0, 10*time.Second, askuser.StatusAnswered, askuser.ByUser, []askuser.Question{envQ, regionQ}, user("env", "production"), user("region", "us")),
		rec("a2", "ask_user", "web", "ana", time.Minute, 20*time.Second, askuser.StatusAnswered, askuser.ByUser, env, user("env", "production")),
		rec("a3", "ask_user", "tui", "bo", 2*time.Minute, 30*time.Second, askuser.StatusAnswered, askuser.ByUser, env, user("env", "staging")),
		rec("a4", "ask_user", "web", "", 3*time.Minute, 300*time.Second, askuser.StatusTimedOut, askuser.ByTimeout, env, def(askuser.ByTimeout)),
		rec("a5", "ask_user", "none", "", 4*time.Minute, 0, askuser.StatusAnswered, askuser.ByUnattended, env, def(askuser.ByUnattended)),
		rec("a6", "request_approval", "web", "bo", 5*time.Minute, 40*time.Second, askuser.StatusAnswered, askuser.ByUser, ap.Questions, user(approval.QuestionID, approval.ApproveOnce)),
		rec("a7", "ask_user", "web", "ana", 6*time.Minute, 50*time.Second, askuser.StatusDeclined, askuser.ByUser, env),
	}
	recs[6].Approval = ap.Approval
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := j.Append(context.Background(), stored(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("not a record\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// row builds an expected row. st and by list status (or provenance) and
// count pairs.
func row(key string, asks int, st map[askuser.Status]int, by map[askuser.Provenance]int, p50, p90, p99 time.Duration, answered, took int) stats.Row {
	return stats.Row{Key: key, Asks: asks, Status: st, AnsweredBy: by, P50: p50, P90: p90, P99: p99, Answered: answered, Took: took}
}

type sts = map[askuser.Status]int
type bys = map[askuser.Provenance]int

const s = time.Second

// TestCompute checks every figure of the known journal, exactly, in total
// and by each dimension, with Since leaving out the day-old ask.
func TestCompute(t *testing.T) {
	path := knownJournal(t)
	since := t0.Add(-time.Hour)
	total := row("", 7, sts{"answered": 5, "declined": 1, "timed_out": 1}, bys{"user": 5, "timeout": 1, "unattended": 1}, 30*s, 50*s, 50*s, 4, 2)
	tests := []struct {
		by   stats.Dimension
		rows []stats.Row
	}{
		{stats.ByTool, []stats.Row{
			row("ask_user", 6, sts{"answered": 4, "declined": 1, "timed_out": 1}, bys{"user": 4, "timeout": 1, "unattended": 1}, 20*s, 50*s, 50*s, 4, 2),
			row("request_approval", 1, sts{"answered": 1}, bys{"user": 1}, 40*s, 40*s, 40*s, 0, 0),
		}},
		{stats.ByHeader, []stats.Row{
			row("Env", 6, sts{"answered": 4, "declined": 1, "timed_out": 1}, bys{"user": 4, "timeout": 1, "unattended": 1}, 20*s, 50*s, 50*s, 3, 2),
			row("Approval", 1, sts{"answered": 1}, bys{"user": 1}, 40*s, 40*s, 40*s, 0, 0),
			row("Region", 1, sts{"answered": 1}, bys{"user": 1}, 10*s, 10*s, 10*s, 1, 0),
		}},
		{stats.ByResponder, []stats.Row{
			row("web", 5, sts{"answered": 3, "declined": 1, "timed_out": 1}, bys{"user": 4, "timeout": 1}, 20*s, 50*s, 50*s, 3, 2),
			row("none", 1, sts{"answered": 1}, bys{"unattended": 1}, 0, 0, 0, 0, 0),
			row("tui", 1, sts{"answered": 1}, bys{"user": 1}, 30*s, 30*s, 30*s, 1, 0),
		}},
		{stats.ByPrincipal, []stats.Row{
			row("ana", 3, sts{"answered": 2, "declined": 1}, bys{"user": 3}, 20*s, 50*s, 50*s, 3, 2),
			row("", 2, sts{"answered": 1, "timed_out": 1}, bys{"timeout": 1, "unattended": 1}, 0, 0, 0, 0, 0),
			row("bo", 2, sts{"answered": 2}, bys{"user": 2}, 30*s, 40*s, 40*s, 1, 0),
		}},
	}
	for _, tt := range tests {
		rep := stats.Compute(journal.ReadFile(path), stats.Options{Since: since, By: tt.by})
		if diff := cmp.Diff(total, rep.Total, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("by %s: total (-want +got):\n%s", tt.by, diff)
		}
		if diff := cmp.Diff(tt.rows, rep.Rows, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("by %s: rows (-want +got):\n%s", tt.by, diff)
		}
		if rep.Skipped != 1 {
			t.Errorf("by %s: %d records skipped, want the 1 unreadable line", tt.by, rep.Skipped)
		}
	}
	all := stats.Compute(journal.ReadFile(path), stats.Options{})
	if all.Total.Asks != 8 || all.By != stats.ByTool {
		t.Errorf("without Since: %d asks by %s, want 8 by tool", all.Total.Asks, all.By)
	}
	if got := all.Total.Agreement(); math.Abs(got-2.0/5) > 1e-9 {
		t.Errorf("agreement with a0 counted: %v, want 2/5", got)
	}
	if got := (&stats.Row{}).Agreement(); !math.IsNaN(got) {
		t.Errorf("agreement of no answers: %v, want NaN", got)
	}
}

// TestTable: the table shows the figures, and a header the model wrote
// with escape sequences and tabs is made inert.
func TestTable(t *testing.T) {
	path := knownJournal(t)
	var b bytes.Buffer
	if err := stats.Compute(journal.ReadFile(path), stats.Options{Since: t0.Add(-time.Hour), By: stats.ByTool}).Table(&b); err != nil {
		t.Fatal(err)
	}
	want := `TOOL              ASKS  ANSWERED  DECLINED  CANCELLED  TIMED_OUT  BY_USER  DEADLINE  NOBODY  P50  P90  P99  RECOMMENDED
ask_user          6     4         1         0          1          4        1         1       20s  50s  50s  2/4 (50%)
request_approval  1     1         0         0          0          1        0         0       40s  40s  40s  -
TOTAL             7     5         1         0          1          5        1         1       30s  50s  50s  2/4 (50%)
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}

	evil := rec("e1", "ask_user", "web", "", 0, time.Second, askuser.StatusAnswered, askuser.ByUser,
		[]askuser.Question{{ID: "q", Header: "Env\x1b]0;pwned\x07\tX\n", Kind: askuser.KindText}})
	b.Reset()
	if err := stats.Compute(stats.Records([]*journal.Record{evil}), stats.Options{By: stats.ByHeader}).Table(&b); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), `Env\x1b]0;pwned\a\tX\n`) {
		t.Errorf("the header is not made inert:\n%q", b.String())
	}
}

// TestHTML: the page holds the figures and three charts, escapes what
// came from the journal, and loads nothing from anywhere.
func TestHTML(t *testing.T) {
	path := knownJournal(t)
	rep := stats.Compute(journal.ReadFile(path), stats.Options{Since: t0.Add(-time.Hour), By: stats.ByHeader})
	rep.Rows[0].Key = `<script>alert("Env")</script>`
	var b bytes.Buffer
	if err := rep.HTML(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="chart-ended"`, `id="chart-agreement"`, `id="chart-wait"`, `&lt;script&gt;alert(&#34;Env&#34;)&lt;/script&gt;`, `<td>2/3 (67%)</td>`, "default-src 'none'"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://cdn", "src="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must be self-contained and script-free", bad)
		}
	}
}

func TestParseDimension(t *testing.T) {
	for _, d := range stats.Dimensions() {
		if got, err := stats.ParseDimension(string(d)); got != d || err != nil {
			t.Errorf("ParseDimension(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := stats.ParseDimension("session"); err == nil || !strings.Contains(err.Error(), "allowed: tool, header, responder, principal") {
		t.Errorf("ParseDimension(session): %v", err)
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
