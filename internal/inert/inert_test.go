package inert_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
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
		{"zero-width space, non-joiner, joiner", "a\u200bb\u200cc\u200dd", `a\u200bb\u200cc\u200dd`, ""},
		{"word joiner and invisible operators", "\u2060\u2061\u2062\u2063\u2064", `\u2060\u2061\u2062\u2063\u2064`, ""},
		{"the rest of U+2060-U+206F, assigned or not", "\u2065\u206a\u206f", `\u2065\u206a\u206f`, ""},
		{"byte order mark and soft hyphen", "\ufeffdeploy\u00ad", `\ufeffdeploy\u00ad`, ""},
		{"a hidden text in tags", "ok\U000e0001\U000e0069\U000e0067\U000e007f", `ok\U000e0001\U000e0069\U000e0067\U000e007f`, ""},
		{"the ends of the tags block", "\U000e0000\U000e0020\U000e007e", `\U000e0000\U000e0020\U000e007e`, ""},
		{"variation selectors of plane 14", "a\U000e0100\U000e01ef", `a\U000e0100\U000e01ef`, ""},
		{"other format characters", "\u0600\u180e\ufff9\U000110bd", `\u0600\u180e\ufff9\U000110bd`, ""},
		{"no-break spaces become spaces", "a\u00a0b\u2007c\u202fd", "a b c d", ""},
		{"every other space becomes a space", "\u1680\u2000\u2003\u200a\u205f\u3000", "      ", ""},
		{"a padded row of no-break spaces", "Region?" + strings.Repeat("\u00a0", 8) + "›\u00a0(\u00a0)\u00a01.", "Region?" + strings.Repeat(" ", 8) + "› ( ) 1.", ""},
		{"the non-breaking hyphen is left alone", "a\u2011b", "a\u2011b", ""},
		{"emoji and their variation selector are left alone", "❤\ufe0f 🚀", "❤\ufe0f 🚀", ""},
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
	for _, s := range []string{"", "plain", "\x1b[2A", "\x1b]52;c;eA==\x07", "a\rb", "a\bb", "\x7f", "\u009b", "\u202e", "\xff", "a\nb\tc", `\x1b`, "a\u200bb", "\U000e0041", "a\u00a0b", "\ufeff"} {
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
		// strconv.Quote escapes all Line does but what is unassigned or
		// a mark in U+2060-U+206F and plane 14's default ignorables.
		if q := strconv.Quote(s); inert.Line(q) != q && !strings.ContainsFunc(q, func(r rune) bool { return r >= 0x2060 && r <= 0x206f || r >= 0xe0000 }) {
			t.Errorf("Line changes strconv.Quote(%q)", s)
		}
	})
}

func check(t *testing.T, name, in, out string, multi bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: invalid UTF-8", name, in, out)
	}
	for i, r := range out {
		if escaped(r, multi) || spaceToo(r) {
			t.Fatalf("%s(%q) = %q: U+%04X at byte %d", name, in, out, r, i)
		}
	}
	clean := true
	for _, r := range in {
		if r == utf8.RuneError || escaped(r, multi) || spaceToo(r) {
			clean = false
		}
	}
	if clean && out != in {
		t.Fatalf("%s(%q) = %q; nothing needed escaping", name, in, out)
	}
}

// escaped reports whether Line (Text, when multi) writes r as an escape.
func escaped(r rune, multi bool) bool {
	if multi && (r == '\n' || r == '\t') {
		return false
	}
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f ||
		r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) ||
		r >= 0x2060 && r <= 0x206f || r >= 0xe0000 && r <= 0xe0fff
}

// spaceToo reports whether r is a space Line writes as an ASCII space.
func spaceToo(r rune) bool { return r != ' ' && unicode.Is(unicode.Zs, r) }
