// Package jsonscan is a small single-pass JSON tokenizer for decoders that
// know the shape they expect and want to report the first problem in
// document order, by path, without reflection.
//
// It reads from a string so that string values without escapes are returned
// as substrings of the input, without allocating. It accepts exactly the JSON
// of RFC 8259 and decodes strings as encoding/json does: escapes (including
// \uXXXX surrogate pairs) are resolved, and an invalid surrogate or an
// invalid UTF-8 byte becomes U+FFFD.
//
// The scanner does not recurse; a caller that walks nested values bounds its
// own depth.
package jsonscan

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind classifies the next token.
type Kind uint8

// The kinds of token.
const (
	EOF         Kind = iota // end of input
	Invalid                 // a byte that cannot start a token
	ObjectBegin             // {
	ObjectEnd               // }
	ArrayBegin              // [
	ArrayEnd                // ]
	Comma                   // ,
	Colon                   // :
	String                  // "
	Number                  // - or a digit
	True                    // t
	False                   // f
	Null                    // n
)

var kindOf = [256]Kind{
	'{': ObjectBegin, '}': ObjectEnd, '[': ArrayBegin, ']': ArrayEnd,
	',': Comma, ':': Colon, '"': String, '-': Number,
	'0': Number, '1': Number, '2': Number, '3': Number, '4': Number,
	'5': Number, '6': Number, '7': Number, '8': Number, '9': Number,
	't': True, 'f': False, 'n': Null,
}

func init() {
	for i, k := range kindOf {
		if k == EOF {
			kindOf[i] = Invalid
		}
	}
}

// Describe names a value kind for a message: "a string", "an object", "true".
func (k Kind) Describe() string {
	switch k {
	case ObjectBegin:
		return "an object"
	case ArrayBegin:
		return "an array"
	case String:
		return "a string"
	case Number:
		return "a number"
	case True:
		return "true"
	case False:
		return "false"
	case Null:
		return "null"
	case EOF:
		return "the end of the input"
	}
	return "no value"
}

// A SyntaxError is input that is not JSON.
type SyntaxError struct {
	// Offset is the byte offset of the problem in the input.
	Offset int
	// Msg says what is wrong.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte offset %d: %s", e.Offset, e.Msg)
}

// A Scanner reads JSON tokens from a string.
type Scanner struct {
	src string
	pos int
}

// New returns a scanner reading src.
func New(src string) Scanner { return Scanner{src: src} }

// Offset returns the offset of the next unread byte.
func (s *Scanner) Offset() int { return s.pos }

// Peek skips whitespace and classifies the next token without consuming it.
func (s *Scanner) Peek() Kind {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c > ' ' {
			return kindOf[c]
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return Invalid
		}
		s.pos++
	}
	return EOF
}

// Advance consumes one byte: a punctuation token just Peeked.
func (s *Scanner) Advance() { s.pos++ }

// Unexpected returns the error for the token at the current offset (after
// Peek), saying what was expected there.
func (s *Scanner) Unexpected(expected string) *SyntaxError {
	if s.pos >= len(s.src) {
		return &SyntaxError{s.pos, "unexpected end of input; expected " + expected}
	}
	return &SyntaxError{s.pos, "unexpected " + quoteByteAt(s.src, s.pos) + "; expected " + expected}
}

func quoteByteAt(src string, i int) string {
	r, size := utf8.DecodeRuneInString(src[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", src[i])
	}
	return strconv.QuoteRune(r)
}

// ReadLiteral consumes true, false or null (Peeked as k).
func (s *Scanner) ReadLiteral(k Kind) error {
	var lit string
	switch k {
	case True:
		lit = "true"
	case False:
		lit = "false"
	default:
		lit = "null"
	}
	for i := 0; i < len(lit); i++ {
		if s.pos+i >= len(s.src) || s.src[s.pos+i] != lit[i] {
			s.pos += i
			return s.Unexpected(strconv.Quote(lit[i:]) + " to complete " + lit)
		}
	}
	s.pos += len(lit)
	return nil
}

// ReadNumber consumes a number (Peeked as Number) and returns its text,
// checked against the JSON grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *Scanner) ReadNumber() (string, error) {
	start := s.pos
	src := s.src
	i := s.pos
	if i < len(src) && src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		for i++; i < len(src) && isDigit(src[i]); i++ {
		}
	default:
		s.pos = i
		return "", s.Unexpected("a digit in a number")
	}
	if i < len(src) && src[i] == '.' {
		i++
		if i >= len(src) || !isDigit(src[i]) {
			s.pos = i
			return "", s.Unexpected("a digit after the decimal point")
		}
		for i++; i < len(src) && isDigit(src[i]); i++ {
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			s.pos = i
			return "", s.Unexpected("a digit in the exponent")
		}
		for i++; i < len(src) && isDigit(src[i]); i++ {
		}
	}
	s.pos = i
	return src[start:i], nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// plain marks the bytes a string can hold as they are: not '"', not '\\',
// not a control character, and ASCII.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// ReadString consumes a string (Peeked as String) and returns its value.
// A string without escapes and with valid UTF-8 is a substring of the input.
func (s *Scanner) ReadString() (string, error) {
	src := s.src
	start := s.pos + 1
	i := start
	for {
		for i < len(src) && plain[src[i]] {
			i++
		}
		if i >= len(src) {
			s.pos = i
			return "", s.Unexpected("'\"' to end the string")
		}
		c := src[i]
		if c == '"' {
			s.pos = i + 1
			return src[start:i], nil
		}
		if c < utf8.RuneSelf {
			break // an escape or a control character
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size == 1 {
			break // invalid UTF-8: rewrite
		}
		i += size
	}
	return s.readSlow(start, i)
}

// readSlow decodes the rest of a string that needs rewriting, from i, with
// src[start:i] already plain.
func (s *Scanner) readSlow(start, i int) (string, error) {
	src := s.src
	b := make([]byte, 0, i-start+16)
	b = append(b, src[start:i]...)
	for {
		if i >= len(src) {
			s.pos = i
			return "", s.Unexpected("'\"' to end the string")
		}
		c := src[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return string(b), nil
		case c == '\\':
			if i+1 >= len(src) {
				s.pos = i + 1
				return "", s.Unexpected("an escape character")
			}
			switch e := src[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r, ok := hex4(src, i+2)
				if !ok {
					s.pos = i + 2
					for k := 0; k < 4 && s.pos < len(src) && isHex(src[s.pos]); k++ {
						s.pos++
					}
					return "", s.Unexpected("four hexadecimal digits after \\u")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(src) && src[i] == '\\' && src[i+1] == 'u' {
						r2, ok = hex4(src, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6
						break
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				s.pos = i + 1
				return "", &SyntaxError{i, "invalid escape " + strconv.Quote(src[i:i+2]) + " in a string; allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"}
			}
		case c < 0x20:
			s.pos = i
			return "", &SyntaxError{i, fmt.Sprintf("control character U+%04X in a string; it must be escaped", c)}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, src[i:i+size]...)
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hex4(src string, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(src[i : i+4]) {
		switch {
		case isDigit(c):
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Skip consumes one value of any kind, nested at most maxDepth deep.
func (s *Scanner) Skip(maxDepth int) error {
	k := s.Peek()
	switch k {
	case String:
		_, err := s.ReadString()
		return err
	case Number:
		_, err := s.ReadNumber()
		return err
	case True, False, Null:
		return s.ReadLiteral(k)
	case ObjectBegin, ArrayBegin:
	default:
		return s.Unexpected("a value")
	}
	if maxDepth <= 0 {
		return &SyntaxError{s.pos, "values nested too deeply"}
	}
	s.Advance()
	if k == ObjectBegin {
		if s.Peek() == ObjectEnd {
			s.Advance()
			return nil
		}
		for {
			if s.Peek() != String {
				return s.Unexpected("a field name")
			}
			if _, err := s.ReadString(); err != nil {
				return err
			}
			if s.Peek() != Colon {
				return s.Unexpected("':'")
			}
			s.Advance()
			if err := s.Skip(maxDepth - 1); err != nil {
				return err
			}
			switch s.Peek() {
			case Comma:
				s.Advance()
			case ObjectEnd:
				s.Advance()
				return nil
			default:
				return s.Unexpected("',' or '}'")
			}
		}
	}
	if s.Peek() == ArrayEnd {
		s.Advance()
		return nil
	}
	for {
		if err := s.Skip(maxDepth - 1); err != nil {
			return err
		}
		switch s.Peek() {
		case Comma:
			s.Advance()
		case ArrayEnd:
			s.Advance()
			return nil
		default:
			return s.Unexpected("',' or ']'")
		}
	}
}

// AppendQuote appends s as a JSON string literal, as encoding/json writes it
// with HTML escaping off: '"', '\\' and control characters escaped (\b, \f,
// \n, \r, \t in short form), U+2028 and U+2029 escaped, and invalid UTF-8
// written as \ufffd.
func AppendQuote(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Quote returns s as a JSON string literal, as AppendQuote writes it.
func Quote(s string) string { return string(AppendQuote(nil, s)) }
