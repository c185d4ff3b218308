package askuser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// The canary is a secret answer a person types. It must appear nowhere but
// in the store (sealed) and in what a tool resolves.
const canary = "canary-7f3a9c1e-SECRET-value"

// TestSecretLeaks answers a secret through the orchestrator with a file
// store, a journal and a debug-level logger, and looks for the canary in
// everything the library produced.
func TestSecretLeaks(t *testing.T) {
	dir := t.TempDir()
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	key, err := secretstore.RandomKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	ring, _ := secretstore.NewKeyRing(key)
	store, err := secretstore.OpenDir(filepath.Join(dir, "store"), ring)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open(filepath.Join(dir, "journal.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	answer := askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(canary)}
	steps := []scripted.Step{{Answer: &answer}, {End: scripted.EndSubmit}}
	r := scripted.New(steps...)
	o := &askuser.Orchestrator{Responder: r, Secrets: store, Journal: j, Logger: logger}
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "t1", Arguments: []byte(secretCall)})
	if err != nil {
		t.Fatal(err)
	}
	// The secret arrived: a tool resolves it.
	v, err := secretstore.ResolveFor(context.Background(), store, "s1", "session:GITHUB_TOKEN")
	if err != nil || string(v.Reveal()) != canary {
		t.Fatalf("the secret was not stored: %v", err)
	}

	// A responder that misbehaves with the secret: reports it on a choice
	// question (refused), panics with it, and fails with it wrapped.
	var refused error
	bad := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		refused = a.Report(askuser.Answer{QuestionID: "env", Secret: secret.FromString(canary)})
		panic(secret.FromString(canary))
	})
	o2 := &askuser.Orchestrator{Responder: bad, Secrets: store, Journal: j, Logger: logger}
	out2, err := o2.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "t2", Arguments: []byte(choiceCall)})
	if err != nil {
		t.Fatal(err)
	}
	failing := askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		return fmt.Errorf("lost %v while typing", secret.FromString(canary))
	})
	o3 := &askuser.Orchestrator{Responder: failing, Logger: logger}
	out3, err := o3.Handle(context.Background(), askuser.Request{Session: "s1", Arguments: []byte(choiceCall)})
	if err != nil {
		t.Fatal(err)
	}
	// Handle returns at the ending, maybe before Respond has returned: wait
	// for every responder before reading what they hold or wrote.
	o.WaitResponders()
	o2.WaitResponders()
	o3.WaitResponders()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	places := map[string]string{
		"the result":        string(out.Result),
		"the second result": string(out2.Result),
		"the debug log":     logs.String(),
		"the refusal":       refused.Error(),
		"the panic fault":   out2.Fault.Error(),
		"the error fault":   out3.Fault.Error(),
		"the recovered value": func() string {
			v, _, ok := askuser.PanicValue(out2.Fault)
			if !ok {
				t.Fatal("the fault is no panic")
			}
			return fmt.Sprint(v)
		}(),
	}
	for _, v := range []any{answer, &answer, steps, r, out, out2, *out, secret.FromString(canary)} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			places[fmt.Sprintf("fmt %s of %T", verb, v)] = fmt.Sprintf(verb, v)
		}
		b, _ := json.Marshal(v)
		places[fmt.Sprintf("JSON of %T", v)] = string(b)
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			places["the file "+strings.TrimPrefix(p, dir)] = string(b)
		}
		return nil
	})
	if _, ok := places["the file /journal.jsonl"]; !ok {
		t.Fatal("the journal file was not written")
	}
	hexCanary := fmt.Sprintf("%x", canary)
	for where, text := range places {
		if strings.Contains(text, canary) || strings.Contains(strings.ToLower(text), hexCanary) {
			t.Errorf("the secret appears in %s", where)
		}
	}
}
