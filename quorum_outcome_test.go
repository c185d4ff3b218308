package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// ballot is a per-ask responder a test decides through: Respond hands
// the ask to the test, then returns what the test sends on fail (a
// responder fault), or at the ask's end.
type ballot struct {
	asks chan *askuser.Ask
	fail chan error
}

func newBallot() *ballot { return &ballot{asks: make(chan *askuser.Ask, 4), fail: make(chan error, 1)} }

func (b *ballot) Respond(ctx context.Context, a *askuser.Ask) error {
	b.asks <- a
	select {
	case err := <-b.fail:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (*ballot) CanTakeApprovals() bool { return true }
func (*ballot) ResponderName() string  { return "card" }

// follower is an EventDriven responder that follows sessions on a
// replica, and hands the test every ask it is told about.
type follower struct {
	asks     chan *askuser.Ask
	sessions *askuser.Sessions
}

func newFollower() *follower                           { return &follower{asks: make(chan *askuser.Ask, 4)} }
func (f *follower) Asked(a *askuser.Ask)               { f.asks <- a }
func (f *follower) FollowSessions(s *askuser.Sessions) { f.sessions = s }
func (*follower) CanTakeApprovals() bool               { return true }
func (*follower) ResponderName() string                { return "slack:#ops" }
func (f *follower) Respond(ctx context.Context, a *askuser.Ask) error {
	f.Asked(a)
	<-ctx.Done()
	return ctx.Err()
}

// vote is one person's decision: who, and what they picked.
type vote struct{ who, sel string }

// cast has the person vote through handle h, as a responder does: who
// they are, their pick, and submit. A vote after the ask ended is refused
// with ErrAskEnded, which is what the person would see.
func cast(t *testing.T, h *askuser.Ask, v vote) {
	t.Helper()
	h.SetPrincipal(v.who)
	err := h.Report(*choose(v.sel, ""))
	if err == nil {
		err = h.Submit()
	}
	if err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		t.Fatalf("%s's vote %s: %v", v.who, v.sel, err)
	}
}

// quorumRig is where a routed approval is asked: one orchestrator in
// memory, or two sharing a store.Memory (the caller on the first, the
// votes alternating between the replicas).
type quorumRig struct {
	orch    []*askuser.Orchestrator
	ballot  *ballot
	journal *approvalJournal
}

func newQuorumRig(t *testing.T, shared bool) *quorumRig {
	r := &quorumRig{ballot: newBallot(), journal: &approvalJournal{}}
	if !shared {
		r.orch = []*askuser.Orchestrator{{Responder: r.ballot, Journal: r.journal, Logger: newDiscardLogger()}}
		return r
	}
	st := store.NewMemory(0)
	fo := newFollower()
	r.orch = []*askuser.Orchestrator{
		{Responder: r.ballot, Journal: r.journal, Asks: st, Logger: newDiscardLogger()},
		{Responder: fo, Journal: r.journal, Asks: st, Logger: newDiscardLogger()},
	}
	for _, o := range r.orch {
		if err := o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	stop, err := fo.sessions.Follow(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop()
		for _, o := range r.orch {
			o.Close()
			o.WaitResponders()
		}
	})
	return r
}

// handles are the ask's handles the votes go through: the caller's
// replica's, and with a shared store the other's too.
func (r *quorumRig) ask(t *testing.T, q *route.Quorum, requester string) (<-chan result, []*askuser.Ask) {
	t.Helper()
	res := make(chan result, 1)
	go func() {
		out, err := r.orch[0].Handle(context.Background(), askuser.Request{
			Session: "s1", ToolCallID: "call-1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall),
			Approvers: &route.Approvers{Quorum: q, Requester: requester},
		})
		res <- result{out, err}
	}()
	hs := []*askuser.Ask{<-r.ballot.asks}
	if len(r.orch) > 1 {
		hs = append(hs, (<-r.orch[1].Responder.(*follower).asks))
	}
	return res, hs
}

// quorumResult is what the test reads of a routed approval's result.
type quorumResult struct {
	Status       string  `json:"status"`
	DecidedBy    *string `json:"decided_by"`
	Ended        *string `json:"ended"`
	ActionDigest string  `json:"action_digest"`
	Votes        []struct {
		Principal string `json:"principal"`
		Decision  string `json:"decision"`
		Via       string `json:"via"`
		At        string `json:"at"`
		Counted   bool   `json:"counted"`
	} `json:"votes"`
	Quorum *struct {
		Required  int `json:"required"`
		Approvals int `json:"approvals"`
	} `json:"quorum"`
	Message string `json:"message"`
}

var eligible3 = []string{"alice", "bob", "carol"}

func principals(ps ...string) []route.Approver {
	out := make([]route.Approver, len(ps))
	for i, p := range ps {
		out[i] = route.Approver{Principal: p}
	}
	return out
}

// oracle says what M of the eligible, given the votes in order and how
// the ask ends if they do not decide it, must come to — written from the
// rules, not from route.Decide: the requester never counts; a deny by an
// eligible principal before M distinct eligible principals approved ends
// it denied; M of them approving ends it approved; otherwise the ending.
func oracle(m int, eligible []string, requester string, votes []vote, ending string) (status, ended string, approvals int) {
	approved := map[string]bool{}
	for _, v := range votes {
		if v.who == requester || !contains(eligible, v.who) {
			continue
		}
		if v.sel == approval.DenyOnce || v.sel == approval.DenySession {
			return approval.Denied, "", len(approved)
		}
		approved[v.who] = true
		if len(approved) >= m {
			return approval.Approved, "", len(approved)
		}
	}
	return approval.Unresolved, ending, len(approved)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestQuorumOutcomeTable drives every combination, for M of N eligible
// principals with N ≤ 3, of each one's decision (none, approve, deny),
// the requester's own vote (none, approve, deny; cast first), and how the
// ask ends when the votes do not decide it (the deadline, a responder
// fault, a supersede from the other replica) — through Handle with
// Request.Approvers, in a synctest bubble, in memory and on a shared store
// with two orchestrators (the votes alternating between them). Each row
// checks the result's status, ended and tally against the oracle, the
// digest bound to the policy, approvaltool.VerdictOf, and that the journal's one
// record passes journal.CheckVotes.
func TestQuorumOutcomeTable(t *testing.T) {
	for _, shared := range []bool{false, true} {
		name := "memory"
		if shared {
			name = "shared"
		}
		t.Run(name, func(t *testing.T) {
			rows := 0
			for n := 1; n <= 3; n++ {
				for m := 1; m <= n; m++ {
					for combo := range pow(3, n) {
						for req := range 3 {
							for _, ending := range []string{"deadline", "fault", "superseded"} {
								rows++
								votes := rowVotes(n, combo, req)
								label := fmt.Sprintf("%d-of-%d/%v/%s", m, n, votes, ending)
								quorumRow(t, shared, label, m, eligible3[:n], votes, ending)
							}
						}
					}
				}
			}
			if rows != 918 {
				t.Errorf("%d rows, want 918", rows)
			}
		})
	}
}

func pow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}

// rowVotes is a row's votes: the requester's first (none, approve, deny),
// then each eligible principal's in order, by the base-3 digits of combo.
func rowVotes(n, combo, req int) []vote {
	picks := []string{"", approval.ApproveOnce, approval.DenyOnce}
	var votes []vote
	if req > 0 {
		votes = append(votes, vote{"agent", picks[req]})
	}
	for i := range n {
		if p := picks[combo%3]; p != "" {
			votes = append(votes, vote{eligible3[i], p})
		}
		combo /= 3
	}
	return votes
}

func quorumRow(t *testing.T, shared bool, label string, m int, eligible []string, votes []vote, ending string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		q := &route.Quorum{Required: m, Eligible: principals(eligible...)}
		r := newQuorumRig(t, shared)
		res, hs := r.ask(t, q, "agent")
		for i, v := range votes {
			cast(t, hs[i%len(hs)], v)
		}
		wantStatus, wantEnded, wantApprovals := oracle(m, eligible, "agent", votes, ending)
		if wantStatus == approval.Unresolved {
			switch ending {
			case "fault":
				r.ballot.fail <- errors.New("the card's server went away")
			case "superseded":
				r.orch[len(r.orch)-1].Supersede("s1")
			}
		}
		got := <-res
		if got.err != nil {
			t.Fatalf("%s: Handle: %v", label, got.err)
		}
		var rr quorumResult
		if err := json.Unmarshal(got.out.Result, &rr); err != nil {
			t.Fatalf("%s: result %s: %v", label, got.out.Result, err)
		}
		gotEnded := ""
		if rr.Ended != nil {
			gotEnded = *rr.Ended
		}
		if rr.Status != wantStatus || gotEnded != wantEnded || rr.Quorum == nil || rr.Quorum.Approvals != wantApprovals || rr.Quorum.Required != m {
			t.Fatalf("%s: result %s; want status %s, ended %q, %d of %d approved", label, got.out.Result, wantStatus, wantEnded, wantApprovals, m)
		}
		if len(rr.Votes) > len(votes) {
			t.Errorf("%s: %d votes listed, %d cast", label, len(rr.Votes), len(votes))
		}
		for _, v := range rr.Votes {
			if v.Principal == "agent" && v.Counted {
				t.Errorf("%s: the requester's own vote counted: %s", label, got.out.Result)
			}
		}
		if want := route.ActionDigest(apAction, apDetails, q); rr.ActionDigest != want {
			t.Errorf("%s: action_digest %s, want the digest with the policy %s", label, rr.ActionDigest, want)
		}
		if v, ok := approvaltool.VerdictOf(got.out); !ok || v.Status != wantStatus {
			t.Errorf("%s: approvaltool.VerdictOf = %+v, want %s", label, v, wantStatus)
		}
		r.orch[0].WaitResponders()
		synctest.Wait()
		recs := r.journal.records()
		if len(recs) != 1 {
			t.Fatalf("%s: %d journal records, want 1", label, len(recs))
		}
		if err := journal.CheckVotes(recs[0]); err != nil {
			t.Errorf("%s: the journal record's votes do not verify: %v", label, err)
		}
		if recs[0].Quorum == nil || recs[0].Quorum.Approvals != wantApprovals {
			t.Errorf("%s: the journal record's quorum is %+v", label, recs[0].Quorum)
		}
	})
}
