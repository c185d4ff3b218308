package inert_test

import (
	"fmt"

	"github.com/askuser-go/askuser/internal/inert"
)

// A label that would move the cursor up and write over the line above is
// shown as what it is.
func ExampleLine() {
	label := "production\x1b[1A\r  1) staging (recommended)"
	fmt.Println(inert.Line(label))
	fmt.Println(inert.Line("two\nlines, a\ttab, an \u202eRLO, a byte \xff"))
	// Output:
	// production\x1b[1A\r  1) staging (recommended)
	// two\nlines, a\ttab, an \u202eRLO, a byte \xff
}

// Text keeps the lines of a preview, and escapes the rest as Line does.
func ExampleText() {
	fmt.Println(inert.Text("+ replicas: 3\n- replicas: 1\x1b[2K"))
	// Output:
	// + replicas: 3
	// - replicas: 1\x1b[2K
}
