package challenge

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestCode: a code is Base characters of the alphabet; every wrong one
// counted makes the next one character longer, up to Max.
func TestCode(t *testing.T) {
	s := New(nil, false)
	for want := Base; want <= Max+2; want++ {
		c := s.Code()
		if len(c) != min(want, Max) {
			t.Errorf("after %d wrong codes the code %q has %d characters, want %d", want-Base, c, len(c), min(want, Max))
		}
		if strings.Trim(c, Alphabet) != "" {
			t.Errorf("the code %q has characters outside %s", c, Alphabet)
		}
		s.Missed()
	}
}

// TestCodeFromTheReader: the code is drawn from the reader given, a byte
// a character, bytes past the last whole multiple of the alphabet drawn
// again; a reader that fails gives way to crypto/rand.
func TestCodeFromTheReader(t *testing.T) {
	if got := New(bytes.NewReader([]byte{0, 1, 255, 20, 240, 39, 19}), false).Code(); got != "ACA99" {
		t.Errorf("code %q, want ACA99", got)
	}
	c := New(failing{}, true).Code()
	if len(c) != Base || strings.Trim(c, Alphabet) != "" {
		t.Errorf("with a failing reader the code is %q", c)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("no bytes") }

// TestCodesDiffer: codes from crypto/rand spread over the alphabet; in
// 2,000 codes no two are the same by more than chance would allow, and
// every character is drawn.
func TestCodesDiffer(t *testing.T) {
	s := New(nil, false)
	seen := map[string]bool{}
	chars := map[rune]int{}
	dup := 0
	for range 2000 {
		c := s.Code()
		if seen[c] {
			dup++
		}
		seen[c] = true
		for _, r := range c {
			chars[r]++
		}
	}
	// 2,000 codes of 3.2 million: about 0.6 repeats are expected, eight
	// or more have a chance under 1e-6.
	if dup >= 8 {
		t.Errorf("%d codes of 2000 repeat one before them", dup)
	}
	if len(chars) != len(Alphabet) {
		t.Errorf("only %d of the %d characters were drawn", len(chars), len(Alphabet))
	}
	for r, n := range chars {
		// 10,000 characters, 500 expected each: a count out of 350..650
		// is beyond six standard deviations.
		if n < 350 || n > 650 {
			t.Errorf("%q drawn %d times of 10000, want about 500", r, n)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		code, typed string
		ok          bool
	}{
		{"K7MXA", "K7MXA", true},
		{"K7MXA", "k7mxa", true},
		{"K7MXA", " K7M-XA\t", true},
		{"K7MXA", "K7MX", false},
		{"K7MXA", "K7MXAA", false},
		{"K7MXA", "", false},
		{"", "", false},
		{"K7MXA", "Ｋ7MXA", false},
		{"K7MXA", "approve", false},
	} {
		if got := Match(tt.code, tt.typed); got != tt.ok {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.code, tt.typed, got, tt.ok)
		}
	}
}

// FuzzMatch: typed text matches a code exactly when, without the spaces,
// tabs and hyphens and in upper case, it is the code; and a code drawn
// matches itself typed in lower case.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"K7MXA", "k7mxa", "k7 m-xa", "", "ı", "ſ", "\x00", "Ｋ7MXA"} {
		f.Add("K7MXA", s)
	}
	f.Fuzz(func(t *testing.T, code, typed string) {
		want := code != "" && Normalize(typed) == code
		if got := Match(code, typed); got != want {
			t.Errorf("Match(%q, %q) = %v, want %v", code, typed, got, want)
		}
		c := New(strings.NewReader(typed+code+"0123456789"), false).Code()
		if !Match(c, strings.ToLower(c)) {
			t.Errorf("the code %q does not match itself in lower case", c)
		}
	})
}

func TestInjectable(t *testing.T) {
	if !New(nil, true).Injectable() || New(nil, false).Injectable() {
		t.Error("Injectable does not say what New was told")
	}
	var s *Source
	if s.Injectable() {
		t.Error("a nil Source is injectable")
	}
	_ = System() // reads the system's switch; what it says depends on the machine
}
