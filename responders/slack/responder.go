package slack

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/store"
)

// Options configure a Responder. BotToken, SigningSecret, Channel and who
// may answer (AllowedUsers or AllowedUserGroup) are required.
type Options struct {
	// BotToken is the app's bot token (xoxb-…), with the scopes chat:write
	// and (for AllowedUserGroup) usergroups:read.
	BotToken string
	// SigningSecret verifies every request Slack sends to the endpoint.
	// It is not needed with AppToken.
	SigningSecret string
	// AppToken, when set, is an app-level token (xapp-…, with the scope
	// connections:write): the responder then takes the interactions over
	// Socket Mode, a websocket it opens to Slack, and needs no public URL;
	// it is not served as the endpoint.
	AppToken string
	// Channel is the id of the channel the asks are posted to (C…); the
	// bot must be a member.
	Channel string
	// AllowedUsers are the Slack user ids (U…) who may answer.
	AllowedUsers []string
	// AllowedUserGroup is a user group id (S…) whose members may answer,
	// read at New and again every GroupRefresh.
	AllowedUserGroup string
	// Principal maps a verified Slack identity to the program's own name
	// for the person, journaled as the answer's principal (nil, or an
	// empty result: "slack:<team>/<user>").
	Principal func(team, user string) string
	// SecretLink makes a one-time link to the web card for an ask with a
	// question Slack must not carry (a secret), for the person principal
	// names: web.Responder.OneTimeLinks gives one. The message offers
	// "Answer on the web card"; a click on it by someone allowed gets the
	// link in an ephemeral message that only they see, good once, for
	// that ask only. Nil: such a question cannot be answered from Slack.
	// The message never holds a link that opens the session's card, which
	// anyone in the channel could follow.
	SecretLink func(a *askuser.Ask, principal string) (string, error)
	// APIURL is where Slack's Web API is (for tests, and Slack-compatible
	// servers), ending in a slash; empty: Slack's.
	APIURL string
	// HTTPClient sends the Web API's requests (nil: one with a 10-second
	// timeout).
	HTTPClient *http.Client
	// Logger receives what goes wrong with Slack (nil: slog.Default()).
	// No answer and no token is ever logged.
	Logger *slog.Logger
	// Rand makes the codes an irreversible approval asks for (nil:
	// crypto/rand).
	Rand io.Reader
	// Notes keeps what the replicas of a fleet share: the message each ask
	// was posted as (its channel, timestamp and confirmation code) and the
	// signed requests already taken. Give every replica the same one
	// (natsstore's Store.Notes), with a time to live longer than the
	// longest ask, and the same Orchestrator.Asks: then any replica takes
	// a click for any ask, and edits its message. nil: notes in memory,
	// for one process.
	Notes store.Notes
}

// GroupRefresh is how often AllowedUserGroup's members are read again.
const GroupRefresh = 5 * time.Minute

// apiTimeout bounds one Web API request.
const apiTimeout = 10 * time.Second

// A Responder puts asks in a Slack channel. It is an askuser.EventDriven
// responder and the app's interactivity endpoint (an http.Handler). It is
// safe for concurrent use.
type Responder struct {
	opts    Options
	api     *slack.Client
	team    string // the workspace, from auth.test
	log     *slog.Logger
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup // work: posts, edits, clicks
	loops   sync.WaitGroup // Socket Mode's and the sweep, until the context ends
	allowed map[string]bool
	notes   store.Notes
	// sessions finds the asks of the fleet (see FollowSessions).
	sessions atomic.Pointer[askuser.Sessions]

	mu       sync.Mutex
	asks     map[string]*entry
	group    map[string]bool
	groupAt  time.Time
	closed   bool
	rand     io.Reader
	verifier func(http.Header, []byte) error
}

// entry is a message this responder posted of an ask: the ask's own
// (id is the ask's), or one a route's step told it (id names the ask, the
// step and the channel; a is the step's handle).
type entry struct {
	a         *askuser.Ask
	id        string        // the message's: its note's key, and what its buttons name
	via       string        // the step's channel, as the route names it; "" for the ask's own message
	posted    chan struct{} // closed once the message was posted, or failed to be
	channel   string
	ts        string // the message's; empty when posting failed
	challenge string // what an irreversible approval asks to be typed
	nudge     *time.Timer
}

var (
	_ askuser.EventDriven     = (*Responder)(nil)
	_ askuser.Announcer       = (*Responder)(nil)
	_ askuser.ApprovalCapable = (*Responder)(nil)
	_ askuser.Named           = (*Responder)(nil)
	_ http.Handler            = (*Responder)(nil)
)

// New checks the options against Slack (auth.test for the token and its
// workspace, conversations.info for the channel, the user group's
// members) and returns the responder, or an error saying what to fix.
func New(ctx context.Context, opts Options) (*Responder, error) {
	switch {
	case opts.BotToken == "":
		return nil, errors.New("slack: a bot token (xoxb-…) is required")
	case opts.SigningSecret == "" && opts.AppToken == "":
		return nil, errors.New("slack: the app's signing secret is required, to verify what Slack sends (or an app-level token, AppToken, for Socket Mode)")
	case opts.Channel == "":
		return nil, errors.New("slack: a channel id (C…) is required")
	case len(opts.AllowedUsers) == 0 && opts.AllowedUserGroup == "":
		return nil, errors.New("slack: say who may answer: AllowedUsers (U…) or AllowedUserGroup (S…); anyone in a channel can click")
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: apiTimeout}
	}
	sopts := []slack.Option{slack.OptionHTTPClient(hc)}
	if opts.APIURL != "" {
		sopts = append(sopts, slack.OptionAPIURL(opts.APIURL))
	}
	if opts.AppToken != "" {
		sopts = append(sopts, slack.OptionAppLevelToken(opts.AppToken))
	}
	r := &Responder{
		opts:    opts,
		api:     slack.New(opts.BotToken, sopts...),
		log:     opts.Logger,
		allowed: map[string]bool{},
		asks:    map[string]*entry{},
		rand:    opts.Rand,
		notes:   opts.Notes,
	}
	if r.notes == nil {
		r.notes = &store.MemoryNotes{}
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.rand == nil {
		r.rand = rand.Reader
	}
	secret := opts.SigningSecret
	r.verifier = func(h http.Header, body []byte) error {
		if secret == "" {
			return errors.New("no signing secret: this responder takes Slack's interactions over Socket Mode")
		}
		v, err := slack.NewSecretsVerifier(h, secret)
		if err != nil {
			return err
		}
		_, _ = v.Write(body)
		return v.Ensure()
	}
	for _, u := range opts.AllowedUsers {
		r.allowed[u] = true
	}
	cctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	auth, err := r.api.AuthTestContext(cctx)
	if err != nil {
		return nil, fmt.Errorf("slack: auth.test refused the bot token: %v (check the token, and that the app is installed in the workspace)", err)
	}
	r.team = auth.TeamID
	if _, err := r.api.GetConversationInfoContext(cctx, &slack.GetConversationInfoInput{ChannelID: opts.Channel}); err != nil {
		return nil, fmt.Errorf("slack: channel %s: %v (give the channel's id, C…, and invite the bot to it)", inert.Line(opts.Channel), err)
	}
	if opts.AllowedUserGroup != "" {
		if err := r.readGroup(cctx); err != nil {
			return nil, err
		}
	}
	if opts.AppToken != "" {
		if err := r.checkSocket(cctx); err != nil {
			return nil, err
		}
	}
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if opts.AppToken != "" {
		r.runSocket()
	}
	return r, nil
}

func (r *Responder) readGroup(ctx context.Context) error {
	members, err := r.api.GetUserGroupMembersContext(ctx, r.opts.AllowedUserGroup)
	if err != nil {
		return fmt.Errorf("slack: user group %s: %v (give its id, S…; the token needs usergroups:read)", inert.Line(r.opts.AllowedUserGroup), err)
	}
	m := map[string]bool{}
	for _, u := range members {
		m[u] = true
	}
	r.mu.Lock()
	r.group, r.groupAt = m, time.Now()
	r.mu.Unlock()
	return nil
}

// ResponderName is the responder's name in the journal: "slack".
func (r *Responder) ResponderName() string { return "slack" }

// CanTakeApprovals reports true: only the people the program allows, by
// their verified Slack identity, can answer.
func (r *Responder) CanTakeApprovals() bool { return true }

// may reports whether the Slack user may answer.
func (r *Responder) may(ctx context.Context, team, user string) bool {
	if team != r.team || user == "" {
		return false
	}
	if r.allowed[user] {
		return true
	}
	if r.opts.AllowedUserGroup == "" {
		return false
	}
	r.mu.Lock()
	stale := time.Since(r.groupAt) > GroupRefresh
	r.mu.Unlock()
	if stale {
		if err := r.readGroup(ctx); err != nil {
			r.log.Warn("askuser slack: reading the user group again failed; using its last members", "err", err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.group[user]
}

func (r *Responder) principal(team, user string) string {
	if r.opts.Principal != nil {
		if p := r.opts.Principal(team, user); p != "" {
			return p
		}
	}
	return "slack:" + team + "/" + user
}

// Asked posts the ask to the channel, on the replica that began it only
// (responder.BeganHere): elsewhere it does nothing, and a click there
// finds the ask through the message's note. The handle a route's later
// step gives its channel (responder.Told) is posted wherever it is
// told — the step is told on one replica, which need not be the one that
// began the ask — once per step and channel across the fleet (the note of
// the message is created first, and only the replica that creates it
// posts), to the step's target: "slack:#ops" posts to #ops, "slack:@alice"
// to @alice, and "slack" alone to Options.Channel. It does not block: the
// message is posted by a short-lived goroutine.
func (r *Responder) Asked(a *askuser.Ask) {
	id, channel, via := a.ID(), r.opts.Channel, ""
	if t, ok := responder.Told(a); ok {
		id, via = stepMsgID(a.ID(), t), t.Channel
		if target := stepTarget(t.Channel); target != "" {
			channel = target
		}
	} else if !responder.BeganHere(a) {
		return
	}
	if !tokenID(a.ID()) {
		r.log.Error("askuser slack: an ask id this responder cannot note; it is not posted", "ask", a.ID())
		_ = a.Unreachable()
		return
	}
	e := &entry{a: a, id: id, via: via, posted: make(chan struct{}), channel: channel}
	f := a.Form()
	if f.Approval != nil && f.Approval.Risk == approval.RiskIrreversible {
		e.challenge = r.code()
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		e.unreachable()
		return
	}
	if r.asks[id] != nil {
		r.mu.Unlock()
		return // told twice here: posted once
	}
	r.asks[id] = e
	r.wg.Add(1)
	r.mu.Unlock()
	a.AfterEnd(func() { r.ended(e) })
	go func() {
		defer r.wg.Done()
		r.post(e)
	}()
}

// Respond is for a responder chosen by askuser.FirstReachable, which calls
// Respond instead of Asked: it posts the ask and waits for its end.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

func (r *Responder) post(e *entry) {
	defer close(e.posted)
	a := e.a
	ctx, cancel := context.WithTimeout(r.ctx, apiTimeout)
	defer cancel()
	// The note is made before the message is posted: the first to make it
	// posts (an ask is posted once, whatever tells this responder about it
	// twice), and a click on any replica finds the ask through it.
	n := msgNote{V: noteVersion, Session: a.Session(), Channel: e.channel, Challenge: e.challenge, State: statePosting, Via: e.via}
	if e.id != a.ID() {
		n.Ask = a.ID()
	}
	data, _ := json.Marshal(n)
	if _, err := r.notes.Create(ctx, msgKey(e.id), data); errors.Is(err, store.ErrExists) {
		return
	} else if err != nil {
		r.log.Error("askuser slack: keeping the note of an ask failed: it is not posted, and nobody can see it here", "ask", a.ID(), "channel", e.channel, "err", err)
		e.unreachable()
		return
	}
	blocks, fb := render(e.id, a.Form(), renderOptions{secretLink: r.opts.SecretLink != nil, challenge: e.challenge})
	ch, ts, err := r.api.PostMessageContext(ctx, e.channel, slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(fb, false),
		slack.MsgOptionDisableMarkdown(), slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl())
	if err != nil {
		r.log.Error("askuser slack: posting an ask failed: nobody can see it here", "ask", a.ID(), "channel", e.channel, "err", err)
		e.unreachable()
		return
	}
	if _, err := r.writeNote(ctx, e.id, func(n *msgNote) bool {
		n.Channel, n.TS, n.State = ch, ts, statePosted
		return true
	}); err != nil {
		r.log.Warn("askuser slack: the note of a posted message could not be written: a click on another replica does not find the ask, and its message is edited by this replica only", "ask", a.ID(), "err", err)
	}
	r.mu.Lock()
	e.channel, e.ts = ch, ts
	if f := a.Form(); !f.NudgeAt.IsZero() && f.NudgeAt.Before(f.ExpiresAt) {
		e.nudge = time.AfterFunc(time.Until(f.NudgeAt), func() { r.nudge(e) })
	}
	r.mu.Unlock()
}

// unreachable ends the ask as having nobody to ask when its own message
// could not be posted; a step's message that could not be posted ends
// nothing, as the ask is still on the channels told before it.
func (e *entry) unreachable() {
	if e.via == "" {
		_ = e.a.Unreachable()
	}
}

// nudge replies in the ask's thread that time is running out.
func (r *Responder) nudge(e *entry) {
	select {
	case <-e.a.Done():
		return
	default:
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()
	ctx, cancel := context.WithTimeout(r.ctx, apiTimeout)
	defer cancel()
	if _, _, err := r.api.PostMessageContext(ctx, e.channel, slack.MsgOptionTS(e.ts), slack.MsgOptionText("Time is running out: "+deadlineLine(e.a.Form()), false)); err != nil {
		r.log.Warn("askuser slack: the nudge could not be posted", "ask", e.a.ID(), "err", err)
	}
}

// ended edits the message to say how the ask ended, with no buttons.
func (r *Responder) ended(e *entry) {
	r.mu.Lock()
	if r.asks[e.id] == e {
		delete(r.asks, e.id)
	}
	if e.nudge != nil {
		e.nudge.Stop()
	}
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		select {
		case <-e.posted:
		case <-r.ctx.Done():
			return
		}
		if e.ts == "" {
			return
		}
		if err := r.finish(r.ctx, e.id, e.a.Form(), e.a.Outcome()); err != nil {
			r.log.Warn("askuser slack: the message of an ended ask could not be edited; its buttons stay, and answer that the ask has ended (a replica's sweep tries again)", "ask", e.a.ID(), "err", err)
		}
	}()
}

// who says, in mrkdwn of the responder's own, who decided.
func who(out *askuser.Outcome) string {
	if out == nil {
		return ""
	}
	switch out.AnsweredBy {
	case askuser.ByUser:
		if _, u, ok := strings.Cut(strings.TrimPrefix(out.Principal, "slack:"), "/"); ok && strings.HasPrefix(out.Principal, "slack:") && plainID(u) {
			return "Answered by <@" + u + "> in Slack"
		}
		if out.Principal != "" {
			return "Answered by " + escapeAmp(inert.Line(out.Principal)) + " (" + escapeAmp(inert.Line(out.Responder)) + ")"
		}
		return "Answered on " + escapeAmp(inert.Line(out.Responder))
	case askuser.ByTimeout:
		return "Decided by the deadline"
	case askuser.ByUnattended:
		return "Nobody answered"
	case askuser.ByPolicy:
		return "Decided by the program's policy"
	case askuser.ByRemembered:
		return "Decided by an earlier decision for this session"
	}
	return ""
}

// plainID reports whether s is a Slack id (letters and digits), safe in
// a mention.
func plainID(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// code is a short random code from an alphabet without look-alikes.
func (r *Responder) code() string {
	const alphabet = "ACDEFGHJKMNPQRTUVWXY34679"
	var b [4]byte
	if _, err := io.ReadFull(r.rand, b[:]); err != nil {
		panic("askuser slack: no randomness for a confirmation code: " + err.Error())
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b[:])
}

// Close stops the responder: it posts nothing more, lets the edits and
// clicks under way finish (for up to 5 seconds), and returns once what it
// was doing has stopped. The asks it posted stay pending.
func (r *Responder) Close() error {
	r.mu.Lock()
	r.closed = true
	for _, e := range r.asks {
		if e.nudge != nil {
			e.nudge.Stop()
		}
	}
	r.mu.Unlock()
	// What is under way (an ended ask's edit, a click's work) is given
	// closeGrace to finish, so that a program that stops once its ask is
	// answered still edits the message; then it is cancelled.
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	t := time.NewTimer(closeGrace)
	select {
	case <-done:
	case <-t.C:
	}
	t.Stop()
	r.cancel()
	<-done
	r.loops.Wait()
	return nil
}

// closeGrace is how long Close lets the work under way finish.
const closeGrace = 5 * time.Second

func (r *Responder) lookup(msgID string) *entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asks[msgID]
}

// ephemeral tells one user something only they see.
func (r *Responder) ephemeral(channel, user, msg string) {
	if channel == "" {
		channel = r.opts.Channel
	}
	ctx, cancel := context.WithTimeout(r.ctx, apiTimeout)
	defer cancel()
	if _, err := r.api.PostEphemeralContext(ctx, channel, user, slack.MsgOptionText(msg, false)); err != nil {
		r.log.Warn("askuser slack: an ephemeral reply could not be posted", "err", err)
	}
}
