package journal_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/route"
)

// voted is the record of a 2-of-2 approval that alice and bob approved.
func voted(id string) *journal.Record {
	r := record(id)
	r.Contract = "request_approval"
	r.Result = json.RawMessage(`{"status":"approved","decided_by":"user"}`)
	at := t0.Add(time.Second)
	r.Votes = []route.CountedVote{
		{Vote: route.Vote{Principal: "alice", Decision: route.Approve, Via: "card", At: at}, Counted: true, Why: route.WhyCounted},
		{Vote: route.Vote{Principal: "bob", Decision: route.Approve, Via: "slack:#ops", At: at}, Counted: true, Why: route.WhyCounted},
	}
	r.Quorum = &journal.RecordQuorum{Policy: route.Quorum{Required: 2, Eligible: []route.Approver{{Principal: "alice"}, {Principal: "bob"}}}, Requester: "agent", Required: 2, Approvals: 2}
	return r
}

// TestVerifyChecksVotes: journal verify finds an authentic record whose
// status does not follow from its votes — an approval with one approver of
// two, or with the requester's own vote counted — and passes one whose
// status does.
func TestVerifyChecksVotes(t *testing.T) {
	keys := ring(t, testKey(t, "k1"))
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j := mustOpen(t, path, &journal.Options{Keys: keys})
	short := voted("short")
	short.Votes = short.Votes[:1]
	short.Quorum.Approvals = 1
	requester := voted("requester")
	requester.Votes[1].Principal = "agent"
	for _, r := range []*journal.Record{voted("good"), short, requester} {
		if err := j.Append(context.Background(), stored(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	rep := verify(t, path, keys)
	if rep.Verified != 1 || len(rep.Problems) != 2 {
		t.Fatalf("verified %d, problems %+v; want the good record verified and the two others found", rep.Verified, rep.Problems)
	}
	for i, want := range []string{"it says the votes decided, but its votes add up to 1 of 2 approved: alice via card", "it says the votes decided, but its votes add up to 1 of 2 approved: alice via card"} {
		if p := rep.Problems[i]; p.Line != i+2 || !strings.Contains(p.Reason, want) || !strings.Contains(p.Reason, "does not follow from its votes") {
			t.Errorf("problem %d = %+v; want line %d saying %q", i, p, i+2, want)
		}
	}
}
