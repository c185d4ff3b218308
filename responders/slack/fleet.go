package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/slack-go/slack"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/store"
)

// What the responder keeps in its Notes, shared by every replica:
//
//	msg.<ask id>   the message an ask was posted as (a msgNote), from
//	               before it is posted until its time to live runs out
//	msg.<ask id>-<pass>-<step>-<channel digest>
//	               the message a route's step posted of the ask to its
//	               channel (see Asked), once per step and channel
//	seen.<digest>  a signed request or Socket Mode envelope taken once
//
// The message's note is what lets any replica, or one started again, take
// a click for the ask and edit its message; its State is claimed with
// compare-and-set, so that the message is posted once and edited once
// across the fleet.
type msgNote struct {
	V         int    `json:"v"`
	Session   string `json:"session"`
	Channel   string `json:"channel,omitempty"`
	TS        string `json:"ts,omitempty"`
	Challenge string `json:"challenge,omitempty"`
	State     string `json:"state"`
	// Ask is the ask's id, for a step's message (whose key names more
	// than the ask); empty: the key is the ask's id.
	Ask string `json:"ask,omitempty"`
	// Via is a step's message's channel, as the route names it: a click
	// on it answers through that channel (responder.Through).
	Via string `json:"via,omitempty"`
}

// askID is the id of the ask the message msgID is of.
func (n *msgNote) askID(msgID string) string {
	if n.Ask != "" {
		return n.Ask
	}
	return msgID
}

// stepMsgID names the message a route's step posts of ask askID to its
// channel: the ask, the step's pass and place, and a digest of the channel
// as the route names it, so that two channels of one step, or a repeat of
// it, post a message each.
func stepMsgID(askID string, t route.Told) string {
	d := sha256.Sum256([]byte(t.Channel))
	return askID + "-" + strconv.Itoa(t.Begin.Pass) + "-" + strconv.Itoa(t.Begin.Step) + "-" + hex.EncodeToString(d[:6])
}

// stepTarget is the Slack channel a step's channel name posts to: its
// target ("slack:#ops": "#ops"), or "" for "slack" alone (the
// responder's own channel).
func stepTarget(name string) string {
	if c, err := route.ParseChannel(name); err == nil && c.Kind == "slack" {
		return c.Target
	}
	return ""
}

// A message's states: being posted (by the replica that began the ask),
// posted, edited once the ask ended.
const (
	statePosting = "posting"
	statePosted  = "posted"
	stateEdited  = "edited"
)

const noteVersion = 1

// Sweep is how often a replica reads the notes of the messages still
// posted, and edits those whose ask has ended: the message of an ask whose
// replica went away is edited by another within it.
const Sweep = time.Minute

func msgKey(askID string) string { return "msg." + askID }

// tokenID reports whether id can be part of a note's key: letters, digits,
// '-' and '_' (an ask id is hex).
func tokenID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func (r *Responder) readNote(ctx context.Context, askID string) (msgNote, uint64, error) {
	var n msgNote
	if !tokenID(askID) {
		return n, 0, store.ErrNotFound
	}
	pe, err := r.notes.Get(ctx, msgKey(askID))
	if err != nil {
		return n, 0, err
	}
	if err := json.Unmarshal(pe.Data, &n); err != nil || n.V != noteVersion {
		return n, 0, fmt.Errorf("the note of ask %s is not one this responder reads", askID)
	}
	return n, pe.Revision, nil
}

// writeNote changes the note of askID with compare-and-set: f edits the
// latest note and says whether to write it.
func (r *Responder) writeNote(ctx context.Context, askID string, f func(n *msgNote) bool) (bool, error) {
	for range 16 {
		n, rev, err := r.readNote(ctx, askID)
		if err != nil {
			return false, err
		}
		if !f(&n) {
			return false, nil
		}
		data, _ := json.Marshal(n)
		if _, err = r.notes.Update(ctx, msgKey(askID), data, rev); err == nil {
			return true, nil
		}
		if !errors.Is(err, store.ErrChanged) {
			return false, err
		}
	}
	return false, errors.New("the note kept changing under this write")
}

// firstSeen reports whether what digest names (a signed request, an
// envelope) is taken for the first time across the fleet: the first
// replica to create its note wins.
func (r *Responder) firstSeen(ctx context.Context, what string) (bool, error) {
	d := sha256.Sum256([]byte(what))
	_, err := r.notes.Create(ctx, "seen."+hex.EncodeToString(d[:]), nil)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrExists):
		return false, nil
	}
	return false, err
}

// FollowSessions keeps s, through which the responder finds an ask it
// did not post here — a click on this replica for a message another
// posted — and edits the message of one that ended while no replica
// held it. The orchestrator calls it at its first use; it then reads the
// messages still posted, and holds their asks here until they end, so
// that a replica started again edits what the one before it posted.
func (r *Responder) FollowSessions(s *askuser.Sessions) {
	if !r.sessions.CompareAndSwap(nil, s) {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.loops.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.loops.Done()
		r.sweep(true)
		t := time.NewTicker(Sweep)
		defer t.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
				r.sweep(false)
			}
		}
	}()
}

// AnnouncesAsks reports true: the responder posts every ask once, where it
// began, whether or not a card follows its session there.
func (r *Responder) AnnouncesAsks() bool { return true }

// sweep reads the notes of the messages still posted: a message whose ask
// has ended is edited; at the start (hold), a pending ask not held here is
// held until it ends, and its message is then edited.
func (r *Responder) sweep(hold bool) {
	ctx, cancel := context.WithTimeout(r.ctx, apiTimeout)
	defer cancel()
	es, err := r.notes.List(ctx, "msg.")
	if err != nil {
		if r.ctx.Err() == nil {
			r.log.Warn("askuser slack: reading the notes of the posted messages failed; trying again later", "err", err)
		}
		return
	}
	s := r.sessions.Load()
	for _, pe := range es {
		var n msgNote
		if json.Unmarshal(pe.Data, &n) != nil || n.State != statePosted {
			continue
		}
		msgID := pe.Key[len("msg."):]
		askID := n.askID(msgID)
		if r.lookup(msgID) != nil {
			continue // held here: its AfterEnd edits it
		}
		a, final, release, err := s.Find(ctx, n.Session, askID)
		switch {
		case errors.Is(err, askuser.ErrUnknownAsk):
			release()
			continue
		case err != nil:
			release()
			r.log.Warn("askuser slack: reading a posted ask from the pending-ask store failed; trying again later", "ask", askID, "err", err)
			continue
		case final != nil:
			release()
			if err := r.finish(ctx, msgID, final.Form, final); err != nil {
				r.log.Warn("askuser slack: the message of an ended ask could not be edited; trying again later", "ask", askID, "err", err)
			}
			continue
		case !hold:
			release()
			continue
		}
		e := r.adopt(a, msgID, n)
		if e == nil {
			release()
			continue
		}
		a.AfterEnd(func() {
			r.ended(e)
			release()
		})
	}
}

// adopt keeps a found ask, posted as the message msgID of note n, as one
// of the responder's, or returns nil when it holds it already or is
// closed.
func (r *Responder) adopt(a *askuser.Ask, msgID string, n msgNote) *entry {
	e := foundEntry(a, msgID, n)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.asks[msgID] != nil {
		return nil
	}
	r.asks[msgID] = e
	return e
}

// foundEntry is the entry of the message msgID, of note n, whose ask a
// was found on the fleet: a step's message answers through its channel.
func foundEntry(a *askuser.Ask, msgID string, n msgNote) *entry {
	if n.Via != "" {
		a = responder.Through(a, n.Via)
	}
	e := &entry{a: a, id: msgID, via: n.Via, posted: make(chan struct{}), channel: n.Channel, ts: n.TS, challenge: n.Challenge}
	close(e.posted)
	return e
}

// entryFor finds the ask of the message a click names (msgID): one held
// here, or one on the fleet, found through its message's note and held
// for the click's work (release). It returns nil when the ask has ended
// or is unknown; err when the stores failed.
func (r *Responder) entryFor(ctx context.Context, msgID string) (e *entry, release func(), err error) {
	release = func() {}
	if e := r.lookup(msgID); e != nil {
		return e, release, nil
	}
	s := r.sessions.Load()
	if s == nil {
		return nil, release, nil
	}
	n, _, err := r.readNote(ctx, msgID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, release, nil
	case err != nil:
		return nil, release, err
	}
	a, final, release, err := s.Find(ctx, n.Session, n.askID(msgID))
	switch {
	case errors.Is(err, askuser.ErrUnknownAsk) || final != nil:
		release()
		return nil, func() {}, nil
	case err != nil:
		release()
		return nil, func() {}, err
	}
	e = foundEntry(a, msgID, n)
	// Should the click end the ask here, this replica edits the message
	// at once (the one that posted it does too; the note lets one edit).
	a.AfterEnd(func() { r.ended(e) })
	return e, release, nil
}

// finish edits the message msgID of an ended ask to say how it ended,
// with no buttons, once across the fleet: the note's state is claimed
// first, and given back when Slack refuses the edit, for a later try.
func (r *Responder) finish(ctx context.Context, msgID string, f *askuser.Form, out *askuser.Outcome) error {
	var n msgNote
	claimed, err := r.writeNote(ctx, msgID, func(cur *msgNote) bool {
		n = *cur
		if cur.State != statePosted {
			return false
		}
		cur.State = stateEdited
		return true
	})
	if errors.Is(err, store.ErrNotFound) || err == nil && !claimed {
		return nil // not posted (or posting failed), or edited already
	}
	if err != nil {
		return err
	}
	blocks, fb := renderEnded(f, out, who(out))
	uctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	if _, _, _, err := r.api.UpdateMessageContext(uctx, n.Channel, n.TS, slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(fb, false)); err != nil {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), apiTimeout)
		defer cancel()
		_, _ = r.writeNote(bctx, msgID, func(cur *msgNote) bool {
			if cur.State != stateEdited {
				return false
			}
			cur.State = statePosted
			return true
		})
		return err
	}
	return nil
}
