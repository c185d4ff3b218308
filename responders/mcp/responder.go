package mcpresponder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// maxForms is how many forms one ask shows at most: the first, and two
// more after replies that did not match what was asked. After the third
// such reply the ask waits for its deadline.
const maxForms = 3

// Options configures a Responder. The zero value works: every question
// but a secret goes into a form, and a secret or sensitive question is
// declined as nobody there to ask (the unattended rules).
type Options struct {
	// Card shows an ask with a secret or sensitive question to the person
	// (a *web.Responder, typically), since a form must never carry a
	// secret. With Card and CardURL set, a client that supports URL mode
	// is sent a link to the card, and Card is handed the ask; otherwise
	// such an ask is unattended. A card that is askuser.EventDriven (the
	// web card is) is handed the ask through Asked before the link is
	// sent, so that a person who opens the link at once finds it; any
	// other card's Respond is started just before.
	Card askuser.Responder
	// CardURL returns the address of the card page that shows the ask (for
	// the web card: its base URL + web.AskPath(a.ID())). It must carry no
	// credential: the person is admitted by the card's own Authorize, or,
	// for local use, by the short code of Codes.
	CardURL func(a *askuser.Ask) string
	// Codes, when set, issues a short code for each link, shown in the
	// client's message beside it, that the person types on the card to be
	// admitted (see Codes). Mount Codes.Gate in front of the card, and use
	// Codes.Authorize as its Authorize.
	Codes *Codes
	// Logger receives what goes wrong with a client (nil: slog.Default()).
	// No answer and no secret is ever logged.
	Logger *slog.Logger
}

// A Responder asks through the MCP client of the tool call in progress:
// each ask is one form elicitation (a link, for a secret), and the reply
// is checked against what was asked before anything of it is reported. It
// finds the tool call on its context: see WithCall and Tool. Its methods
// are safe for concurrent use.
type Responder struct {
	opts Options
}

// New returns a responder; opts may be nil.
func New(opts *Options) *Responder {
	r := &Responder{}
	if opts != nil {
		r.opts = *opts
	}
	return r
}

func (r *Responder) logger() *slog.Logger {
	if r.opts.Logger != nil {
		return r.opts.Logger
	}
	return slog.Default()
}

// ResponderName names the responder in the journal: "mcp".
func (r *Responder) ResponderName() string { return "mcp" }

// CanCollectSecrets reports whether a secret can be asked at all: only
// through the card (Options.Card and Options.CardURL), never in a form.
// Without a card the orchestrator treats an ask with a sealed question as
// unattended and does not call Respond.
func (r *Responder) CanCollectSecrets() bool {
	return r.opts.Card != nil && r.opts.CardURL != nil
}

// Reachable reports whether the context carries an MCP tool call whose
// client can be asked: one that declared the elicitation capability, on a
// protocol revision this way of calling can serve (for 2026-07-28 and
// later, only a call that Tool serves). When it reports false the
// orchestrator applies the unattended rules at once.
func (r *Responder) Reachable(ctx context.Context, _ string) bool {
	if isTask(ctx) {
		return true // the client polls the task (see Tasks)
	}
	c := callFrom(ctx)
	return c != nil && c.canElicit()
}

// Respond asks through the client of the tool call on ctx, and ends the
// ask with what the person did: accept (the answers, submitted), decline,
// or cancel (dismissed). A reply that does not match the form is no
// answer: the person is asked again, with what was wrong, at most twice,
// and after that the ask waits for its deadline (under a Tool, whose call
// returns at once an error result that says so, or goes on through its
// Bridge). A client that cannot be
// asked, or whose elicitation fails, leaves the ask unattended. Respond
// returns once ctx is done; a reply that comes later is ignored.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	if isTask(ctx) {
		return respondTask(ctx, a)
	}
	c := callFrom(ctx)
	if c == nil || !c.canElicit() {
		return a.Unreachable()
	}
	if c.conv != nil {
		return r.respondRounds(ctx, a, c)
	}
	if sealed(a.Form()) {
		return r.respondSealed(ctx, a, c)
	}
	if !c.canForm() {
		return a.Unreachable()
	}
	return r.bridge(ctx, a, c, r.converse)
}

// converse shows the form, from within the tool call, until a reply ends
// the ask, or until the third form's reply did not match either, when it
// returns a *roundsEnded (see bridge, which acts on it).
func (r *Responder) converse(ctx context.Context, a *askuser.Ask, c *call) error {
	f := formFor(a, c)
	problem := ""
	for sent := 1; ; sent++ {
		res, err := c.req.Session.Elicit(ctx, f.params(problem, time.Now()))
		switch {
		case err == nil:
			var ended bool
			if problem, ended, err = f.reply(a, res); ended {
				return err
			}
		case ctx.Err() != nil:
			return nil
		case mismatch(err):
			problem = f.mismatch(err)
		default:
			r.logger().Warn("mcpresponder: the client's elicitation failed; the ask is unattended",
				"ask", a.ID(), "session", a.Session(), "err", errorKind(err))
			return a.Unreachable()
		}
		if sent == maxForms {
			return &roundsEnded{problem: problem} // the deadline decides; the call is told at once
		}
	}
}

// An elicitForm is what one form elicitation asks: an ask's questions
// (form), or an approval (approvalForm).
type elicitForm interface {
	// params returns the elicitation, saying what was wrong with the last
	// reply when problem is not empty.
	params(problem string, now time.Time) *mcp.ElicitParams
	// reply acts on the person's reply to it: see reply.
	reply(a *askuser.Ask, res *mcp.ElicitResult) (problem string, ended bool, err error)
	// mismatch says what the SDK refused of the last reply, which did not
	// match the form's schema: the fields, and what each allows.
	mismatch(err error) string
}

// formFor maps an ask (with no sealed question) onto its form elicitation
// for the call's client.
func formFor(a *askuser.Ask, c *call) elicitForm {
	if a.Form().Approval != nil {
		return newApprovalForm(a.Form(), c)
	}
	return newForm(a.Form(), c.version)
}

func (m *form) reply(a *askuser.Ask, res *mcp.ElicitResult) (problem string, ended bool, err error) {
	return reply(a, m, res)
}

// reply acts on the person's reply to the form f: accept with content
// that matches reports the answers and submits, decline declines, cancel
// dismisses. It reports whether the ask ended (with the error of ending
// it), or else says what was wrong with the reply, for the next form.
func reply(a *askuser.Ask, f *form, res *mcp.ElicitResult) (problem string, ended bool, err error) {
	if res == nil {
		return "the client sent the form back without a reply", false, nil
	}
	switch res.Action {
	case "accept":
		answers, p := f.read(res.Content)
		if p != "" {
			return p, false, nil
		}
		p, err := submit(a, answers)
		if err != nil || p == "" {
			return "", true, err
		}
		return p, false, nil
	case "decline":
		return "", true, a.Decline()
	case "cancel":
		return "", true, a.Cancel("")
	case unreadableAction:
		return problemUnreadable, false, nil
	}
	return "the reply was neither accept, decline nor cancel", false, nil
}

// problemUnreadable is what the person is told of a reply the client sent
// in a shape that is no reply at all (see RepairFrame).
const problemUnreadable = "the reply could not be read: its content is not the form's fields"

// submit reports the answers and submits. It returns what is wrong for the
// person when the orchestrator refuses an answer or the submit, and an
// error when the ask has ended.
func submit(a *askuser.Ask, answers []askuser.Answer) (string, error) {
	for _, ans := range answers {
		if err := a.Report(ans); err != nil {
			var ae *askuser.AnswerError
			if errors.As(err, &ae) {
				q := a.Form().Question(ae.QuestionID)
				if q == nil {
					return ae.Reason, nil
				}
				return questionName(q) + ": " + ae.Reason, nil
			}
			return "", err
		}
	}
	if err := a.Submit(); err != nil {
		var ue *askuser.UnansweredError
		if errors.As(err, &ue) {
			names := make([]string, len(ue.QuestionIDs))
			for i, id := range ue.QuestionIDs {
				names[i] = id
				if q := a.Form().Question(id); q != nil {
					names[i] = questionName(q)
				}
			}
			return strings.Join(names, ", ") + ": still needs an answer", nil
		}
		return "", err
	}
	return "", nil
}

// respondSealed hands an ask with a secret or sensitive question to the
// card and sends the client a link to it: a form must never carry a
// secret. Without a card, or with a client that cannot open a link, the
// ask is unattended.
func (r *Responder) respondSealed(ctx context.Context, a *askuser.Ask, c *call) error {
	if !r.CanCollectSecrets() || !c.canURL() {
		return a.Unreachable()
	}
	link := r.opts.CardURL(a)
	code := ""
	if r.opts.Codes != nil {
		code = r.opts.Codes.Issue(a.Session(), a.ID(), a.Form().ExpiresAt)
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	card := r.startCard(cctx, a)

	id := newID()
	p := &mcp.ElicitParams{Mode: "url", URL: link, ElicitationID: id, Message: linkMessage(a.Form(), code, time.Now())}
	res, err := c.req.Session.Elicit(ctx, p)
	var end error
	switch {
	case err != nil && ctx.Err() == nil:
		// The card still shows the ask: a person who has the link from
		// elsewhere can still answer there until the deadline.
		r.logger().Warn("mcpresponder: the client's link elicitation failed; the card still shows the ask",
			"ask", a.ID(), "session", a.Session(), "err", errorKind(err))
	case err != nil:
	default:
		end = linkReply(a, res)
	}
	if end != nil && !errors.Is(end, askuser.ErrAskEnded) {
		stop()
		<-card
		return end
	}
	var cardErr error
	select {
	case cardErr = <-card:
	case <-ctx.Done():
		stop()
		cardErr = <-card
	}
	if c.req.Session != nil {
		// Tell the client the out-of-band interaction is over, so that it
		// can close the link's prompt. It is a courtesy: a failure is
		// ignored.
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = c.req.Session.NotifyElicitationComplete(nctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
		cancel()
	}
	if ctx.Err() != nil {
		return nil
	}
	return cardErr
}

// startCard hands the ask to the card before its link goes out, and
// returns the channel that gives what the card returned once it is done
// with the ask (at the latest when ctx ends). An event-driven card is told
// of the ask (Asked) before startCard returns, so that a person who opens
// the link at once finds the ask there; Respond, started on a goroutine,
// might not have got as far yet. EventDriven is looked for on the card and
// down its chain of Unwrap, as the orchestrator looks for it. Another
// card's Respond is started on a goroutine.
func (r *Responder) startCard(ctx context.Context, a *askuser.Ask) <-chan error {
	card := make(chan error, 1)
	if ev, ok := responder.Optional[askuser.EventDriven](r.opts.Card); ok {
		ev.Asked(a)
		go func() { <-ctx.Done(); card <- nil }()
		return card
	}
	go func() { card <- r.opts.Card.Respond(ctx, a) }()
	return card
}

// linkReply acts on the reply to a link: decline declines and cancel
// dismisses; accept (the person opened it) leaves the ask to the card.
func linkReply(a *askuser.Ask, res *mcp.ElicitResult) error {
	switch {
	case res == nil:
	case res.Action == "decline":
		return a.Decline()
	case res.Action == "cancel":
		return a.Cancel("")
	}
	return nil
}

// linkMessage is the text shown beside the link to the card.
func linkMessage(f *askuser.Form, code string, now time.Time) string {
	var b strings.Builder
	if f.HumanIntent != "" {
		b.WriteString(f.HumanIntent)
		b.WriteString("\n\n")
	}
	q := &f.Questions[0]
	for i := range f.Questions {
		if responder.Sealed(&f.Questions[i]) {
			q = &f.Questions[i]
			break
		}
	}
	b.WriteString("The agent needs something secret (")
	b.WriteString(questionName(q))
	if q.Purpose != "" {
		b.WriteString(": " + q.Purpose)
	}
	b.WriteString("). It is never typed into this window: open the link to enter it on askuser's card; the agent receives only a reference to it.")
	if code != "" {
		b.WriteString("\n\nWhen the card asks for a code, type " + code + ".")
	}
	if left := f.ExpiresAt.Sub(now); left > 0 {
		b.WriteString("\n\nYou have " + span(left) + ".")
	}
	return b.String()
}

// sealed reports whether the form has a question whose answer is sealed.
func sealed(f *askuser.Form) bool {
	for i := range f.Questions {
		if responder.Sealed(&f.Questions[i]) {
			return true
		}
	}
	return false
}

// mismatch reports whether an elicitation failed because the reply did not
// match the form's schema: the SDK checks it on either side (the Go
// client before it sends, the server when it receives), and says so in
// its message, which is all it exposes of the case.
func mismatch(err error) bool {
	return strings.Contains(err.Error(), "does not match requested schema")
}

// errorKind describes an elicitation failure for the log without its
// message, which may quote what the person typed.
func errorKind(err error) string {
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return "the client answered with JSON-RPC error " + strconv.FormatInt(int64(je.Code), 10)
	case errors.Is(err, mcp.ErrConnectionClosed):
		return "the connection is closed"
	case strings.Contains(err.Error(), "does not support"):
		return "the client does not support this kind of elicitation"
	}
	return "the request failed"
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// callKey is the context key of the tool call in progress.
type callKey struct{}

// A call is the MCP tool call an ask came in, as the responder needs it.
type call struct {
	req     *mcp.CallToolRequest
	version string
	caps    elicitCaps
	conv    *conv // the multi round-trip conversation, when Tool serves one; nil: elicit within the call
}

// elicitCaps is what the client declared of elicitation.
type elicitCaps struct {
	declared, form, url bool
}

// elicitationOf reads what the call's client declared of elicitation:
// from the request's own metadata (2026-07-28 and later, where every
// request carries its capabilities), else from the session's
// initialization. It reads the metadata's elicitation object directly,
// where the SDK would decode all of the capabilities again.
func elicitationOf(req *mcp.CallToolRequest) elicitCaps {
	if req.Params != nil {
		if raw, ok := req.Params.GetMeta()[mcp.MetaKeyClientCapabilities]; ok {
			if m, ok := raw.(map[string]any); ok {
				e, ok := m["elicitation"].(map[string]any)
				if !ok {
					return elicitCaps{}
				}
				_, form := e["form"]
				_, url := e["url"]
				return elicitCaps{declared: true, form: form, url: url}
			}
		}
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return elicitCaps{}
	}
	return elicitCaps{declared: true, form: caps.Elicitation.Form != nil, url: caps.Elicitation.URL != nil}
}

// WithCall returns a copy of ctx that carries req, the MCP tool call in
// progress, for the Responder. An embedding program that writes its own
// tool handler puts the call on the context it hands to
// Orchestrator.Handle (the orchestrator passes Handle's context down to
// Respond):
//
//	out, err := o.Handle(mcpresponder.WithCall(ctx, req), askuser.Request{…})
//
// The Responder then elicits from within the call, which stays open until
// the ask ends. That is how clients on protocol revisions before
// 2026-07-28 are asked; from 2026-07-28 on a server asks nothing of its own
// accord, and only a call served by Tool (which returns the form as the
// call's input request) reaches the person: with WithCall alone such a
// client is unattended.
func WithCall(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	return context.WithValue(ctx, callKey{}, newCall(req, nil))
}

func newCall(req *mcp.CallToolRequest, cv *conv) *call {
	c := &call{req: req, conv: cv}
	if req != nil {
		c.version = req.ProtocolVersion()
		c.caps = elicitationOf(req)
	}
	return c
}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// canElicit reports whether the client declared elicitation, and whether
// this call can reach it.
func (c *call) canElicit() bool {
	if c.req == nil || !c.caps.declared {
		return false
	}
	if c.conv == nil {
		// Within the call: only before 2026-07-28, over a session.
		return c.req.Session != nil && c.version < multiRoundTrip
	}
	return true
}

// canForm reports whether the client takes forms: it said so, or said
// nothing of modes (before 2025-11-25 every client with elicitation did).
func (c *call) canForm() bool { return c.caps.form || !c.caps.url }

// canURL reports whether the client opens links (URL mode).
func (c *call) canURL() bool { return c.caps.url }
