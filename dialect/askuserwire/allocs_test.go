//go:build !race

// The race detector changes what escapes, so allocation counts are checked
// only without it.

package askuserwire

import (
	"os"
	"testing"

	"github.com/askuser-go/askuser/dialect"
)

// TestDecodeAllocations checks that Decode allocates once per string it
// keeps (Go allocates nothing for a string of one byte) and a few times
// more: the decoder, its input buffer, one block with room for the largest
// call, and the growth of jsontext's stacks (a call is at most five levels
// deep where the decoder enters it).
func TestDecodeAllocations(t *testing.T) {
	call4, err := os.ReadFile("testdata/bench/call4.json")
	if err != nil {
		t.Fatal(err)
	}
	const overhead = 10
	for _, tc := range []struct {
		name    string
		call    string
		strings int // the strings of more than one byte the call keeps
	}{
		{"text", auCall(`{"kind":"text","id":"xy","header":"Hd","question":"Q?"}`), 3},
		{"choices", auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(6)+`}`), 3 + 2 + 12},
		{"call4.json", string(call4), 4*3 + 16*2},
	} {
		data := []byte(tc.call)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := Decode(data, dialect.Limits{}); err != nil {
				t.Fatal(err)
			}
		})
		if max := float64(tc.strings + overhead); allocs > max {
			t.Errorf("%s: Decode allocates %v times, want at most %v", tc.name, allocs, max)
		}
	}
}
