package inert_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/internal/inert"
)

func TestLineAndText(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		line, text string // text "" means the same as line
	}{
		{"plain text is left alone", "production (recommended)", "production (recommended)", ""},
		{"Unicode is left alone", "déploiement → prod ⏳ 日本 🚀 \ufffd", "déploiement → prod ⏳ 日本 🚀 \ufffd", ""},
		{"a backslash is left alone", `C:\Users\x1b \d+`, `C:\Users\x1b \d+`, ""},
		{"CSI cursor up, erase line", "\x1b[2A\x1b[2Kproduction", `\x1b[2A\x1b[2Kproduction`, ""},
		{"SGR colour and conceal", "\x1b[31mred\x1b[8mhidden\x1b[0m", `\x1b[31mred\x1b[8mhidden\x1b[0m`, ""},
		{"OSC 52 ended by BEL", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\a`, ""},
		{"OSC 52 ended by ST", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`, ""},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\", `\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\`, ""},
		{"CR overwrite", "production\rstaging (recommended)", `production\rstaging (recommended)`, ""},
		{"CR LF", "a\r\nb", `a\r\nb`, "a\\r\nb"},
		{"backspaces", "production\b\b\b\b\b\b\b\b\b\bstaging", `production\b\b\b\b\b\b\b\b\b\bstaging`, ""},
		{"BEL, FF, VT", "\a\f\v", `\a\f\v`, ""},
		{"other C0 controls", "\x00\x01\x0e\x1a\x1f", `\x00\x01\x0e\x1a\x1f`, ""},
		{"DEL", "a\x7fb", `a\x7fb`, ""},
		{"C1 CSI", "\u009b2A\u009b2K", `\u009b2A\u009b2K`, ""},
		{"C1 OSC and ST", "\u009d52;c;eA==\u009c", `\u009d52;c;eA==\u009c`, ""},
		{"C1 NEL", "a\u0085b", `a\u0085b`, ""},
		{"RLO", "invoice\u202efdp.exe", `invoice\u202efdp.exe`, ""},
		{"bidi embeddings, isolates and marks", "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c`, ""},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, ""},
		{"invalid UTF-8", "ok\xff\xfe\xc3", `ok\xff\xfe\xc3`, ""},
		{"a lone continuation byte is a byte, not C1", "\x9b2A", `\x9b2A`, ""},
		{"an encoded surrogate is invalid", "\xed\xa0\x80", `\xed\xa0\x80`, ""},
		{"newline and tab", "line one\n\tline two", `line one\n\tline two`, "line one\n\tline two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.text == "" {
				tt.text = tt.line
			}
			if diff := cmp.Diff(tt.line, inert.Line(tt.in)); diff != "" {
				t.Errorf("Line(%q) (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(tt.text, inert.Text(tt.in)); diff != "" {
				t.Errorf("Text(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestNothingToDo: a string with nothing to escape is returned without a
// copy.
func TestNothingToDo(t *testing.T) {
	s := strings.Repeat("production (recommended) → ⏳ ", 10)
	p := s + "\n\t" + s
	if n := testing.AllocsPerRun(100, func() { _ = inert.Line(s); _ = inert.Text(p) }); n != 0 {
		t.Errorf("%v allocations for a string with nothing to escape, want 0", n)
	}
}

// FuzzInert checks what Line and Text promise, for any input: no control
// byte (but a newline and a tab from Text), no DEL, no C1 or bidi
// control, no line separator, valid UTF-8; a string with nothing to
// escape is left as it is; both are idempotent; and Line is Text with its
// newlines and tabs escaped. The seed corpus is in testdata/fuzz/FuzzInert.
func FuzzInert(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2A", "\x1b]52;c;eA==\x07", "a\rb", "a\bb", "\x7f", "\u009b", "\u202e", "\xff", "a\nb\tc", `\x1b`} {
		f.Add(s)
	}
	escape := strings.NewReplacer("\n", `\n`, "\t", `\t`)
	f.Fuzz(func(t *testing.T, s string) {
		line, text := inert.Line(s), inert.Text(s)
		check(t, "Line", s, line, false)
		check(t, "Text", s, text, true)
		if inert.Line(line) != line || inert.Text(text) != text {
			t.Errorf("not idempotent on %q", s)
		}
		if got := escape.Replace(text); got != line {
			t.Errorf("Text(%q) with its newlines and tabs escaped is %q; Line is %q", s, got, line)
		}
		if inert.Line(strconv.Quote(s)) != strconv.Quote(s) {
			t.Errorf("Line changes strconv.Quote(%q)", s)
		}
	})
}

func check(t *testing.T, name, in, out string, multi bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: invalid UTF-8", name, in, out)
	}
	clean := true
	for i, r := range out {
		bad := r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r == 0x2028 || r == 0x2029
		if multi && (r == '\n' || r == '\t') {
			bad = false
		}
		if bad {
			t.Fatalf("%s(%q) = %q: U+%04X at byte %d", name, in, out, r, i)
		}
	}
	for _, r := range in {
		if r == utf8.RuneError || r < 0x20 && !(multi && (r == '\n' || r == '\t')) || r == 0x7f || r >= 0x80 && r <= 0x9f ||
			r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
			clean = false
		}
	}
	if clean && out != in {
		t.Fatalf("%s(%q) = %q; nothing needed escaping", name, in, out)
	}
}
