package askuserwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect"
)

// FuzzDecode checks the ask_user decoder on any input: it never
// panics, it refuses only with a *Error carrying the contract's prefix,
// it refuses whatever encoding/json does not take for JSON, what it accepts
// holds the strings encoding/json reads, and whatever it accepts re-encodes
// with Marshal into a call that decodes to the same Call again.
func FuzzDecode(f *testing.F) {
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
		`{"questions":[` + auText + `],"human_intent":"Deploying the login fix"}`, `{"human_intent":null,"questions":[` + auText + `]}`,
		`{"human_intent":7}`,
	} {
		f.Add([]byte(s))
	}
	lim := dialect.Limits{MaxTimeoutSeconds: 300, MaxCallBytes: 8 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data, lim)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want a *Error", err, err)
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
		if !json.Valid(data) {
			t.Fatalf("accepted what encoding/json does not take for JSON: %q", data)
		}
		auSameAsEncodingJSON(t, data, c)
		auRoundTrip(t, data, lim)
	})
}

// auSameAsEncodingJSON checks the values of an accepted call against what
// encoding/json reads from it.
func auSameAsEncodingJSON(t *testing.T, data []byte, c *Call) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	str := func(m map[string]any, key string) string {
		s, _ := m[key].(string)
		return s
	}
	if n, ok := v["timeout_seconds"].(json.Number); ok {
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || f != float64(c.TimeoutSeconds) {
			t.Fatalf("timeout_seconds %s decoded as %d", n, c.TimeoutSeconds)
		}
	}
	if intent, _ := v["human_intent"].(string); intent != c.HumanIntent {
		t.Fatalf("human_intent %q, encoding/json reads %q", c.HumanIntent, intent)
	}
	qs, _ := v["questions"].([]any)
	if len(qs) != len(c.Questions) {
		t.Fatalf("%d questions, encoding/json reads %d", len(c.Questions), len(qs))
	}
	for i, qv := range qs {
		q, got := qv.(map[string]any), &c.Questions[i]
		if id, ok := q["id"].(string); ok && id != got.ID {
			t.Fatalf("questions[%d].id %q, encoding/json reads %q", i, got.ID, id)
		}
		if str(q, "header") != got.Header || str(q, "question") != got.Question || str(q, "secret_name") != got.SecretName || str(q, "purpose") != got.Purpose {
			t.Fatalf("questions[%d] %+v, encoding/json reads %v", i, got, q)
		}
		if kind, _ := q["kind"].(string); got.Kind != kind && (kind != "" || got.Kind != "choice") {
			t.Fatalf("questions[%d].kind %q, encoding/json reads %v", i, got.Kind, q["kind"])
		}
		if got.Options == nil {
			t.Fatalf("questions[%d]: nil options", i)
		}
		opts, _ := q["options"].([]any)
		if got.Kind != "choice" {
			continue
		}
		if len(opts) != len(got.Options) {
			t.Fatalf("questions[%d]: %d options, encoding/json reads %d", i, len(got.Options), len(opts))
		}
		for k, ov := range opts {
			o := ov.(map[string]any)
			def, _ := o["default"].(bool)
			if str(o, "label") != got.Options[k].Label || str(o, "description") != got.Options[k].Description || def != got.Options[k].Default {
				t.Fatalf("questions[%d].options[%d] %+v, encoding/json reads %v", i, k, got.Options[k], o)
			}
		}
	}
}
