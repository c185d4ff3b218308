package askuser_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// TestQuorumNeverApprovesShort is the property of approvals several
// people decide: whatever sequence of votes (by eligible principals, the
// requester, an excluded owner, somebody not eligible, somebody not
// verified; approve or deny, once or for the session; through any
// replica), waits past the deadline, responder faults, supersedes, and
// replicas closed and started again, a result is "approved" only when
//
//   - decided_by "user": Required distinct verified principals, none the
//     requester nor (under ExcludeOwner) the owner, approved in this ask
//     and fill Required distinct places of the policy (a group that
//     counts once, once), or
//   - decided_by "remembered": an earlier request of the session with
//     the same policy was approved and remembered, which needs every
//     approver of its full quorum to have chosen "for this session".
//
// Every journal record's status follows from its votes (journal.CheckVotes).
// Each run asks up to three requests of one session, each in a synctest
// bubble, in memory or on a store shared by up to three orchestrators,
// with one consent store throughout.
func TestQuorumNeverApprovesShort(t *testing.T) {
	people := []string{"alice", "bob", "carol", "agent", "olivia", "mallory", ""}
	picks := []string{approval.ApproveOnce, approval.ApproveOnce, approval.ApproveSession, approval.DenyOnce, approval.DenySession}
	rapid.Check(t, func(rt *rapid.T) {
		q := drawQuorum(rt)
		parties := route.Parties{Requester: "agent", Owner: "olivia"}
		shared := rapid.Bool().Draw(rt, "shared")
		replicas := 1
		if shared {
			replicas = rapid.IntRange(2, 3).Draw(rt, "replicas")
		}
		consents := &store.MemoryConsents{}
		rememberedApproval := false // an earlier request's approval was remembered
		for range rapid.IntRange(1, 3).Draw(rt, "requests") {
			type event struct {
				kind    string
				who     string
				pick    string
				replica int
				wait    time.Duration
			}
			var events []event
			for range rapid.IntRange(0, 10).Draw(rt, "events") {
				e := event{kind: rapid.SampledFrom([]string{"vote", "vote", "vote", "vote", "wait", "fault", "supersede", "restart"}).Draw(rt, "kind")}
				e.replica = rapid.IntRange(0, replicas-1).Draw(rt, "replica")
				switch e.kind {
				case "vote":
					e.who = rapid.SampledFrom(people).Draw(rt, "who")
					e.pick = rapid.SampledFrom(picks).Draw(rt, "pick")
				case "wait":
					e.wait = time.Duration(rapid.IntRange(1, 40).Draw(rt, "seconds")) * time.Second
				}
				events = append(events, e)
			}
			var (
				out  *askuser.Outcome
				herr error
				recs approvalJournal
				cast []route.Vote // every vote cast, in order, as the person gave it
			)
			synctest.Test(t, func(t *testing.T) {
				st := store.NewMemory(0)
				ballot := newBallot()
				mk := func(r askuser.Responder) *askuser.Orchestrator {
					o := &askuser.Orchestrator{Responder: r, Journal: &recs, Consents: consents, Logger: newDiscardLogger()}
					if shared {
						o.Asks = st
					}
					return o
				}
				orch := []*askuser.Orchestrator{mk(ballot)}
				handles := []*askuser.Ask{nil}
				stops := []func(){func() {}}
				res := make(chan result, 1)
				start := func(i int) {
					fo := newFollower()
					o := mk(fo)
					if err := o.Ready(context.Background()); err != nil {
						t.Fatal(err)
					}
					stop, err := fo.sessions.Follow(context.Background(), "s1")
					if err != nil {
						t.Fatal(err)
					}
					var h *askuser.Ask
					select {
					case h = <-fo.asks:
					default: // the ask ended already
					}
					if i == len(orch) {
						orch, handles, stops = append(orch, o), append(handles, h), append(stops, stop)
					} else {
						orch[i], handles[i], stops[i] = o, h, stop
					}
				}
				if shared {
					if err := orch[0].Ready(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				go func() {
					o, err := orch[0].Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Quorum: q, Requester: parties.Requester, Owner: parties.Owner}})
					res <- result{o, err}
				}()
				synctest.Wait()
				select {
				case handles[0] = <-ballot.asks:
				default: // decided without asking: remembered
				}
				for i := 1; i < replicas; i++ {
					start(i)
				}
				faulted := false
				for _, e := range events {
					synctest.Wait()
					h := handles[e.replica]
					switch e.kind {
					case "vote":
						if h == nil {
							continue
						}
						h.SetPrincipal(e.who)
						err := h.Report(*choose(e.pick, ""))
						if err == nil {
							err = h.Submit()
						}
						if err == nil {
							d := route.Approve
							if e.pick == approval.DenyOnce || e.pick == approval.DenySession {
								d = route.Deny
							}
							cast = append(cast, route.Vote{Principal: e.who, Decision: d, Remember: e.pick == approval.ApproveSession || e.pick == approval.DenySession})
						} else if !errors.Is(err, askuser.ErrAskEnded) {
							t.Fatalf("vote: %v", err)
						}
					case "wait":
						time.Sleep(e.wait)
					case "fault":
						if !faulted && handles[0] != nil {
							faulted = true
							ballot.fail <- errors.New("the card went away")
						}
					case "supersede":
						orch[e.replica].Supersede("s1")
					case "restart":
						if e.replica == 0 || !shared {
							continue // the caller's replica stays: its caller waits on it
						}
						stops[e.replica]()
						orch[e.replica].Close()
						orch[e.replica].WaitResponders()
						start(e.replica)
					}
				}
				time.Sleep(2 * time.Minute) // past the deadline: the ask has ended
				r := <-res
				out, herr = r.out, r.err
				for i, o := range orch {
					stops[i]()
					o.Close()
					o.WaitResponders()
				}
			})
			if herr != nil {
				rt.Fatalf("Handle: %v", herr)
			}
			var rr quorumResult
			if err := json.Unmarshal(out.Result, &rr); err != nil {
				rt.Fatalf("result %s: %v", out.Result, err)
			}
			if rr.Status == approval.Approved {
				switch by := *rr.DecidedBy; by {
				case "user":
					if n := filled(q, parties, cast); n < q.Required {
						rt.Fatalf("approved by %d filled places of %d required; votes %+v; result %s", n, q.Required, cast, out.Result)
					}
				case "remembered":
					if !rememberedApproval {
						rt.Fatalf("approved as remembered, but no earlier full quorum chose it: %s", out.Result)
					}
				default:
					rt.Fatalf("approved by %q: %s", by, out.Result)
				}
			}
			var remember struct {
				Remember string `json:"remember"`
			}
			_ = json.Unmarshal(out.Result, &remember)
			if remember.Remember == "session" && rr.Status == approval.Approved && *rr.DecidedBy == "user" {
				if n := filledRemembering(q, parties, cast); n < q.Required {
					rt.Fatalf("remembered with only %d places filled by people who chose the session; votes %+v", n, cast)
				}
				rememberedApproval = true
			}
			for _, rec := range recs.records() {
				if err := journal.CheckVotes(rec); err != nil {
					rt.Fatalf("journal record: %v", err)
				}
			}
		}
	})
}

// drawQuorum draws a policy over alice, bob, carol, dave and the group
// sre {bob, carol}, counted once or per member.
func drawQuorum(rt *rapid.T) *route.Quorum {
	var q route.Quorum
	for _, p := range []string{"alice", "bob", "dave"} {
		if rapid.Bool().Draw(rt, "eligible "+p) {
			q.Eligible = append(q.Eligible, route.Approver{Principal: p})
		}
	}
	if rapid.Bool().Draw(rt, "group") || len(q.Eligible) == 0 {
		q.Eligible = append(q.Eligible, route.Approver{Group: "sre", Members: []string{"bob", "carol"}, PerMember: rapid.Bool().Draw(rt, "per member")})
	}
	places := 0
	for _, a := range q.Eligible {
		places++
		if a.PerMember {
			places += len(a.Members) - 1
		}
	}
	q.Required = rapid.IntRange(1, places).Draw(rt, "required")
	if rapid.Bool().Draw(rt, "veto anyone") {
		q.Veto = route.VetoAnyone
	}
	q.ExcludeOwner = rapid.Bool().Draw(rt, "exclude owner")
	if rapid.Bool().Draw(rt, "owner eligible") {
		q.Eligible = append(q.Eligible, route.Approver{Principal: "olivia"})
	}
	return &q
}

// filled is the most places of q that distinct approvers among votes can
// fill — every approve vote by a verified principal who is not the
// requester (nor an excluded owner) — by trying every assignment: the
// definition, not route.Decide's matching.
func filled(q *route.Quorum, p route.Parties, votes []route.Vote) int {
	return maxFill(q, p, votes, false)
}

// filledRemembering is filled for the approvals that chose the session.
func filledRemembering(q *route.Quorum, p route.Parties, votes []route.Vote) int {
	return maxFill(q, p, votes, true)
}

func maxFill(q *route.Quorum, p route.Parties, votes []route.Vote, remembering bool) int {
	var places [][]string
	for _, a := range q.Eligible {
		switch {
		case a.Principal != "":
			places = append(places, []string{a.Principal})
		case a.PerMember:
			for _, m := range a.Members {
				places = append(places, []string{m})
			}
		default:
			places = append(places, a.Members)
		}
	}
	var who []string
	for _, v := range votes {
		if v.Decision != route.Approve || v.Principal == "" || v.Principal == p.Requester || (q.ExcludeOwner && v.Principal == p.Owner) || contains(who, v.Principal) {
			continue
		}
		if remembering && !v.Remember {
			continue
		}
		who = append(who, v.Principal)
	}
	used := make([]bool, len(places))
	var best func(i int) int
	best = func(i int) int {
		if i == len(who) {
			return 0
		}
		n := best(i + 1) // who[i] fills nothing
		for pl, members := range places {
			if !used[pl] && contains(members, who[i]) {
				used[pl] = true
				n = max(n, 1+best(i+1))
				used[pl] = false
			}
		}
		return n
	}
	return best(0)
}
