package mcpresponder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/store"
)

// On a shared store (Orchestrator.Asks), a multi round-trip ask is the
// store's pending ask, and a retry is served wherever it lands: the
// requestState's round is claimed in the store, create-only, so that each
// form's reply is taken once across every server on the store; the reply
// is reported into the ask itself (Orchestrator.Resume), so that the ask
// has one ending and one journal record, whichever server ends it; and
// its deadline is the store's timer, which ends it on one server even
// when the server that asked is gone.

// claimPrefix begins the store keys of the requestState rounds taken: a
// token of its own, so that no orchestrator reads them as asks (they lie
// outside every session's prefix) and the feed passes them over.
const claimPrefix = "mcpstate."

// claimKey is the store key of an ask's round: taken once, by the first
// retry that carries the reply to that round's form.
func claimKey(session, call string, round int) string {
	h := sha256.Sum256([]byte(session + "\x00" + call + "\x00" + strconv.Itoa(round)))
	return claimPrefix + "r" + hex.EncodeToString(h[:16])
}

// claim takes the requestState's round in the store, once across every
// server on it. The store keeps the key for its retention, which is
// longer than the state lives (its ask's deadline plus StateGrace).
func (t *Tool) claim(ctx context.Context, st *state) error {
	data := []byte(`{"askuser":"mcp requestState round taken","until":"` + st.ExpiresAt.Add(StateGrace).UTC().Format(time.RFC3339) + `"}`)
	_, err := t.o.Asks.Create(ctx, claimKey(st.Session, st.Call, st.Round), data)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrExists):
		return ErrStateUsed
	}
	return errStoreClaim
}

// errStoreClaim refuses a retry whose round could not be claimed: the
// store did not answer, and the reply may be retried.
var errStoreClaim = errors.New("mcpresponder: askuser could not check that this requestState is used once: the shared store of pending asks failed; retry the call unchanged, with the same requestState")

// resumeShared serves a retry on a shared store: it claims the round,
// reports the reply into the pending ask, wherever it began, and returns
// the next form, or the ask's result once it is final.
func (t *Tool) resumeShared(ctx context.Context, req *mcp.CallToolRequest, args []byte, st *state, res *mcp.ElicitResult) (*mcp.CallToolResult, error) {
	name := t.dialect().Name()
	if err := t.claim(ctx, st); err != nil {
		return errorResult(name, strings.TrimPrefix(err.Error(), "mcpresponder: ")), nil
	}
	var next *need
	out, err := t.o.Resume(ctx, st.Session, st.Call, func(a *askuser.Ask) error {
		next = answerRound(a, newCall(req, nil), st.Round, res)
		return nil
	})
	switch {
	case errors.Is(err, askuser.ErrUnknownAsk):
		return errorResult(name, strings.TrimPrefix(ErrStateGone.Error(), "mcpresponder: ")), nil
	case err != nil && !errors.Is(err, askuser.ErrAskEnded):
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return errorResult(name, "askuser could not reach the ask of this requestState: "+strings.TrimPrefix(err.Error(), "askuser: ")+"; call the tool again without the requestState to ask anew"), nil
	case out != nil:
		return t.result(out, nil)
	case next != nil:
		return t.inputRequest(req, args, st.Call, next)
	}
	stop := t.progress(ctx, req)
	defer stop()
	out, err = t.o.Await(ctx, st.Session, st.Call)
	if errors.Is(err, askuser.ErrUnknownAsk) {
		return errorResult(name, strings.TrimPrefix(ErrStateGone.Error(), "mcpresponder: ")), nil
	}
	return t.result(out, err)
}

// answerRound acts on the reply to the form of round on a, through the
// client of call c: it returns the next form to send, the end of the
// rounds, or nil when the ask has ended or waits for its deadline or the
// card.
func answerRound(a *askuser.Ask, c *call, round int, res *mcp.ElicitResult) *need {
	f := a.Form()
	if sealed(f) {
		_ = linkReply(a, res) // ErrAskEnded: the ask had ended
		return nil
	}
	form := formFor(a, c)
	problem, ended, _ := form.reply(a, res) // an error is ErrAskEnded: the ask had ended
	select {
	case <-a.Done():
		ended = true // the ask ended meanwhile (its deadline): its result is the answer
	default:
	}
	switch {
	case ended:
		return nil
	case round >= MaxRounds:
		return &need{round: round, capped: capped(a, problem)}
	}
	return &need{params: form.params(problem, time.Now()), round: round + 1, askedAt: f.AskedAt, expiresAt: f.ExpiresAt}
}
