package natsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/natsstore/natsserver"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// single starts one embedded server with its files in a directory of the
// test's and returns a JetStream context on a connection to it.
func single(t testing.TB) jetstream.JetStream {
	t.Helper()
	e, err := natsserver.Start(natsserver.Config{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Shutdown)
	return jsOn(t, e)
}

// jsOn returns a JetStream context on a new connection to e, closed when
// the test ends.
func jsOn(t testing.TB, e *natsserver.Server, opts ...nats.Option) jetstream.JetStream {
	t.Helper()
	nc, err := e.Connect(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

var prefixes atomic.Int64

// open opens a store under a prefix of its own.
func open(t testing.TB, js jetstream.JetStream, cfg Config) *Store {
	t.Helper()
	if cfg.Prefix == "" {
		cfg.Prefix = fmt.Sprintf("t%d", prefixes.Add(1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyWait)
	defer cancel()
	s, err := Open(ctx, js, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), readyWait)
	t.Cleanup(cancel)
	return ctx
}

// TestOpenConcurrent: replicas open the same store at once; a later Open
// asking for another retention binds to what is there and leaves it as
// it is.
func TestOpenConcurrent(t *testing.T) {
	js := single(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), readyWait)
			defer cancel()
			_, err := Open(ctx, js, Config{Prefix: "same", Retention: time.Hour})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
	ctx := ctxFor(t)
	s1 := open(t, js, Config{Prefix: "same", Retention: time.Hour})
	rev, err := s1.Asks().Create(ctx, "0a", []byte(`x`))
	if err != nil {
		t.Fatal(err)
	}
	s2 := open(t, js, Config{Prefix: "same", Retention: 2 * time.Hour})
	if e, err := s2.Asks().Get(ctx, "0a"); err != nil || e.Revision != rev {
		t.Fatalf("a second Open does not see the first's entry: %+v, %v", e, err)
	}
	st, err := js.Stream(ctx, "KV_same_pending")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().Config.MaxAge; got != time.Hour {
		t.Errorf("the bucket's retention is %v after a second Open; want the first Open's, 1h", got)
	}
}

func TestOpenRefuses(t *testing.T) {
	js := single(t)
	ctx := ctxFor(t)
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{Prefix: "a.b"}, "a prefix is letters, digits"},
		{Config{Prefix: "a b"}, "a prefix is letters, digits"},
		{Config{Replicas: 7}, "JetStream keeps 1 to 5"},
		{Config{Replicas: -1}, "JetStream keeps 1 to 5"},
		{Config{Retention: time.Millisecond}, "at least one second"},
		{Config{JournalRetention: time.Minute}, "journal retention 1m0s: at least 1h0m0s (the duplicate window) is required, or 0 to leave the journal's retention as it is (for ever on a new journal)"},
		{Config{JournalRetention: -time.Hour}, "journal retention -1h0m0s: at least 1h0m0s"},
	} {
		if _, err := Open(ctx, js, tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%+v) = %v; want an error saying %q", tt.cfg, err, tt.want)
		}
	}
	if _, err := Open(ctx, nil, Config{}); err == nil {
		t.Error("Open with no JetStream context succeeded")
	}
}

func record(askID, session, toolCall string) *journal.Record {
	return &journal.Record{
		Version:    journal.RecordVersion,
		AskID:      askID,
		Session:    session,
		ToolCallID: toolCall,
		Contract:   "ask_user",
		Responder:  "test",
		Status:     askuser.StatusAnswered,
		Answers:    []askuser.FinalAnswer{},
		Result:     json.RawMessage(`{"answers":["` + askID + `"]}`),
	}
}

// stored returns r as a store.Journal is given it.
func stored(r *journal.Record) store.Record {
	sr, err := r.Stored()
	if err != nil {
		panic(err)
	}
	return sr
}

func TestJournal(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{})
	j := s.Journal()
	first := record("ask1", "s1", "tc1")
	for i := range 2 {
		if err := j.Append(ctx, stored(first)); err != nil {
			t.Fatalf("Append %d of the same ask: %v", i+1, err)
		}
	}
	info, err := s.journal.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("two Appends of one ask left %d messages; want 1", info.State.Msgs)
	}
	gone := record("ask2", "s1", "tc2")
	gone.Result = nil // the caller went away
	for _, r := range []*journal.Record{gone, record("ask3", "s2", "tc1"), record("ask4", "s1", "tc3"), record("ask5", "../x\x00", "tc1")} {
		if err := j.Append(ctx, stored(r)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		session, toolCall string
		want              string // ask id, "" for none
	}{
		{"s1", "tc1", "ask1"},
		{"s2", "tc1", "ask3"},
		{"../x\x00", "tc1", "ask5"},
		{"s1", "tc2", ""}, // no result to replay
		{"s1", "tc9", ""},
		{"s3", "tc1", ""},
		{"s1", "", ""},
	} {
		rec, ok, err := j.FindResult(ctx, tt.session, tt.toolCall)
		if err != nil {
			t.Fatalf("FindResult(%q, %q): %v", tt.session, tt.toolCall, err)
		}
		got := ""
		if ok {
			got = rec.AskID
		}
		if got != tt.want {
			t.Errorf("FindResult(%q, %q) found %q; want %q", tt.session, tt.toolCall, got, tt.want)
		}
	}
	sr, _, _ := j.FindResult(ctx, "s1", "tc1")
	if rec, err := journal.Decode(sr.Data); err != nil || !sr.HasResult || string(rec.Result) != string(first.Result) || rec.Contract != "ask_user" {
		t.Errorf("FindResult returned %+v (%v); want the record appended", sr, err)
	}

	ids := func(rs []*journal.Record) string {
		var b []string
		for _, r := range rs {
			b = append(b, r.AskID)
		}
		return strings.Join(b, ",")
	}
	for session, want := range map[string]string{"": "ask1,ask2,ask3,ask4,ask5", "s1": "ask1,ask2,ask4", "s2": "ask3", "nobody": ""} {
		rs, err := j.Records(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(rs); got != want {
			t.Errorf("Records(%q) = %s; want %s", session, got, want)
		}
	}
	if err := j.Append(ctx, stored(&journal.Record{Session: "s"})); err == nil {
		t.Error("Append of a record without an ask id succeeded")
	}
	for _, data := range []string{"", "not json", `["a"]`, `{"v":2,`} {
		err := j.Append(ctx, store.Record{AskID: "bad", Session: "s1", Data: []byte(data)})
		if err == nil || !strings.Contains(err.Error(), "the record of ask bad is not a JSON object") {
			t.Errorf("Append of Data %q: %v; want it refused as not a JSON object", data, err)
		}
	}
	if rs, err := j.Records(ctx, "s1"); err != nil || strings.Contains(ids(rs), "bad") {
		t.Errorf("Records after refused appends: %s, %v; want none of them", ids(rs), err)
	}
}

// TestJournalUnreadable: a message that is not a record fails a listing
// with an error that says which message, and what is wrong.
func TestJournalUnreadable(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{})
	if _, err := js.Publish(ctx, s.cfg.Prefix+".journal.x", []byte(`{"v":1,"ask_id":"a"`)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Journal().Records(ctx, "")
	if err == nil || !strings.Contains(err.Error(), "journal message 1: not a journal record") {
		t.Fatalf("Records = %v; want an error naming message 1", err)
	}
}

func ring(t testing.TB, id string, fill byte) *secretstore.KeyRing {
	t.Helper()
	k := secretstore.Key{ID: id}
	for i := range k.Secret {
		k.Secret[i] = fill
	}
	r, err := secretstore.NewKeyRing(k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSecrets(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	s := open(t, js, Config{Keys: ring(t, "k1", 1)})
	sec := s.Secrets()
	long := strings.Repeat("n", secretstore.MaxNameLen)
	const plain = "correct-horse-battery-staple"
	names := [][2]string{{"s1", "token"}, {"s1", "../x"}, {"s1", "a\x00b"}, {"s1", "a.b"}, {"s1", long}, {"../s1", "token"}, {"s2", "token"}}
	for i, n := range names {
		if err := sec.Put(ctx, n[0], n[1], secret.FromString(fmt.Sprint(plain, i))); err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
	}
	for i, n := range names {
		v, err := sec.Get(ctx, n[0], n[1])
		if err != nil {
			t.Fatalf("Get %d: %v", i, err)
		}
		if got := string(v.Reveal()); got != fmt.Sprint(plain, i) {
			t.Errorf("Get %d returned another value", i)
		}
	}

	// The raw values in NATS are sealed records.
	es, err := entries(ctx, s.secrets, ">")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(names) {
		t.Fatalf("the bucket holds %d records; want %d", len(es), len(names))
	}
	for _, e := range es {
		if bytes.Contains(e.Value(), []byte(plain)) || strings.Contains(e.Key(), "s1") || strings.Contains(e.Key(), "token") {
			t.Errorf("record %s holds the value or the names in clear", e.Key())
		}
		if id, err := secretstore.KeyID(e.Value()); err != nil || id != "k1" {
			t.Errorf("record %s is not a record sealed under k1: %v", e.Key(), err)
		}
	}

	// Another ring opens nothing; no ring seals nothing.
	other := open(t, js, Config{Prefix: s.cfg.Prefix, Keys: ring(t, "k1", 2)}).Secrets()
	if _, err := other.Get(ctx, "s1", "token"); err != secretstore.ErrOpen {
		t.Errorf("Get under another key = %v; want ErrOpen itself", err)
	}
	none := open(t, js, Config{Prefix: s.cfg.Prefix}).Secrets()
	if err := none.Put(ctx, "s1", "x", secret.FromString("v")); !errors.Is(err, secretstore.ErrNoKey) {
		t.Errorf("Put without keys = %v; want ErrNoKey", err)
	}

	if err := sec.Delete(ctx, "s1", "token"); err != nil {
		t.Fatal(err)
	}
	if err := sec.Delete(ctx, "s1", "never"); err != nil {
		t.Errorf("Delete of a missing record: %v", err)
	}
	if _, err := sec.Get(ctx, "s1", "token"); !errors.Is(err, secretstore.ErrNotFound) {
		t.Errorf("Get after Delete = %v; want ErrNotFound", err)
	}
	if err := sec.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := sec.DeleteSession(ctx, "empty"); err != nil {
		t.Errorf("DeleteSession of an empty session: %v", err)
	}
	for _, n := range names {
		_, err := sec.Get(ctx, n[0], n[1])
		if n[0] == "s1" && !errors.Is(err, secretstore.ErrNotFound) {
			t.Errorf("Get(%q, %.10q) after DeleteSession = %v; want ErrNotFound", n[0], n[1], err)
		}
		if n[0] != "s1" && err != nil {
			t.Errorf("DeleteSession of s1 removed (%q, %q): %v", n[0], n[1], err)
		}
	}

	// Staging: a staged value is not the record until committed.
	id, err := sec.Stage(ctx, "s2", "token", secret.FromString("staged"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := sec.Get(ctx, "s2", "token"); string(v.Reveal()) != fmt.Sprint(plain, 6) {
		t.Error("a staged value replaced the record before Commit")
	}
	if err := sec.Commit(ctx, "s2", "token", id); err != nil {
		t.Fatal(err)
	}
	if v, _ := sec.Get(ctx, "s2", "token"); string(v.Reveal()) != "staged" {
		t.Error("Commit did not make the staged value the record")
	}

	for _, tt := range []struct{ session, name string }{{"", "x"}, {"s", ""}, {"s", long + "n"}} {
		if err := sec.Put(ctx, tt.session, tt.name, secret.FromString("v")); err == nil {
			t.Errorf("Put(%q, %.10q) succeeded", tt.session, tt.name)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := sec.Get(cancelled, "s2", "token"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with an ended context = %v", err)
	}
}

func TestConsents(t *testing.T) {
	ctx := ctxFor(t)
	c := open(t, single(t), Config{}).Consents()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	in := []store.Consent{
		{Session: "s1", Digest: "d2", Approved: true, Action: "deploy", AskID: "a2", DecidedAt: t0.Add(time.Minute)},
		{Session: "s1", Digest: "d1", Approved: false, Action: "rm", AskID: "a1", DecidedAt: t0},
		{Session: "s2", Digest: "d1", Approved: true, Action: "rm", AskID: "a3", DecidedAt: t0},
	}
	for _, cs := range in {
		if err := c.Remember(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := c.Recall(ctx, "s1", "d2")
	if err != nil || !ok || got != in[0] {
		t.Fatalf("Recall = %+v, %v, %v; want %+v", got, ok, err, in[0])
	}
	if _, ok, err := c.Recall(ctx, "s1", "d9"); ok || err != nil {
		t.Errorf("Recall of nothing = %v, %v", ok, err)
	}
	list, err := c.Consents(ctx, "s1")
	if err != nil || len(list) != 2 || list[0] != in[1] || list[1] != in[0] {
		t.Fatalf("Consents(s1) = %+v, %v; want the two decisions, oldest first", list, err)
	}
	// Remember replaces.
	changed := in[1]
	changed.Approved = true
	if err := c.Remember(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := c.Recall(ctx, "s1", "d1"); !got.Approved {
		t.Error("Remember did not replace the earlier decision")
	}
	if err := c.Revoke(ctx, "s1", "d1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Revoke(ctx, "s1", "never"); err != nil {
		t.Errorf("Revoke of nothing: %v", err)
	}
	if _, ok, _ := c.Recall(ctx, "s1", "d1"); ok {
		t.Error("Recall after Revoke found the decision")
	}
	if list, _ := c.Consents(ctx, "s2"); len(list) != 1 || list[0] != in[2] {
		t.Errorf("Consents(s2) = %+v after changes to s1", list)
	}
	if err := c.Remember(ctx, store.Consent{Session: "s1"}); err == nil {
		t.Error("Remember without a digest succeeded")
	}
}

// TestBindOnly: a reader that binds only creates nothing on a server where
// no service keeps its state, and says so; once a service has opened the
// store, the reader binds to it and reads what it wrote.
func TestBindOnly(t *testing.T) {
	js := single(t)
	ctx := ctxFor(t)
	_, err := Open(ctx, js, Config{Prefix: "bind", BindOnly: true})
	if err == nil || !strings.Contains(err.Error(), "no askuser service keeps its state here") {
		t.Fatalf("BindOnly on an empty server: %v", err)
	}
	names := js.StreamNames(ctx)
	for n := range names.Name() {
		t.Errorf("BindOnly left stream %s behind", n)
	}
	w := open(t, js, Config{Prefix: "bind"})
	rec := &journal.Record{Version: journal.RecordVersion, AskID: "a1", Session: "s1", ToolCallID: "c1", Result: []byte(`{}`)}
	if err := w.Journal().Append(ctx, stored(rec)); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, js, Config{Prefix: "bind", BindOnly: true})
	if err != nil {
		t.Fatalf("BindOnly after the service opened the store: %v", err)
	}
	if recs, err := r.Journal().Records(ctx, "s1"); err != nil || len(recs) != 1 {
		t.Errorf("the reader's journal: %d records, %v; want the one written", len(recs), err)
	}
}

// TestJournalRetention: the journal keeps records for ever by default; a
// store opened with a retention sets the stream's, a later one with
// another changes it, and one without it or a BindOnly one leaves it as it
// is. Records written before stay readable. (How JetStream ages records out is its
// own; the shortest retention allowed is an hour.)
func TestJournalRetention(t *testing.T) {
	ctx := ctxFor(t)
	js := single(t)
	maxAge := func(s *Store) time.Duration {
		t.Helper()
		info, err := s.journal.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config.MaxAge
	}
	s := open(t, js, Config{Prefix: "ret"})
	if got := maxAge(s); got != 0 {
		t.Fatalf("the journal's retention by default = %v; want 0 (for ever)", got)
	}
	if err := s.Journal().Append(ctx, stored(record("ask1", "s1", "tc1"))); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cfg  Config
		want time.Duration
	}{
		{Config{Prefix: "ret", JournalRetention: 30 * 24 * time.Hour}, 30 * 24 * time.Hour},
		{Config{Prefix: "ret", JournalRetention: 2 * time.Hour}, 2 * time.Hour},
		{Config{Prefix: "ret", JournalRetention: 24 * time.Hour, BindOnly: true}, 2 * time.Hour},
		{Config{Prefix: "ret"}, 2 * time.Hour},
	} {
		s := open(t, js, tt.cfg)
		if got := maxAge(s); got != tt.want {
			t.Errorf("after Open(%+v) the journal's retention = %v; want %v", tt.cfg, got, tt.want)
		}
		if rec, ok, err := s.Journal().FindResult(ctx, "s1", "tc1"); err != nil || !ok || rec.AskID != "ask1" {
			t.Errorf("after Open(%+v), FindResult = %v, %v, %v; want ask1's record", tt.cfg, rec, ok, err)
		}
	}
}
