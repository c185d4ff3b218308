package natsstore

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/store"
)

// TestJournalAuth: with Keys, two writers' records verify, each in its
// chain, and a second Append of one ask (dropped by the stream) leaves no
// gap; a record published by hand is not replayed and is reported by
// Verify, as is a message deleted from the stream.
func TestJournalAuth(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{Keys: ring(t, "k1", 1)})
	a, b := s.Journal(), s.Journal()
	for i, id := range []string{"a1", "b1", "a2", "a2", "b2", "a3"} {
		j := a
		if id[0] == 'b' {
			j = b
		}
		if err := j.Append(ctx, stored(record(id, "s1", "tc-"+id))); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	rep, err := a.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Verified != 5 || rep.Writers != 2 {
		t.Fatalf("Verify = %+v; want 5 records of 2 writers (one per Journal, appending one at a time) verified", rep)
	}
	// Many appends at once, on the writers of one Journal.
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			if err := b.Append(ctx, stored(record(fmt.Sprintf("c%d", i), "s2", fmt.Sprintf("tc-c%d", i)))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if rep, err := a.Verify(ctx); err != nil || !rep.OK() || rep.Verified != 105 {
		t.Fatalf("Verify after concurrent appends = %+v, %v; want 105 verified", rep, err)
	} else if rep.Writers < 3 || rep.Writers > 2+JournalWriters {
		t.Fatalf("%d writers after 100 appends at once", rep.Writers)
	}
	if rec, ok, err := b.FindResult(ctx, "s1", "tc-a2"); err != nil || !ok || rec.AskID != "a2" {
		t.Fatalf("FindResult = %+v, %v, %v; want a2", rec, ok, err)
	}
	recs, err := b.Records(ctx, "s1")
	if err != nil || len(recs) != 5 || recs[2].AskID != "a2" || recs[2].Auth == nil || recs[2].Auth.Seq != 2 {
		t.Fatalf("Records = %d records, %v; want 5, the third a2, second of its chain", len(recs), err)
	}

	// The attack: a record of tc-x, approved, published by hand.
	forged := record("x", "s1", "tc-x")
	forged.Result = []byte(`{"status":"approved","decided_by":"user"}`)
	data, _ := askuserJSON(forged)
	pub, err := js.Publish(ctx, a.subject("s1", "tc-x"), data)
	if err != nil {
		t.Fatal(err)
	}
	if rec, ok, err := a.FindResult(ctx, "s1", "tc-x"); ok || err == nil || !strings.Contains(err.Error(), "not replayed") {
		t.Fatalf("FindResult of the forged record = %+v, %v, %v; want an error, no record", rec, ok, err)
	}
	madeUp := strings.TrimSuffix(string(data), "}") + `,"auth":{"key":"k1","writer":"w","seq":1,"mac":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}`
	if _, err := js.Publish(ctx, a.subject("s1", "tc-y"), []byte(madeUp)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.FindResult(ctx, "s1", "tc-y"); ok || err == nil {
		t.Fatalf("a record with a made-up MAC is replayed (err %v)", err)
	}
	rep, err = a.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 2 || rep.Problems[0].Seq != pub.Sequence || !rep.Problems[0].Unauthenticated || !strings.Contains(rep.Problems[1].Reason, "MAC does not match") {
		t.Fatalf("Verify = %+v; want the two forged records reported, first at message %d", rep, pub.Sequence)
	}

	// The stream refuses to delete a message (and no one can lift that);
	// someone who can make streams copies it without a2, the third
	// message, into a new one: a2's writer's chain has a gap there.
	copyStore := open(t, js, Config{Keys: ring(t, "k1", 1)})
	for seq := uint64(1); seq <= 5; seq++ {
		if seq == 3 {
			continue
		}
		m, err := s.journal.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(ctx, copyStore.cfg.Prefix+strings.TrimPrefix(m.Subject, s.cfg.Prefix), m.Data); err != nil {
			t.Fatal(err)
		}
	}
	rep, err = copyStore.Journal().Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 1 || rep.Problems[0].Seq != 4 || !strings.Contains(rep.Problems[0].Reason, "sequence 3 where 2 was expected") {
		t.Fatalf("Verify of the copy = %+v; want the gap in writer a's chain at a3, message 4 of the copy", rep)
	}
}

// TestJournalAuthDeleted: a message deleted from a stream that allows it
// (one not made by Open) is reported by the stream's count as well as by
// the gap in its writer's chain.
func TestJournalAuthDeleted(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "del_journal", Subjects: []string{"del.journal.>"}, Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, js, Config{Keys: ring(t, "k1", 1)})
	j := &Journal{js: js, stream: st, prefix: "del", keys: s.Journal().keys}
	for _, id := range []string{"a", "b", "c"} {
		if err := j.Append(ctx, stored(record(id, "s1", "tc-"+id))); err != nil {
			t.Fatal(err)
		}
	}
	for _, seq := range []uint64{2, 3} { // from the middle, and the end
		if err := st.DeleteMsg(ctx, seq); err != nil {
			t.Fatal(err)
		}
		rep, err := j.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		last := rep.Problems[len(rep.Problems)-1]
		if rep.OK() || last.Seq != 0 || !strings.Contains(last.Reason, "were deleted from inside the stream") {
			t.Fatalf("Verify after deleting message %d = %+v; want the deletion counted", seq, rep)
		}
	}
}

// TestJournalUnauthenticated: without Keys records carry no MAC, and
// Verify reports each as unauthenticated; a store given Keys later does
// not replay them.
func TestJournalUnauthenticated(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{})
	j := s.Journal()
	if err := j.Append(ctx, stored(record("a", "s1", "tc-a"))); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Problems) != 1 || !rep.Problems[0].Unauthenticated {
		t.Fatalf("Verify = %+v; want the record unauthenticated", rep)
	}
	keyed := open(t, js, Config{Prefix: s.cfg.Prefix, Keys: ring(t, "k1", 1)})
	if _, ok, err := keyed.Journal().FindResult(ctx, "s1", "tc-a"); ok || err == nil {
		t.Fatalf("a keyed journal replays a record without a MAC (err %v)", err)
	}
}

// TestConsentsAuth: with Keys, a consent put in the bucket by hand — no
// MAC, a made-up one, or another key's — is not applied, and not listed.
func TestConsentsAuth(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{Keys: ring(t, "k1", 1)})
	c := s.Consents()
	good := store.Consent{Session: "s1", Digest: approval.Digest("ls", ""), Approved: true, Action: "ls", AskID: "a1"}
	if err := c.Remember(ctx, good); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := c.Recall(ctx, "s1", good.Digest); err != nil || !ok || got != good {
		t.Fatalf("Recall = %+v, %v, %v", got, ok, err)
	}
	bad := store.Consent{Session: "s1", Digest: approval.Digest("rm -rf /", ""), Approved: true, Action: "rm -rf /", AskID: "a2"}
	plain, _ := askuserJSON(bad)
	other := open(t, js, Config{Prefix: s.cfg.Prefix, Keys: ring(t, "k1", 2)}).Consents()
	for name, put := range map[string]func() error{
		"no MAC": func() error { _, err := s.consents.Put(ctx, consentKey(bad.Session, bad.Digest), plain); return err },
		"made-up MAC": func() error {
			v := strings.TrimSuffix(string(plain), "}") + `,"auth":{"key":"k1","seq":0,"mac":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}`
			_, err := s.consents.Put(ctx, consentKey(bad.Session, bad.Digest), []byte(v))
			return err
		},
		"another key": func() error { return other.Remember(ctx, bad) },
	} {
		if err := put(); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := c.Recall(ctx, "s1", bad.Digest); ok || err == nil {
			t.Errorf("%s: Recall = %+v, %v, %v; want an error, nothing applied", name, got, ok, err)
		}
		list, err := c.Consents(ctx, "s1")
		if err != nil || len(list) != 1 || list[0] != good {
			t.Errorf("%s: Consents = %+v, %v; want only the genuine one", name, list, err)
		}
	}
}

func askuserJSON(v any) ([]byte, error) { return json.Marshal(v) }
