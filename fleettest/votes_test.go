package fleettest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
	"github.com/askuser-go/askuser/route"
)

// voteCard is a card that follows sessions: every replica's card is
// handed the session's asks, whichever replica began them.
type voteCard struct {
	sessions *askuser.Sessions
	asks     chan *askuser.Ask
}

func (c *voteCard) FollowSessions(s *askuser.Sessions) { c.sessions = s }
func (c *voteCard) Asked(a *askuser.Ask)               { c.asks <- a }
func (c *voteCard) CanTakeApprovals() bool             { return true }
func (c *voteCard) Respond(ctx context.Context, a *askuser.Ask) error {
	c.Asked(a)
	<-ctx.Done()
	return nil
}

// next is the next ask of tool call id handed to the card.
func (c *voteCard) next(t *testing.T, id string) *askuser.Ask {
	t.Helper()
	for {
		select {
		case a := <-c.asks:
			if a.ToolCallID() == id {
				return a
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the card was not handed the ask of %s", id)
		}
	}
}

// castVote has who decide sel through h, as a card does.
func castVote(t *testing.T, h *askuser.Ask, who, sel string) {
	t.Helper()
	h.SetPrincipal(who)
	if err := h.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{sel}}); err != nil {
		t.Fatalf("%s's pick %s: %v", who, sel, err)
	}
	if err := h.Submit(); err != nil {
		t.Fatalf("%s's vote %s: %v", who, sel, err)
	}
}

// TestFleetVotes is the fleet's conformance for approvals several people
// decide: two replicas, each with its own NATS connection to one JetStream
// server (in this process, on loopback), and a quorum of 2 of alice and
// bob with the agent as requester. One approval on each replica
// approves; a deny on either denies; a partial quorum at the deadline is
// unresolved with the votes listed, the requester's own vote among them,
// not counted. Each journal record's verdict follows from its votes
// (journal.CheckVotes).
func TestFleetVotes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	// Deferred first, so checked last: once the orchestrators, the
	// connections and the server have stopped, none of the goroutines
	// the test started (theirs, the cards', the voters') is left.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, err := natsserver.Start(natsserver.Config{StoreDir: filepath.Join(t.TempDir(), "nats"), Token: "votes-token-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var orch [2]*askuser.Orchestrator
	var cards [2]*voteCard
	var stores [2]*natsstore.Store
	for i := range 2 {
		nc, err := nats.Connect(srv.ClientURL(), nats.Token("votes-token-0123456789"))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s, err := natsstore.Open(ctx, js, natsstore.Config{Prefix: "votes"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		cards[i], stores[i] = &voteCard{asks: make(chan *askuser.Ask, 16)}, s
		orch[i] = &askuser.Orchestrator{Responder: cards[i], Asks: s.Asks(), Journal: s.Journal(), Consents: s.Consents(), Logger: quiet}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		err = orch[i].Ready(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		defer func() { orch[i].Close(); orch[i].WaitResponders() }()
		stop, err := cards[i].sessions.Follow(context.Background(), "prod")
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
	}
	quorum := &route.Quorum{Required: 2, Eligible: []route.Approver{{Principal: "alice"}, {Principal: "bob"}}}
	type castOn struct {
		replica  int
		who, sel string
	}
	cases := []struct {
		name    string
		timeout int
		votes   []castOn
		status  string
		ended   string
		counted []bool
	}{
		{"one approval on each replica approves", 60, []castOn{{0, "alice", approval.ApproveOnce}, {1, "bob", approval.ApproveOnce}}, approval.Approved, "", []bool{true, true}},
		{"a deny on the other replica denies", 60, []castOn{{0, "alice", approval.ApproveOnce}, {1, "bob", approval.DenyOnce}}, approval.Denied, "", []bool{true, true}},
		{"a deny on the replica that began it denies", 60, []castOn{{1, "alice", approval.ApproveOnce}, {0, "bob", approval.DenyOnce}}, approval.Denied, "", []bool{true, true}},
		{"a partial quorum at the deadline is unresolved", 3, []castOn{{0, "alice", approval.ApproveOnce}, {1, "agent", approval.ApproveOnce}}, approval.Unresolved, "deadline", []bool{true, false}},
	}
	for n, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("c%d", n)
			call := fmt.Sprintf(`{"action":"Delete the S3 bucket logs-2023","reason":"archived","risk":"irreversible","details":"aws s3 rb s3://logs-2023 --force","timeout_seconds":%d}`, tc.timeout)
			res := make(chan *askuser.Outcome, 1)
			go func() {
				out, err := orch[0].Handle(context.Background(), askuser.Request{Session: "prod", ToolCallID: id, Dialect: approvaltool.Dialect(), Arguments: []byte(call),
					Approvers: &route.Approvers{Quorum: quorum, Requester: "agent"}})
				if err != nil {
					t.Error(err)
				}
				res <- out
			}()
			handles := [2]*askuser.Ask{cards[0].next(t, id), cards[1].next(t, id)}
			for _, v := range tc.votes {
				castVote(t, handles[v.replica], v.who, v.sel)
			}
			var out *askuser.Outcome
			select {
			case out = <-res:
			case <-time.After(time.Duration(tc.timeout)*time.Second + 30*time.Second):
				t.Fatal("the approval never ended")
			}
			if out == nil {
				t.FailNow()
			}
			var r struct {
				Status string  `json:"status"`
				Ended  *string `json:"ended"`
				Votes  []struct {
					Principal string `json:"principal"`
					Counted   bool   `json:"counted"`
				} `json:"votes"`
			}
			if err := json.Unmarshal(out.Result, &r); err != nil {
				t.Fatal(err)
			}
			ended := ""
			if r.Ended != nil {
				ended = *r.Ended
			}
			if r.Status != tc.status || ended != tc.ended || len(r.Votes) != len(tc.votes) {
				t.Fatalf("result %s; want %s (ended %q) with %d votes listed", out.Result, tc.status, tc.ended, len(tc.votes))
			}
			for i, v := range r.Votes {
				if v.Principal != tc.votes[i].who || v.Counted != tc.counted[i] {
					t.Errorf("vote %d is %s counted %v; want %s counted %v", i+1, v.Principal, v.Counted, tc.votes[i].who, tc.counted[i])
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for {
				sr, ok, err := stores[1].Journal().FindResult(ctx, "prod", id)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					rec, err := journal.Decode(sr.Data)
					if err != nil {
						t.Fatal(err)
					}
					if err := journal.CheckVotes(rec); err != nil || rec.Quorum == nil || len(rec.Votes) != len(tc.votes) {
						t.Errorf("the journal record's votes %+v: %v", rec.Votes, err)
					}
					break
				}
				select {
				case <-ctx.Done():
					t.Fatal("the approval's record never reached the journal")
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}
}
