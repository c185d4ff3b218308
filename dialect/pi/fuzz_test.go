package pi_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
)

// FuzzDecode checks that Decode never panics, that an invalid call always
// carries the contract's result as valid JSON, and that a valid call is
// stable: written back with MarshalCall and decoded again, it is the same
// call. The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(oneQuestion))
	f.Add([]byte(several))
	f.Add([]byte(richSelect))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := pi.Dialect().Decode(data, dialect.Limits{})
		if err != nil {
			var ce *dialect.CallError
			if !errors.As(err, &ce) || !json.Valid(ce.Result) || ce.Message == "" {
				t.Fatalf("Decode(%q) = %v, want a *dialect.CallError with a JSON result", data, err)
			}
			return
		}
		roundTrip(t, c)
	})
}

func roundTrip(t *testing.T, c *askuser.Form) {
	t.Helper()
	again, err := pi.MarshalCall(c)
	if err != nil {
		t.Fatalf("MarshalCall: %v", err)
	}
	c2, err := pi.Dialect().Decode(again, dialect.Limits{})
	if err != nil {
		t.Fatalf("the normalized call %s does not decode: %v", again, err)
	}
	if diff := cmp.Diff(c, c2, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Fatalf("decode, write back, decode is not stable for %s (-first +second):\n%s", again, diff)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, in := range []string{oneQuestion, oneMulti, several, richSelect, richMulti, richText, richEditor, richSecret, richSecretMulti,
		`{"question":"Why?\n\nReason: x","kind":"select","options":["a"],"reason":"y\n\nReason: z"}`} {
		c, err := pi.Dialect().Decode([]byte(in), dialect.Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", in, err)
		}
		roundTrip(t, c)
	}
}
