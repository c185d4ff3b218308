package mcpresponder

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
)

// A conv is one multi round-trip ask, between the responder, which holds
// the ask for as long as it is pending, and the tool calls of the client:
// the first call returns the first form, and each retry carries the reply
// to the last one. A retry's reply is read, reported and acted on in the
// retry's own goroutine (answer), which then returns the next form or
// waits for the ask's result; the responder sends the first form (or, for
// a resumed ask, acts on the reply it came with) and then waits for the
// ask to end.
type conv struct {
	id     string             // askuser's tool-call id for the ask
	need   chan need          // responder → the call being served: a form to send
	result chan handled       // Handle's return, once
	cancel context.CancelFunc // ends the ask as its caller gone

	mu        sync.Mutex
	round     int   // forms sent
	turn      *turn // what a reply is read against; nil until the responder has the ask
	preset    *mcp.ElicitResult
	hasPreset bool
}

// A turn is what a reply to the ask's latest form is read against.
type turn struct {
	a    *askuser.Ask
	form elicitForm // nil: the ask went to the card, and the client was sent a link
}

// A need is a form to send, with what its requestState needs.
type need struct {
	params    *mcp.ElicitParams
	round     int
	askedAt   time.Time
	expiresAt time.Time
}

// handled is what Orchestrator.Handle returned.
type handled struct {
	out *askuser.Outcome
	err error
}

func newConv(id string, round int, preset *mcp.ElicitResult, hasPreset bool, cancel context.CancelFunc) *conv {
	return &conv{
		id:        id,
		need:      make(chan need, 1),
		result:    make(chan handled, 1),
		cancel:    cancel,
		round:     round,
		preset:    preset,
		hasPreset: hasPreset,
	}
}

// respondRounds is Respond for an ask that Tool serves by multi round
// trip: it hands the conversation the ask, sends the first form (or acts
// on the reply a resumed ask came with), and waits for the ask to end.
// An ask with a secret goes to the card, and the client gets a link.
func (r *Responder) respondRounds(ctx context.Context, a *askuser.Ask, c *call) error {
	cv := c.conv
	tn := &turn{a: a}
	var first *mcp.ElicitParams
	wait := func() error { <-ctx.Done(); return nil }
	if sealed(a.Form()) {
		if !r.CanCollectSecrets() || !c.canURL() {
			return a.Unreachable()
		}
		code := ""
		if r.opts.Codes != nil {
			code = r.opts.Codes.Issue(a.Session(), a.ID(), a.Form().ExpiresAt)
		}
		first = &mcp.ElicitParams{Mode: "url", URL: r.opts.CardURL(a), ElicitationID: newID(), Message: linkMessage(a.Form(), code, time.Now())}
		cctx, stop := context.WithCancel(ctx)
		defer stop()
		card := make(chan error, 1)
		go func() { card <- r.opts.Card.Respond(cctx, a) }()
		wait = func() error {
			select {
			case err := <-card:
				if ctx.Err() != nil {
					return nil
				}
				return err
			case <-ctx.Done():
				stop()
				<-card
				return nil
			}
		}
	} else {
		if !c.canForm() {
			return a.Unreachable()
		}
		tn.form = formFor(a, c)
		first = tn.form.params("", time.Now())
	}
	if n := cv.begin(tn, first); n != nil {
		cv.need <- *n // the channel holds one, and this is the first
	}
	return wait()
}

// begin gives the conversation its ask, and returns the first form to
// send — or, for a resumed ask, acts on the reply it came with and returns
// the next form, if there is one.
func (cv *conv) begin(tn *turn, first *mcp.ElicitParams) *need {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	cv.turn = tn
	if cv.hasPreset {
		res := cv.preset
		cv.preset, cv.hasPreset = nil, false
		return cv.answerLocked(res)
	}
	cv.round++
	return cv.needLocked(first)
}

// answer acts on the reply to the form of the given round, in the
// caller's goroutine (a retry's): it returns the next form to send, or
// nil when the ask has ended or waits for its deadline or the card. It
// refuses a reply to an earlier form with ErrStateRound.
func (cv *conv) answer(round int, res *mcp.ElicitResult) (*need, error) {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	if round != cv.round || cv.turn == nil {
		return nil, ErrStateRound
	}
	return cv.answerLocked(res), nil
}

func (cv *conv) answerLocked(res *mcp.ElicitResult) *need {
	tn := cv.turn
	if tn.form == nil {
		_ = linkReply(tn.a, res) // ErrClosed: the ask had ended
		return nil
	}
	problem, ended, _ := tn.form.reply(tn.a, res) // an error is ErrClosed: the ask had ended
	if ended || cv.round >= maxForms {
		return nil // ended, or the deadline decides
	}
	cv.round++
	return cv.needLocked(tn.form.params(problem, time.Now()))
}

func (cv *conv) needLocked(p *mcp.ElicitParams) *need {
	f := cv.turn.a.Form()
	return &need{params: p, round: cv.round, askedAt: f.AskedAt, expiresAt: f.ExpiresAt}
}
