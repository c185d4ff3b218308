package secretstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/secret"
)

// stores returns a fresh store of each kind, sealing with ring. move copies
// the record of (fromSession, fromName) to (toSession, toName) as an
// attacker with access to the storage would, without opening it.
type storeCase struct {
	name string
	new  func(t *testing.T, ring *KeyRing) (s Store, move func(fromSession, fromName, toSession, toName string))
}

var storeCases = []storeCase{
	{"Memory", func(t *testing.T, ring *KeyRing) (Store, func(string, string, string, string)) {
		m := NewMemory(ring)
		return m, func(fs, fn, ts, tn string) {
			m.mu.Lock()
			defer m.mu.Unlock()
			rec, ok := m.recs[fs][fn]
			if !ok {
				t.Fatalf("no record to move at (%q, %q)", fs, fn)
			}
			if m.recs[ts] == nil {
				m.recs[ts] = map[string][]byte{}
			}
			m.recs[ts][tn] = bytes.Clone(rec)
		}
	}},
	{"Dir", func(t *testing.T, ring *KeyRing) (Store, func(string, string, string, string)) {
		d, err := OpenDir(filepath.Join(t.TempDir(), "store"), ring)
		if err != nil {
			t.Fatalf("OpenDir: %v", err)
		}
		return d, func(fs, fn, ts, tn string) {
			rec, err := os.ReadFile(d.recordPath(fs, fn))
			if err != nil {
				t.Fatalf("reading the record to move: %v", err)
			}
			if err := os.MkdirAll(d.sessionDir(ts), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(d.recordPath(ts, tn), rec, 0o600); err != nil {
				t.Fatalf("writing the moved record: %v", err)
			}
		}
	}},
}

func forEachStore(t *testing.T, f func(t *testing.T, ring *KeyRing, s Store, move func(fs, fn, ts, tn string))) {
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			ring := mustRing(t, testKey("k1", 1))
			s, move := sc.new(t, ring)
			f(t, ring, s, move)
		})
	}
}

func mustGet(t *testing.T, s Store, session, name string) string {
	t.Helper()
	v, err := s.Get(context.Background(), session, name)
	if err != nil {
		t.Fatalf("Get(%.40q, %.40q): %v", session, name, err)
	}
	return string(v.Reveal())
}

func mustPut(t *testing.T, s Store, session, name, value string) {
	t.Helper()
	if err := s.Put(context.Background(), session, name, secret.FromString(value)); err != nil {
		t.Fatalf("Put(%.40q, %.40q): %v", session, name, err)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *KeyRing, s Store, _ func(string, string, string, string)) {
		ctx := context.Background()
		mustPut(t, s, "s1", "db", "first")
		mustPut(t, s, "s1", "api", "second")
		mustPut(t, s, "s2", "db", "other session")
		mustPut(t, s, "s1", "empty", "")
		got := map[string]string{
			"s1/db":    mustGet(t, s, "s1", "db"),
			"s1/api":   mustGet(t, s, "s1", "api"),
			"s2/db":    mustGet(t, s, "s2", "db"),
			"s1/empty": mustGet(t, s, "s1", "empty"),
		}
		want := map[string]string{"s1/db": "first", "s1/api": "second", "s2/db": "other session", "s1/empty": ""}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Get mismatch (-want +got):\n%s", diff)
		}

		mustPut(t, s, "s1", "db", "replaced")
		if diff := cmp.Diff("replaced", mustGet(t, s, "s1", "db")); diff != "" {
			t.Errorf("Get after a second Put (-want +got):\n%s", diff)
		}

		if err := s.Delete(ctx, "s1", "db"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := s.Get(ctx, "s1", "db"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: error = %v; want ErrNotFound", err)
		}
		if err := s.Delete(ctx, "s1", "db"); err != nil {
			t.Errorf("Delete of a deleted record: %v; want nil", err)
		}
		if diff := cmp.Diff("second", mustGet(t, s, "s1", "api")); diff != "" {
			t.Errorf("Delete removed another record (-want +got):\n%s", diff)
		}

		if err := s.DeleteSession(ctx, "s1"); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		for _, name := range []string{"api", "empty"} {
			if _, err := s.Get(ctx, "s1", name); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get(s1, %s) after DeleteSession: error = %v; want ErrNotFound", name, err)
			}
		}
		if diff := cmp.Diff("other session", mustGet(t, s, "s2", "db")); diff != "" {
			t.Errorf("DeleteSession removed another session's record (-want +got):\n%s", diff)
		}
		if err := s.DeleteSession(ctx, "never"); err != nil {
			t.Errorf("DeleteSession of an unknown session: %v; want nil", err)
		}
		// A session can be used again after it was deleted.
		mustPut(t, s, "s1", "db", "again")
		if diff := cmp.Diff("again", mustGet(t, s, "s1", "db")); diff != "" {
			t.Errorf("Get after reusing a deleted session (-want +got):\n%s", diff)
		}
	})
}

func TestStoreErrors(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *KeyRing, s Store, _ func(string, string, string, string)) {
		ctx := context.Background()
		_, err := s.Get(ctx, "s", "missing")
		if diff := cmp.Diff(`secretstore: no secret stored under that name for this session (session "s", name "missing")`, fmt.Sprint(err)); diff != "" {
			t.Errorf("Get of a missing name (-want +got):\n%s", diff)
		}
		for _, tc := range []struct{ session, name string }{{"", "n"}, {"s", ""}} {
			if err := s.Put(ctx, tc.session, tc.name, secret.FromString("v")); err == nil {
				t.Errorf("Put(%q, %q) succeeded; want an error", tc.session, tc.name)
			}
			if _, err := s.Get(ctx, tc.session, tc.name); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("Get(%q, %q): error = %v; want one saying what is missing", tc.session, tc.name, err)
			}
			if err := s.Delete(ctx, tc.session, tc.name); err == nil {
				t.Errorf("Delete(%q, %q) succeeded; want an error", tc.session, tc.name)
			}
		}
		if err := s.DeleteSession(ctx, ""); err == nil {
			t.Error(`DeleteSession("") succeeded; want an error`)
		}

		done, cancel := context.WithCancel(ctx)
		cancel()
		errs := []error{
			s.Put(done, "s", "n", secret.FromString("v")),
			func() error { _, err := s.Get(done, "s", "n"); return err }(),
			s.Delete(done, "s", "n"),
			s.DeleteSession(done, "s"),
		}
		for i, err := range errs {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("call %d with a canceled context: error = %v; want context.Canceled", i, err)
			}
		}
		if _, err := s.Get(ctx, "s", "n"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a Put with a canceled context stored something: Get error = %v", err)
		}
	})
}

func TestStoreMovedRecords(t *testing.T) {
	forEachStore(t, func(t *testing.T, _ *KeyRing, s Store, move func(string, string, string, string)) {
		ctx := context.Background()
		mustPut(t, s, "alice", "token", "alice's token")
		mustPut(t, s, "alice", "other", "something else")
		move("alice", "token", "mallory", "token") // to another session
		move("alice", "token", "alice", "stolen")  // to another name
		move("alice", "token", "alice", "other")   // over another record
		for _, tc := range []struct{ session, name string }{{"mallory", "token"}, {"alice", "stolen"}, {"alice", "other"}} {
			v, err := s.Get(ctx, tc.session, tc.name)
			if !v.Empty() {
				t.Errorf("Get(%q, %q) of a moved record returned %d bytes", tc.session, tc.name, v.Len())
			}
			wantOpenErr(t, fmt.Sprintf("Get(%q, %q) of a moved record", tc.session, tc.name), err)
		}
		if diff := cmp.Diff("alice's token", mustGet(t, s, "alice", "token")); diff != "" {
			t.Errorf("the original record (-want +got):\n%s", diff)
		}
	})
}

func TestStoreRotation(t *testing.T) {
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			k1, k2 := testKey("k1", 1), testKey("k2", 2)
			ctx := context.Background()
			// One backing store, seen through three rings: move copies the
			// record from a store under one ring into a store under another.
			old, _ := sc.new(t, mustRing(t, k1))
			mustPut(t, old, "s", "n", "under k1")
			for _, tc := range []struct {
				name    string
				ring    *KeyRing
				wantErr error
			}{
				{"rotated", mustRing(t, k2, k1), nil},
				{"k1 dropped", mustRing(t, k2), ErrOpen},
			} {
				var s Store
				switch o := old.(type) {
				case *Memory:
					m := NewMemory(tc.ring)
					m.recs = o.recs
					s = m
				case *Dir:
					d, err := OpenDir(o.root, tc.ring)
					if err != nil {
						t.Fatal(err)
					}
					s = d
				}
				v, err := s.Get(ctx, "s", "n")
				if tc.wantErr != nil {
					wantOpenErr(t, tc.name, err)
					continue
				}
				if err != nil {
					t.Fatalf("%s: Get: %v", tc.name, err)
				}
				if diff := cmp.Diff("under k1", string(v.Reveal())); diff != "" {
					t.Errorf("%s: Get mismatch (-want +got):\n%s", tc.name, diff)
				}
			}
		})
	}
}

func TestStoreAnyName(t *testing.T) {
	long := strings.Repeat("n", 10_000)
	names := []string{"../x", "../../../../../../tmp/x", "/etc/passwd", "a:b", "a\x00b", long, ".", "..", "", "CON", "a/b\\c", " ", "\xff\xfe", ".tmp-x", ".del-x"}
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			parent := t.TempDir()
			var s Store
			if sc.name == "Dir" {
				d, err := OpenDir(filepath.Join(parent, "store"), mustRing(t, testKey("k1", 1)))
				if err != nil {
					t.Fatal(err)
				}
				s = d
			} else {
				s, _ = sc.new(t, mustRing(t, testKey("k1", 1)))
			}
			ctx := context.Background()
			for i, session := range names {
				for j, name := range names {
					if session == "" || name == "" {
						continue
					}
					mustPut(t, s, session, name, fmt.Sprintf("%d/%d", i, j))
				}
			}
			for i, session := range names {
				for j, name := range names {
					if session == "" || name == "" {
						continue
					}
					if diff := cmp.Diff(fmt.Sprintf("%d/%d", i, j), mustGet(t, s, session, name)); diff != "" {
						t.Errorf("Get(%.20q, %.20q) mismatch (-want +got):\n%s", session, name, diff)
					}
				}
			}
			// Nothing was written outside the store's own directory.
			entries, err := os.ReadDir(parent)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			var want []string
			if sc.name == "Dir" {
				want = []string{"store"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("entries beside the store (-want +got):\n%s", diff)
			}
			if err := s.DeleteSession(ctx, "../x"); err != nil {
				t.Fatalf("DeleteSession: %v", err)
			}
			if _, err := s.Get(ctx, "../x", "/etc/passwd"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after DeleteSession: error = %v; want ErrNotFound", err)
			}
			if diff := cmp.Diff("2/1", mustGet(t, s, "/etc/passwd", "../../../../../../tmp/x")); diff != "" {
				t.Errorf("a record of another session (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoLeak puts a canary through both stores and every error path, then
// looks for it in every file under the store's directory, in the memory
// store's records, in every error message and in every rendering of the
// stores.
func TestNoLeak(t *testing.T) {
	const canary = "CANARY-6a1f-correct-horse-battery"
	ctx := context.Background()
	root := t.TempDir()
	k := testKey("k1", 1)
	ring := mustRing(t, k)
	d, err := OpenDir(root, ring)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMemory(ring)
	var errs []error
	for _, s := range []Store{d, m} {
		for _, name := range []string{"token", canary[:8]} {
			if err := s.Put(ctx, "s", name, secret.FromString(canary)); err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.Get(ctx, "s", "token")
		if err != nil || string(v.Reveal()) != canary {
			t.Fatalf("Get: %v", err)
		}
		_, err = s.Get(ctx, "s", "missing")
		errs = append(errs, err)
		errs = append(errs, s.Put(ctx, "", "n", secret.FromString(canary)))
		errs = append(errs, s.Put(ctx, "s", "big", secret.New(append([]byte(canary), make([]byte, MaxValueLen)...))))
	}
	mustPut(t, d, "moved", "x", canary)
	rec, err := os.ReadFile(d.recordPath("moved", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.recordPath("moved", "y"), rec, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = d.Get(ctx, "moved", "y")
	errs = append(errs, err)
	_, err = Open(ring, "s", "n", []byte(canary))
	errs = append(errs, err)
	_, err = ParseKeys("k1:" + canary)
	errs = append(errs, err)
	_, err = ResolveFor(ctx, m, "s", canary)
	errs = append(errs, err)

	var seen int
	for _, err := range errs {
		if err == nil {
			t.Error("an error path returned nil")
			continue
		}
		seen++
		if strings.Contains(err.Error(), canary) || strings.Contains(fmt.Sprintf("%+v", err), canary) {
			t.Errorf("error leaks the canary: %v", err)
		}
	}
	if seen < 10 {
		t.Errorf("checked %d error messages; want at least 10", seen)
	}

	var files int
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(canary)) || bytes.Contains(b, k.Secret[:16]) {
			t.Errorf("%s holds the canary or the key in clear", path)
		}
		if strings.Contains(path, canary[:8]) {
			t.Errorf("file name %s holds a name in clear", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Errorf("found %d files under the store; want at least 3", files)
	}
	for session, names := range m.recs {
		for name, rec := range names {
			if bytes.Contains(rec, []byte(canary)) {
				t.Errorf("memory record (%q, %q) holds the canary in clear", session, name)
			}
		}
	}
	decimal := strings.Trim(fmt.Sprint(k.Secret[:8]), "[]") // "1 2 3 …", as fmt prints a byte array
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		out := fmt.Sprintf(verb, []any{d, m, struct{ m *Memory }{m}, struct{ d *Dir }{d}})
		if strings.Contains(out, canary) || strings.Contains(out, string(k.Secret[:8])) || strings.Contains(out, decimal) {
			t.Errorf("fmt %s of the stores leaks: %s", verb, out)
		}
	}
}

func TestDirPermissions(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "store")
	d, err := OpenDir(root, mustRing(t, testKey("k1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, d, "s", "n", "v")
	got := map[string]fs.FileMode{}
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if e.IsDir() {
			got[rel] = fi.Mode().Perm() | fs.ModeDir
		} else {
			got["file"] = fi.Mode().Perm()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		".":                              fs.ModeDir | 0o700,
		filepath.Base(d.sessionDir("s")): fs.ModeDir | 0o700,
		"file":                           0o600,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
}

func TestOpenDirErrors(t *testing.T) {
	ring := mustRing(t, testKey("k1", 1))
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(t.TempDir(), nil); !errors.Is(err, ErrNoKey) {
		t.Errorf("OpenDir with a nil ring: error = %v; want ErrNoKey", err)
	}
	if _, err := OpenDir("", ring); err == nil {
		t.Error(`OpenDir("") succeeded; want an error`)
	}
	if _, err := OpenDir(file, ring); err == nil {
		t.Error("OpenDir of a file succeeded; want an error")
	}
}

func TestOpenDirSweepsTombstones(t *testing.T) {
	root := t.TempDir()
	tomb := filepath.Join(root, tombPrefix+"left-over", "s-x")
	if err := os.MkdirAll(tomb, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tomb, "r.rec"), []byte("sealed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(root, mustRing(t, testKey("k1", 1))); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(0, len(entries)); diff != "" {
		t.Errorf("entries left after OpenDir (-want +got):\n%s", diff)
	}
}

func TestMemoryNilRing(t *testing.T) {
	a, b := NewMemory(nil), NewMemory(nil)
	mustPut(t, a, "s", "n", "v")
	if diff := cmp.Diff("v", mustGet(t, a, "s", "n")); diff != "" {
		t.Errorf("Get mismatch (-want +got):\n%s", diff)
	}
	// Both share the process key: a record moves between them and opens.
	b.recs = a.recs
	if diff := cmp.Diff("v", mustGet(t, b, "s", "n")); diff != "" {
		t.Errorf("Get through another nil-ring store (-want +got):\n%s", diff)
	}
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	s := NewMemory(nil)
	mustPut(t, s, "alice", "token", "alice's token")
	mustPut(t, s, "bob", "other", "bob's")
	alice := WithSession(ctx, "alice")
	tests := []struct {
		name    string
		ctx     context.Context
		ref     string
		want    string
		wantErr error
	}{
		{"own reference", alice, "session:token", "alice's token", nil},
		{"built with Ref", alice, Ref("token"), "alice's token", nil},
		{"never stored", alice, "session:missing", "", ErrNotFound},
		{"another session's name", alice, "session:other", "", ErrNotFound},
		{"no session", ctx, "session:token", "", ErrNoSession},
		{"empty session", WithSession(ctx, ""), "session:token", "", ErrNoSession},
		{"no prefix", alice, "token", "", ErrBadRef},
		{"empty name", alice, "session:", "", ErrBadRef},
		{"other prefix", alice, "env:token", "", ErrBadRef},
		{"case matters", alice, "Session:token", "", ErrBadRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Resolve(tt.ctx, s, tt.ref)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Resolve error = %v; want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, string(v.Reveal())); diff != "" {
				t.Errorf("Resolve mismatch (-want +got):\n%s", diff)
			}
		})
	}
	v, err := ResolveFor(ctx, s, "bob", "session:other")
	if err != nil {
		t.Fatalf("ResolveFor: %v", err)
	}
	if diff := cmp.Diff("bob's", string(v.Reveal())); diff != "" {
		t.Errorf("ResolveFor mismatch (-want +got):\n%s", diff)
	}
	if _, err := ResolveFor(ctx, s, "", "session:other"); !errors.Is(err, ErrNoSession) {
		t.Errorf("ResolveFor with no session: error = %v; want ErrNoSession", err)
	}
	got, ok := SessionFrom(alice)
	if diff := cmp.Diff([]any{"alice", true}, []any{got, ok}); diff != "" {
		t.Errorf("SessionFrom mismatch (-want +got):\n%s", diff)
	}
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		ref, want string
		ok        bool
	}{
		{"session:db", "db", true},
		{"session:a:b", "a:b", true},
		{"session:../x", "../x", true},
		{"session:", "", false},
		{"", "", false},
		{"db", "", false},
		{" session:db", "", false},
		{"session:" + strings.Repeat("n", MaxNameLen+1), "", false},
	}
	for _, tt := range tests {
		name, err := ParseRef(tt.ref)
		if diff := cmp.Diff(tt.want, name); diff != "" {
			t.Errorf("ParseRef(%.30q) name (-want +got):\n%s", tt.ref, diff)
		}
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadRef)) {
			t.Errorf("ParseRef(%.30q) error = %v; want ok=%v or ErrBadRef", tt.ref, err, tt.ok)
		}
	}
}
