package route_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/askuser-go/askuser/route"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var pool = []string{"alice", "bob", "carol", "dave", "erin"}

// drawQuorum draws a quorum that passes Check: principals and groups of
// the pool, groups counting once or per member, any veto, and the owner
// excluded or not.
func drawQuorum(t *rapid.T) route.Quorum {
	var q route.Quorum
	used := map[string]bool{}
	for i := range rapid.IntRange(1, 4).Draw(t, "approvers") {
		if rapid.Bool().Draw(t, "group") {
			members := rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 1, 3, rapid.ID[string]).Draw(t, "members")
			name := []string{"g0", "g1", "g2", "g3"}[i]
			q.Eligible = append(q.Eligible, route.Approver{Group: name, Members: members, PerMember: rapid.Bool().Draw(t, "per_member")})
			continue
		}
		p := rapid.SampledFrom(pool).Draw(t, "principal")
		if used[p] {
			continue
		}
		used[p] = true
		q.Eligible = append(q.Eligible, route.Approver{Principal: p})
	}
	places := 0
	for _, a := range q.Eligible {
		if a.PerMember {
			places += len(a.Members)
		} else {
			places++
		}
	}
	q.Required = rapid.IntRange(1, places).Draw(t, "required")
	q.Veto = rapid.SampledFrom([]route.Veto{"", route.VetoEligible, route.VetoAnyone}).Draw(t, "veto")
	q.ExcludeOwner = rapid.Bool().Draw(t, "exclude_owner")
	return q
}

func drawVotes(t *rapid.T) []route.Vote {
	n := rapid.IntRange(0, 8).Draw(t, "votes")
	votes := make([]route.Vote, n)
	when := t0
	for i := range votes {
		when = when.Add(time.Duration(rapid.IntRange(0, 30).Draw(t, "gap")) * time.Second)
		votes[i] = route.Vote{
			Principal: rapid.SampledFrom(append([]string{"", "agent"}, pool...)).Draw(t, "who"),
			Decision:  rapid.SampledFrom([]route.Decision{route.Approve, route.Approve, route.Deny, "bogus"}).Draw(t, "decision"),
			Via:       rapid.SampledFrom([]string{"card", "slack:#ops", "email"}).Draw(t, "via"),
			At:        when,
			Remember:  rapid.Bool().Draw(t, "remember"),
		}
	}
	return votes
}

func drawEnding(t *rapid.T) *route.Ending {
	how := rapid.SampledFrom([]route.EndKind{"", route.EndDeadline, route.EndFault, route.EndUnattended, route.EndSuperseded, route.EndDismissed}).Draw(t, "ending")
	if how == "" {
		return nil
	}
	return &route.Ending{How: how, At: t0.Add(time.Duration(rapid.IntRange(0, 240).Draw(t, "end_at")) * time.Second)}
}

// quorumMet reports, independently of Decide, whether Required distinct
// principals of approvers can be put in distinct places of q, each in a
// place they may fill: by trying every assignment.
func quorumMet(q route.Quorum, approvers []string) bool {
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
	taken := make([]bool, len(places))
	var try func(i, got int) bool
	try = func(i, got int) bool {
		if got >= q.Required {
			return true
		}
		if i == len(approvers) {
			return false
		}
		if try(i+1, got) { // leave approver i out
			return true
		}
		for pl, ms := range places {
			if !taken[pl] && slices.Contains(ms, approvers[i]) {
				taken[pl] = true
				ok := try(i+1, got+1)
				taken[pl] = false
				if ok {
					return true
				}
			}
		}
		return false
	}
	return try(0, 0)
}

// TestDecideProperty: no sequence of votes and endings yields approved
// without Required distinct eligible verified principals approving —
// neither the requester nor an excluded owner, before the ending, and
// with no veto before — nor remembers an approval that the full quorum
// did not choose for the session; and the verdict is the same after the
// record goes through JSON (a restart, another replica), for every prefix
// once decided, and with any ending added to votes that had not approved.
func TestDecideProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := drawQuorum(t)
		p := route.Parties{Requester: rapid.SampledFrom([]string{"agent", "alice"}).Draw(t, "requester"), Owner: rapid.SampledFrom(pool).Draw(t, "owner")}
		votes := drawVotes(t)
		end := drawEnding(t)
		v, err := route.Decide(q, p, votes, end)
		if err != nil {
			t.Fatal(err)
		}

		// The votes that may count, up to where the verdict was reached.
		last := len(votes)
		for i, cv := range v.Votes {
			if cv.Why == route.WhyAfterVerdict {
				last = i
				break
			}
		}
		eligible := func(who string) bool {
			for _, a := range q.Eligible {
				if a.Principal == who || slices.Contains(a.Members, who) {
					return true
				}
			}
			return false
		}
		var approvers, remembering []string
		vetoed := false
		for _, vote := range votes[:last] {
			if vote.Principal == "" || vote.Principal == p.Requester || (q.ExcludeOwner && vote.Principal == p.Owner) {
				continue
			}
			if end != nil && !vote.At.Before(end.At) {
				continue
			}
			switch {
			case vote.Decision == route.Deny && (eligible(vote.Principal) || q.Veto == route.VetoAnyone):
				vetoed = true
			case vote.Decision == route.Approve && eligible(vote.Principal) && !slices.Contains(approvers, vote.Principal):
				approvers = append(approvers, vote.Principal)
				if vote.Remember {
					remembering = append(remembering, vote.Principal)
				}
			}
		}
		if v.Status == route.Approved {
			if !quorumMet(q, approvers) {
				t.Fatalf("approved, but the approvals %v do not fill %d places of %+v", approvers, q.Required, q.Eligible)
			}
			if vetoed {
				t.Fatalf("approved after a veto: %+v", v.Votes)
			}
			if len(v.DecidedBy) < q.Required || len(slices.Compact(slices.Sorted(slices.Values(v.DecidedBy)))) != len(v.DecidedBy) {
				t.Fatalf("approved by %v: not %d distinct principals", v.DecidedBy, q.Required)
			}
			for _, who := range v.DecidedBy {
				if who == p.Requester || (q.ExcludeOwner && who == p.Owner) || !eligible(who) {
					t.Fatalf("approved by %v, which counts %q", v.DecidedBy, who)
				}
			}
			if v.Remember && !quorumMet(q, remembering) {
				t.Fatalf("remembered, but only %v of the approvers chose the session", remembering)
			}
		}
		if end != nil && v.Status == route.Open {
			t.Fatalf("ended (%s) but open", end.How)
		}

		// A restart or another replica decodes the record and decides again.
		type record struct {
			Q     route.Quorum
			Votes []route.Vote
		}
		b, err := json.Marshal(record{q, votes})
		if err != nil {
			t.Fatal(err)
		}
		var r record
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		again, err := route.Decide(r.Q, p, r.Votes, end)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v, again); diff != "" {
			t.Fatalf("the verdict changed through JSON (-before +after):\n%s", diff)
		}

		// An ending never approves what the votes alone had not.
		open, err := route.Decide(q, p, votes, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status == route.Approved && open.Status != route.Approved {
			t.Fatalf("approved with ending %v, but %s without it", end, open.Status)
		}
		// Once decided, every longer prefix gives the same verdict.
		var decided route.Status
		for k := 0; k <= len(votes); k++ {
			pv, err := route.Decide(q, p, votes[:k], nil)
			if err != nil {
				t.Fatal(err)
			}
			if decided != "" && pv.Status != decided {
				t.Fatalf("decided %s after %d votes, then %s after %d", decided, k-1, pv.Status, k)
			}
			if pv.Status == route.Approved || pv.Status == route.Denied {
				decided = pv.Status
			}
		}
	})
}
