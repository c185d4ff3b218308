package route

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"

	"github.com/askuser-go/askuser/internal/canonjson"
)

// ActionDigest binds an approval to the action, its details and the
// quorum policy that decides it, so that a decision remembered for the
// session covers exactly what was shown under exactly that policy:
// changing who may approve (an approver, a group's members, Required,
// Veto, ExcludeOwner) asks again.
//
// With q nil it is approval.Digest(action, details): the SHA-256
// of the JSON array [action, details], so requests without a quorum keep
// the digests (and the remembered decisions) they have today. With a
// policy, it is
//
//	"sha256:" + lowercase hex of SHA-256( JSON array [action, details, policy] )
//
// where policy is the object
//
//	{"required":M,"veto":"eligible"|"anyone","exclude_owner":true|false,"eligible":[...]}
//
// in that key order, Veto written out ("eligible" for the zero value),
// and eligible sorted and de-duplicated so that the order of a list never
// matters: principals first as {"principal":P}, sorted by P; then groups
// as {"group":G,"per_member":true|false,"members":[...]}, sorted by G,
// members sorted. Every string is written as approval.Digest writes
// its strings (UTF-8; only '"', '\', and the control characters below
// U+0020 escaped), without white space.
//
// The integration computes it where approval.Digest is computed
// today, once the route (and so the policy) of the request is known, and
// puts it on the approval in its place: in the result's action_digest,
// the consent looked up and stored, and the journal.
func ActionDigest(action, details string, q *Quorum) string {
	b := make([]byte, 0, len(action)+len(details)+64)
	b = append(b, '[')
	b = canonjson.AppendString(b, action)
	b = append(b, ',')
	b = canonjson.AppendString(b, details)
	if q != nil {
		b = append(b, ',')
		b = appendPolicy(b, *q)
	}
	b = append(b, ']')
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// appendPolicy appends q's canonical JSON, as ActionDigest documents it.
func appendPolicy(b []byte, q Quorum) []byte {
	veto := q.Veto
	if veto == "" {
		veto = VetoEligible
	}
	b = append(b, `{"required":`...)
	b = strconv.AppendInt(b, int64(q.Required), 10)
	b = append(b, `,"veto":`...)
	b = canonjson.AppendString(b, string(veto))
	b = append(b, `,"exclude_owner":`...)
	b = strconv.AppendBool(b, q.ExcludeOwner)
	b = append(b, `,"eligible":[`...)
	var principals []string
	var groups []Approver
	for _, a := range q.Eligible {
		if a.Group == "" {
			principals = append(principals, a.Principal)
			continue
		}
		a.Members = slices.Compact(slices.Sorted(slices.Values(a.Members)))
		groups = append(groups, a)
	}
	slices.Sort(principals)
	principals = slices.Compact(principals)
	slices.SortFunc(groups, func(x, y Approver) int {
		switch {
		case x.Group < y.Group:
			return -1
		case x.Group > y.Group:
			return 1
		}
		return 0
	})
	sep := false
	for _, p := range principals {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, `{"principal":`...)
		b = canonjson.AppendString(b, p)
		b = append(b, '}')
	}
	for i, g := range groups {
		if i > 0 && g.Group == groups[i-1].Group {
			continue // Check refuses a group listed twice; the digest never depends on it
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, `{"group":`...)
		b = canonjson.AppendString(b, g.Group)
		b = append(b, `,"per_member":`...)
		b = strconv.AppendBool(b, g.PerMember)
		b = append(b, `,"members":[`...)
		for j, m := range g.Members {
			if j > 0 {
				b = append(b, ',')
			}
			b = canonjson.AppendString(b, m)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}
