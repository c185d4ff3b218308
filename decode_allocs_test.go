//go:build !race

// The race detector changes what escapes, so allocation counts are checked
// only without it.

package askuser

import "testing"

func TestDecodeAskUserAllocations(t *testing.T) {
	data := []byte(auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(6)+`}`))
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := decodeAskUser(data, Limits{}); err != nil {
			t.Fatal(err)
		}
	})
	// While decoding: the input as a string, and a block with room for the
	// largest call. Kept for the ask: the compacted call, its questions,
	// its options, and one array for all its strings.
	if allocs > 6 {
		t.Errorf("decodeAskUser allocates %v times, want at most 6", allocs)
	}
}
