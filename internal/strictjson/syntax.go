package strictjson

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsontext finds where the input stops being JSON; the messages say it in
// the contracts' own words, which are these. When a read fails, the
// Decoder reads the step that failed again from its start with a scanner
// that knows only what can go wrong there, and words the first problem it
// meets.

// A syntaxError is input that is not JSON, at a byte offset.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) String() string {
	return fmt.Sprintf("invalid JSON at byte offset %d: %s", e.off, e.msg)
}

// A scanner rereads the input from one step's start.
type scanner struct {
	src []byte
	pos int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the offset of the first byte at or after p that is not
// whitespace.
func skipSpace(src []byte, p int) int {
	for p < len(src) && isSpace(src[p]) {
		p++
	}
	return p
}

func (s *scanner) space() { s.pos = skipSpace(s.src, s.pos) }

// at reports whether the next byte is c.
func (s *scanner) at(c byte) bool { return s.pos < len(s.src) && s.src[s.pos] == c }

// unexpected words the byte at the scanner's offset (or the end of the
// input) as not what was expected there.
func (s *scanner) unexpected(expected string) *syntaxError {
	return unexpectedAt(s.src, s.pos, expected)
}

func unexpectedAt(src []byte, p int, expected string) *syntaxError {
	if p >= len(src) {
		return &syntaxError{p, "unexpected end of input; expected " + expected}
	}
	var what string
	if r, size := utf8.DecodeRune(src[p:]); r == utf8.RuneError && size <= 1 {
		what = fmt.Sprintf("byte 0x%02x", src[p])
	} else {
		what = strconv.QuoteRune(r)
	}
	return &syntaxError{p, "unexpected " + what + "; expected " + expected}
}

// member rereads the step before an object member: after the '{' (first) or
// after a member's value, up to the end of the next field name.
func (s *scanner) member(first bool) *syntaxError {
	s.space()
	switch {
	case s.at('}'):
		return nil
	case first:
		if !s.at('"') {
			return s.unexpected("a field name or '}'")
		}
	case s.at(','):
		s.pos++
		s.space()
		if !s.at('"') {
			return s.unexpected("a field name")
		}
	default:
		return s.unexpected("',' or '}'")
	}
	return s.str()
}

// element rereads the step after an array's element, up to the end of the
// next one's first token; inElement tells whether a problem found is in
// the next element rather than between the two.
func (s *scanner) element() (err *syntaxError, inElement bool) {
	s.space()
	switch {
	case s.at(']'):
		return nil, false
	case s.at(','):
		s.pos++
		return s.value(), true
	}
	return s.unexpected("',' or ']'"), false
}

// value rereads a value's first token. An object or an array is not
// entered: the decoder reads it itself.
func (s *scanner) value() *syntaxError {
	s.space()
	if s.pos >= len(s.src) {
		return s.unexpected("a value")
	}
	switch c := s.src[s.pos]; {
	case c == '"':
		return s.str()
	case c == '-' || isDigit(c):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '{' || c == '[':
		return nil
	}
	return s.unexpected("a value")
}

func (s *scanner) literal(lit string) *syntaxError {
	for i := 0; i < len(lit); i++ {
		if !s.at(lit[i]) {
			return s.unexpected(strconv.Quote(lit[i:]) + " to complete " + lit)
		}
		s.pos++
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// number rereads a number against the grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() *syntaxError {
	digits := func() {
		for s.pos < len(s.src) && isDigit(s.src[s.pos]) {
			s.pos++
		}
	}
	if s.at('-') {
		s.pos++
	}
	switch {
	case s.at('0'):
		s.pos++
	case s.pos < len(s.src) && isDigit(s.src[s.pos]):
		digits()
	default:
		return s.unexpected("a digit in a number")
	}
	if s.at('.') {
		s.pos++
		if s.pos >= len(s.src) || !isDigit(s.src[s.pos]) {
			return s.unexpected("a digit after the decimal point")
		}
		digits()
	}
	if s.at('e') || s.at('E') {
		s.pos++
		if s.at('+') || s.at('-') {
			s.pos++
		}
		if s.pos >= len(s.src) || !isDigit(s.src[s.pos]) {
			return s.unexpected("a digit in the exponent")
		}
		digits()
	}
	return nil
}

// str rereads a string from its opening quote.
func (s *scanner) str() *syntaxError {
	src := s.src
	i := s.pos + 1
	for {
		if i >= len(src) {
			s.pos = i
			return s.unexpected(`'"' to end the string`)
		}
		switch c := src[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(src) {
				s.pos = i + 1
				return s.unexpected("an escape character")
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				s.pos = i + 2
				for k := 0; k < 4; k++ {
					if s.pos >= len(src) || !isHex(src[s.pos]) {
						return s.unexpected(`four hexadecimal digits after \u`)
					}
					s.pos++
				}
				i += 6
			default:
				return &syntaxError{i, "invalid escape " + strconv.Quote(string(src[i:i+2])) + ` in a string; allowed: \" \\ \/ \b \f \n \r \t \uXXXX`}
			}
		case c < 0x20:
			return &syntaxError{i, fmt.Sprintf("control character U+%04X in a string; it must be escaped", c)}
		default:
			i++
		}
	}
}
