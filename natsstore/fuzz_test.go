package natsstore

import (
	"encoding/json"
	"testing"

	"github.com/askuser-go/askuser/journal"
)

// FuzzDecodeRecord: any message on the journal's subjects decodes to a
// record that has what a record needs, or to an error; never a panic. A
// record that decodes encodes and decodes again to the same.
func FuzzDecodeRecord(f *testing.F) {
	good, _ := json.Marshal(record("ask1", "s1", "tc1"))
	for _, seed := range []string{string(good), `{}`, `{"v":2}`, `{"v":2,"ask_id":"a"}`, `{"v":1,"ask_id":"a","session":"s"}`, `[]`, `null`, `{"v":2,"ask_id":"a","session":"s","result":{"x":[1,2]}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := DecodeRecord(data)
		if err != nil {
			return
		}
		if rec.AskID == "" || rec.Session == "" || rec.Version != journal.RecordVersion {
			t.Fatalf("DecodeRecord accepted a record without what it needs: %+v", rec)
		}
		again, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		rec2, err := DecodeRecord(again)
		if err != nil {
			t.Fatalf("a re-encoded record does not decode: %v", err)
		}
		if rec2.AskID != rec.AskID || rec2.Session != rec.Session || rec2.ToolCallID != rec.ToolCallID || string(rec2.Result) != string(rec.Result) {
			t.Fatalf("round trip changed the record: %+v → %+v", rec, rec2)
		}
	})
}
