package secretstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/secret"
)

// plainStore hides every method but Store's, as a user's own store would
// have them.
type plainStore struct{ Store }

// forEachStager runs f with each Stager: Memory, Dir, and Staging of a
// Store that is not one.
func forEachStager(t *testing.T, f func(t *testing.T, s Stager)) {
	forEachStore(t, func(t *testing.T, _ *KeyRing, s Store, _ func(string, string, string, string)) {
		if _, ok := s.(Stager); !ok {
			t.Fatalf("%T is not a Stager", s)
		}
		f(t, Staging(s))
	})
	t.Run("Staging", func(t *testing.T) {
		s := Staging(plainStore{NewMemory(mustRing(t, testKey("k1", 1)))})
		if _, ok := s.(staging); !ok {
			t.Fatalf("Staging of a plain Store is a %T", s)
		}
		f(t, s)
	})
}

func mustStage(t *testing.T, s Stager, session, name, value string) string {
	t.Helper()
	id, err := s.Stage(context.Background(), session, name, secret.FromString(value))
	if err != nil {
		t.Fatalf("Stage(%q, %q): %v", session, name, err)
	}
	return id
}

func TestStager(t *testing.T) {
	forEachStager(t, func(t *testing.T, s Stager) {
		ctx := context.Background()
		mustPut(t, s, "s1", "token", "first")

		// A staged value is not the record until it is committed.
		id := mustStage(t, s, "s1", "token", "second")
		if got := mustGet(t, s, "s1", "token"); got != "first" {
			t.Errorf("Get after Stage = %q, want the record as it was", got)
		}
		if err := s.Commit(ctx, "s1", "token", id); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if got := mustGet(t, s, "s1", "token"); got != "second" {
			t.Errorf("Get after Commit = %q, want the staged value", got)
		}
		if err := s.Commit(ctx, "s1", "token", id); !errors.Is(err, ErrNotFound) {
			t.Errorf("a second Commit of one id: %v, want ErrNotFound", err)
		}

		// A discarded value never becomes the record.
		id = mustStage(t, s, "s1", "token", "third")
		if err := s.Discard(ctx, "s1", "token", id); err != nil {
			t.Fatalf("Discard: %v", err)
		}
		if err := s.Discard(ctx, "s1", "token", id); err != nil {
			t.Errorf("a second Discard: %v, want nil", err)
		}
		if err := s.Commit(ctx, "s1", "token", id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit after Discard: %v, want ErrNotFound", err)
		}
		if got := mustGet(t, s, "s1", "token"); got != "second" {
			t.Errorf("Get after Discard = %q, want the committed value", got)
		}
		if err := s.Discard(ctx, "s1", "token", "no such id"); err != nil {
			t.Errorf("Discard of an unknown id: %v, want nil", err)
		}
		if err := s.Commit(ctx, "s1", "token", "no such id"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit of an unknown id: %v, want ErrNotFound", err)
		}

		// A value staged for a new name is the first record under it.
		id = mustStage(t, s, "s1", "new", "fresh")
		if _, err := s.Get(ctx, "s1", "new"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of a name only staged: %v, want ErrNotFound", err)
		}
		if err := s.Commit(ctx, "s1", "new", id); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, s, "s1", "new"); got != "fresh" {
			t.Errorf("Get = %q, want the committed value", got)
		}

		// Deleting the session drops what it staged.
		id = mustStage(t, s, "s1", "token", "fourth")
		if err := s.DeleteSession(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, "s1", "token", id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit after DeleteSession: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "s1", "token"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after DeleteSession and Commit: %v, want ErrNotFound", err)
		}
	})
}

// TestStagerBindsSessionAndName: an id commits only for the session and
// name it was staged for.
func TestStagerBindsSessionAndName(t *testing.T) {
	forEachStager(t, func(t *testing.T, s Stager) {
		ctx := context.Background()
		if _, ok := s.(staging); ok {
			t.Skip("Staging of a plain Store binds the session only")
		}
		mustPut(t, s, "s1", "a", "a's value")
		mustPut(t, s, "s2", "a", "s2's value")
		id := mustStage(t, s, "s1", "b", "b's value")
		if err := s.Commit(ctx, "s1", "a", id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit under another name: %v, want ErrNotFound", err)
		}
		if err := s.Commit(ctx, "s2", "b", id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Commit under another session: %v, want ErrNotFound", err)
		}
		if err := s.Discard(ctx, "s1", "a", id); err != nil {
			t.Errorf("Discard under another name: %v", err)
		}
		if got := mustGet(t, s, "s1", "a"); got != "a's value" {
			t.Errorf("Get(s1, a) = %q", got)
		}
		if got := mustGet(t, s, "s2", "a"); got != "s2's value" {
			t.Errorf("Get(s2, a) = %q", got)
		}
		if err := s.Commit(ctx, "s1", "b", id); err != nil {
			t.Errorf("Commit under its own name after the others: %v", err)
		}
		if got := mustGet(t, s, "s1", "b"); got != "b's value" {
			t.Errorf("Get(s1, b) = %q", got)
		}
	})
}

func TestStagerErrors(t *testing.T) {
	forEachStager(t, func(t *testing.T, s Stager) {
		ctx := context.Background()
		for _, tc := range []struct{ session, name string }{{"", "n"}, {"s", ""}} {
			if _, err := s.Stage(ctx, tc.session, tc.name, secret.FromString("v")); err == nil {
				t.Errorf("Stage(%q, %q) succeeded; want an error", tc.session, tc.name)
			}
			if err := s.Commit(ctx, tc.session, tc.name, "x"); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Commit(%q, %q): %v; want one saying what is missing", tc.session, tc.name, err)
			}
			if err := s.Discard(ctx, tc.session, tc.name, "x"); err == nil {
				t.Errorf("Discard(%q, %q) succeeded; want an error", tc.session, tc.name)
			}
		}
		id := mustStage(t, s, "s", "n", "v")
		done, cancel := context.WithCancel(ctx)
		cancel()
		_, serr := s.Stage(done, "s", "n", secret.FromString("v"))
		for i, err := range []error{serr, s.Commit(done, "s", "n", id), s.Discard(done, "s", "n", id)} {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("call %d with a canceled context: %v; want context.Canceled", i, err)
			}
		}
		if err := s.Commit(ctx, "s", "n", id); err != nil {
			t.Errorf("Commit after the canceled calls: %v", err)
		}
	})
}

// TestDirStageAcrossProcesses: what one Dir stages, another on the same
// directory (another process) commits or discards, and nothing staged is
// left behind.
func TestDirStageAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	ring := mustRing(t, testKey("k1", 1))
	d1, err := OpenDir(dir, ring)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := OpenDir(dir, ring)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, d1, "s", "token", "first")
	keep := mustStage(t, d1, "s", "token", "second")
	drop := mustStage(t, d1, "s", "token", "third")
	if err := d2.Commit(ctx, "s", "token", keep); err != nil {
		t.Fatal(err)
	}
	if err := d2.Discard(ctx, "s", "token", drop); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, d1, "s", "token"); got != "second" {
		t.Errorf("Get = %q, want the value committed by the other Dir", got)
	}
	left, err := filepath.Glob(filepath.Join(dir, "*", stagePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), left); diff != "" {
		t.Errorf("staged files left (-want +got):\n%s", diff)
	}
}
