package approvalwire_test

import (
	"encoding/json"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/internal/wire"
)

// Decode against encoding/json on a realistic call with a command in its
// details. BenchmarkDecode validates and fills in the default too; the
// baseline only unmarshals into the wire struct. Read the ratio from one
// run:
//
//	go test -run='^$' -bench=Decode -benchmem -count=5 ./dialect/approvalwire/

var benchCall = []byte(`{"action":"Delete the S3 bucket logs-2023 and the 1,204 objects in it","reason":"Its logs were archived to Glacier last week, and the bucket costs $41 a month","risk":"irreversible","details":"aws s3 rb s3://logs-2023 --force\n# objects: 1204, total 38.2 GiB, newest 2023-12-31T23:59:58Z","timeout_seconds":120,"human_intent":"Cleaning up last year's logs"}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCall)))
	for b.Loop() {
		if _, err := approvalwire.Decode(benchCall, dialect.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeBaseline(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCall)))
	for b.Loop() {
		var c wire.ApprovalCall
		if err := json.Unmarshal(benchCall, &c); err != nil {
			b.Fatal(err)
		}
	}
}
