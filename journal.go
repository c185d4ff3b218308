package askuser

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// recordVersion is the format version of the journal records written
// here (journal.RecordVersion).
const recordVersion = 3

// A record is one finalized ask, as the journal keeps it: the JSON of
// journal.Record, which keeps its members in step with this one (its
// tests check it). It holds no secret value: sealed answers appear as
// references only.
type record struct {
	Version    int    `json:"v"`
	AskID      string `json:"ask_id"`
	Session    string `json:"session"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Contract   string `json:"contract"`
	Responder  string `json:"responder"`
	Principal  string `json:"principal,omitempty"`
	// HumanIntent is the agent's one-line narration shown above the
	// questions (Form.HumanIntent), kept as it was given.
	HumanIntent string `json:"human_intent,omitempty"`
	// Approval is what an approval asked the person to permit (nil for
	// other asks); RememberedFrom names the ask whose remembered decision
	// decided it, where one did.
	Approval       *approval.Request `json:"approval,omitempty"`
	RememberedFrom string            `json:"remembered_from,omitempty"`
	Questions      []Question        `json:"questions"`
	Status         Status            `json:"status"`
	AnsweredBy     Provenance        `json:"answered_by"`
	Reason         Reason            `json:"reason"`
	// Answers carry each answer's provenance (By, Draft).
	Answers     []FinalAnswer `json:"answers"`
	CancelledOn string        `json:"cancelled_on,omitempty"`
	AskedAt     time.Time     `json:"asked_at"`
	ExpiresAt   time.Time     `json:"expires_at"`
	FinalizedAt time.Time     `json:"finalized_at"`
	// Result is what the model was given, in the contract's encoding;
	// absent when the caller went away.
	Result json.RawMessage `json:"result,omitempty"`
	// ContractRecord is what the contract keeps of the ask besides the
	// result (the pi contract's decision records), as its Dialect's Encode
	// returned it.
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
	// journal.CheckVotes checks that the status follows from them.
	Votes  []route.CountedVote `json:"votes,omitempty"`
	Quorum *recordQuorum       `json:"quorum,omitempty"`
}

// newRecord returns the journal record of a finalized outcome.
func newRecord(o *Outcome) *record {
	r := &record{
		Version:        recordVersion,
		AskID:          o.AskID,
		Session:        o.Session,
		ToolCallID:     o.ToolCallID,
		Responder:      o.Responder,
		Principal:      o.Principal,
		Status:         o.Status,
		AnsweredBy:     o.AnsweredBy,
		Reason:         o.Reason,
		Answers:        o.Answers,
		CancelledOn:    o.CancelledOn,
		RememberedFrom: o.RememberedFrom,
		FinalizedAt:    o.FinalizedAt,
		Result:         o.Result,
		ContractRecord: o.contractRecord,
	}
	if r.Answers == nil {
		r.Answers = []FinalAnswer{}
	}
	r.AnsweredVia, r.Step = o.AnsweredVia, o.Step
	if v := o.Quorum; v != nil && o.rt != nil && o.rt.Quorum != nil {
		r.Votes = v.Votes
		r.Quorum = &recordQuorum{Policy: *o.rt.Quorum, Requester: o.rt.Requester, Owner: o.rt.Owner, Required: v.Required, Approvals: v.Approvals}
	}
	if c := o.Form; c != nil {
		r.Contract = c.Contract
		r.HumanIntent = c.HumanIntent
		r.Approval = c.Approval
		r.Questions = c.Questions
		r.AskedAt = c.AskedAt
		r.ExpiresAt = c.ExpiresAt
	}
	return r
}

// stored returns the record as a journal is given it.
func (r *record) stored() (store.Record, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return store.Record{}, fmt.Errorf("askuser: encoding the journal record of ask %s: %w", r.AskID, err)
	}
	return store.Record{AskID: r.AskID, Session: r.Session, ToolCallID: r.ToolCallID, HasResult: r.Result != nil, Data: data}, nil
}

// decodeStored decodes a record a journal found.
func decodeStored(sr store.Record) (*record, error) {
	rec := new(record)
	if err := json.Unmarshal(sr.Data, rec); err != nil {
		return nil, fmt.Errorf("decoding the journal record of ask %s: %w", sr.AskID, err)
	}
	if rec.Version < 3 {
		// Before version 3 every answer named its "source"; a draft the
		// deadline kept was "draft".
		var old struct {
			Answers []struct {
				Source string `json:"source"`
			} `json:"answers"`
		}
		if err := json.Unmarshal(sr.Data, &old); err == nil {
			for i := range min(len(old.Answers), len(rec.Answers)) {
				rec.Answers[i].Draft = old.Answers[i].Source == "draft"
			}
		}
	}
	return rec, nil
}

// appendRec writes a record to the journal, containing a panicking
// journal.
func (o *Orchestrator) appendRec(ctx context.Context, rec store.Record) (err error) {
	if o.Journal == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("askuser: the journal panicked: %v", p)
		}
	}()
	return o.Journal.Append(ctx, rec)
}

// journalReplay finds a finalized tool call in the journal.
func (o *Orchestrator) journalReplay(ctx context.Context, session, toolCallID string) (*Outcome, bool) {
	f, ok := o.Journal.(store.ResultFinder)
	if !ok || toolCallID == "" {
		return nil, false
	}
	sr, found, err := f.FindResult(ctx, session, toolCallID)
	if err != nil {
		o.logger().Error("askuser: looking up a tool call in the journal failed", "session", session, "tool_call", toolCallID, "err", err)
		return nil, false
	}
	if !found {
		return nil, false
	}
	rec, err := decodeStored(sr)
	if err != nil {
		o.logger().Error("askuser: a tool call's journal record is not one this version reads; it is not replayed", "session", session, "tool_call", toolCallID, "err", err)
		return nil, false
	}
	if rec.Result == nil {
		return nil, false
	}
	return outcomeFromRecord(rec, true), true
}
