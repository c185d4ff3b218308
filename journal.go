package askuser

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/route"
)

// RecordVersion is the format version of journal records. Version 2 names
// the ask "ask_id" (version 1 wrote "call_id") and keeps a contract's own
// data in "contract_record" (version 1: "decisions"); the journal package
// reads both, a version 1 record as version 2.
const RecordVersion = 2

// A Journal keeps one durable record per finalized ask. The
// orchestrator calls Append once per ask, after the ask is final — never
// for a provisional answer, never for an ask replayed by tool-call id — and
// again, with the same record, only after an Append that failed. Append
// returns once the record is durable (or has failed); an implementation
// bounds that wait. In memory, the record is written before Handle
// returns, and a failed Append is reported on Outcome.JournalErr. With a
// shared store (Orchestrator.Asks), the final result stored in the ask's
// entry is the record's outbox: Handle returns once it is stored, and the
// record follows. Either way a failed Append is logged and written again
// until the journal takes it, never dropped in silence; a journal shared
// by replicas should keep one record per ask id, as natsstore's does.
//
// A Journal that also implements ResultFinder lets the orchestrator replay
// a finalized tool call across restarts.
type Journal interface {
	Append(ctx context.Context, rec *Record) error
}

// A ResultFinder finds the record of a finalized tool call, for replay.
type ResultFinder interface {
	// FindResult returns the record of the session's tool call, or
	// ok=false when there is none.
	FindResult(ctx context.Context, session, toolCallID string) (rec *Record, ok bool, err error)
}

// A Record is one finalized ask, as the journal keeps it. It holds no secret
// value: sealed answers appear as references only.
type Record struct {
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
	// Answers carry each answer's provenance (By, Source).
	Answers     []FinalAnswer `json:"answers"`
	CancelledOn string        `json:"cancelled_on,omitempty"`
	AskedAt     time.Time     `json:"asked_at"`
	ExpiresAt   time.Time     `json:"expires_at"`
	FinalizedAt time.Time     `json:"finalized_at"`
	// Result is what the model was given, in the contract's encoding;
	// absent when the caller went away.
	Result json.RawMessage `json:"result,omitempty"`
	// ContractRecord is what the contract keeps of the ask besides the
	// result (the pi contract's decision records): Outcome.ContractRecord.
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
	// CheckRecordVotes checks that the status follows from them.
	Votes  []route.CountedVote `json:"votes,omitempty"`
	Quorum *RecordQuorum       `json:"quorum,omitempty"`
	// Auth authenticates the record, where the journal was given a key
	// ring: nil in a journal written without one. A journal writes it
	// itself, last on the record's line; what Append is given here is
	// ignored. See package journal, "Authentication".
	Auth *RecordAuth `json:"auth,omitempty"`
}

// RecordAuth authenticates one journal record (or one remembered
// consent): an HMAC-SHA-256 of the record's line, under a key derived
// from the key ring (secretstore.KeyRing.DeriveWith), and the place of the
// record in its chain, so that a record added, changed, moved or removed
// is found by whoever holds the key.
type RecordAuth struct {
	// Key is the id of the ring's key the MAC was made with, so that a
	// record made before a rotation is checked with the key it was made
	// with.
	Key string `json:"key"`
	// Writer names the chain of a journal with several writers and no
	// common order (natsstore: one chain per replica); empty in a file,
	// whose records form one chain.
	Writer string `json:"writer,omitempty"`
	// Seq is the record's place in its chain, from 1.
	Seq uint64 `json:"seq"`
	// Prev is the MAC of the record before it in its chain (base64url,
	// unpadded); empty for the first record of the first file.
	Prev string `json:"prev,omitempty"`
	// MAC is the record's HMAC-SHA-256 (base64url, unpadded).
	MAC string `json:"mac"`
}

// newRecord returns the journal record of a finalized outcome.
func newRecord(o *Outcome) *Record {
	r := &Record{
		Version:        RecordVersion,
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
		ContractRecord: o.ContractRecord,
	}
	if r.Answers == nil {
		r.Answers = []FinalAnswer{}
	}
	r.AnsweredVia, r.Step = o.AnsweredVia, o.Step
	if v := o.Quorum; v != nil && o.rt != nil && o.rt.Quorum != nil {
		r.Votes = v.Votes
		r.Quorum = &RecordQuorum{Policy: *o.rt.Quorum, Requester: o.rt.Requester, Owner: o.rt.Owner, Required: v.Required, Approvals: v.Approvals}
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

// appendRec writes a record to the journal, containing a panicking
// journal.
func (o *Orchestrator) appendRec(ctx context.Context, rec *Record) (err error) {
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
	f, ok := o.Journal.(ResultFinder)
	if !ok || toolCallID == "" {
		return nil, false
	}
	rec, found, err := f.FindResult(ctx, session, toolCallID)
	if err != nil {
		o.logger().Error("askuser: looking up a tool call in the journal failed", "session", session, "tool_call", toolCallID, "err", err)
		return nil, false
	}
	if !found || rec.Result == nil {
		return nil, false
	}
	return outcomeFromRecord(rec, true), true
}
