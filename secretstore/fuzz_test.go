package secretstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fuzzRing is the ring the FuzzOpen corpus was sealed with.
func fuzzRing(t testing.TB) *KeyRing { return mustRing(t, testKey("fz", 7), testKey("old", 9)) }

// validSeeds reads the records in the corpus that open (the files named
// valid-*), so FuzzOpen can tell a seed from a forgery. The damaged seeds
// (truncated, bad-version) are made from valid-current: the fuzzer soon
// repairs a one-byte truncation, and must then find a known record, not a
// record nobody else has seen.
func validSeeds(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzOpen", "valid-*"))
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The corpus format: a header line, then []byte("…") quoted by Go.
		_, lit, ok := strings.Cut(strings.TrimSpace(string(b)), "\n")
		if !ok || !strings.HasPrefix(lit, "[]byte(") {
			t.Fatalf("%s is not a corpus file", f)
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		recs = append(recs, []byte(s))
	}
	return recs
}

// TestFuzzSeedsOpen keeps the corpus meaningful: its valid records must
// still open, so that a change of format shows up here and not as a fuzzer
// that only ever sees garbage.
func TestFuzzSeedsOpen(t *testing.T) {
	seeds := validSeeds(t)
	if len(seeds) < 2 {
		t.Fatalf("found %d valid seeds in the corpus; want at least 2", len(seeds))
	}
	for i, rec := range seeds {
		got, err := Open(fuzzRing(t), "s", "n", rec)
		if err != nil {
			t.Errorf("seed %d: %v", i, err)
			continue
		}
		if diff := cmp.Diff("fuzz seed", string(got)); diff != "" {
			t.Errorf("seed %d (-want +got):\n%s", i, diff)
		}
	}
}

// FuzzOpen checks that parsing a record never panics, that anything but a
// record sealed with the key fails with exactly ErrOpen, and that KeyID
// agrees with Open about the header.
func FuzzOpen(f *testing.F) {
	ring := fuzzRing(f)
	valid := validSeeds(f)
	f.Add([]byte{})
	f.Add([]byte("as\x01"))
	f.Add([]byte("as\x01\x02fz" + strings.Repeat("\x00", 40)))
	f.Fuzz(func(t *testing.T, rec []byte) {
		pt, err := Open(ring, "s", "n", rec)
		if err == nil {
			for _, v := range valid {
				if bytes.Equal(v, rec) {
					return
				}
			}
			t.Fatalf("a record that is not a seed opened (%d bytes of plaintext): a forgery", len(pt))
		}
		if err != ErrOpen {
			t.Fatalf("Open error = %v; want ErrOpen itself", err)
		}
		if _, err := KeyID(rec); err != nil && !errors.Is(err, ErrOpen) {
			t.Fatalf("KeyID error = %v; want nil or ErrOpen", err)
		}
	})
}
