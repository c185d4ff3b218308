// Package inert makes text safe to print on a terminal. Every string that
// a model wrote, a person typed or a file holds goes through Line or Text
// before a terminal shows it, so that the terminal shows it and does not
// act on it.
//
// A terminal acts on more than text: an escape sequence (ESC, or a C1
// control, which stands for one) moves the cursor, clears lines, redraws
// what is shown, hides text or sets the clipboard (OSC 52); a carriage
// return or a backspace writes over what a line already shows; a bidi
// control reorders what follows it. A call could use them to redraw a list
// of options so that the person reads "staging" where "production" is.
//
// # Notation
//
// Line and Text write each of these as a visible escape, in the notation of
// a Go string literal, with lower-case hex digits:
//
//	\a \b \f \n \r \t \v   those seven C0 controls (Text keeps \n and \t)
//	\xNN                   the other C0 controls (0x00-0x1f), DEL (0x7f),
//	                       and each byte that is not part of valid UTF-8
//	\uNNNN                 the C1 controls (U+0080-U+009F); the line and
//	                       paragraph separators U+2028 and U+2029; and every
//	                       format character (Unicode category Cf): the bidi
//	                       controls (U+061C, U+200E, U+200F, U+202A-U+202E,
//	                       U+2066-U+2069), the invisible ones (U+00AD,
//	                       U+200B-U+200D, U+FEFF, ...); and all of
//	                       U+2060-U+206F (the word joiner, the invisible
//	                       operators U+2061-U+2064, ...), assigned or not
//	\UNNNNNNNN             the format characters above U+FFFF, and all of
//	                       U+E0000-U+E0FFF: the tags (U+E0001,
//	                       U+E0020-U+E007F) and the variation selectors
//	                       U+E0100-U+E01EF, which can carry a whole hidden
//	                       text
//
// A space other than the ASCII one (Unicode category Zs: the no-break
// spaces U+00A0, U+2007 and U+202F, the en and em spaces, U+3000, ...) is
// written as an ASCII space. It looks the same, and becomes a space a
// line can break at, so that text cannot be held in place by spaces that
// do not break, and a run of them at a break is dropped as a run of spaces
// is. The non-breaking hyphen U+2011 is written as it is: it only keeps a
// line from breaking at it, which a responder that marks each line it
// breaks (as every responder of this module does) does not need to
// prevent. A format character is escaped, not dropped, so that the person
// sees that something was hidden there: a zero-width space, a joiner or a
// tag can hide text, pad a line invisibly, or make two strings that look
// alike differ (an emoji sequence joined by U+200D is therefore shown in
// its parts).
//
// Everything else is written as it is, the Unicode replacement character
// U+FFFD included (a valid one; an invalid byte is never replaced by it,
// so the person sees that the text was broken, and where).
//
// A backslash is written as it is too. The output is therefore not
// reversible: a model that writes the four characters \x1b reads the same
// as one that writes an ESC. That is deliberate: both are harmless, which
// is what Line and Text promise, and doubling every backslash would garble
// the paths and patterns that models write all the time (C:\Users, \d+)
// for no gain in safety. The output is for a person to read; a program
// that needs the exact text reads it from the JSON, not from the screen.
package inert

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s made inert for one line of a terminal: a label, a header,
// an id, a description, a title, a cell of a table. Its output holds no
// control character at all (a newline or a tab is written as \n or \t),
// no DEL, no C1 control, no format character (bidi controls and invisible
// characters included), no line separator and no space but the ASCII one,
// and is valid UTF-8.
// A string that needs none of this is returned as it is.
func Line(s string) string { return clean(s, false) }

// Text returns s made inert for text of several lines: a question's
// paragraphs, a preview, a multi-line answer. It is Line, except that a
// newline and a tab are kept. A caller that prints the lines under a
// label of its own marks every line after the first, whether the text
// broke there or the caller wrapped it, so that none of them can pose as
// part of its own layout (an option, say).
func Text(s string) string { return clean(s, true) }

func clean(s string, multi bool) string {
	i := firstUnsafe(s, multi)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < utf8.RuneSelf && unsafe(r, multi):
			writeByte(&b, s[i])
		case r < utf8.RuneSelf:
			b.WriteByte(s[i])
		case unsafe(r, multi):
			writeRune(&b, r)
		case unicode.Is(unicode.Zs, r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s that must be
// escaped or replaced, or -1.
func firstUnsafe(s string, multi bool) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if unsafe(rune(c), multi) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafe(r, multi) || unicode.Is(unicode.Zs, r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafe reports whether r is written as an escape: a terminal may act on
// it, or it is invisible and can hide what it does.
func unsafe(r rune, multi bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !multi
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f: // C0, DEL, C1
		return true
	case r < 0x80:
		return false
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x2060 && r <= 0x206f, r >= 0xe0000 && r <= 0xe0fff:
		// invisible by default, assigned or not: the word joiner and
		// the invisible operators, and plane 14's tags and variation
		// selectors, which can carry a hidden text
		return true
	}
	return unicode.Is(unicode.Cf, r) // format characters: the bidi controls, the invisible ones
}

const hex = "0123456789abcdef"

// writeByte writes c, a byte below 0x80 or a byte of invalid UTF-8, as an
// escape.
func writeByte(b *strings.Builder, c byte) {
	if short := shortEscapes[c&0x7f]; c < utf8.RuneSelf && short != 0 {
		b.WriteByte('\\')
		b.WriteByte(short)
		return
	}
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// shortEscapes are the letters of the seven controls Go writes with one.
var shortEscapes = [utf8.RuneSelf]byte{'\a': 'a', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't', '\v': 'v'}

// writeRune writes r, a rune from U+0080 up, as an escape: \uNNNN, or
// \UNNNNNNNN above U+FFFF.
func writeRune(b *strings.Builder, r rune) {
	top := 12
	if r > 0xffff {
		b.WriteString(`\U`)
		top = 28
	} else {
		b.WriteString(`\u`)
	}
	for shift := top; shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
}
