package approvalwire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// FuzzDecode checks the request_approval decoder on any input: it never
// panics; it refuses only with a *Error carrying the contract's prefix
// (and its path, where it names one); what it accepts is JSON that
// encoding/json reads to the same strings, meets every limit, and re-encodes
// with Marshal into a call that decodes to the same Call again.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		call(action, reason, risk),
		`{"action":"a","reason":"r","risk":"low","details":"x","timeout_seconds":1e1,"human_intent":"h"}`,
		`{"action":null,"reason":null,"risk":null,"details":null,"timeout_seconds":null,"human_intent":null}`,
		`{"action":"a","action":"b"}`, `{"risk":"High"}`, `{"timeout_seconds":1.5}`, `[`, `{"a b":1}`,
		"{\"action\":\"\\ud800\xff\",\"reason\":\"r\",\"risk\":\"\\u006cow\"}", `{"action":"a","reason":"r","risk":"low"} x`,
		`{"action":"a","reason":"r","risk":"low","timeout_seconds":-0}`,
	} {
		f.Add([]byte(s))
	}
	lim := dialect.Limits{MaxTimeoutSeconds: 300, MaxCallBytes: 16 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := approvalwire.Decode(data, lim)
		if err != nil {
			var e *approvalwire.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v, want a *Error", err, err)
			}
			if !strings.HasPrefix(e.Message, prefix) {
				t.Fatalf("message %q lacks the prefix", e.Message)
			}
			if e.Path != "" && !strings.HasPrefix(e.Message, prefix+e.Path+": ") {
				t.Fatalf("message %q does not name its path %q", e.Message, e.Path)
			}
			if c != nil {
				t.Fatal("a call returned with an error")
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted what encoding/json does not take for JSON: %q", data)
		}
		sameAsEncodingJSON(t, data, c)
		switch {
		case strings.TrimSpace(c.Action) == "" || utf8.RuneCountInString(c.Action) > approvalwire.MaxActionRunes:
			t.Fatalf("accepted action %q", c.Action)
		case strings.TrimSpace(c.Reason) == "" || utf8.RuneCountInString(c.Reason) > approvalwire.MaxReasonRunes:
			t.Fatalf("accepted reason %q", c.Reason)
		case len(c.Details) > approvalwire.MaxDetailsBytes, utf8.RuneCountInString(c.HumanIntent) > approvalwire.MaxIntentRunes:
			t.Fatalf("accepted details of %d bytes, human_intent %q", len(c.Details), c.HumanIntent)
		case c.TimeoutSeconds < 1 || c.TimeoutSeconds > lim.MaxTimeoutSeconds:
			t.Fatalf("accepted timeout_seconds %d", c.TimeoutSeconds)
		}
		valid := false
		for _, r := range approvalwire.Risks() {
			valid = valid || r == c.Risk
		}
		if !valid {
			t.Fatalf("accepted risk %q", c.Risk)
		}
		out, err := approvalwire.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := approvalwire.Decode(out, dialect.Limits{MaxTimeoutSeconds: lim.MaxTimeoutSeconds, MaxCallBytes: 64 << 10})
		if err != nil {
			t.Fatalf("Marshal's output %s does not decode: %v", out, err)
		}
		if diff := cmp.Diff(*c, *back); diff != "" {
			t.Fatalf("decoded again (-first +again):\n%s", diff)
		}
	})
}

// sameAsEncodingJSON checks the values of an accepted call against what
// encoding/json reads from it (the last of a repeated field would win
// there; the decoder refuses repeats).
func sameAsEncodingJSON(t *testing.T, data []byte, c *approvalwire.Call) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	str := func(key string) string {
		s, _ := v[key].(string)
		return s
	}
	if str("action") != c.Action || str("reason") != c.Reason || str("risk") != c.Risk || str("details") != c.Details || str("human_intent") != c.HumanIntent {
		t.Fatalf("decoded %+v, encoding/json reads %v", c, v)
	}
	if n, ok := v["timeout_seconds"].(json.Number); ok {
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != float64(c.TimeoutSeconds) {
			t.Fatalf("timeout_seconds %s decoded as %d", n, c.TimeoutSeconds)
		}
	}
}
