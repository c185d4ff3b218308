// Package dialecttest holds what the dialects' tests share: golden files
// under testdata/ (rewritten with go test -update), and a run of one call
// through the real orchestrator with a scripted responder.
package dialecttest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Golden compares got with testdata/<name>.golden, or writes the file when
// the test runs with -update.
func Golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from its golden file\n got: %s\nwant: %s", name, got, want)
	}
}

// Run is one ask through the real orchestrator.
type Run struct {
	// Call is the model's call.
	Call string
	// Steps is the script of the person; nil with Nobody set means no
	// responder at all.
	Steps []scripted.Step
	// Nobody asks with no responder.
	Nobody bool
	// Journal, when set, receives the record.
	Journal store.Journal
	// Secrets, when set, keeps sealed answers.
	Secrets secretstore.Store
}

// Do runs the ask inside a synctest bubble, so that deadlines pass in fake
// time, and returns the outcome (or the error of Handle).
func (r Run) Do(t *testing.T, d askuser.Dialect) (out *askuser.Outcome, err error) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Journal: r.Journal, Secrets: r.Secrets}
		if !r.Nobody {
			s := scripted.New(r.Steps...)
			s.Supersede = o.Supersede
			o.Responder = s
		}
		out, err = o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "t1", Arguments: []byte(r.Call), Dialect: d})
		synctest.Wait()
	})
	return out, err
}

// Records is a journal that keeps records in memory.
type Records struct {
	Recs []*journal.Record
}

// Append keeps the record.
func (j *Records) Append(_ context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.Recs = append(j.Recs, r)
	return nil
}
