package journal_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
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
			case rec == nil || rec.Version < 1 || rec.Version > askuser.RecordVersion:
				t.Fatalf("Read yielded %+v", rec)
			}
		}
	})
}
