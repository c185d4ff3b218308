package askuser

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRememberFinal: the mirror forgets the oldest final records past
// maxFinals; a key removed and made final again keeps its newer record
// when its older mark is forgotten.
func TestRememberFinal(t *testing.T) {
	defer func(n int) { maxFinals = n }(maxFinals)
	maxFinals = 3
	s := &shared{finals: map[string]uint64{}}
	s.rememberFinal("a", 5)
	delete(s.finals, "a") // retention removed it
	s.rememberFinal("a", 9)
	s.rememberFinal("b", 10)
	s.rememberFinal("c", 11)
	if diff := cmp.Diff(map[string]uint64{"a": 9, "b": 10, "c": 11}, s.finals); diff != "" {
		t.Fatalf("after forgetting a's stale mark (-want +got):\n%s", diff)
	}
	s.rememberFinal("d", 12)
	if diff := cmp.Diff(map[string]uint64{"b": 10, "c": 11, "d": 12}, s.finals); diff != "" {
		t.Fatalf("after forgetting the oldest (-want +got):\n%s", diff)
	}
	if len(s.finalOrder) != maxFinals {
		t.Fatalf("%d marks kept; want %d", len(s.finalOrder), maxFinals)
	}
}
