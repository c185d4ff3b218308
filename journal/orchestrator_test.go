package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secret"
)

const secretCall = `{"questions":[{"kind":"secret","header":"Token","question":"Paste a GitHub token","secret_name":"GITHUB_TOKEN","purpose":"to open the pull request"}]}`

// TestSecretCanaryNeverReachesTheJournal: a secret answered through the
// orchestrator is recorded as a reference only; its value is in no journal
// file and in no log line.
func TestSecretCanaryNeverReachesTheJournal(t *testing.T) {
	const canary = "ghp_CANARYcanaryCANARYcanary0123456789"
	path := filepath.Join(t.TempDir(), "j.jsonl")
	var logs logBuffer
	j := mustOpen(t, path, &journal.Options{Logger: logs.logger(), RotateBytes: 1})
	o := &askuser.Orchestrator{
		Journal: j,
		Logger:  logs.logger(),
		Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			if err := a.Report(askuser.Answer{QuestionID: a.Form().Questions[0].ID, Secret: secret.FromString(canary)}); err != nil {
				return err
			}
			return a.Submit()
		}),
	}
	for _, tc := range []string{"call-1", "call-2"} {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: tc, Arguments: []byte(secretCall)})
		if err != nil {
			t.Fatal(err)
		}
		if out.JournalErr != nil {
			t.Fatal(out.JournalErr)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	var refs []string
	for _, p := range allFiles(t, path) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), canary) || strings.Contains(string(data), "CANARY") {
			t.Errorf("%s holds the secret", p)
		}
		for rec, err := range journal.ReadFile(p) {
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range rec.Answers {
				refs = append(refs, a.SecretRef)
			}
		}
	}
	if diff := cmp.Diff([]string{"session:GITHUB_TOKEN", "session:GITHUB_TOKEN"}, refs); diff != "" {
		t.Errorf("the records' secret references (-want +got):\n%s", diff)
	}
	if strings.Contains(logs.String(), "CANARY") {
		t.Error("the log holds the secret")
	}
}

// TestReplayAcrossRestarts: a tool call finalized before a restart is
// replayed from the journal by a new orchestrator, without asking anybody
// and without a second record.
func TestReplayAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	const call = `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe"},{"label":"production","description":"Real"}]}]}`
	asked := 0
	responder := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		asked++
		if err := a.Report(askuser.Answer{QuestionID: "env", Selected: []string{"production"}}); err != nil {
			return err
		}
		return a.Submit()
	})
	req := askuser.Request{Session: "s1", ToolCallID: "tc-1", Arguments: []byte(call)}

	j1 := mustOpen(t, path, nil)
	first, err := (&askuser.Orchestrator{Journal: j1, Responder: responder}).Handle(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := j1.Close(); err != nil {
		t.Fatal(err)
	}

	j2 := mustOpen(t, path, nil)
	again, err := (&askuser.Orchestrator{Journal: j2, Responder: responder}).Handle(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if err := j2.Close(); err != nil {
		t.Fatal(err)
	}
	if !again.Replayed || asked != 1 {
		t.Errorf("after a restart: replayed %v, asked %d times; want a replay and one ask", again.Replayed, asked)
	}
	if diff := cmp.Diff(string(first.Result), string(again.Result)); diff != "" {
		t.Errorf("replayed result (-want +got):\n%s", diff)
	}
	got, _ := contents(t, path)
	if len(got) != 1 {
		t.Errorf("%d records, want 1", len(got))
	}
}
