package secret_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/secret"
)

// canary is the content every test puts in a Value and then looks for in
// every rendering. Its hex form is checked too, since %x of the raw bytes
// would be a leak.
const canary = "canary-7f3a9c-do-not-print"

func leaks(t *testing.T, what, out string) {
	t.Helper()
	decimal := fmt.Sprint([]byte(canary)) // "[99 97 110 …]", as fmt prints a []byte field
	forms := []string{canary, fmt.Sprintf("%x", canary), fmt.Sprintf("%X", canary), "canary", decimal[1 : len(decimal)-1]}
	for _, form := range forms {
		if strings.Contains(out, form) {
			t.Errorf("%s leaked the content: %q", what, out)
			return
		}
	}
}

type exported struct {
	Name  string
	Token secret.Value
}

type unexported struct {
	name  string
	token secret.Value
}

type pointer struct {
	Token *secret.Value
}

func TestValueFormat(t *testing.T) {
	v := secret.FromString(canary)
	values := map[string]any{
		"value":             v,
		"pointer":           &v,
		"exported field":    exported{"n", v},
		"exported pointer":  &exported{"n", v},
		"unexported field":  unexported{"n", v},
		"unexported ptr":    &unexported{"n", v},
		"pointer field":     pointer{&v},
		"slice":             []secret.Value{v, v},
		"map":               map[string]secret.Value{"k": v},
		"any slice":         []any{v},
		"nested unexported": struct{ u unexported }{unexported{"n", v}},
	}
	// Beyond the usual verbs, the ones fmt answers with "%!verb(type=value)"
	// for a pointer: it then prints what the pointer points to.
	verbs := []string{
		"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T", "%10.3v", "%-8s", "% x",
		"%c", "%U", "%t", "%e", "%g", "%b", "%o", "%p", "%+q", "%#q", "%w",
	}
	for name, val := range values {
		for _, verb := range verbs {
			leaks(t, name+" with "+verb, fmt.Sprintf(verb, val))
		}
		leaks(t, name+" with Sprint", fmt.Sprint(val))
		leaks(t, name+" with Sprintln", fmt.Sprintln(val))
	}
}

func TestValueRendersRedacted(t *testing.T) {
	v := secret.FromString(canary)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		if diff := cmp.Diff(secret.Redacted, fmt.Sprintf(verb, v)); diff != "" {
			t.Errorf("fmt %s mismatch (-want +got):\n%s", verb, diff)
		}
	}
	text, err := v.MarshalText()
	if err != nil {
		t.Fatalf("MarshalText: %v", err)
	}
	if diff := cmp.Diff(secret.Redacted, string(text)); diff != "" {
		t.Errorf("MarshalText mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(secret.Redacted, v.LogValue().String()); diff != "" {
		t.Errorf("LogValue mismatch (-want +got):\n%s", diff)
	}
	got := fmt.Sprintf("%+v", exported{"n", v})
	if diff := cmp.Diff("{Name:n Token:[REDACTED]}", got); diff != "" {
		t.Errorf("struct field mismatch (-want +got):\n%s", diff)
	}
}

func TestValueJSON(t *testing.T) {
	v := secret.FromString(canary)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"value", v, `"[REDACTED]"`},
		{"exported field", exported{"n", v}, `{"Name":"n","Token":"[REDACTED]"}`},
		{"unexported field", unexported{"n", v}, `{}`},
		{"pointer", &v, `"[REDACTED]"`},
		{"map value", map[string]secret.Value{"k": v}, `{"k":"[REDACTED]"}`},
		{"map key", map[secret.Value]int{v: 1}, `{"[REDACTED]":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("json.Marshal mismatch (-want +got):\n%s", diff)
			}
			leaks(t, "json.Marshal", string(b))
		})
	}
}

func TestValueSlog(t *testing.T) {
	v := secret.FromString(canary)
	handlers := map[string]func(*bytes.Buffer) slog.Handler{
		"text": func(b *bytes.Buffer) slog.Handler {
			return slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
		"json": func(b *bytes.Buffer) slog.Handler {
			return slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug, AddSource: true})
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(h(&buf))
			log.Debug("attr", "token", v)
			log.Debug("any", slog.Any("token", v))
			log.Debug("struct", "s", exported{"n", v})
			log.Debug("unexported", "s", unexported{"n", v})
			log.Debug("pointer", "p", &v)
			log.With("token", v).Debug("with")
			log.WithGroup("g").Debug("group", "token", v)
			log.Debug("formatted " + fmt.Sprint(v))
			out := buf.String()
			leaks(t, name+" handler", out)
			if got := strings.Count(out, secret.Redacted); got < 7 {
				t.Errorf("%s handler wrote %d redactions; want at least 7 in:\n%s", name, got, out)
			}
		})
	}
}

func TestValueInErrors(t *testing.T) {
	v := secret.FromString(canary)
	base := errors.New("base")
	errs := []error{
		fmt.Errorf("token %v rejected", v),
		fmt.Errorf("token %+v rejected: %w", v, base),
		fmt.Errorf("in %v: %w", exported{"n", v}, base),
		fmt.Errorf("in %#v", unexported{"n", v}),
		fmt.Errorf("wrapped: %w", fmt.Errorf("token %s", v)),
	}
	for _, err := range errs {
		leaks(t, "error", err.Error())
		leaks(t, "error %+v", fmt.Sprintf("%+v", err))
	}
}

func TestValueContent(t *testing.T) {
	b := []byte(canary)
	v := secret.New(b)
	b[0] = 'X' // New copied its input
	if diff := cmp.Diff([]byte(canary), v.Reveal()); diff != "" {
		t.Errorf("Reveal mismatch (-want +got):\n%s", diff)
	}
	r := v.Reveal()
	r[0] = 'Y' // Reveal returned a copy
	if diff := cmp.Diff(canary, string(v.Reveal())); diff != "" {
		t.Errorf("Reveal after changing a copy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(len(canary), v.Len()); diff != "" {
		t.Errorf("Len mismatch (-want +got):\n%s", diff)
	}
	if v.Empty() {
		t.Errorf("Empty() = true for a Value holding %d bytes", v.Len())
	}
	w := v // copies share content
	w.Wipe()
	if !v.Empty() || v.Reveal() != nil {
		t.Errorf("after Wipe of a copy: Empty() = %v, Reveal() = %d bytes; want true, none", v.Empty(), len(v.Reveal()))
	}
	var zero secret.Value
	if !zero.Empty() || zero.Len() != 0 || zero.Reveal() != nil {
		t.Errorf("zero Value: Empty() = %v, Len() = %d, Reveal() = %d bytes; want true, 0, none", zero.Empty(), zero.Len(), len(zero.Reveal()))
	}
	zero.Wipe() // must not panic
	if diff := cmp.Diff(secret.Redacted, zero.String()); diff != "" {
		t.Errorf("zero Value String mismatch (-want +got):\n%s", diff)
	}
}
