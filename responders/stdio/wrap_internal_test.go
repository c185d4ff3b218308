package stdio

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLineWriter: a line that fits is printed as it is, the space after a
// prompt included; one that does not is broken at the width, each piece
// after the first marked; and a line printed in several pieces is
// wrapped as one, from the column it has reached, until the person ends
// it with Enter.
func TestLineWriter(t *testing.T) {
	var b strings.Builder
	lw := &lineWriter{w: &b, width: func() int { return 20 }}
	lw.print("Pick 1-3: ")
	lw.typed()
	lw.print("\n  1) production, the real one\n")
	lw.print("Reason: ")
	lw.print("it is old and costs money\n")
	lw.print("A very long prompt, wrapped: ")
	want := "Pick 1-3: \n" +
		"  1) production, the\n" + continued + "real one\n" +
		"Reason: it is old\n" + continued + "and costs money\n" +
		"A very long prompt,\n" + continued + "wrapped: "
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var none strings.Builder
	lw = &lineWriter{w: &none, width: func() int { return 0 }}
	long := strings.Repeat("x ", 100)
	lw.print(long)
	if none.String() != long {
		t.Errorf("with no width the line was changed: %q", none.String())
	}
}
