package store

import (
	"context"
	"encoding/json"
)

// A Journal keeps one durable record per finalized ask. The orchestrator
// calls Append once per ask, after the ask is final — never for a
// provisional answer, never for an ask replayed by tool-call id — and
// again, with the same record, only after an Append that failed. Append
// returns once the record is durable (or has failed); an implementation
// bounds that wait. In memory, the record is written before the call that
// finalized the ask returns, and a failed Append is reported on the
// outcome (askuser.Outcome.JournalErr). With a shared Pending store, the
// final result stored in the ask's entry is the record's outbox: the call
// returns once it is stored, and the record follows. Either way a failed
// Append is logged and written again until the journal takes it, never
// dropped in silence; a journal shared by replicas should keep one record
// per ask id, as natsstore's does.
//
// Package journal keeps records in a file, and describes their fields
// (journal.Record); natsstore keeps them in a JetStream stream.
//
// A Journal that also implements ResultFinder lets the orchestrator replay
// a finalized tool call across restarts.
type Journal interface {
	Append(ctx context.Context, rec Record) error
}

// A ResultFinder finds the record of a finalized tool call, for replay.
type ResultFinder interface {
	// FindResult returns the last record of the session's tool call that
	// holds a result, or ok=false when there is none.
	FindResult(ctx context.Context, session, toolCallID string) (rec Record, ok bool, err error)
}

// A Record is one finalized ask's journal record as a Journal is given
// it: the ids a journal finds it by, and the record itself, a JSON object
// (package journal's Record says what its members mean). It holds no
// secret value: sealed answers appear as references only.
type Record struct {
	// AskID is the ask's id, unique per ask: a journal shared by
	// replicas keeps one record per AskID.
	AskID string
	// Session and ToolCallID are the ask's session and the model's tool
	// call id (empty when the call had none).
	Session    string
	ToolCallID string
	// HasResult says whether the record holds the result the model was
	// given: only such a record replays its tool call (FindResult).
	HasResult bool
	// Data is the record: one JSON object on one line, without an "auth"
	// member (a journal with a key ring writes that itself, last).
	Data json.RawMessage
}

// A RecordAuth authenticates one journal record (or one remembered
// consent): an HMAC-SHA-256 of the record's line, under a key derived
// from the key ring (secretstore.KeyRing.DeriveWith), and the place of the
// record in its chain, so that a record added, changed, moved or removed
// is found by whoever holds the key. It is the "auth" member a journal
// writes last on a record's line. See package journal, "Authentication".
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
