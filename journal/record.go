package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// RecordVersion is the format version of journal records. Version 3 marks
// an answer the deadline kept from a draft with "draft": true (versions 1
// and 2 gave every answer a "source", "draft" among them). Version 2 names
// the ask "ask_id" (version 1 wrote "call_id") and keeps a contract's own
// data in "contract_record" (version 1: "decisions"). This package reads
// all three, an older record as the current version.
const RecordVersion = 3

// A Record is one finalized ask, as the journal keeps it: the JSON object
// an orchestrator hands a store.Journal (store.Record.Data), decoded. It
// holds no secret value: sealed answers appear as references only.
type Record struct {
	Version    int    `json:"v"`
	AskID      string `json:"ask_id"`
	Session    string `json:"session"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Contract   string `json:"contract"`
	Responder  string `json:"responder"`
	Principal  string `json:"principal,omitempty"`
	// HumanIntent is the agent's one-line narration shown above the
	// questions (askuser.Form.HumanIntent), kept as it was given.
	HumanIntent string `json:"human_intent,omitempty"`
	// Approval is what an approval asked the person to permit (nil for
	// other asks); RememberedFrom names the ask whose remembered decision
	// decided it, where one did.
	Approval       *approval.Request  `json:"approval,omitempty"`
	RememberedFrom string             `json:"remembered_from,omitempty"`
	Questions      []askuser.Question `json:"questions"`
	Status         askuser.Status     `json:"status"`
	AnsweredBy     askuser.Provenance `json:"answered_by"`
	Reason         askuser.Reason     `json:"reason"`
	// Answers carry each answer's provenance (By, Draft).
	Answers     []askuser.FinalAnswer `json:"answers"`
	CancelledOn string                `json:"cancelled_on,omitempty"`
	AskedAt     time.Time             `json:"asked_at"`
	ExpiresAt   time.Time             `json:"expires_at"`
	FinalizedAt time.Time             `json:"finalized_at"`
	// Result is what the model was given, in the contract's encoding;
	// absent when the caller went away.
	Result json.RawMessage `json:"result,omitempty"`
	// ContractRecord is what the contract keeps of the ask besides the
	// result (the pi contract's decision records), as the ask's Dialect's
	// Encode returned it.
	ContractRecord json.RawMessage `json:"contract_record,omitempty"`
	// AnsweredVia is, for a routed ask, the channel the answer came by,
	// or for an approval decided by votes the channel of the vote that
	// decided; absent otherwise. AnsweredBy keeps its meaning.
	AnsweredVia string `json:"answered_via,omitempty"`
	// Step is, for an ask that took a route, the step (and pass) that had
	// begun when it ended, and when that step began.
	Step *route.Begin `json:"step,omitempty"`
	// Votes are, for an approval decided by votes, every vote in the
	// order it came — principal, decision, channel, time — with whether
	// it counted and why; Quorum is the policy they were counted under.
	// CheckVotes checks that the status follows from them.
	Votes  []route.CountedVote `json:"votes,omitempty"`
	Quorum *RecordQuorum       `json:"quorum,omitempty"`
	// Auth authenticates the record, where the journal was given a key
	// ring: nil in a journal written without one. A journal writes it
	// itself, last on the record's line. See "Authentication".
	Auth *store.RecordAuth `json:"auth,omitempty"`
}

// A RecordQuorum is what a journal record keeps of the policy that decided
// an approval by votes: the policy itself and who could never approve, so
// that the verdict can be computed again from the record's votes
// (CheckVotes), and the tally.
type RecordQuorum struct {
	// Policy is the quorum, its groups expanded.
	Policy route.Quorum `json:"policy"`
	// Requester and Owner are the parties who could never approve.
	Requester string `json:"requester,omitempty"`
	Owner     string `json:"owner,omitempty"`
	// Required is how many approver places the policy needs; Approvals
	// how many were filled.
	Required  int `json:"required"`
	Approvals int `json:"approvals"`
}

// Decode decodes one record: a JSON object of a format version this
// package reads (1 to RecordVersion; an older record is returned as the
// current version), as a journal's line or a store.Record's Data holds it. The
// error says what is wrong.
func Decode(data []byte) (*Record, error) {
	rec := new(Record)
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("not a journal record: %w", err)
	}
	switch {
	case rec.Version == 0:
		return nil, errors.New(`not a journal record: it has no format version ("v")`)
	case rec.Version < 0 || rec.Version > RecordVersion:
		return nil, fmt.Errorf("record format version %d is not one this reader knows (1 to %d)", rec.Version, RecordVersion)
	}
	if rec.Version < 3 {
		// Before version 3 every answer named its "source"; a draft the
		// deadline kept was "draft".
		var old struct {
			CallID    string          `json:"call_id"`
			Decisions json.RawMessage `json:"decisions"`
			Answers   []struct {
				Source string `json:"source"`
			} `json:"answers"`
		}
		if err := json.Unmarshal(data, &old); err != nil {
			return nil, fmt.Errorf("not a journal record: %w", err)
		}
		if rec.Version == 1 {
			// The first format named the ask call_id and a contract's
			// own records decisions.
			rec.AskID, rec.ContractRecord = old.CallID, old.Decisions
		}
		for i := range min(len(old.Answers), len(rec.Answers)) {
			rec.Answers[i].Draft = old.Answers[i].Source == "draft"
		}
		rec.Version = RecordVersion
	}
	return rec, nil
}

// Stored returns the record as a store.Journal is given it, without its
// Auth (a journal writes that itself): for a tool that copies records from
// one journal to another.
func (r *Record) Stored() (store.Record, error) {
	v := r
	if r.Auth != nil {
		cp := *r
		cp.Auth = nil
		v = &cp
	}
	data, err := json.Marshal(v)
	if err != nil {
		return store.Record{}, fmt.Errorf("journal: encoding the record of ask %s: %w", r.AskID, err)
	}
	return store.Record{AskID: r.AskID, Session: r.Session, ToolCallID: r.ToolCallID, HasResult: r.Result != nil, Data: data}, nil
}

// CheckVotes checks that a journal record's verdict follows from its
// votes: that route.Decide on the record's policy and votes gives the
// status its result says, the tally its quorum says, and the same counted
// votes. A record without a quorum passes. The error says what does not
// follow.
func CheckVotes(rec *Record) error {
	if rec == nil || rec.Quorum == nil {
		return nil
	}
	votes := make([]route.Vote, len(rec.Votes))
	for i, cv := range rec.Votes {
		votes[i] = cv.Vote
	}
	v, err := route.Decide(rec.Quorum.Policy, route.Parties{Requester: rec.Quorum.Requester, Owner: rec.Quorum.Owner}, votes, endingOf(rec.Reason, rec.ExpiresAt))
	if err != nil {
		return fmt.Errorf("its quorum cannot decide: %w", err)
	}
	decisive := v.Status == route.Approved || v.Status == route.Denied
	if rec.Reason == askuser.ReasonSubmitted && !decisive {
		return fmt.Errorf("it says the votes decided, but its votes add up to %s", v.Summary())
	}
	status := approval.Unresolved
	switch v.Status {
	case route.Approved:
		status = approval.Approved
	case route.Denied:
		status = approval.Denied
	}
	if got := resultStatus(rec.Result); got != "" && got != status {
		return fmt.Errorf("its result says %s, but its votes add up to %s", got, v.Summary())
	}
	if rec.Quorum.Approvals != v.Approvals || rec.Quorum.Required != v.Required {
		return fmt.Errorf("its quorum says %d of %d approved, but its votes add up to %d of %d", rec.Quorum.Approvals, rec.Quorum.Required, v.Approvals, v.Required)
	}
	if len(rec.Votes) != len(v.Votes) {
		return fmt.Errorf("it lists %d votes, but %d were decided on", len(rec.Votes), len(v.Votes))
	}
	for i := range v.Votes {
		if rec.Votes[i].Counted != v.Votes[i].Counted || rec.Votes[i].Why != v.Votes[i].Why {
			return fmt.Errorf("vote %d (%s) is listed as %q, but it is %q", i+1, rec.Votes[i].Principal, rec.Votes[i].Why, v.Votes[i].Why)
		}
	}
	return nil
}

// endingOf is how an ask that ended for reason r ended, for route.Decide:
// nil for an ask the votes decided.
func endingOf(r askuser.Reason, expires time.Time) *route.Ending {
	switch r {
	case askuser.ReasonSubmitted:
		return nil
	case askuser.ReasonDeadline:
		return &route.Ending{How: route.EndDeadline, At: expires}
	case askuser.ReasonUnattended:
		return &route.Ending{How: route.EndUnattended}
	case askuser.ReasonSuperseded:
		return &route.Ending{How: route.EndSuperseded}
	case askuser.ReasonDismissed:
		return &route.Ending{How: route.EndDismissed}
	}
	return &route.Ending{How: route.EndFault}
}

// resultStatus reads the "status" of an approval's result; "" when it has
// none.
func resultStatus(res []byte) string {
	var r struct {
		Status string `json:"status"`
	}
	if len(res) == 0 || json.Unmarshal(res, &r) != nil {
		return ""
	}
	return r.Status
}
