package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxDepth is encoding/json's nesting limit, so that the two agree.
const maxDepth = 10000

// valid reports whether src is one JSON value, as json.Valid does.
func valid(src string) error {
	s := New(src)
	if err := s.Skip(maxDepth); err != nil {
		return err
	}
	if s.Peek() != EOF {
		return s.Unexpected("the end of the input")
	}
	return nil
}

// decodeAny decodes one value as encoding/json decodes into an any with
// UseNumber.
func decodeAny(s *Scanner, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("too deep")
	}
	switch k := s.Peek(); k {
	case String:
		return s.ReadString()
	case Number:
		n, err := s.ReadNumber()
		return json.Number(n), err
	case True, False, Null:
		if err := s.ReadLiteral(k); err != nil {
			return nil, err
		}
		switch k {
		case True:
			return true, nil
		case False:
			return false, nil
		}
		return nil, nil
	case ArrayBegin:
		s.Advance()
		a := []any{}
		if s.Peek() == ArrayEnd {
			s.Advance()
			return a, nil
		}
		for {
			v, err := decodeAny(s, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			switch s.Peek() {
			case Comma:
				s.Advance()
			case ArrayEnd:
				s.Advance()
				return a, nil
			default:
				return nil, s.Unexpected("',' or ']'")
			}
		}
	case ObjectBegin:
		s.Advance()
		m := map[string]any{}
		if s.Peek() == ObjectEnd {
			s.Advance()
			return m, nil
		}
		for {
			if s.Peek() != String {
				return nil, s.Unexpected("a field name")
			}
			key, err := s.ReadString()
			if err != nil {
				return nil, err
			}
			if s.Peek() != Colon {
				return nil, s.Unexpected("':'")
			}
			s.Advance()
			v, err := decodeAny(s, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
			switch s.Peek() {
			case Comma:
				s.Advance()
			case ObjectEnd:
				s.Advance()
				return m, nil
			default:
				return nil, s.Unexpected("',' or '}'")
			}
		}
	}
	return nil, s.Unexpected("a value")
}

// stdDecode decodes data, which json.Valid accepts, with encoding/json.
func stdDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func stdQuote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// FuzzScanner checks the scanner against encoding/json: the same inputs are
// JSON, and they decode to the same values.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-2.5e+3,true,false,null,"x\u00e9\ud83d\ude00"]}`, `"\ud800"`, `"\udc00\ud800\udc00"`,
		"\"\xff\xed\xa0\x80\"", `[01]`, `1.`, `-`, `{"a" 1}`, `"\x"`, "\"\t\"", ` [ ] `, `{}{}`, `tru`, `nul`,
		`"\u12"`, `1e`, `[1,]`, `{"a":1,}`, `0.0e-0`, `"\/\b\f\n\r\t\"\\"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := string(data)
		err := valid(src)
		if stdOK := json.Valid(data); stdOK != (err == nil) {
			t.Fatalf("json.Valid = %v, scanner: %v, for %q", stdOK, err, data)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) {
				t.Fatalf("error %v: want a *SyntaxError within the input", err)
			}
			return
		}
		s := New(src)
		got, err := decodeAny(&s, 0)
		if err != nil {
			t.Fatalf("valid, but decodeAny: %v", err)
		}
		want, err := stdDecode(data)
		if err != nil {
			if strings.Contains(err.Error(), "exceeded max depth") {
				return
			}
			t.Fatalf("json.Valid but Decode: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decoded %q (-encoding/json +scanner):\n%s", data, diff)
		}
	})
}

// FuzzQuote checks AppendQuote against encoding/json, and that a quoted
// string reads back as encoding/json reads it.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\/\b\f\n\r\t\x00\x1f\x7f", "<&>", "\u2028\u2029", "é😀", "\xff\xed\xa0\x80", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got := Quote(v)
		if want := stdQuote(v); got != want {
			t.Fatalf("Quote(%q) = %s, want %s", v, got, want)
		}
		s := New(got)
		back, err := s.ReadString()
		if err != nil {
			t.Fatalf("ReadString(%s): %v", got, err)
		}
		var want string
		if err := json.Unmarshal([]byte(got), &want); err != nil {
			t.Fatal(err)
		}
		if back != want || s.Peek() != EOF {
			t.Fatalf("ReadString(%s) = %q, want %q", got, back, want)
		}
	})
}

func TestReadString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"é😀"`, "é😀"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u00e9\u00E9"`, "éé"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\ud83dx"`, "\ufffdx"},
		{`"\ud83d"`, "\ufffd"},
		{`"\ude00\ud83d"`, "\ufffd\ufffd"},
		{`"\ud83d\ud83d\ude00"`, "\ufffd😀"},
		{`"\ud83d\u0041"`, "\ufffdA"},
		{`"\u0000"`, "\x00"},
		{"\"a\xffb\"", "a\ufffdb"},
		{"\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd"},
		{"\"\xe2\x82\"", "\ufffd\ufffd"},
		{"\"\x7f\"", "\x7f"},
	} {
		s := New(tc.in)
		got, err := s.ReadString()
		if err != nil || got != tc.want || s.Offset() != len(tc.in) {
			t.Errorf("ReadString(%s) = %q, %v at %d; want %q at %d", tc.in, got, err, s.Offset(), tc.want, len(tc.in))
		}
	}
	for _, tc := range []struct {
		in  string
		err string
	}{
		{`"abc`, `invalid JSON at byte offset 4: unexpected end of input; expected '"' to end the string`},
		{`"a\`, `invalid JSON at byte offset 3: unexpected end of input; expected an escape character`},
		{`"a\q"`, `invalid JSON at byte offset 2: invalid escape "\\q" in a string; allowed: \" \\ \/ \b \f \n \r \t \uXXXX`},
		{`"\u12"`, `invalid JSON at byte offset 5: unexpected '"'; expected four hexadecimal digits after \u`},
		{"\"a\x01\"", `invalid JSON at byte offset 2: control character U+0001 in a string; it must be escaped`},
		{"\"é\n\"", `invalid JSON at byte offset 3: control character U+000A in a string; it must be escaped`},
	} {
		s := New(tc.in)
		_, err := s.ReadString()
		if err == nil || err.Error() != tc.err {
			t.Errorf("ReadString(%s) error %v, want %s", tc.in, err, tc.err)
		}
	}
}

func TestReadNumber(t *testing.T) {
	for _, in := range []string{"0", "-0", "1", "-12", "0.5", "1e5", "1E+5", "1e-5", "-0.0e0", "123456789012345678901234567890"} {
		s := New(in + ",")
		got, err := s.ReadNumber()
		if err != nil || got != in {
			t.Errorf("ReadNumber(%s) = %q, %v", in, got, err)
		}
	}
	for in, wantErr := range map[string]string{
		"-":   "invalid JSON at byte offset 1: unexpected end of input; expected a digit in a number",
		"-a":  "invalid JSON at byte offset 1: unexpected 'a'; expected a digit in a number",
		"1.":  "invalid JSON at byte offset 2: unexpected end of input; expected a digit after the decimal point",
		"1.e": "invalid JSON at byte offset 2: unexpected 'e'; expected a digit after the decimal point",
		"1e":  "invalid JSON at byte offset 2: unexpected end of input; expected a digit in the exponent",
		"1e+": "invalid JSON at byte offset 3: unexpected end of input; expected a digit in the exponent",
	} {
		s := New(in)
		_, err := s.ReadNumber()
		if err == nil || err.Error() != wantErr {
			t.Errorf("ReadNumber(%s) error %v, want %s", in, err, wantErr)
		}
	}
	// A leading zero ends the number; what follows is the caller's problem.
	s := New("012")
	if got, err := s.ReadNumber(); got != "0" || err != nil {
		t.Errorf(`ReadNumber("012") = %q, %v; want "0"`, got, err)
	}
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		``, ` `, `{}`, `[]`, `[[[]]]`, `{"a":{"b":[1,{"c":null}]}}`, `{"a":1,"a":2}`, `[1 2]`, `{"a"}`, `{1:2}`,
		`[1,]`, `{,}`, `"\u00zz"`, `[-01]`, `[1e1.5]`, "\ufeff{}", "[\"\x00\"]", `truex`, ` null `, `[true,false,null]`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		err := valid(in)
		if want := json.Valid([]byte(in)); want != (err == nil) {
			t.Errorf("valid(%.40q) = %v, json.Valid = %v", in, err, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	got := []string{}
	for _, k := range []Kind{ObjectBegin, ArrayBegin, String, Number, True, False, Null, EOF, Invalid} {
		got = append(got, k.Describe())
	}
	want := []string{"an object", "an array", "a string", "a number", "true", "false", "null", "the end of the input", "no value"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
}
