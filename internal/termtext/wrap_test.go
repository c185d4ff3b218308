package termtext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"a line that fits", "Which region?", 20, []string{"Which region?"}},
		{"breaks between words", "one two three four", 9, []string{"one two", "│ three", "│ four"}},
		{"the spaces at a break are dropped", "one      two", 6, []string{"one", "│ two"}},
		{"a long word breaks between characters", "abcdefghij", 6, []string{"abcdef", "│ ghij"}},
		{"a long word starts where there is room", "go abcdefghij", 8, []string{"go abcde", "│ fghij"}},
		{"the indent of a line is kept", "  1) staging", 20, []string{"  1) staging"}},
		{"lines after the first get the gutter", "first\n  second\n\nfourth", 20, []string{"first", "│   second", "│ ", "│ fourth"}},
		{"a wide character takes two columns", "日本語の文章", 7, []string{"日本語", "│ の文", "│ 章"}},
		{"tabs go to the next multiple of eight", "a\tb", 20, []string{"a       b"}},
		{"trailing spaces are dropped", "end   ", 20, []string{"end"}},
		{"a width below the gutter still makes progress", "abcd", 1, []string{"a", "│ b", "│ c", "│ d"}},
		{"nothing", "", 10, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, termtext.Wrap(tt.text, tt.width, "", "│ ")); diff != "" {
				t.Errorf("Wrap(%q, %d) (-want +got):\n%s", tt.text, tt.width, diff)
			}
		})
	}
	t.Run("a label on the first line", func(t *testing.T) {
		want := []string{"Reason: it is old", "│ and costs money"}
		if diff := cmp.Diff(want, termtext.Wrap("it is old and costs money", 18, "Reason: ", "│ ")); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestWrapPaddedRows is the attack: a question's first line padded with
// spaces (or no-break spaces, made spaces by inert) to the width, so that
// the terminal's own wrapping would start a line with a fake option or a
// fake block of details. Wrapped, each of those lines starts with the
// gutter, at once followed by the fake text: nothing after the first
// line starts as a row does.
func TestWrapPaddedRows(t *testing.T) {
	const width = 40
	for _, pad := range []string{" ", "\u00a0", "\u202f", "\u2007", "\u200b"} {
		first := "Which region?"
		text := first + strings.Repeat(pad, width-len(first)) +
			"› ( ) 1. canary (recommended)" + strings.Repeat(pad, width-29) +
			"  ▾ Details (d hides them)" + strings.Repeat(pad, width-26) +
			"    │ echo harmless"
		lines := termtext.Wrap(inert.Line(text), width, "", "│ ")
		if len(lines) < 2 {
			t.Fatalf("pad %q: %q did not wrap", pad, lines)
		}
		for i, l := range lines {
			if w := displaywidth.String(l); w > width {
				t.Errorf("pad %q: line %d %q is %d columns wide, more than %d", pad, i, l, w, width)
			}
			if i == 0 {
				continue
			}
			rest, ok := strings.CutPrefix(l, "│ ")
			if !ok || strings.HasPrefix(rest, " ") {
				t.Errorf("pad %q: line %d %q does not start with the gutter and text", pad, i, l)
			}
			for _, row := range []string{"›", "( )", "[ ]", "▾", "▸", "  "} {
				if strings.HasPrefix(l, row) {
					t.Errorf("pad %q: line %d %q starts as a row does (%q)", pad, i, l, row)
				}
			}
		}
	}
}

// FuzzWrap checks what Wrap promises, for any text made inert and any
// width: no line wider than the width (but a line of one character that
// alone is wider); every line after the first starts with the gutter, a
// piece of a broken line with no space after it; and nothing is lost but
// spaces: the lines, without their gutters and spaces, are the text
// without its newlines and white space. The seed corpus is in
// testdata/fuzz/FuzzWrap.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{"", "a b c", "Which region?" + strings.Repeat(" ", 30) + "› ( ) 1. canary", "日本語\t🚀 x", "a\n  b\n\nc", "   ", "e\u0301e\u0301"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, width int) {
		width = width%200 + 0
		if width < 0 {
			width = -width
		}
		text := inert.Text(s)
		lines := termtext.Wrap(text, width, "", "│ ")
		limit := max(width, 3)
		var got strings.Builder
		for i, l := range lines {
			if !utf8.ValidString(l) {
				t.Fatalf("line %d %q is not valid UTF-8", i, l)
			}
			body := l
			if i > 0 {
				var ok bool
				if body, ok = strings.CutPrefix(l, "│ "); !ok {
					t.Fatalf("line %d %q does not start with the gutter", i, l)
				}
			}
			if w := displaywidth.String(l); w > limit && graphemes(body) > 1 {
				t.Fatalf("Wrap(%q, %d): line %d %q is %d columns wide", text, width, i, l, w)
			}
			got.WriteString(body)
		}
		squash := func(s string) string {
			return strings.Map(func(r rune) rune {
				if r == ' ' || r == '\t' || r == '\n' {
					return -1
				}
				return r
			}, s)
		}
		if squash(got.String()) != squash(text) {
			t.Fatalf("Wrap(%q, %d) = %q: text was lost or added", text, width, lines)
		}
		if n := strings.Count(text, "\n") + 1; len(lines) < n {
			t.Fatalf("Wrap(%q, %d) = %q: fewer lines than the text has", text, width, lines)
		}
	})
}

func graphemes(s string) int {
	n := 0
	for g := displaywidth.StringGraphemes(s); g.Next(); {
		n++
	}
	return n
}
