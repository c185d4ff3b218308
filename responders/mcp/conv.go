package mcpresponder

import (
	"context"
	"strconv"
	"strings"
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

// A need is a form to send, with what its requestState needs — or, past
// MaxRounds, the refusal to send another (capped).
type need struct {
	params    *mcp.ElicitParams
	round     int
	askedAt   time.Time
	expiresAt time.Time
	capped    *roundsError
}

// MaxRounds is how many forms one multi round-trip ask shows at most: the
// first, and two more after replies that did not fit it. A reply to the
// last one that does not fit either gets a tool result marked isError
// that says so (see roundsError), and the ask waits for its deadline,
// which ends it with the recommended answers and journals it.
const MaxRounds = maxForms

// A roundsError is the end of an ask's rounds: its last form's reply did
// not fit it either.
type roundsError struct {
	problem   string // what was wrong with the last reply
	expiresAt time.Time
	approval  bool // the ask is an approval, which the deadline decides nothing of
	inCall    bool // the forms were elicited from within the call (before 2026-07-28): no requestState
}

// capped is the end of a's rounds, after a reply with problem.
func capped(a *askuser.Ask, problem string) *roundsError {
	f := a.Form()
	return &roundsError{problem: problem, expiresAt: f.ExpiresAt, approval: f.Approval != nil}
}

// cappedInCall is capped for a call that elicits from within itself.
func cappedInCall(a *askuser.Ask, problem string) *roundsError {
	e := capped(a, problem)
	e.inCall = true
	return e
}

// lead says what happened: the replies did not fit, and the last one's
// problem.
func (e *roundsError) lead() string {
	var b strings.Builder
	b.WriteString("the person's reply did not fit the form ")
	b.WriteString(strconv.Itoa(MaxRounds))
	b.WriteString(" times, the most askuser shows one ask, so it asks nothing more through this client")
	if e.problem != "" {
		b.WriteString(" (the last reply: " + e.problem + ")")
	}
	return b.String()
}

// message says what happened and what the model can do.
func (e *roundsError) message(now time.Time) string {
	var b strings.Builder
	b.WriteString(e.lead())
	b.WriteString(". Nothing of those replies was kept. The ask stays pending until its deadline")
	if left := e.expiresAt.Sub(now); left > 0 {
		b.WriteString(", in " + span(left))
	}
	spent, anew := "this requestState is spent", "call the tool again without a requestState to ask anew"
	if e.inCall {
		spent, anew = "this call has no answer", "call the tool again to ask anew"
	}
	if e.approval {
		b.WriteString(", when it ends unresolved (nothing is approved) and is journaled; " + spent + ". Go on without the permission, or " + anew)
	} else {
		b.WriteString(", when it ends as timed_out with the recommended answers applied and is journaled; " + spent + ". Go on without the answer, or " + anew + ", with questions the person's client can answer")
	}
	return b.String()
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
		card := r.startCard(cctx, a)
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
		_ = linkReply(tn.a, res) // ErrAskEnded: the ask had ended
		return nil
	}
	problem, ended, _ := tn.form.reply(tn.a, res) // an error is ErrAskEnded: the ask had ended
	switch {
	case ended:
		return nil
	case cv.round >= maxForms:
		return &need{round: cv.round, capped: capped(tn.a, problem)}
	}
	cv.round++
	return cv.needLocked(tn.form.params(problem, time.Now()))
}

func (cv *conv) needLocked(p *mcp.ElicitParams) *need {
	f := cv.turn.a.Form()
	return &need{params: p, round: cv.round, askedAt: f.AskedAt, expiresAt: f.ExpiresAt}
}
