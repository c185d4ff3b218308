package askuser

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/wire"
)

// The decoder against encoding/json on a realistic call: 4 questions of 4
// options. BenchmarkDecodeCall validates and normalizes too; the baseline
// only unmarshals into the wire structs. Read the ratio from one run:
//
//	go test -run='^$' -bench=DecodeCall -benchmem -count=5 .

func benchCall(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/call4.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecodeCall(b *testing.B) {
	data := benchCall(b)
	lim := dialect.Limits{}.WithDefaults()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decodeAskUser(data, lim); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCallBaseline(b *testing.B) {
	data := benchCall(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var c wire.Call
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
	}
}
