package askuser_test

import (
	"encoding/json"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
)

// FuzzCheckRecordVotes holds any journal line, as journal verify reads it,
// to journal.CheckVotes and to the verdict this package computes again
// from a record it reads back (RecordVerdict): they never panic, a record
// CheckVotes passes has a verdict whose every vote is the record's, and a
// record without a quorum always passes.
func FuzzCheckRecordVotes(f *testing.F) {
	for _, s := range []string{
		`{"v":2,"reason":"submitted","result":{"status":"approved"},"votes":[{"principal":"alice","decision":"approve","at":"2026-01-01T00:00:00Z","counted":true,"why":"counted"}],"quorum":{"policy":{"required":1,"eligible":[{"principal":"alice"}]},"required":1,"approvals":1}}`,
		`{"v":2,"reason":"deadline","votes":[{"principal":"agent","decision":"approve","at":"2026-01-01T00:00:00Z"}],"quorum":{"policy":{"required":2,"eligible":[{"group":"sre","members":["a","b"],"per_member":true}]},"requester":"agent","required":2}}`,
		`{"v":2,"quorum":{"policy":{"required":0,"eligible":[]}}}`,
		`{"v":2,"reason":"submitted","result":"x","votes":[{"decision":"maybe"}],"quorum":{"policy":{"required":1,"eligible":[{"principal":"a","group":"g"}]}}}`,
		`{"v":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec journal.Record
		if json.Unmarshal(data, &rec) != nil {
			return
		}
		err := journal.CheckVotes(&rec)
		v, verr := askuser.RecordVerdict(data)
		if rec.Quorum == nil {
			if err != nil || v != nil || verr != nil {
				t.Fatalf("a record without a quorum: CheckVotes = %v, RecordVerdict = %v, %v", err, v, verr)
			}
			return
		}
		if err == nil {
			if verr != nil || v == nil || len(v.Votes) != len(rec.Votes) {
				t.Fatalf("passed, but RecordVerdict = %+v, %v", v, verr)
			}
			for i := range v.Votes {
				if v.Votes[i].Counted != rec.Votes[i].Counted {
					t.Fatalf("passed, but vote %d counts differently", i)
				}
			}
		}
	})
}
