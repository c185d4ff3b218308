// Package challenge makes the short codes a person types back to approve
// an action on a terminal.
//
// A program that shares the person's terminal can type into it (the
// TIOCSTI ioctl, where the kernel allows it, or a pseudo-terminal it
// holds) but cannot read what the terminal shows. A code drawn at random
// for each approval and shown only on the terminal is what such a program
// cannot type: no fixed sequence of keys approves.
//
// A code is five characters of an alphabet without look-alikes (no 0 and
// O, 1 and I, 5 and S, 2 and Z, 8 and B, 6 and G, U and V), typed in
// either case. Every wrong code typed on a Source makes the codes it
// draws after it one character longer, up to ten: guessing by asking
// again and again does not pay.
package challenge

import (
	"crypto/rand"
	"crypto/subtle"
	"io"
	"strings"
	"sync"
)

// Alphabet is the characters a code is drawn from.
const Alphabet = "ACEFHJKMNPRTWXY34679"

// The length of a code: Base characters, one more for every wrong code
// typed before, at most Max.
const (
	Base = 5
	Max  = 10
)

// A Source draws codes and counts the wrong ones typed. Its methods are
// safe for concurrent use.
type Source struct {
	rand       io.Reader
	injectable bool

	mu    sync.Mutex
	wrong int
}

// New returns a Source that draws from r (crypto/rand when nil; tests
// give a reader of their own), and says that programs can type into the
// terminal when injectable is set.
func New(r io.Reader, injectable bool) *Source {
	return &Source{rand: r, injectable: injectable}
}

// System returns the Source a responder uses: codes from crypto/rand, and
// whether this system lets a program type into a terminal it shares
// (Injectable).
func System() *Source { return New(nil, TypingAllowed()) }

// Injectable reports whether the system lets any program on the terminal
// type into it: a responder says so, once, beside the code.
func (s *Source) Injectable() bool { return s != nil && s.injectable }

// Code draws a new code.
func (s *Source) Code() string {
	s.mu.Lock()
	n := min(Base+s.wrong, Max)
	s.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = Alphabet[s.index()]
	}
	return string(b)
}

// index draws one index into Alphabet, uniformly: a byte past the last
// whole multiple of the alphabet's size is drawn again.
func (s *Source) index() int {
	const limit = 256 - 256%len(Alphabet)
	var c [1]byte
	for {
		if s.rand == nil || s.readFrom(c[:]) != nil {
			_, _ = rand.Read(c[:]) // never fails
		}
		if int(c[0]) < limit {
			return int(c[0]) % len(Alphabet)
		}
	}
}

func (s *Source) readFrom(b []byte) error {
	_, err := io.ReadFull(s.rand, b)
	return err
}

// Missed counts a wrong code typed: the codes drawn after it are longer.
func (s *Source) Missed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wrong++
}

// Match reports whether typed is code: the same characters, in either
// case, with spaces and hyphens typed among them ignored.
func Match(code, typed string) bool {
	t := Normalize(typed)
	return code != "" && subtle.ConstantTimeCompare([]byte(t), []byte(code)) == 1
}

// Normalize is typed as Match compares it: upper case, without spaces,
// tabs or hyphens.
func Normalize(typed string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '-':
			return -1
		}
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, typed)
}
