package journal_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secretstore"
)

// FuzzRead: Read never panics, numbers malformed lines within the input,
// and yields only records of a version it knows.
func FuzzRead(f *testing.F) {
	a := line(f, record("a"))
	for _, s := range []string{"", "\n", a + "\n", a + "\n" + a[:20], a[:20] + "\n" + a + "\n", "{\"v\":1}\n{\"v\":2}\n[", "\x00\x00\n{", `{"v":1,"questions":[{"id":"q","options":[{"value":"x"}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		for rec, err := range journal.Read(strings.NewReader(string(data))) {
			var le *journal.LineError
			switch {
			case errors.As(err, &le):
				if le.Line < 1 || le.Line > lines || le.Reason == "" {
					t.Fatalf("LineError %+v for input of %d lines", le, lines)
				}
			case err != nil:
				t.Fatalf("Read of a byte slice failed: %v", err)
			case rec == nil || rec.Version < 1 || rec.Version > journal.RecordVersion:
				t.Fatalf("Read yielded %+v", rec)
			}
		}
	})
}

// FuzzVerify: Verify never panics, numbers every problem within
// the input, and counts no line twice; bytes appended to a sealed journal
// by someone without the key never verify.
func FuzzVerify(f *testing.F) {
	k, err := secretstore.RandomKey("k1")
	if err != nil {
		f.Fatal(err)
	}
	keys, err := secretstore.NewKeyRing(k)
	if err != nil {
		f.Fatal(err)
	}
	base := filepath.Join(f.TempDir(), "base.jsonl")
	j, err := journal.Open(base, &journal.Options{Keys: keys})
	if err != nil {
		f.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := j.Append(context.Background(), stored(record(id))); err != nil {
			f.Fatal(err)
		}
	}
	j.Close()
	sealed, err := os.ReadFile(base)
	if err != nil {
		f.Fatal(err)
	}
	l1 := strings.SplitAfter(string(sealed), "\n")[0]
	for _, s := range []string{"", l1, line(f, record("x")) + "\n", l1[:40], strings.Replace(l1, `"seq":1`, `"seq":3`, 1)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := journal.Verify("j.jsonl", bytes.NewReader(append(append([]byte(nil), sealed...), data...)), keys)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(sealed)+string(data), "\n") + 1
		if rep.Verified+len(rep.Problems)+rep.Torn > lines {
			t.Fatalf("%d verified, %d problems, %d torn in %d lines", rep.Verified, len(rep.Problems), rep.Torn, lines)
		}
		for _, p := range rep.Problems {
			if p.Line < 1 || p.Line > lines || p.Reason == "" {
				t.Fatalf("problem %+v in %d lines", p, lines)
			}
		}
		if rep.Verified > 2 {
			t.Fatalf("%d records verify, but only 2 were sealed: %q", rep.Verified, data)
		}
	})
}
