package route_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser/route"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

func principals(ps ...string) []route.Approver {
	out := make([]route.Approver, len(ps))
	for i, p := range ps {
		out[i] = route.Approver{Principal: p}
	}
	return out
}

func approve(p, via string, s int) route.Vote {
	return route.Vote{Principal: p, Decision: route.Approve, Via: via, At: at(s)}
}

func approveSession(p, via string, s int) route.Vote {
	v := approve(p, via, s)
	v.Remember = true
	return v
}

func deny(p, via string, s int) route.Vote {
	return route.Vote{Principal: p, Decision: route.Deny, Via: via, At: at(s)}
}

// brief is the part of a verdict the hand table checks: the status, why it
// ended, remembering, the count, who decided, and each vote's why.
type brief struct {
	Status    route.Status
	Ended     route.EndKind
	Remember  bool
	Approvals int
	DecidedBy []string
	Whys      []string
}

func briefOf(v route.Verdict) brief {
	b := brief{Status: v.Status, Ended: v.Ended, Remember: v.Remember, Approvals: v.Approvals, DecidedBy: v.DecidedBy}
	for _, cv := range v.Votes {
		b.Whys = append(b.Whys, cv.Why)
	}
	return b
}

// TestDecideTable: the important rows of the outcome table of approvals
// with votes, one sentence each.
func TestDecideTable(t *testing.T) {
	two := route.Quorum{Required: 2, Eligible: principals("alice", "bob")}
	twoOfThree := route.Quorum{Required: 2, Eligible: principals("alice", "bob", "carol")}
	sre := route.Approver{Group: "sre", Members: []string{"alice", "bob"}}
	sreEach := sre
	sreEach.PerMember = true
	deadline := &route.Ending{How: route.EndDeadline, At: at(100)}
	parties := route.Parties{Requester: "agent", Owner: "olivia"}
	tests := []struct {
		name  string
		q     route.Quorum
		p     route.Parties
		votes []route.Vote
		end   *route.Ending
		want  brief
	}{{
		name:  "one of one approves: approved",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{approve("alice", "card", 1)},
		want:  brief{Status: route.Approved, Approvals: 1, DecidedBy: []string{"alice"}, Whys: []string{"counted"}},
	}, {
		name:  "two of two, one approves: still open",
		q:     two,
		votes: []route.Vote{approve("alice", "slack:#ops", 1)},
		want:  brief{Status: route.Open, Approvals: 1, Whys: []string{"counted"}},
	}, {
		name:  "two of two, one approves, the deadline: unresolved with the vote listed",
		q:     two,
		votes: []route.Vote{approve("alice", "slack:#ops", 1)},
		end:   deadline,
		want:  brief{Status: route.Unresolved, Ended: route.EndDeadline, Approvals: 1, Whys: []string{"counted"}},
	}, {
		name:  "two of two, both approve: approved",
		q:     two,
		votes: []route.Vote{approve("alice", "slack:#ops", 1), approve("bob", "email", 2)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "the same person on Slack and by email counts once",
		q:     two,
		votes: []route.Vote{approve("alice", "slack:#ops", 1), approve("alice", "email", 2)},
		end:   deadline,
		want:  brief{Status: route.Unresolved, Ended: route.EndDeadline, Approvals: 1, Whys: []string{"counted", "repeated"}},
	}, {
		name:  "one approves, the other denies: denied (veto)",
		q:     two,
		votes: []route.Vote{approve("alice", "card", 1), deny("bob", "email", 2)},
		want:  brief{Status: route.Denied, Approvals: 1, DecidedBy: []string{"bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "two of three: a deny after the quorum is full changes nothing",
		q:     twoOfThree,
		votes: []route.Vote{approve("alice", "card", 1), approve("carol", "card", 2), deny("bob", "card", 3)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "carol"}, Whys: []string{"counted", "counted", "after the verdict"}},
	}, {
		name:  "a person who approved then denies withdraws: denied",
		q:     two,
		votes: []route.Vote{approve("alice", "card", 1), deny("alice", "email", 2)},
		want:  brief{Status: route.Denied, Approvals: 1, DecidedBy: []string{"alice"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "the requester's own approval never counts, even when listed eligible",
		q:     route.Quorum{Required: 1, Eligible: principals("agent", "alice")},
		p:     parties,
		votes: []route.Vote{approve("agent", "card", 1)},
		end:   deadline,
		want:  brief{Status: route.Unresolved, Ended: route.EndDeadline, Whys: []string{"requester"}},
	}, {
		name:  "the requester's deny never counts either",
		q:     route.Quorum{Required: 1, Eligible: principals("alice"), Veto: route.VetoAnyone},
		p:     parties,
		votes: []route.Vote{deny("agent", "card", 1), approve("alice", "card", 2)},
		want:  brief{Status: route.Approved, Approvals: 1, DecidedBy: []string{"alice"}, Whys: []string{"requester", "counted"}},
	}, {
		name:  "the owner approves where the quorum excludes the owner: does not count",
		q:     route.Quorum{Required: 1, Eligible: principals("olivia", "alice"), ExcludeOwner: true},
		p:     parties,
		votes: []route.Vote{approve("olivia", "card", 1)},
		want:  brief{Status: route.Open, Whys: []string{"owner"}},
	}, {
		name:  "the owner approves where the quorum allows it: counts",
		q:     route.Quorum{Required: 1, Eligible: principals("olivia", "alice")},
		p:     parties,
		votes: []route.Vote{approve("olivia", "card", 1)},
		want:  brief{Status: route.Approved, Approvals: 1, DecidedBy: []string{"olivia"}, Whys: []string{"counted"}},
	}, {
		name:  "a group counts once: two members fill one place",
		q:     route.Quorum{Required: 2, Eligible: []route.Approver{sre, {Principal: "carol"}}},
		votes: []route.Vote{approve("alice", "card", 1), approve("bob", "card", 2)},
		want:  brief{Status: route.Open, Approvals: 1, Whys: []string{"counted", "place filled"}},
	}, {
		name:  "a group and a principal: approved when both places are filled",
		q:     route.Quorum{Required: 2, Eligible: []route.Approver{sre, {Principal: "carol"}}},
		votes: []route.Vote{approve("alice", "card", 1), approve("bob", "card", 2), approve("carol", "card", 3)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "carol"}, Whys: []string{"counted", "place filled", "counted"}},
	}, {
		name:  "a member listed twice (alone and in the group) fills one place, and the places are reassigned",
		q:     route.Quorum{Required: 2, Eligible: []route.Approver{sre, {Principal: "alice"}}},
		votes: []route.Vote{approve("alice", "card", 1), approve("bob", "card", 2)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "a per-member group counts each member",
		q:     route.Quorum{Required: 2, Eligible: []route.Approver{sreEach}},
		votes: []route.Vote{approve("alice", "card", 1), approve("bob", "card", 2)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "for this session is remembered when the full quorum chose it",
		q:     two,
		votes: []route.Vote{approveSession("alice", "card", 1), approveSession("bob", "card", 2)},
		want:  brief{Status: route.Approved, Remember: true, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "for this session is not remembered when one approver chose once",
		q:     two,
		votes: []route.Vote{approveSession("alice", "card", 1), approve("bob", "card", 2)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name:  "a deny from someone not eligible is listed and does not veto",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{deny("mallory", "slack:#ops", 1), approve("alice", "card", 2)},
		want:  brief{Status: route.Approved, Approvals: 1, DecidedBy: []string{"alice"}, Whys: []string{"not eligible", "counted"}},
	}, {
		name:  "under veto: anyone, a deny from someone not eligible vetoes",
		q:     route.Quorum{Required: 1, Eligible: principals("alice"), Veto: route.VetoAnyone},
		votes: []route.Vote{deny("mallory", "slack:#ops", 1), approve("alice", "card", 2)},
		want:  brief{Status: route.Denied, DecidedBy: []string{"mallory"}, Whys: []string{"counted", "after the verdict"}},
	}, {
		name:  "an approval from someone not eligible does not count",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{approve("mallory", "card", 1)},
		want:  brief{Status: route.Open, Whys: []string{"not eligible"}},
	}, {
		name:  "an unverified vote does not count",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{approve("", "slack:#ops", 1)},
		want:  brief{Status: route.Open, Whys: []string{"unverified"}},
	}, {
		name:  "a vote at exactly the deadline: the deadline wins",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{approve("alice", "card", 100)},
		end:   deadline,
		want:  brief{Status: route.Unresolved, Ended: route.EndDeadline, Whys: []string{"after the end"}},
	}, {
		name:  "a full quorum before a fault: approved (the first ending wins)",
		q:     two,
		votes: []route.Vote{approve("alice", "card", 1), approve("bob", "card", 2)},
		end:   &route.Ending{How: route.EndFault, At: at(3)},
		want:  brief{Status: route.Approved, Approvals: 2, DecidedBy: []string{"alice", "bob"}, Whys: []string{"counted", "counted"}},
	}, {
		name: "nobody there: unresolved",
		q:    two,
		end:  &route.Ending{How: route.EndUnattended},
		want: brief{Status: route.Unresolved, Ended: route.EndUnattended},
	}, {
		name:  "superseded with one approval: unresolved, the approval listed",
		q:     two,
		votes: []route.Vote{approve("bob", "card", 1)},
		end:   &route.Ending{How: route.EndSuperseded, At: at(5)},
		want:  brief{Status: route.Unresolved, Ended: route.EndSuperseded, Approvals: 1, Whys: []string{"counted"}},
	}, {
		name:  "a deny for the session is remembered",
		q:     two,
		votes: []route.Vote{{Principal: "bob", Decision: route.Deny, At: at(1), Remember: true}},
		want:  brief{Status: route.Denied, Remember: true, DecidedBy: []string{"bob"}, Whys: []string{"counted"}},
	}, {
		name:  "a vote that is neither approve nor deny does not count",
		q:     route.Quorum{Required: 1, Eligible: principals("alice")},
		votes: []route.Vote{{Principal: "alice", Decision: "maybe", At: at(1)}},
		want:  brief{Status: route.Open, Whys: []string{"not a decision"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := route.Decide(tt.q, tt.p, tt.votes, tt.end)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, briefOf(v)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
			if len(v.Votes) != len(tt.votes) {
				t.Errorf("Decide listed %d votes, want all %d", len(v.Votes), len(tt.votes))
			}
		})
	}
}

// TestDecideRefusesABadQuorum: a quorum that does not pass Check decides
// nothing.
func TestDecideRefusesABadQuorum(t *testing.T) {
	for _, q := range []route.Quorum{
		{},
		{Required: 3, Eligible: principals("alice", "bob")},
		{Required: 1, Eligible: principals("alice"), Veto: "none"},
		{Required: 1, Eligible: principals("alice", "alice")},
		{Required: 1, Eligible: []route.Approver{{Group: "sre"}}},
	} {
		v, err := route.Decide(q, route.Parties{}, []route.Vote{approve("alice", "card", 1)}, nil)
		if err == nil || v.Status == route.Approved {
			t.Errorf("Decide(%+v) = %v, %v; want an error", q, v.Status, err)
		}
	}
}

func TestVerdictSummary(t *testing.T) {
	q := route.Quorum{Required: 2, Eligible: principals("alice", "bob")}
	v, err := route.Decide(q, route.Parties{}, []route.Vote{approve("alice", "slack:#ops", 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Summary(), "1 of 2 approved: alice via slack:#ops"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

// The generated outcome table: every combination, for M-of-N with N ≤ 3
// eligible principals, of each one's answer (none, approve, approve for
// the session, deny, or an approval at the very moment the ask ends), of
// the requester's own vote (none, approve, deny, or the requester listed
// among the eligible), of the ending (still open, deadline, fault, nobody
// there, supersede), and of the order of the votes — each checked against
// oracle, written independently of Decide.

type answer int

const (
	none answer = iota
	yes
	yesSession
	no
	lateYes
	answers
)

type requesterMode int

const (
	requesterSilent requesterMode = iota
	requesterApproves
	requesterDenies
	requesterEligible // e1 is the requester; e1's answer is the requester's
	requesterModes
)

var endings = []*route.Ending{
	nil,
	{How: route.EndDeadline, At: at(100)},
	{How: route.EndFault, At: at(100)},
	{How: route.EndUnattended, At: at(100)},
	{How: route.EndSuperseded, At: at(100)},
}

// oracle says what votes under an M-of-eligible quorum of plain principals
// must come to, from the definitions: the first eligible deny that counts,
// the first prefix in which M distinct eligible principals approved, and
// whichever of the two comes first.
func oracle(m int, eligible []string, requester string, votes []route.Vote, end *route.Ending) brief {
	valid := func(v route.Vote) bool {
		if end != nil && !end.At.IsZero() && !v.At.Before(end.At) {
			return false
		}
		return v.Principal != "" && v.Principal != requester && slices.Contains(eligible, v.Principal)
	}
	denyAt := -1
	for i, v := range votes {
		if valid(v) && v.Decision == route.Deny {
			denyAt = i
			break
		}
	}
	approvedIn := func(k int) []string { // distinct approvers in votes[:k], first approval order
		var set []string
		for _, v := range votes[:k] {
			if valid(v) && v.Decision == route.Approve && !slices.Contains(set, v.Principal) {
				set = append(set, v.Principal)
			}
		}
		return set
	}
	approveAt := -1
	for k := 1; k <= len(votes); k++ {
		if len(approvedIn(k)) >= m {
			approveAt = k - 1
			break
		}
	}
	switch {
	case denyAt >= 0 && (approveAt < 0 || denyAt < approveAt):
		return brief{Status: route.Denied, Remember: votes[denyAt].Remember, Approvals: len(approvedIn(denyAt)), DecidedBy: []string{votes[denyAt].Principal}}
	case approveAt >= 0:
		set := approvedIn(approveAt + 1)
		remember := true
		for _, p := range set {
			for _, v := range votes[:approveAt+1] {
				if valid(v) && v.Decision == route.Approve && v.Principal == p {
					remember = remember && v.Remember
					break
				}
			}
		}
		return brief{Status: route.Approved, Remember: remember, Approvals: len(set), DecidedBy: set}
	case end != nil:
		return brief{Status: route.Unresolved, Ended: end.How, Approvals: len(approvedIn(len(votes)))}
	}
	return brief{Status: route.Open, Approvals: len(approvedIn(len(votes)))}
}

func permutations(vs []route.Vote) [][]route.Vote {
	if len(vs) <= 1 {
		return [][]route.Vote{slices.Clone(vs)}
	}
	var out [][]route.Vote
	for i := range vs {
		rest := append(slices.Clone(vs[:i]), vs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]route.Vote{vs[i]}, p...))
		}
	}
	return out
}

func TestDecideOutcomeTable(t *testing.T) {
	rows, approved := 0, 0
	for n := 1; n <= 3; n++ {
		eligible := []string{"e1", "e2", "e3"}[:n]
		combos := 1
		for range n {
			combos *= int(answers)
		}
		for m := 1; m <= n; m++ {
			q := route.Quorum{Required: m, Eligible: principals(eligible...)}
			for c := range combos {
				for rm := range requesterModes {
					for _, end := range endings {
						votes, late := comboVotes(eligible, c, rm, end)
						for _, order := range permutations(votes) {
							order = append(order, late...)
							requester := "agent"
							if rm == requesterEligible {
								requester = "e1"
							}
							got, err := route.Decide(q, route.Parties{Requester: requester}, order, end)
							if err != nil {
								t.Fatal(err)
							}
							want := oracle(m, eligible, requester, order, end)
							b := briefOf(got)
							b.Whys = nil
							rows++
							if got.Status == route.Approved {
								approved++
							}
							if diff := cmp.Diff(want, b); diff != "" {
								t.Fatalf("%d of %v, requester %s, votes %s, ending %v (-oracle +Decide):\n%s", m, eligible, requester, show(order), end, diff)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d rows checked against the oracle, %d approved", rows, approved)
	if rows < 10000 || approved == 0 || approved == rows {
		t.Errorf("the table checked %d rows, %d approved: the generator is broken", rows, approved)
	}
}

// comboVotes makes the votes of combination c: the answers of eligible
// (base answers), and the requester's; late votes come last, at the
// ending's time.
func comboVotes(eligible []string, c int, rm requesterMode, end *route.Ending) (votes, late []route.Vote) {
	for i, p := range eligible {
		a := answer(c % int(answers))
		c /= int(answers)
		s := i + 1
		switch a {
		case yes:
			votes = append(votes, approve(p, "card", s))
		case yesSession:
			votes = append(votes, approveSession(p, "slack:#ops", s))
		case no:
			votes = append(votes, deny(p, "email", s))
		case lateYes:
			if end == nil {
				votes = append(votes, approve(p, "card", s))
			} else {
				late = append(late, route.Vote{Principal: p, Decision: route.Approve, Via: "card", At: end.At})
			}
		}
	}
	switch rm {
	case requesterApproves:
		votes = append(votes, approve("agent", "card", 9))
	case requesterDenies:
		votes = append(votes, deny("agent", "card", 9))
	}
	// Times follow the order the votes come in.
	return votes, late
}

func show(vs []route.Vote) string {
	var parts []string
	for _, v := range vs {
		s := v.Principal + ":" + string(v.Decision)
		if v.Remember {
			s += "(session)"
		}
		parts = append(parts, fmt.Sprintf("%s@%s", s, v.At.Sub(t0)))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
