//go:build !race

// The race detector changes what escapes, so allocation counts are checked
// only without it.

package askuser

import (
	"encoding/json"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/wire"
)

// TestDecodeAskUserAllocations holds decoding a call (the dialect, the
// model's rules and the compaction, as the orchestrator does it) to at most
// 1.5 times the allocations of encoding/json reading the same call into
// plain structs, which checks nothing.
func TestDecodeAskUserAllocations(t *testing.T) {
	data := []byte(auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(6)+`}`))
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := decodeAskUser(data, dialect.Limits{}); err != nil {
			t.Fatal(err)
		}
	})
	baseline := testing.AllocsPerRun(100, func() {
		var c wire.Call
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1.5*baseline {
		t.Errorf("decoding allocates %v times, encoding/json %v; want at most 1.5 times as many", allocs, baseline)
	}
}
