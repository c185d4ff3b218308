package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

func consent(session, action string, approved bool) store.Consent {
	return store.Consent{
		Session: session, Digest: approval.Digest(action, ""), Approved: approved,
		Action: action, AskID: "ask-" + action, DecidedAt: t0,
	}
}

func openConsents(t *testing.T, path string) *journal.Consents {
	t.Helper()
	c, err := journal.OpenConsents(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestConsentsRememberRecallRevoke: the store keeps, lists and forgets
// decisions per session and digest, and a reopened file has them still.
func TestConsentsRememberRecallRevoke(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "consents.jsonl")
	c := openConsents(t, path)
	del := consent("s1", "delete bucket logs", true)
	drop := consent("s1", "drop table users", false)
	other := consent("s2", "delete bucket logs", true)
	for _, x := range []store.Consent{del, drop, other} {
		if err := c.Remember(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := c.Recall(ctx, "s1", del.Digest); err != nil || !ok || got != del {
		t.Fatalf("Recall = %+v, %v, %v; want %+v", got, ok, err, del)
	}
	if _, ok, _ := c.Recall(ctx, "s3", del.Digest); ok {
		t.Error("a decision of s1 holds in s3")
	}
	list, err := c.Consents(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("s1 lists %d decisions, want 2: %+v", len(list), list)
	}
	if err := c.Revoke(ctx, "s1", del.Digest); err != nil {
		t.Fatal(err)
	}
	if err := c.Revoke(ctx, "s1", "sha256:none"); err != nil {
		t.Errorf("revoking what is not remembered: %v", err)
	}
	// A later decision for the same action replaces the earlier one.
	flipped := drop
	flipped.Approved, flipped.AskID = true, "ask-later"
	if err := c.Remember(ctx, flipped); err != nil {
		t.Fatal(err)
	}
	c.Close()

	r := openConsents(t, path)
	if _, ok, _ := r.Recall(ctx, "s1", del.Digest); ok {
		t.Error("a revoked decision came back after reopening")
	}
	if got, ok, _ := r.Recall(ctx, "s1", drop.Digest); !ok || got != flipped {
		t.Errorf("after reopening, Recall = %+v, %v; want the later decision %+v", got, ok, flipped)
	}
	if got, ok, _ := r.Recall(ctx, "s2", other.Digest); !ok || got != other {
		t.Errorf("after reopening, s2's decision = %+v, %v", got, ok)
	}
	if err := c.Remember(ctx, del); err == nil {
		t.Error("Remember on a closed store succeeded")
	}
}

// TestConsentsSharedFile: two stores on one file (two processes) see each
// other's decisions and revocations, and concurrent writers lose none.
func TestConsentsSharedFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "consents.jsonl")
	a, b := openConsents(t, path), openConsents(t, path)
	x := consent("s1", "deploy", true)
	if err := a.Remember(ctx, x); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := b.Recall(ctx, "s1", x.Digest); err != nil || !ok || got != x {
		t.Fatalf("the other store recalls %+v, %v, %v", got, ok, err)
	}
	if err := b.Revoke(ctx, "s1", x.Digest); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := a.Recall(ctx, "s1", x.Digest); ok {
		t.Error("a decision the other store revoked still holds")
	}

	var wg sync.WaitGroup
	const n = 40
	for i := range n {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() {
			if err := s.Remember(ctx, consent("s9", "action "+strings.Repeat("x", i), true)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, s := range []*journal.Consents{a, b} {
		list, err := s.Consents(ctx, "s9")
		if err != nil || len(list) != n {
			t.Errorf("a store lists %d decisions (%v), want %d", len(list), err, n)
		}
	}
}

// TestConsentsTornLine: a line cut short by a crash is skipped, the next
// decision starts a line of its own, and a reader after it sees every
// whole decision.
func TestConsentsTornLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "consents.jsonl")
	c := openConsents(t, path)
	x := consent("s1", "deploy", true)
	if err := c.Remember(ctx, x); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"v":1,"op":"remember","consent":{"session":"s1","dig`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, ok, err := c.Recall(ctx, "s1", x.Digest); err != nil || !ok {
		t.Fatalf("with a torn last line: Recall = %v, %v", ok, err)
	}
	y := consent("s1", "rollback", false)
	if err := c.Remember(ctx, y); err != nil {
		t.Fatalf("writing after a torn line: %v", err)
	}
	r := openConsents(t, path)
	list, err := r.Consents(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]store.Consent{x, y}, list); diff != "" {
		t.Errorf("decisions after a torn line (-want +got):\n%s", diff)
	}
}

// TestConsentsRefusesOtherFiles: a line that is not a decision is an error
// naming the file and the line; so is a directory.
func TestConsentsRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, want string }{
		{"not JSON", "hello\n", "line 1: not a decision"},
		{"another version", `{"v":7,"op":"remember"}` + "\n", "line 1: version 7"},
		{"unknown op", `{"v":1,"op":"grant","session":"s","digest":"d"}` + "\n", `line 1: op "grant"`},
		{"remember without a consent", `{"v":1,"op":"remember"}` + "\n", `line 1: op "remember" without`},
		{"a journal", `{"v":2,"ask_id":"a"}` + "\n", "line 1: version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := journal.OpenConsents(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenConsents = %v; want an error naming %s and saying %q", err, path, tt.want)
			}
		})
	}
	if _, err := journal.OpenConsents(dir); err == nil {
		t.Error("a directory opened as a consents file")
	}
}

// approver approves every approval for the session, as a person at a
// terminal would, and counts the asks it was given.
type approver struct {
	mu sync.Mutex
	n  int
}

func (r *approver) CanTakeApprovals() bool { return true }

func (r *approver) Respond(ctx context.Context, a *askuser.Ask) error {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	if err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{approval.ApproveSession}}); err != nil {
		return err
	}
	return a.Submit()
}

// TestConsentsAcrossRestart: a decision a person made for the session
// holds for a new orchestrator on the same file, which does not ask again.
func TestConsentsAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "consents.jsonl")
	form, err := approvaltool.Form(approval.Request{Action: "Delete bucket logs-2024", Reason: "It is empty", Risk: approval.RiskHigh}, 60)
	if err != nil {
		t.Fatal(err)
	}
	first := &approver{}
	c1 := openConsents(t, path)
	o1 := &askuser.Orchestrator{Responder: first, Consents: c1, Logger: (&logBuffer{}).logger()}
	out, err := o1.Handle(t.Context(), askuser.Request{Session: "s1", ToolCallID: "t1", Form: form})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved || v.DecidedBy != askuser.ByUser || !v.Remember {
		t.Fatalf("first request: %+v, want approved by the user for the session", v)
	}
	o1.WaitResponders()
	c1.Close()

	second := &approver{}
	o2 := &askuser.Orchestrator{Responder: second, Consents: openConsents(t, path), Logger: (&logBuffer{}).logger()}
	out2, err := o2.Handle(t.Context(), askuser.Request{Session: "s1", ToolCallID: "t2", Form: form})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := approvaltool.VerdictOf(out2)
	if v.Status != approval.Approved || v.DecidedBy != askuser.ByRemembered || v.RememberedFrom != out.AskID {
		t.Errorf("after a restart: %+v; want approved, remembered from %s", v, out.AskID)
	}
	if second.n != 0 {
		t.Errorf("the person was asked again %d times", second.n)
	}
	o2.WaitResponders()
}
