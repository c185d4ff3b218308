package natsstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/store"
)

// AppendTimeout bounds how long Journal.Append waits for the stream to
// acknowledge a record, so that a model's result is not held back by a
// NATS cluster that lost its quorum.
const AppendTimeout = 10 * time.Second

// A Journal is the journal stream of a Store: a store.Journal and a
// store.ResultFinder. Records are JSON, one message each, on subject
// <prefix>.journal.<session digest>.<tool-call digest> (so that a
// tool call is found with one request), with the ask id as message id.
//
// With the Store's Keys, every record carries a MAC under a key derived
// from the ring (as a journal file's records do, see package journal) and
// its place in the chain of its writer: each Journal has JournalWriters
// writers, each with an id of its own and one append at a time, numbering
// its records 1, 2, … each carrying the MAC of the one before (a record
// the stream drops as a second record of its ask takes no place). A writer
// whose append failed starts a new chain under a new id, so that a record
// whose fate is unknown never leaves a gap.
// FindResult replays only a record that verifies (never one without a
// MAC); Verify checks the whole stream.
type Journal struct {
	js          jetstream.JetStream
	stream      jetstream.Stream
	prefix      string
	feedAckWait time.Duration
	keys        *recauth.Keys // nil: records are not authenticated

	once  sync.Once
	slots chan struct{} // one per writer appending, with keys
	mu    sync.Mutex
	idle  []*writer // the idle writers, the last one used last
}

// JournalWriters is how many chains a Journal appends to at once: an
// append waits for a writer's previous one to be acknowledged, so that each
// chain is in the stream's order.
const JournalWriters = 32

// A writer is one chain of records.
type writer struct {
	id    string
	chain recauth.Chain
}

var (
	_ store.Journal      = (*Journal)(nil)
	_ store.ResultFinder = (*Journal)(nil)
)

// Journal returns the store's journal: a writer of its own (see Journal).
func (s *Store) Journal() *Journal {
	j := &Journal{js: s.js, stream: s.journal, prefix: s.cfg.Prefix, feedAckWait: s.cfg.FeedAckWait}
	if s.cfg.Keys != nil {
		j.keys = recauth.New(s.cfg.Keys, recauth.LabelJournal)
	}
	return j
}

// take takes an idle writer: the one used last, so that appends one after
// the other make one long chain; a new one when every writer is busy and
// fewer than JournalWriters exist.
func (j *Journal) take(ctx context.Context) (*writer, error) {
	j.once.Do(func() { j.slots = make(chan struct{}, JournalWriters) })
	select {
	case j.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if n := len(j.idle); n > 0 {
		w := j.idle[n-1]
		j.idle = j.idle[:n-1]
		return w, nil
	}
	return &writer{id: newWriterID()}, nil
}

func (j *Journal) give(w *writer) {
	j.mu.Lock()
	j.idle = append(j.idle, w)
	j.mu.Unlock()
	<-j.slots
}

// newWriterID names a chain of records.
func newWriterID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (j *Journal) subject(session, toolCallID string) string {
	return j.prefix + ".journal." + digest(session) + "." + digest(toolCallID)
}

// Append publishes rec and returns once the stream has acknowledged it,
// within AppendTimeout. A record whose ask id the stream has seen within
// DuplicateWindow is dropped, and Append succeeds: another replica
// finalized the same ask and wrote its record.
func (j *Journal) Append(ctx context.Context, rec store.Record) error {
	if rec.AskID == "" || rec.Session == "" {
		return errors.New("natsstore: a journal record needs an ask id and a session")
	}
	if len(rec.Data) == 0 || rec.Data[0] != '{' || !json.Valid(rec.Data) {
		return fmt.Errorf("natsstore: the record of ask %s is not a JSON object", rec.AskID)
	}
	data := rec.Data
	var err error
	ctx, cancel := context.WithTimeout(ctx, AppendTimeout)
	defer cancel()
	var mac []byte
	var w *writer
	if j.keys != nil {
		w, err = j.take(ctx)
		if err != nil {
			return fmt.Errorf("natsstore: journaling ask %s: %w", rec.AskID, err)
		}
		defer j.give(w)
		var prev []byte
		if w.chain.Seq > 0 {
			prev = w.chain.MAC
		}
		if data, mac, err = j.keys.Seal(data, w.id, w.chain.Seq+1, prev); err != nil {
			return fmt.Errorf("natsstore: authenticating the record of ask %s: %w", rec.AskID, err)
		}
	}
	for {
		msg := &nats.Msg{Subject: j.subject(rec.Session, rec.ToolCallID), Data: data}
		ack, err := j.js.PublishMsg(ctx, msg, jetstream.WithMsgID(rec.AskID))
		if !inProcess(err) {
			if err != nil {
				if w != nil {
					// Stored or not, nobody knows: a new chain starts.
					w.id, w.chain = newWriterID(), recauth.Chain{}
				}
				return fmt.Errorf("natsstore: journaling ask %s: %w", rec.AskID, err)
			}
			if w != nil && !ack.Duplicate {
				w.chain.Seq, w.chain.MAC = w.chain.Seq+1, mac
			}
			return nil
		}
		// Another replica's record of this ask is being stored: it is
		// not durable yet, so ask again until the stream answers that
		// it is (a duplicate) or that it failed.
		select {
		case <-ctx.Done():
			if w != nil {
				w.id, w.chain = newWriterID(), recauth.Chain{}
			}
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
func (j *Journal) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	if toolCallID == "" {
		return store.Record{}, false, nil
	}
	m, err := j.stream.GetLastMsgForSubject(ctx, j.subject(session, toolCallID))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return store.Record{}, false, nil
	}
	if err != nil {
		return store.Record{}, false, fmt.Errorf("natsstore: reading the journal: %w", err)
	}
	rec, err := DecodeRecord(m.Data)
	if err != nil {
		return store.Record{}, false, fmt.Errorf("natsstore: journal message %d: %w", m.Sequence, err)
	}
	if j.keys != nil {
		if _, _, err := j.keys.Verify(m.Data); err != nil {
			return store.Record{}, false, fmt.Errorf("natsstore: journal message %d does not verify, and is not replayed: %w", m.Sequence, err)
		}
	}
	if rec.Session != session || rec.ToolCallID != toolCallID || rec.Result == nil {
		return store.Record{}, false, nil
	}
	sr, err := rec.Stored()
	return sr, err == nil, err
}

// Records returns the session's records, or every session's when session
// is empty, in the order they were appended.
func (j *Journal) Records(ctx context.Context, session string) ([]*journal.Record, error) {
	subject := j.prefix + ".journal.>"
	if session != "" {
		subject = j.prefix + ".journal." + digest(session) + ".*"
	}
	var out []*journal.Record
	err := j.scan(ctx, subject, func(r *journal.Record) {
		if session == "" || r.Session == session {
			out = append(out, r)
		}
	})
	return out, err
}

// scan calls f with each record on subject, oldest first.
func (j *Journal) scan(ctx context.Context, subject string, f func(*journal.Record)) error {
	return j.scanRaw(ctx, subject, func(_ uint64, data []byte) error {
		rec, err := DecodeRecord(data)
		if err != nil {
			return err
		}
		f(rec)
		return nil
	})
}

// scanRaw calls f with each message on subject, oldest first; an error f
// returns stops the scan, naming the message.
func (j *Journal) scanRaw(ctx context.Context, subject string, f func(seq uint64, data []byte) error) error {
	for seq := uint64(1); ; {
		m, err := j.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("natsstore: reading the journal: %w", err)
		}
		if err := f(m.Sequence, m.Data); err != nil {
			return fmt.Errorf("natsstore: journal message %d: %w", m.Sequence, err)
		}
		seq = m.Sequence + 1
	}
}

// DecodeRecord decodes one journal message: a JSON journal.Record of a
// version this package reads, with an ask id and a session.
func DecodeRecord(data []byte) (*journal.Record, error) {
	rec, err := journal.Decode(data)
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Version != journal.RecordVersion:
		return nil, fmt.Errorf("journal record of version %d: this package reads version %d", rec.Version, journal.RecordVersion)
	case rec.AskID == "":
		return nil, errors.New("journal record without an ask id")
	case rec.Session == "":
		return nil, errors.New("journal record without a session")
	}
	return rec, nil
}

// A VerifyProblem is a message of the journal stream that does not verify.
type VerifyProblem struct {
	// Seq is the message's sequence number in the stream (0: the stream
	// as a whole).
	Seq uint64
	// Writer and WriterSeq are the chain and place the record claims,
	// where it carries them.
	Writer    string
	WriterSeq uint64
	// Reason says why it does not verify.
	Reason string
	// Unauthenticated is set for a record without a MAC.
	Unauthenticated bool
}

// Error returns "message N: reason".
func (p *VerifyProblem) Error() string {
	if p.Seq == 0 {
		return "the stream: " + p.Reason
	}
	if p.Writer != "" {
		return fmt.Sprintf("message %d (writer %s, sequence %d): %s", p.Seq, p.Writer, p.WriterSeq, p.Reason)
	}
	return fmt.Sprintf("message %d: %s", p.Seq, p.Reason)
}

// A VerifyReport is what Journal.Verify found.
type VerifyReport struct {
	// Messages counts the messages read; Verified, those that verify and
	// are in their place in their writer's chain.
	Messages, Verified int
	// Writers counts the chains.
	Writers int
	// Problems are the messages that do not verify, in stream order (the
	// first is the first bad record), then the stream's own (messages
	// deleted from inside it).
	Problems []VerifyProblem
	// Trimmed is set when the stream no longer holds its first messages
	// (its retention, or a purge): a chain may then start after its first
	// record without that being a problem.
	Trimmed bool
	// FirstSeq and LastSeq are the stream's.
	FirstSeq, LastSeq uint64
}

// OK reports whether every message verified.
func (r *VerifyReport) OK() bool { return len(r.Problems) == 0 && r.Verified > 0 }

// Verify checks every record of the journal stream: its MAC (under the
// Store's Keys; without them every record is reported, as unauthenticated
// or not checked) and its place in its writer's chain. A message deleted
// from the stream is found twice over: the stream counts it (JetStream
// never reuses a sequence number), and its writer's chain has a gap. What
// the stream's retention removed from its start is not a problem: a chain
// may then start after its first record (Trimmed). A purge of the whole
// stream leaves nothing to check.
func (j *Journal) Verify(ctx context.Context) (*VerifyReport, error) {
	info, err := j.stream.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("natsstore: reading the journal stream's state: %w", err)
	}
	st := info.State
	rep := &VerifyReport{FirstSeq: st.FirstSeq, LastSeq: st.LastSeq, Trimmed: st.FirstSeq > 1}
	chains := map[string]*recauth.Chain{}
	err = j.scanRaw(ctx, j.prefix+".journal.>", func(seq uint64, data []byte) error {
		rep.Messages++
		p := VerifyProblem{Seq: seq}
		if j.keys == nil {
			_, a, err := recauth.Split(data)
			p.Writer, p.WriterSeq = a.Writer, a.Seq
			switch {
			case errors.Is(err, recauth.ErrUnauthenticated):
				p.Reason, p.Unauthenticated = "not authenticated: the record carries no MAC (written without a key ring, or by hand)", true
			case err != nil:
				p.Reason = err.Error()
			default:
				p.Reason = "not checked: no key ring to check its MAC with"
			}
			rep.Problems = append(rep.Problems, p)
			return nil
		}
		a, mac, err := j.keys.Verify(data)
		p.Writer, p.WriterSeq = a.Writer, a.Seq
		if err == nil {
			if _, derr := DecodeRecord(data); derr != nil {
				err = derr
			}
		}
		if err == nil {
			c, ok := chains[a.Writer]
			if !ok {
				c = new(recauth.Chain)
				if !rep.Trimmed {
					c.Start()
				}
				chains[a.Writer] = c
			}
			err = c.Next(a, mac)
		}
		if err != nil {
			p.Reason, p.Unauthenticated = err.Error(), errors.Is(err, recauth.ErrUnauthenticated)
			if p.Unauthenticated {
				p.Reason = "not authenticated: the record carries no MAC (written without a key ring, or by hand)"
			}
			rep.Problems = append(rep.Problems, p)
			return nil
		}
		rep.Verified++
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Writers = len(chains)
	if st.NumDeleted > 0 {
		rep.Problems = append(rep.Problems, VerifyProblem{Reason: fmt.Sprintf("%d messages were deleted from inside the stream (between sequences %d and %d)", st.NumDeleted, st.FirstSeq, st.LastSeq)})
	}
	return rep, nil
}
