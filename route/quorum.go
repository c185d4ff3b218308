package route

import (
	"fmt"
	"strings"
	"time"
)

// A Quorum is the policy that decides an approval asked of several
// people: Required of the Eligible approvers must approve, and a deny by
// any of them ends the request denied (a veto). Decide applies it.
//
// Who counts is a verified principal — the identity the program has
// checked behind a channel (a Slack user, an email sender, a signed-in
// card), never the channel's own handle — so the same person voting on
// Slack and by email counts once. A group counts as one approver (any one
// member's approval fills it) unless it says PerMember. The requester, and
// the session's owner when ExcludeOwner is set, can never approve,
// whatever Eligible says.
//
// The policy can only be made stricter than the default: there is no way
// to let approvals outvote a deny, or to count a principal twice.
type Quorum struct {
	// Required is how many approvers must approve: 1 to the number of
	// approver places Eligible gives (a principal or a group is one
	// place; a PerMember group one per member).
	Required int `json:"required"`
	// Eligible are the approvers whose votes count.
	Eligible []Approver `json:"eligible"`
	// Veto says whose deny ends the request denied: VetoEligible (the
	// default, and the zero value) or VetoAnyone.
	Veto Veto `json:"veto,omitempty"`
	// ExcludeOwner, when set, forbids the session's owner (Parties.Owner)
	// to approve, as the requester never may: for a two-person rule where
	// the person who started the agent is not one of the two.
	ExcludeOwner bool `json:"exclude_owner,omitempty"`
}

// An Approver is a place in a quorum: one principal, or a group.
type Approver struct {
	// Principal is a verified principal ("alice@example.com"). Exactly
	// one of Principal and Group is set.
	Principal string `json:"principal,omitempty"`
	// Group names a group ("sre"). Its Members are snapshotted with the
	// policy, so a change to the group does not change a pending ask, and
	// changes the action digest of the next.
	Group string `json:"group,omitempty"`
	// Members are the group's verified principals.
	Members []string `json:"members,omitempty"`
	// PerMember, on a group, counts every member as an approver of their
	// own; otherwise the group counts once, whichever member approves.
	PerMember bool `json:"per_member,omitempty"`
}

// A Veto says whose deny ends a request denied.
type Veto string

// The vetoes, from the default to the strictest.
const (
	// VetoEligible: a deny by any eligible approver ends the request
	// denied; a deny by anyone else is listed and does not count. The
	// zero Veto means the same.
	VetoEligible Veto = "eligible"
	// VetoAnyone: a deny by any verified principal who votes, eligible or
	// not (except the requester and an excluded owner, whose votes never
	// count), ends the request denied.
	VetoAnyone Veto = "anyone"
)

// MaxEligible is the most approvers a quorum may list, and the most
// members a group may have.
const MaxEligible = 64

// Check reports the first thing wrong with q, naming the field; nil when
// Decide can use it.
func (q Quorum) Check() error {
	if len(q.Eligible) == 0 {
		return fmt.Errorf("eligible: a quorum needs at least one eligible principal or group")
	}
	if len(q.Eligible) > MaxEligible {
		return fmt.Errorf("eligible: at most %d approvers, not %d", MaxEligible, len(q.Eligible))
	}
	seen := map[string]bool{}
	for i, a := range q.Eligible {
		at := fmt.Sprintf("eligible[%d]", i)
		key, err := a.check()
		if err != nil {
			return fmt.Errorf("%s: %v", at, err)
		}
		if seen[key] {
			return fmt.Errorf("%s: %s is listed twice; list each approver once", at, key)
		}
		seen[key] = true
	}
	switch q.Veto {
	case "", VetoEligible, VetoAnyone:
	default:
		return fmt.Errorf("veto: %q is not allowed; allowed: eligible (the default: a deny by any eligible approver ends the request denied) or anyone (stricter: a deny by anyone who votes); a deny can never be outvoted", string(q.Veto))
	}
	places := len(q.places())
	if q.Required < 1 || q.Required > places {
		return fmt.Errorf("required: must be between 1 and %d (the approver places eligible gives: a principal or a group counts once, a per_member group once per member), not %d", places, q.Required)
	}
	return nil
}

func (a Approver) check() (key string, err error) {
	switch {
	case a.Principal != "" && a.Group != "":
		return "", fmt.Errorf("an approver is a principal or a group, not both")
	case a.Principal != "":
		if len(a.Members) > 0 || a.PerMember {
			return "", fmt.Errorf("members and per_member belong to a group, not to principal %q", a.Principal)
		}
		return a.Principal, checkPrincipal(a.Principal)
	case a.Group == "":
		return "", fmt.Errorf("an approver needs a principal or a group")
	case !isToken(a.Group):
		return "", fmt.Errorf("group %q: a group name must be 1-64 lowercase letters, digits, '-' or '_'", a.Group)
	case len(a.Members) == 0:
		return "", fmt.Errorf("group %s has no members; a group that nobody is in can never approve", a.Group)
	case len(a.Members) > MaxEligible:
		return "", fmt.Errorf("group %s: at most %d members, not %d", a.Group, MaxEligible, len(a.Members))
	}
	seen := map[string]bool{}
	for j, m := range a.Members {
		if err := checkPrincipal(m); err != nil {
			return "", fmt.Errorf("group %s member %d: %v", a.Group, j+1, err)
		}
		if seen[m] {
			return "", fmt.Errorf("group %s lists %s twice", a.Group, m)
		}
		seen[m] = true
	}
	return "group:" + a.Group, nil
}

// places lists the approver places: each is the set of principals that
// may fill it. A principal fills at most one place, and a place holds one
// principal.
func (q Quorum) places() [][]string {
	var out [][]string
	for _, a := range q.Eligible {
		switch {
		case a.Principal != "":
			out = append(out, []string{a.Principal})
		case a.PerMember:
			for _, m := range a.Members {
				out = append(out, []string{m})
			}
		default:
			out = append(out, a.Members)
		}
	}
	return out
}

// eligible reports whether p fills any place of q.
func (q Quorum) eligible(p string) bool {
	for _, pl := range q.places() {
		for _, m := range pl {
			if m == p {
				return true
			}
		}
	}
	return false
}

// A Decision is what a vote says.
type Decision string

// The decisions of a vote.
const (
	Approve Decision = "approve"
	Deny    Decision = "deny"
)

// A Vote is one person's decision on an approval, as a responder reported
// it and the program verified who it was.
type Vote struct {
	// Principal is the verified principal who voted; empty when the
	// program could not verify who it was (such a vote is listed and never
	// counts). Principals are compared exactly: the program canonicalizes
	// them (one spelling per person) before they reach a vote.
	Principal string `json:"principal"`
	// Decision is Approve or Deny.
	Decision Decision `json:"decision"`
	// Via names the channel the vote came by ("slack:#ops", "card").
	Via string `json:"via,omitempty"`
	// At is when the vote was accepted.
	At time.Time `json:"at"`
	// Remember is set when the person chose "for this session".
	Remember bool `json:"remember,omitempty"`
	// Note is the person's words with the vote.
	Note string `json:"note,omitempty"`
}

// Parties are who may never approve a request: the requester (the agent's
// principal) always, and the session's owner when the quorum says
// ExcludeOwner.
type Parties struct {
	Requester string
	Owner     string
}

// Approvers say who decides an approval a program asks
// (askuser.Request.Approvers): the policy, and who may never approve.
type Approvers struct {
	// Quorum is the policy that decides the approval — Required of the
	// Eligible approvers, a deny a veto — replacing the quorum of the
	// route the orchestrator chose (nil: the route's). The policy is
	// bound into the approval's digest (ActionDigest), so a decision
	// remembered under another policy does not decide it. It is checked
	// (Quorum.Check) when the ask begins; a policy that fails refuses the
	// ask with an error.
	Quorum *Quorum
	// Requester is the verified principal the agent acts as: it never
	// approves its own request, whatever the quorum lists.
	Requester string
	// Owner is the session's owner (the person who started the agent),
	// who may not approve either where the quorum says ExcludeOwner.
	Owner string
}

// An EndKind is how an ask ended without its votes deciding it. The
// values are those of request_approval's "ended" field.
type EndKind string

// How an ask may end without its votes.
const (
	EndDeadline   EndKind = "deadline"
	EndFault      EndKind = "fault"
	EndUnattended EndKind = "unattended" // nobody could be asked
	EndSuperseded EndKind = "superseded"
	EndDismissed  EndKind = "dismissed"
)

// An Ending is how and when an ask ended, when it ended otherwise than by
// its votes.
type Ending struct {
	How EndKind
	// At is when it ended: a vote at or after At does not count (at
	// exactly the deadline, the deadline wins). Zero: every vote came
	// before the end.
	At time.Time
}

// A Status is the aggregate verdict on an approval.
type Status string

// The statuses Decide returns.
const (
	// Approved: Required distinct eligible principals approved, with no
	// veto before.
	Approved Status = "approved"
	// Denied: a veto came before the quorum was full.
	Denied Status = "denied"
	// Unresolved: the ask ended (deadline, fault, nobody there,
	// supersede, dismissal) before the votes decided it.
	Unresolved Status = "unresolved"
	// Open: the votes have not decided it and the ask has not ended; the
	// waiter waits for the next vote.
	Open Status = "open"
)

// Why a vote counted or not, as CountedVote.Why says.
const (
	WhyCounted      = "counted"           // filled an approver place, or vetoed
	WhyRequester    = "requester"         // the requester's own vote
	WhyOwner        = "owner"             // the session's owner, excluded by the quorum
	WhyUnverified   = "unverified"        // no verified principal
	WhyNotEligible  = "not eligible"      // not one of the eligible approvers
	WhyRepeated     = "repeated"          // this principal already approved
	WhyPlaceFilled  = "place filled"      // eligible, but every place it could fill is taken (a group counts once)
	WhyAfterEnd     = "after the end"     // at or after the ending
	WhyAfterVerdict = "after the verdict" // after the votes had decided it
	WhyBadDecision  = "not a decision"    // neither approve nor deny
)

// A CountedVote is a vote and whether it counted.
type CountedVote struct {
	Vote
	Counted bool   `json:"counted"`
	Why     string `json:"why"`
}

// A Verdict is what the votes on an approval add up to.
type Verdict struct {
	Status Status `json:"status"`
	// Ended is how the ask ended, for Unresolved; empty otherwise.
	Ended EndKind `json:"ended,omitempty"`
	// Remember is set on Approved when every approver counted in the
	// full quorum chose "for this session", and on Denied when the veto
	// did: only then may the decision be remembered.
	Remember bool `json:"remember,omitempty"`
	// Approvals is how many approver places were filled when the verdict
	// was reached (or the ask ended); Required is the quorum's.
	Approvals int `json:"approvals"`
	Required  int `json:"required"`
	// DecidedBy are the principals whose votes decided: the approvers
	// counted in the full quorum, or the one who vetoed. Empty otherwise.
	DecidedBy []string `json:"decided_by,omitempty"`
	// Votes are every vote given, in order, each with whether it counted.
	Votes []CountedVote `json:"votes"`
}

// Decide adds up votes on an approval under quorum q, for a request by
// p.Requester: it is the one place that says whether a quorum approved.
// The orchestrator calls it on every vote (and on the ending), with every
// vote accepted so far in the order they came; it is pure, so every
// replica and every restart computes the same verdict from the same
// record.
//
// The votes are taken in order, and the first that decides is the
// verdict; the later ones are listed as WhyAfterVerdict. A vote counts
// only if it has a verified principal who is not the requester (nor the
// owner, under ExcludeOwner), and came before end.At. Then:
//   - a deny by an eligible principal (by anyone, under VetoAnyone) ends it
//     Denied, even after that principal approved: a veto, which approvals
//     never outvote;
//   - an approval by an eligible principal fills one approver place, if
//     one it may fill is free: a principal fills at most one place (the
//     same person via Slack and email counts once), and a group that is
//     not PerMember is one place, filled by whichever member approves
//     first. The places are assigned so that as many as possible are
//     filled; when Required are, it is Approved.
//
// When the votes have not decided and end is nil, the verdict is Open;
// when end is set, Unresolved with end.How: a deadline, a fault, nobody
// there, a supersede or a dismissal never approves, and a partial quorum
// is listed in the votes. A "for this session" choice is remembered only
// when every approver of the full quorum chose it (see
// Verdict.Remember). Decide returns an error only when q does not pass
// Check.
func Decide(q Quorum, p Parties, votes []Vote, end *Ending) (Verdict, error) {
	if err := q.Check(); err != nil {
		return Verdict{}, fmt.Errorf("route: the quorum cannot decide: %w", err)
	}
	places := q.places()
	v := Verdict{Status: Open, Required: q.Required, Votes: make([]CountedVote, 0, len(votes))}
	var approvers []Vote // the first approval of each principal, in order
	approved := map[string]bool{}
	for _, vote := range votes {
		cv := CountedVote{Vote: vote}
		cv.Why = v.count(q, p, vote, end, approved)
		if cv.Why == WhyCounted && vote.Decision == Approve {
			approvers = append(approvers, vote)
			approved[vote.Principal] = true
			filled := fill(places, approvers)
			if len(filled) == v.Approvals {
				cv.Why = WhyPlaceFilled
			}
			v.Approvals = len(filled)
			if v.Approvals >= q.Required {
				v.Status = Approved
				v.DecidedBy = filled
				v.Remember = len(fill(places, remembering(approvers))) >= q.Required
			}
		} else if cv.Why == WhyCounted {
			v.Status = Denied
			v.DecidedBy = []string{vote.Principal}
			v.Remember = vote.Remember
		}
		cv.Counted = cv.Why == WhyCounted
		v.Votes = append(v.Votes, cv)
	}
	if v.Status == Open && end != nil {
		v.Status = Unresolved
		v.Ended = end.How
	}
	return v, nil
}

// count says whether vote counts now, and why not.
func (v *Verdict) count(q Quorum, p Parties, vote Vote, end *Ending, approved map[string]bool) string {
	switch {
	case v.Status != Open:
		return WhyAfterVerdict
	case end != nil && !end.At.IsZero() && !vote.At.Before(end.At):
		return WhyAfterEnd
	case vote.Principal == "":
		return WhyUnverified
	case vote.Principal == p.Requester:
		return WhyRequester
	case q.ExcludeOwner && p.Owner != "" && vote.Principal == p.Owner:
		return WhyOwner
	case vote.Decision == Deny:
		if q.Veto == VetoAnyone || q.eligible(vote.Principal) {
			return WhyCounted
		}
		return WhyNotEligible
	case vote.Decision != Approve:
		return WhyBadDecision
	case !q.eligible(vote.Principal):
		return WhyNotEligible
	case approved[vote.Principal]:
		return WhyRepeated
	}
	return WhyCounted
}

func remembering(vs []Vote) []Vote {
	var out []Vote
	for _, v := range vs {
		if v.Remember {
			out = append(out, v)
		}
	}
	return out
}

// fill assigns approvers to places so that as many places as possible are
// filled (a bipartite matching, by augmenting paths), and returns the
// principals placed, in the order they approved.
func fill(places [][]string, approvers []Vote) []string {
	holder := make([]int, len(places)) // approver index + 1 per place; 0 free
	var try func(a int, seen []bool) bool
	try = func(a int, seen []bool) bool {
		for pl, members := range places {
			if seen[pl] || !contains(members, approvers[a].Principal) {
				continue
			}
			seen[pl] = true
			if holder[pl] == 0 || try(holder[pl]-1, seen) {
				holder[pl] = a + 1
				return true
			}
		}
		return false
	}
	placed := make([]bool, len(approvers))
	for a := range approvers {
		placed[a] = try(a, make([]bool, len(places)))
	}
	var out []string
	for a, ok := range placed {
		if ok {
			out = append(out, approvers[a].Principal)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Summary says the verdict in one line for the people asked and the
// journal: "1 of 2 approved: alice via slack:#ops". Principals and
// channels are the program's verified names, not model text.
func (v Verdict) Summary() string {
	var b strings.Builder
	switch v.Status {
	case Approved:
		fmt.Fprintf(&b, "approved, %d of %d", v.Approvals, v.Required)
	case Denied:
		fmt.Fprintf(&b, "denied by %s", strings.Join(v.DecidedBy, ""))
	case Unresolved:
		fmt.Fprintf(&b, "unresolved (%s), %d of %d approved", v.Ended, v.Approvals, v.Required)
	default:
		fmt.Fprintf(&b, "%d of %d approved", v.Approvals, v.Required)
	}
	sep := ": "
	for _, cv := range v.Votes {
		if !cv.Counted || cv.Decision != Approve {
			continue
		}
		b.WriteString(sep)
		b.WriteString(cv.Principal)
		if cv.Via != "" {
			b.WriteString(" via ")
			b.WriteString(cv.Via)
		}
		sep = ", "
	}
	return b.String()
}
