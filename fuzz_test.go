package askuser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecodeCall checks the ask_user decoder on any input: it never
// panics, it refuses only with a *CallError carrying the contract's prefix,
// and whatever it accepts re-encodes with MarshalCall into a call that
// decodes to the same Call again.
func FuzzDecodeCall(f *testing.F) {
	files, _ := filepath.Glob("testdata/calls/*.json")
	files = append(files, "testdata/bench/call4.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		auCall(auChoice), auCall(auSecret), auCall(auText, auChoice),
		`{"questions":[{"Header":"H"}]}`, `{"questions":null,"timeout_seconds":1e1}`,
		`{"timeout_seconds":1.5}`, `[`, `{"questions":[{"kind":"text","header":"\ud800\u00e9","question":"x"}]}`,
	} {
		f.Add([]byte(s))
	}
	lim := Limits{MaxTimeoutSeconds: 300, MaxCallBytes: 8 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeAskUser(data, lim)
		if err != nil {
			var ce *CallError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want a *CallError", err, err)
			}
			if !strings.HasPrefix(ce.Message, auPrefix) {
				t.Fatalf("message %q lacks the prefix", ce.Message)
			}
			if ce.Path != "" && !strings.HasPrefix(ce.Message, auPrefix+ce.Path+": ") {
				t.Fatalf("message %q does not name its path %q", ce.Message, ce.Path)
			}
			if c != nil {
				t.Fatal("a call returned with an error")
			}
			return
		}
		auRoundTrip(t, data, lim)
	})
}
