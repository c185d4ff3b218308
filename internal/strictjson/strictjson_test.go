package strictjson_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser/internal/strictjson"
)

// The fields every object of a walked document may have: "c" holds one of
// "x" and "y"; the others hold any value.
var fields = []string{"a", "b", "c", "d e"}

func notXY(s string) string { return strictjson.Quote(s) + ` is not "x" or "y"` }

// walk reads the whole of data as a decoder would and returns the first
// problem as "path: what" ("" when there is none), with paths written as
// $.a[1]["d e"].
func walk(data []byte) string {
	var d strictjson.Decoder
	d.Reset(data)
	if msg := value(&d, "$", d.PeekKind(), false); msg != "" {
		return msg
	}
	return at("$", d.ReadEnd())
}

func at(path string, p *strictjson.Problem) string {
	if p == nil {
		return ""
	}
	return path + ": " + p.What
}

func member(path, name string) string {
	if strictjson.IsIdent(name) {
		return path + "." + name
	}
	return path + "[" + strictjson.Quote(name) + "]"
}

// value reads the value at path, peeked as k; oneOf reads it as "x" or "y".
func value(d *strictjson.Decoder, path string, k jsontext.Kind, oneOf bool) string {
	var p *strictjson.Problem
	switch {
	case oneOf:
		_, p = d.ReadOneOf([]string{"x", "y"}, `"x", "y"`, notXY)
	case k == '{':
		d.ReadDelim()
		msg, p := strictjson.ReadObject(d, fields, func(i int) *string {
			return refused(value(d, member(path, fields[i]), d.PeekKind(), fields[i] == "c"))
		})
		switch {
		case p != nil && p.Inner:
			return at(member(path, p.Field), p)
		case p != nil:
			return at(path, p)
		case msg != nil:
			return *msg
		}
		return ""
	case k == '[':
		d.ReadArray("an array")
		msg, p := strictjson.ReadElements(d, func(i int, k jsontext.Kind) *string {
			return refused(value(d, path+"["+strconv.Itoa(i)+"]", k, false))
		})
		switch {
		case p != nil && p.Inner:
			return at(path+"["+strconv.Itoa(p.Index)+"]", p)
		case p != nil:
			return at(path, p)
		case msg != nil:
			return *msg
		}
		return ""
	case k == '"':
		var s string
		_, p = d.ReadString(&s)
	case k == 't' || k == 'f':
		var b bool
		_, p = d.ReadBool(&b)
	case k == '0':
		_, _, p = d.ReadInteger()
	case k == 'n':
		p = d.ReadNull()
	default:
		p = d.WrongType(d.PeekKind(), "a value")
	}
	return at(path, p)
}

// refused is the error a walk's callback returns: nil for no message.
func refused(msg string) *string {
	if msg == "" {
		return nil
	}
	return &msg
}

// TestProblems checks how each read words a problem and where it places it.
func TestProblems(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"a":[1,{"b":null,"d e":true}],"c":"y"} `, ``},
		{`"x"`, ``},
		{`{"a":1,"a":2}`, `$.a: duplicate field; a field may appear only once`},
		{`{"b":1,"a":2,"\u0062":null}`, `$.b: duplicate field; a field may appear only once`},
		{`{"zz":1}`, `$.zz: unknown field; allowed fields: a, b, c, d e`},
		{`{"z\u0020z":1}`, `$["z z"]: unknown field; allowed fields: a, b, c, d e`},
		{`{"a" 1}`, `$: invalid JSON at byte offset 5: unexpected '1'; expected ':' after the field name`},
		{`{"a":1 "b":2}`, `$: invalid JSON at byte offset 7: unexpected '"'; expected ',' or '}'`},
		{`{,}`, `$: invalid JSON at byte offset 1: unexpected ','; expected a field name or '}'`},
		{`{"a":1,}`, `$: invalid JSON at byte offset 7: unexpected '}'; expected a field name`},
		{`{"a":[1,2 3]}`, `$.a: invalid JSON at byte offset 10: unexpected '3'; expected ',' or ']'`},
		{`{"a":[1,]}`, `$.a[1]: invalid JSON at byte offset 8: unexpected ']'; expected a value`},
		{`{"a":[x]}`, `$.a[0]: invalid JSON at byte offset 6: unexpected 'x'; expected a value`},
		{`{"a":1.5}`, `$.a: expected an integer, got 1.5`},
		{`{"a":1e-1}`, `$.a: expected an integer, got 1e-1`},
		{`{"a":0.` + strings.Repeat("1", 50) + `}`, `$.a: expected an integer, got 0.` + strings.Repeat("1", 38) + `…`},
		{`{"a":01}`, `$: invalid JSON at byte offset 6: unexpected '1'; expected ',' or '}'`},
		{`{"a":-}`, `$.a: invalid JSON at byte offset 6: unexpected '}'; expected a digit in a number`},
		{`{"a":tru}`, `$.a: invalid JSON at byte offset 8: unexpected '}'; expected "e" to complete true`},
		{`{"a":"` + "\x01" + `"}`, `$.a: invalid JSON at byte offset 6: control character U+0001 in a string; it must be escaped`},
		{`{"a":"\q"}`, `$.a: invalid JSON at byte offset 6: invalid escape "\\q" in a string; allowed: \" \\ \/ \b \f \n \r \t \uXXXX`},
		{`{"a":"\u12"}`, `$.a: invalid JSON at byte offset 10: unexpected '"'; expected four hexadecimal digits after \u`},
		{`{"a":"abc`, `$.a: invalid JSON at byte offset 9: unexpected end of input; expected '"' to end the string`},
		{`{"a":` + "\xff", `$.a: invalid JSON at byte offset 5: unexpected byte 0xff; expected a value`},
		{`{"c":"z"}`, `$.c: "z" is not "x" or "y"`},
		{`{"c":null}`, ``},
		{`{"c":1}`, `$.c: expected one of "x", "y", got a number`},
		{`{"c":{}}`, `$.c: expected one of "x", "y", got an object`},
		{`{"c":nul}`, `$.c: invalid JSON at byte offset 8: unexpected '}'; expected "l" to complete null`},
		{`{} x`, `$: invalid JSON at byte offset 3: unexpected data after the top-level value`},
		{``, `$: invalid JSON at byte offset 0: unexpected end of input; expected a value`},
	} {
		if got := walk([]byte(tc.data)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.data, got, tc.want)
		}
	}
}

// TestReadValues checks the values the reads keep (a string unquoted as
// encoding/json unquotes it, a boolean, an integer) and whether each was
// given or null, an optional array, the kinds ReadElements peeks, and that
// a callback's error ends the read and comes back as it is.
func TestReadValues(t *testing.T) {
	var d strictjson.Decoder
	d.Reset([]byte(`[" a\u00e9\ud800` + "\xff" + `", null, false, null, 1e2, null, [], null, "x", 7, 8]`))
	d.ReadDelim()
	s, b := "kept", true
	type got struct {
		v     any
		given bool
		what  string
	}
	words := func(p *strictjson.Problem) string {
		if p == nil {
			return ""
		}
		return p.What
	}
	reads := []func() got{
		func() got { given, p := d.ReadString(&s); return got{s, given, words(p)} },
		func() got { given, p := d.ReadString(&s); return got{s, given, words(p)} },
		func() got { given, p := d.ReadBool(&b); return got{b, given, words(p)} },
		func() got { given, p := d.ReadBool(&b); return got{b, given, words(p)} },
		func() got { v, given, p := d.ReadInteger(); return got{v, given, words(p)} },
		func() got { v, given, p := d.ReadInteger(); return got{v, given, words(p)} },
		func() got {
			given, p := d.ReadArray("an array of questions")
			if given {
				err, p := strictjson.ReadElements(&d, func(int, jsontext.Kind) *string { return refused("an element read") })
				if err != nil || p != nil {
					t.Errorf("ReadElements in the empty array = %v, %v", err, p)
				}
			}
			return got{nil, given, words(p)}
		},
		func() got { given, p := d.ReadArray("an array of questions"); return got{nil, given, words(p)} },
		func() got { given, p := d.ReadArray("an array of questions"); return got{nil, given, words(p)} },
	}
	want := []got{
		{" aé\ufffd\ufffd", true, ""}, {" aé\ufffd\ufffd", false, ""},
		{false, true, ""}, {false, false, ""},
		{100, true, ""}, {0, false, ""},
		{nil, true, ""}, {nil, false, ""}, {nil, false, "expected an array of questions, got a string"},
	}
	var kinds []jsontext.Kind
	err, p := strictjson.ReadElements(&d, func(i int, k jsontext.Kind) *string {
		kinds = append(kinds, k)
		if i == len(reads) {
			return refused("stopped")
		}
		if g := reads[i](); g != want[i] {
			t.Errorf("element %d: got %+v, want %+v", i, g, want[i])
		}
		return nil
	})
	if p != nil || err == nil || *err != "stopped" {
		t.Errorf("ReadElements = %v, %v; want the callback's error", err, p)
	}
	if string(kinds) != `"nfn0n[n"0` {
		t.Errorf("ReadElements peeked %q", string(kinds))
	}
}

// TestIntegral checks which numbers count as integers, and their values.
func TestIntegral(t *testing.T) {
	for num, want := range map[string]int{
		"10": 10, "10.0": 10, "1e1": 10, "1E+1": 10, "100e-1": 10, "1000.000e-2": 10, "0.1e2": 10,
		"0": 0, "-0.0e5": 0, "12e11": 1 << 40, "1e12": 1 << 40, "99999999999": 99999999999, "-7e0": -7,
		"1e99999999999999999999": 1 << 40, "-1e400": -(1 << 40), "300.000000000000000000000000": 300,
	} {
		if got, ok := strictjson.Integral(num); !ok || got != want {
			t.Errorf("Integral(%s) = %d, %v; want %d, true", num, got, ok, want)
		}
	}
	for _, num := range []string{"0.5", "1.01e1", "1e-99999999999999999999", "100000e-6", "-1.5"} {
		if got, ok := strictjson.Integral(num); ok {
			t.Errorf("Integral(%s) = %d, true; want not an integer", num, got)
		}
	}
}

// TestPathWords checks how a field's name is written in a path.
func TestPathWords(t *testing.T) {
	for name, want := range map[string]bool{"header": true, "_a1": true, "A_b": true, "": false, "1a": false, "a b": false, "é": false, "a-b": false} {
		if got := strictjson.IsIdent(name); got != want {
			t.Errorf("IsIdent(%q) = %v", name, got)
		}
	}
	for s, want := range map[string]string{`a"b\c`: `"a\"b\\c"`, "<&>": `"<&>"`, "\u2028\u2029\x01\n": `"\u2028\u2029\u0001\n"`, "é": `"é"`} {
		if got := strictjson.Quote(s); got != want {
			t.Errorf("Quote(%q) = %s, want %s", s, got, want)
		}
	}
}

var offset = regexp.MustCompile(`invalid JSON at byte offset (\d+): `)

// FuzzDecoder reads any input with every read: nothing panics, what the
// reads accept is JSON (as encoding/json has it), what is not JSON is
// refused, a syntax error is claimed only where the input is not JSON, and
// its offset lies within the input.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,{"b":null,"d e":true}],"c":"y"}`, `{"a":1,"a":2}`, `{"a":[1,]}`, `{"a":1.5e3}`, `{"c":"\u0078"}`,
		`{"a":"\ud800` + "\xff" + `"}`, `[1,2 3]`, `{"a":-}`, `{} x`, `{"zz":{}}`, `tru`, `"\u12"`, ` [ [ ] , { } ] `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg := walk(data)
		valid := json.Valid(data)
		switch {
		case msg == "" && !valid:
			t.Fatalf("%q is not JSON, and was read", data)
		case msg == "":
			return
		}
		m := offset.FindStringSubmatch(msg)
		if m == nil {
			return
		}
		if valid {
			t.Fatalf("%q is JSON, and was refused as %s", data, msg)
		}
		if off, _ := strconv.Atoi(m[1]); off > len(data) {
			t.Fatalf("%q: the offset in %s lies past the input", data, msg)
		}
	})
}
