package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
)

// AppendTimeout bounds how long Journal.Append waits for the stream to
// acknowledge a record, so that a model's result is not held back by a
// NATS cluster that lost its quorum.
const AppendTimeout = 10 * time.Second

// A Journal is the journal stream of a Store: an askuser.Journal and an
// askuser.ResultFinder. Records are JSON, one message each, on subject
// <prefix>.journal.<session digest>.<tool-call digest> (so that a
// tool call is found with one request), with the ask id as message id.
type Journal struct {
	js          jetstream.JetStream
	stream      jetstream.Stream
	prefix      string
	feedAckWait time.Duration
}

var (
	_ askuser.Journal      = (*Journal)(nil)
	_ askuser.ResultFinder = (*Journal)(nil)
)

// Journal returns the store's journal.
func (s *Store) Journal() *Journal {
	return &Journal{js: s.js, stream: s.journal, prefix: s.cfg.Prefix, feedAckWait: s.cfg.FeedAckWait}
}

func (j *Journal) subject(session, toolCallID string) string {
	return j.prefix + ".journal." + digest(session) + "." + digest(toolCallID)
}

// Append publishes rec and returns once the stream has acknowledged it,
// within AppendTimeout. A record whose ask id the stream has seen within
// DuplicateWindow is dropped, and Append succeeds: another replica
// finalized the same ask and wrote its record.
func (j *Journal) Append(ctx context.Context, rec *askuser.Record) error {
	if rec == nil || rec.AskID == "" || rec.Session == "" {
		return errors.New("natsstore: a journal record needs an ask id and a session")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("natsstore: encoding the record of ask %s: %w", rec.AskID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, AppendTimeout)
	defer cancel()
	for {
		msg := &nats.Msg{Subject: j.subject(rec.Session, rec.ToolCallID), Data: data}
		_, err := j.js.PublishMsg(ctx, msg, jetstream.WithMsgID(rec.AskID))
		if !inProcess(err) {
			if err != nil {
				return fmt.Errorf("natsstore: journaling ask %s: %w", rec.AskID, err)
			}
			return nil
		}
		// Another replica's record of this ask is being stored: it is
		// not durable yet, so ask again until the stream answers that
		// it is (a duplicate) or that it failed.
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsstore: journaling ask %s: another replica's record of it was still being stored: %w", rec.AskID, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// errDuplicateInProcess is the stream's answer to a message whose id is
// that of a message still being replicated.
const errDuplicateInProcess jetstream.ErrorCode = 10158

func inProcess(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == errDuplicateInProcess
}

// FindResult returns the last record of the session's tool call, when it
// holds a result. Each tool call has a subject of its own, so this is one
// request, however long the journal.
func (j *Journal) FindResult(ctx context.Context, session, toolCallID string) (*askuser.Record, bool, error) {
	if toolCallID == "" {
		return nil, false, nil
	}
	m, err := j.stream.GetLastMsgForSubject(ctx, j.subject(session, toolCallID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("natsstore: reading the journal: %w", err)
	}
	rec, err := DecodeRecord(m.Data)
	if err != nil {
		return nil, false, fmt.Errorf("natsstore: journal message %d: %w", m.Sequence, err)
	}
	if rec.Session != session || rec.ToolCallID != toolCallID || rec.Result == nil {
		return nil, false, nil
	}
	return rec, true, nil
}

// Records returns the session's records, or every session's when session
// is empty, in the order they were appended.
func (j *Journal) Records(ctx context.Context, session string) ([]*askuser.Record, error) {
	subject := j.prefix + ".journal.>"
	if session != "" {
		subject = j.prefix + ".journal." + digest(session) + ".*"
	}
	var out []*askuser.Record
	err := j.scan(ctx, subject, func(r *askuser.Record) {
		if session == "" || r.Session == session {
			out = append(out, r)
		}
	})
	return out, err
}

// scan calls f with each record on subject, oldest first.
func (j *Journal) scan(ctx context.Context, subject string, f func(*askuser.Record)) error {
	for seq := uint64(1); ; {
		m, err := j.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("natsstore: reading the journal: %w", err)
		}
		rec, err := DecodeRecord(m.Data)
		if err != nil {
			return fmt.Errorf("natsstore: journal message %d: %w", m.Sequence, err)
		}
		f(rec)
		seq = m.Sequence + 1
	}
}

// DecodeRecord decodes one journal message: a JSON askuser.Record of a
// version this package reads, with an ask id and a session.
func DecodeRecord(data []byte) (*askuser.Record, error) {
	rec := new(askuser.Record)
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("not a journal record: %w", err)
	}
	switch {
	case rec.Version != askuser.RecordVersion:
		return nil, fmt.Errorf("journal record of version %d: this package reads version %d", rec.Version, askuser.RecordVersion)
	case rec.AskID == "":
		return nil, errors.New("journal record without an ask id")
	case rec.Session == "":
		return nil, errors.New("journal record without a session")
	}
	return rec, nil
}
