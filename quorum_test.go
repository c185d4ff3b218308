package askuser_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// twoPerson is a route whose quorum needs two of the group sre.
func twoPerson(members ...string) route.Route {
	return route.Route{
		Name:  "prod-delete",
		Steps: []route.Step{{Responders: []string{"card"}, People: members}},
		Quorum: &route.Quorum{Required: 2, Eligible: []route.Approver{
			{Group: "sre", Members: members, PerMember: true},
		}},
	}
}

// TestRoutesChooseAndSnapshot: Orchestrator.Routes is called once, with
// the tool, the session and the risk; the route and its policy are
// snapshotted into the pending record; a configuration changed while the
// ask is pending changes nothing for it, on either replica; and the
// journal record says the step, the channel and the votes.
func TestRoutesChooseAndSnapshot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory(0)
		var mu sync.Mutex
		current := twoPerson("alice", "bob")
		var asked []route.Request
		routes := func(r route.Request) (route.Route, bool) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, r)
			return current, true
		}
		j := &approvalJournal{}
		b, fo := newBallot(), newFollower()
		o0 := &askuser.Orchestrator{Responder: b, Asks: st, Journal: j, Routes: routes, Logger: newDiscardLogger()}
		o1 := &askuser.Orchestrator{Responder: fo, Asks: st, Journal: j, Routes: routes, Logger: newDiscardLogger()}
		for _, o := range []*askuser.Orchestrator{o0, o1} {
			if err := o.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		stop, err := fo.sessions.Follow(context.Background(), "prod-1")
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			stop()
			for _, o := range []*askuser.Orchestrator{o0, o1} {
				o.Close()
				o.WaitResponders()
			}
		}()
		res := make(chan result, 1)
		go func() {
			out, err := o0.Handle(context.Background(), askuser.Request{Session: "prod-1", ToolCallID: "c1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Requester: "agent"}})
			res <- result{out, err}
		}()
		h0, h1 := <-b.asks, <-fo.asks

		// The snapshot, as the store holds it.
		es, err := st.List(context.Background(), "")
		if err != nil || len(es) != 1 {
			t.Fatalf("List = %d entries, %v", len(es), err)
		}
		var rec struct {
			Routing struct {
				Route     route.Route  `json:"route"`
				Quorum    route.Quorum `json:"quorum"`
				Requester string       `json:"requester"`
			} `json:"routing"`
		}
		if err := json.Unmarshal(es[0].Data, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Routing.Route.Name != "prod-delete" || rec.Routing.Requester != "agent" || !cmp.Equal(rec.Routing.Quorum.Eligible[0].Members, []string{"alice", "bob"}) {
			t.Errorf("the pending record's routing is %+v", rec.Routing)
		}

		// The configuration changes: the pending ask keeps its policy.
		mu.Lock()
		current = twoPerson("mallory", "trent")
		mu.Unlock()
		cast(t, h1, vote{"alice", approval.ApproveOnce})
		synctest.Wait() // the store's feed brings the vote to the other replica
		if v := responder.Votes(h0); v == nil || v.Approvals != 1 || v.Summary() != "1 of 2 approved: alice via card" {
			t.Errorf("the other replica's handle shows %+v", v)
		}
		cast(t, h0, vote{"bob", approval.ApproveOnce})
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		var rr quorumResult
		if err := json.Unmarshal(r.out.Result, &rr); err != nil {
			t.Fatal(err)
		}
		policy := twoPerson("alice", "bob").Quorum
		if rr.Status != approval.Approved || rr.Quorum.Approvals != 2 || len(rr.Votes) != 2 || rr.ActionDigest != route.ActionDigest(apAction, apDetails, policy) {
			t.Errorf("result %s", r.out.Result)
		}
		mu.Lock()
		if want := []route.Request{{Tool: "request_approval", Session: "prod-1", Risk: "irreversible"}}; !cmp.Equal(asked, want) {
			t.Errorf("Routes was called with %+v, want once with %+v", asked, want)
		}
		mu.Unlock()
		o0.WaitResponders()
		synctest.Wait()
		recs := j.records()
		if len(recs) != 1 {
			t.Fatalf("%d journal records", len(recs))
		}
		jr := recs[0]
		if jr.AnsweredVia != "card" || jr.Step == nil || jr.Step.Step != 0 || len(jr.Votes) != 2 || jr.Quorum == nil || jr.Quorum.Approvals != 2 || jr.Principal != "alice, bob" {
			t.Errorf("journal record: via %q, step %+v, votes %+v, quorum %+v, principal %q", jr.AnsweredVia, jr.Step, jr.Votes, jr.Quorum, jr.Principal)
		}
		if err := journal.CheckVotes(jr); err != nil {
			t.Error(err)
		}
	})
}

// TestRoutesRefuseInvalid: a route that fails its Check, a Routes that
// panics and a request's quorum that fails its Check refuse the ask with
// an error that says what is wrong; nobody is asked.
func TestRoutesRefuseInvalid(t *testing.T) {
	b := newBallot()
	for _, tt := range []struct {
		name   string
		routes route.Selector
		quorum *route.Quorum
		want   string
	}{
		{"a route without steps", func(route.Request) (route.Route, bool) { return route.Route{Name: "x"}, true }, nil, `the route Orchestrator.Routes chose ("x") is not valid: steps: a route needs at least one step`},
		{"a panic", func(route.Request) (route.Route, bool) { panic("no config") }, nil, "Orchestrator.Routes panicked choosing the route of a request_approval request: no config"},
		{"a quorum of too many", nil, &route.Quorum{Required: 3, Eligible: principals("alice", "bob")}, "the approval's quorum is not valid: quorum.required: must be between 1 and 2"},
	} {
		for _, shared := range []bool{false, true} {
			o := &askuser.Orchestrator{Responder: b, Routes: tt.routes, Logger: newDiscardLogger()}
			if shared {
				o.Asks = store.NewMemory(0)
			}
			_, err := o.Handle(context.Background(), askuser.Request{Session: "s", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Quorum: tt.quorum}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s (shared %v): Handle = %v, want an error containing %q", tt.name, shared, err, tt.want)
			}
			o.Close()
		}
	}
	if len(b.asks) != 0 {
		t.Error("somebody was asked")
	}
}

// TestQuorumRemembers: "for this session" is remembered only when every
// approver of the full quorum chose it, under the digest with the policy
// and with the principals who decided; the same policy is then decided
// without asking, and another policy asks again.
func TestQuorumRemembers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		consents := &store.MemoryConsents{}
		b := newBallot()
		o := &askuser.Orchestrator{Responder: b, Consents: consents, Logger: newDiscardLogger()}
		q := &route.Quorum{Required: 2, Eligible: principals("alice", "bob")}
		ask := func(q *route.Quorum, votes ...vote) *askuser.Outcome {
			t.Helper()
			res := make(chan result, 1)
			go func() {
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Quorum: q, Requester: "agent"}})
				res <- result{out, err}
			}()
			if len(votes) > 0 {
				h := <-b.asks
				for _, v := range votes {
					cast(t, h, v)
				}
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			return r.out
		}
		// One approver chose the session, the other did not: not remembered.
		out := ask(q, vote{"alice", approval.ApproveSession}, vote{"bob", approval.ApproveOnce})
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved || v.Remember {
			t.Errorf("half a quorum for the session: %+v", v)
		}
		if cs, _ := consents.Consents(context.Background(), "s1"); len(cs) != 0 {
			t.Errorf("remembered %+v", cs)
		}
		// Both chose it: remembered, with both.
		out = ask(q, vote{"alice", approval.ApproveSession}, vote{"bob", approval.ApproveSession})
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved || !v.Remember {
			t.Errorf("the full quorum for the session: %+v", v)
		}
		cs, _ := consents.Consents(context.Background(), "s1")
		if len(cs) != 1 || cs[0].Digest != route.ActionDigest(apAction, apDetails, q) || cs[0].Principal != "alice, bob" || !cs[0].Approved {
			t.Fatalf("remembered %+v", cs)
		}
		// The same policy: decided without asking.
		out = ask(q)
		if v, _ := approvaltool.VerdictOf(out); v.Status != approval.Approved || v.DecidedBy != askuser.ByRemembered {
			t.Errorf("the same policy again: %+v", v)
		}
		// Another policy: asked again, and the deadline leaves it unresolved.
		other := &route.Quorum{Required: 1, Eligible: principals("alice", "bob")}
		res := make(chan result, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Quorum: other}})
			res <- result{out, err}
		}()
		<-b.asks
		time.Sleep(time.Minute)
		if r := <-res; r.err != nil || !strings.Contains(string(r.out.Result), `"ended":"deadline"`) {
			t.Errorf("another policy: %v %s", r.err, r.out.Result)
		}
		o.WaitResponders()
	})
}

// TestQuorumDismissAndDecline: a person who dismisses their card ends
// nothing while the others can vote, and a person's Decline is their deny
// vote, a veto.
func TestQuorumDismissAndDecline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBallot()
		o := &askuser.Orchestrator{Responder: b, Logger: newDiscardLogger()}
		res := make(chan result, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", Dialect: approvaltool.Dialect(), Arguments: []byte(apCall), Approvers: &route.Approvers{Quorum: &route.Quorum{Required: 2, Eligible: principals("alice", "bob", "carol")}}})
			res <- result{out, err}
		}()
		h := <-b.asks
		cast(t, h, vote{"alice", approval.ApproveOnce})
		h.SetPrincipal("bob")
		if err := h.Cancel(""); err != nil {
			t.Fatalf("bob dismissing his card: %v", err)
		}
		select {
		case r := <-res:
			t.Fatalf("a dismissal ended the ask: %s", r.out.Result)
		default:
		}
		h.SetPrincipal("carol")
		if err := h.Decline(); err != nil {
			t.Fatal(err)
		}
		r := <-res
		var rr quorumResult
		if err := json.Unmarshal(r.out.Result, &rr); err != nil {
			t.Fatal(err)
		}
		if rr.Status != approval.Denied || len(rr.Votes) != 2 || rr.Votes[1].Principal != "carol" || rr.Votes[1].Decision != "deny" || !rr.Votes[1].Counted {
			t.Errorf("result %s", r.out.Result)
		}
		o.WaitResponders()
	})
}
