package askuserwire

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/askuser-go/askuser/dialect"
)

// Decode against encoding/json on a realistic call: 4 questions of 4
// options. BenchmarkDecode validates and normalizes too; the baseline only
// unmarshals into the wire structs. Read the ratio from one run:
//
//	go test -run='^$' -bench=Decode -benchmem -count=5 ./dialect/askuserwire/

func benchCall(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/call4.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecode(b *testing.B) {
	data := benchCall(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data, dialect.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeBaseline(b *testing.B) {
	data := benchCall(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var c wireCall
		if err := json.Unmarshal(data, &c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal(b *testing.B) {
	c, err := Decode(benchCall(b), dialect.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(c); err != nil {
			b.Fatal(err)
		}
	}
}
