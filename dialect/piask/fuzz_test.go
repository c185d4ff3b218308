package piask_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/piask"
)

// FuzzDecode checks that Decode never panics, that an invalid call always
// carries the contract's result as valid JSON, and that a valid call is
// stable: written back with MarshalCall and decoded again, it is the same
// call. The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(setup))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := piask.Dialect().Decode(data, dialect.Limits{})
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
	again, err := piask.MarshalCall(c)
	if err != nil {
		t.Fatalf("MarshalCall: %v", err)
	}
	c2, err := piask.Dialect().Decode(again, dialect.Limits{})
	if err != nil {
		t.Fatalf("the normalized call %s does not decode: %v", again, err)
	}
	if diff := cmp.Diff(c, c2); diff != "" {
		t.Fatalf("decode, write back, decode is not stable for %s (-first +second):\n%s", again, diff)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, in := range []string{setup, `{"questions":[{"id":" a ","prompt":" p ","type":"preview","options":[{"value":" v ","label":" l ","preview":" x ","description":" d "}]}]}`} {
		c, err := piask.Dialect().Decode([]byte(in), dialect.Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", in, err)
		}
		roundTrip(t, c)
	}
}
