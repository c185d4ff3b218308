// Package secret holds the one type that carries a credential through
// askuser: a Value that never shows its content.
//
// A Value redacts itself wherever Go would print or encode it: fmt with any
// verb (String, Format, GoString), encoding/json (MarshalJSON), encoding
// (MarshalText) and log/slog (LogValue) all render [Redacted]. The only way to
// read the bytes is Reveal, which a reader of the code can search for. Wipe
// zeroes the bytes once they are no longer needed.
//
// The package is a leaf: the root package, the responders and the secret
// store all import it, and it imports nothing of askuser's.
package secret

import (
	"fmt"
	"log/slog"
	"sync"
)

// Redacted is what a Value shows instead of its content.
const Redacted = "[REDACTED]"

// A Value is a credential or a sensitive answer. The zero Value is empty.
// Copies of a Value share its content, so wiping one wipes them all. A Value
// is safe for concurrent use.
type Value struct {
	p *box
}

// The content sits two pointers away from a Value. fmt cannot call a
// Value's methods when it reaches the Value through an unexported struct
// field; it then prints the fields itself, and for verbs such as %s and %q it
// follows the first pointer (printing "%!s(*secret.box=&{…})"). Behind that
// first pointer box holds only another pointer, which fmt prints as an
// address.
type box struct {
	mu sync.Mutex
	b  *[]byte
}

// New returns a Value holding a copy of b. The caller should wipe b itself
// when it no longer needs it.
func New(b []byte) Value {
	c := append([]byte(nil), b...)
	return Value{p: &box{b: &c}}
}

// FromString returns a Value holding the bytes of s. Go strings cannot be
// wiped, so prefer New where the bytes are at hand.
func FromString(s string) Value {
	c := []byte(s)
	return Value{p: &box{b: &c}}
}

// Reveal returns a copy of the content. Every place that calls it is a place
// where the credential leaves askuser's protection; keep them few.
func (v Value) Reveal() []byte {
	if v.p == nil {
		return nil
	}
	v.p.mu.Lock()
	defer v.p.mu.Unlock()
	if v.p.b == nil {
		return nil
	}
	return append([]byte(nil), *v.p.b...)
}

// Len reports the length of the content in bytes.
func (v Value) Len() int {
	if v.p == nil {
		return 0
	}
	v.p.mu.Lock()
	defer v.p.mu.Unlock()
	if v.p.b == nil {
		return 0
	}
	return len(*v.p.b)
}

// Empty reports whether the Value holds nothing.
func (v Value) Empty() bool { return v.Len() == 0 }

// Wipe overwrites the content with zeros and empties the Value.
func (v Value) Wipe() {
	if v.p == nil {
		return
	}
	v.p.mu.Lock()
	defer v.p.mu.Unlock()
	if v.p.b != nil {
		clear(*v.p.b)
		v.p.b = nil
	}
}

// String returns [Redacted].
func (Value) String() string { return Redacted }

// GoString returns [Redacted], so %#v shows nothing either.
func (Value) GoString() string { return Redacted }

// Format writes [Redacted] for every verb and flag.
func (Value) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(Redacted)) }

// MarshalJSON encodes the Value as the JSON string "[REDACTED]".
func (Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText returns [Redacted].
func (Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// LogValue implements slog.LogValuer: the content never reaches a log.
func (Value) LogValue() slog.Value { return slog.StringValue(Redacted) }
