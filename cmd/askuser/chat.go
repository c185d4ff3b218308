package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responders/email"
	"github.com/askuser-go/askuser/responders/slack"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/serve"
	"github.com/askuser-go/askuser/store"
)

// chatFlags are the flags of the responders that reach people where they
// already are, Slack and email, and the public URL their links begin with.
type chatFlags struct {
	slack     slackFlags
	email     emailFlags
	publicURL string
}

func (c *chatFlags) register(fs *flag.FlagSet) {
	c.slack.register(fs)
	c.email.register(fs)
	fs.StringVar(&c.publicURL, "public-url", "", "people reach this process at `URL` (https://askuser.example.com): the card links in Slack messages and mails, and the mails' answer links, begin with it (default: http:// and the --listen address)")
}

// check refuses chat flags that do not go together; for ask and approve,
// responder is --responder, which must name what the flags configure.
func (c *chatFlags) check(cmd, responder string) error {
	if c.publicURL != "" && !strings.HasPrefix(c.publicURL, "http://") && !strings.HasPrefix(c.publicURL, "https://") {
		return fmt.Errorf("--public-url %q must begin with http:// or https://", c.publicURL)
	}
	useSlack, useEmail := c.slack.given(), c.email.given()
	if cmd != "serve" {
		switch {
		case useSlack && responder != "slack":
			return errors.New("the --slack-* flags configure --responder slack: give it, or leave them out")
		case useEmail && responder != "email":
			return errors.New("--smtp and the --email-* flags configure --responder email: give it, or leave them out")
		}
		useSlack, useEmail = responder == "slack", responder == "email"
	}
	if useSlack {
		if err := c.slack.check(); err != nil {
			return err
		}
	}
	if useEmail {
		if err := c.email.check(); err != nil {
			return err
		}
		if cmd == "approve" {
			return errors.New("--responder email takes no approvals: a mailbox is not a person, and the command has no sign-in for the confirm page; use --responder slack, tui, stdio or web")
		}
	}
	return nil
}

// A chat is the Slack and email responders a command runs (either may be
// nil), and what serves their endpoints.
type chat struct {
	slack *slack.Responder
	email *email.Responder
}

// chatStart is what the responders need from the command.
type chatStart struct {
	public  string                             // --public-url, else http:// and the listen address
	key     []byte                             // signs the mails' links: 32 bytes
	cardURL func(session, askID string) string // nil: none
	// secretLink makes the one-time card links of asks with a secret
	// (web.Responder.OneTimeLinks); nil: none.
	secretLink func(*askuser.Ask, string) (string, error)
	logger     *slog.Logger
	// slackNotes and emailNotes are what the replicas of a fleet share
	// (nil: in memory, for one process).
	slackNotes, emailNotes store.Notes
}

// start makes the responders the flags configure, each checked against
// its server at once (a refused token, an unknown channel, an unreachable
// mail server are reported here). cmd is "serve", or --responder's name.
func (c *chatFlags) start(ctx context.Context, useSlack, useEmail bool, s chatStart) (*chat, error) {
	ch := &chat{}
	if c.publicURL != "" {
		s.public = c.publicURL
	}
	var err error
	if useSlack {
		if ch.slack, err = c.slack.open(ctx, s.logger, s.secretLink, s.slackNotes); err != nil {
			return nil, err
		}
	}
	if useEmail {
		if ch.email, err = c.email.open(ctx, s.logger, s.public, s.key, s.cardURL, s.secretLink, s.emailNotes); err != nil {
			ch.close()
			return nil, err
		}
	}
	return ch, nil
}

// any reports whether a responder runs.
func (ch *chat) any() bool { return ch != nil && (ch.slack != nil || ch.email != nil) }

// approvals reports whether one of the responders takes approvals from
// people the agent cannot stand in for.
func (ch *chat) approvals() bool {
	return ch.slack != nil && ch.slack.CanTakeApprovals() || ch.email != nil && ch.email.CanTakeApprovals()
}

// routes serves the responders' endpoints beside h: POST
// /slack/interactivity (unless Slack runs in Socket Mode) and /email/.
func (ch *chat) routes(h http.Handler) http.Handler {
	if !ch.any() {
		return h
	}
	mux := http.NewServeMux()
	if ch.slack != nil && !ch.slack.SocketMode() {
		mux.Handle("POST /slack/interactivity", ch.slack)
	}
	if ch.email != nil {
		mux.Handle("/email/", ch.email)
	}
	if h != nil {
		mux.Handle("/", h)
	}
	return mux
}

func (ch *chat) close() {
	if ch == nil {
		return
	}
	if ch.slack != nil {
		_ = ch.slack.Close()
	}
	if ch.email != nil {
		_ = ch.email.Close()
	}
}

// responder is first followed by the chat responders: every ask is shown
// on each, and the first answer ends it.
func (ch *chat) responder(first askuser.Responder) askuser.Responder {
	if !ch.any() {
		return first
	}
	f := &fanout{first: first}
	if ch.slack != nil {
		f.rest = append(f.rest, ch.slack)
	}
	if ch.email != nil {
		f.rest = append(f.rest, ch.email)
	}
	return f
}

// A fanout shows every ask on several event-driven responders at once:
// the first (the service's card), and the rest (Slack, email), each of
// which ends the ask with the first answer it takes. It asks the first
// about secrets and sessions, and takes approvals when one of the rest
// does (the first is the card, which takes none).
//
// On a fleet it is an askuser.Announcer: it is told of every ask on the
// replica that began it, where Slack posts it and email mails it once,
// and of the asks of a session on every replica whose card follows that
// session, where the card shows them (Slack and email, told of an ask
// that did not begin there, do nothing: a click or a link finds the ask
// through Sessions.Find on any replica).
type fanout struct {
	first askuser.Responder
	rest  []askuser.Responder
}

var (
	_ askuser.EventDriven     = (*fanout)(nil)
	_ askuser.Announcer       = (*fanout)(nil)
	_ askuser.ApprovalCapable = (*fanout)(nil)
	_ askuser.SecretCapable   = (*fanout)(nil)
)

func (f *fanout) Asked(a *askuser.Ask) {
	if ev, ok := responder.Optional[askuser.EventDriven](f.first); ok {
		ev.Asked(a)
	}
	for _, r := range f.rest {
		r.(askuser.EventDriven).Asked(a)
	}
}

// FollowSessions hands s to every responder that follows sessions or
// finds asks through them: the card, Slack and email.
func (f *fanout) FollowSessions(s *askuser.Sessions) {
	for _, r := range append([]askuser.Responder{f.first}, f.rest...) {
		if sf, ok := responder.Optional[askuser.SessionFollower](r); ok {
			sf.FollowSessions(s)
		}
	}
}

// AnnouncesAsks reports true: Slack and email must be told of every ask
// where it began.
func (f *fanout) AnnouncesAsks() bool { return len(f.rest) > 0 }

func (f *fanout) Respond(ctx context.Context, a *askuser.Ask) error {
	f.Asked(a)
	<-ctx.Done()
	return nil
}

func (f *fanout) CanTakeApprovals() bool {
	for _, r := range append([]askuser.Responder{f.first}, f.rest...) {
		if c, ok := responder.Optional[askuser.ApprovalCapable](r); ok && c.CanTakeApprovals() {
			return true
		}
	}
	return false
}

func (f *fanout) CanCollectSecrets() bool {
	c, ok := responder.Optional[askuser.SecretCapable](f.first)
	return ok && c.CanCollectSecrets()
}

func (f *fanout) ResponderName() string {
	names := []string{nameOf(f.first)}
	for _, r := range f.rest {
		names = append(names, nameOf(r))
	}
	return strings.Join(names, "+")
}

func nameOf(r askuser.Responder) string {
	if n, ok := responder.Optional[askuser.Named](r); ok {
		return n.ResponderName()
	}
	return fmt.Sprintf("%T", r)
}

// readSecretFile reads a token, a secret or a password from a regular file
// that group and others cannot read (on Unix), trimmed of white space.
func readSecretFile(what, name string) (string, error) {
	f, fi, err := openRegular(what, name, "keep it in a regular file of mode 0600")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if checkKeyMode && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", what, name, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSlackSecretBytes+1))
	defer clear(data)
	if err != nil {
		return "", fileError(what, name, err)
	}
	if len(data) > maxSlackSecretBytes {
		return "", fmt.Errorf("%s %s is larger than 4 KiB; it holds one line", what, name)
	}
	s := strings.TrimSpace(string(data))
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("%s %s must hold one line, the value alone", what, name)
	}
	return s, nil
}

// pickChat gives o the Slack or email responder --responder names, for
// ask and approve, serving its endpoints on listen (unless Slack runs in
// Socket Mode and there is no mail), and otherwise leaves the choice to
// pickResponder.
func (c *chatFlags) pickChat(ctx context.Context, e env, cmd, name, listen string, o *askuser.Orchestrator, card func() (*web.Responder, func(), error)) (closeIt, giveBack func(), code int, ok bool) {
	if name != "slack" && name != "email" {
		if err := c.check(cmd, name); err != nil {
			fmt.Fprintf(e.stderr, "askuser %s: %v\n", cmd, err)
			return nil, nil, exitUsage, false
		}
		return e.pickResponder(cmd, name, o, card)
	}
	fail := func(code int, err error) (func(), func(), int, bool) {
		fmt.Fprintf(e.stderr, "askuser %s: %v\n", cmd, err)
		return nil, nil, code, false
	}
	if err := c.check(cmd, name); err != nil {
		return fail(exitUsage, err)
	}
	useSlack, useEmail := name == "slack", name == "email"
	var ln net.Listener
	if useEmail || c.slack.appTokenFile == "" {
		var err error
		if ln, err = net.Listen("tcp", listen); err != nil {
			return fail(exitFailure, fmt.Errorf("--listen %s: %w", listen, err))
		}
	}
	s := chatStart{key: make([]byte, 32), logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	_, _ = rand.Read(s.key)
	if ln != nil {
		host, _ := cardHost(listen, ln.Addr().(*net.TCPAddr))
		s.public = "http://" + host
	}
	ch, err := c.start(ctx, useSlack, useEmail, s)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return fail(exitFailure, err)
	}
	if useSlack {
		o.Responder = ch.slack
	} else {
		o.Responder = ch.email
	}
	stop := func() {}
	if ln != nil {
		srv := &http.Server{Handler: ch.routes(nil), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
		go func() { _ = srv.Serve(ln) }()
		stop = func() {
			// The acknowledgements under way are delivered: Slack shows an
			// error for a click it had no answer to.
			ctx, cancel := context.WithTimeout(context.Background(), serveStopTimeout)
			defer cancel()
			if srv.Shutdown(ctx) != nil {
				_ = srv.Close()
			}
		}
		where := "POST " + c.publicOr(s.public) + "/slack/interactivity"
		if useEmail {
			where = c.publicOr(s.public) + "/email/"
		}
		if !useSlack || c.slack.appTokenFile == "" {
			fmt.Fprintf(e.stderr, "askuser %s: serving %s\n", cmd, where)
		}
	}
	// The ended ask's message is edited in a function of its AfterEnd,
	// which o.Wait waits for: only then is the responder closed.
	done := func() { o.WaitResponders(); ch.close(); stop() }
	return done, func() {}, exitOK, true
}

func (c *chatFlags) publicOr(def string) string {
	if c.publicURL != "" {
		return strings.TrimRight(c.publicURL, "/")
	}
	return def
}

// notesTTL is how long the responders' notes, shared by every replica on
// the store, are kept: as long as the longest ask, and a week at least.
func notesTTL(c serveConfig) time.Duration {
	return max(store.DefaultRetention, time.Duration(c.ceiling)*time.Second+time.Hour)
}

// serveCardNotes returns the notes serve's card keeps its one-time links
// in (web.Options.Notes), shared by every replica on the store so that a
// link in a Slack message or a mail is redeemed once on any of them; nil
// when neither Slack nor email runs, as nothing then makes such a link.
func serveCardNotes(ctx context.Context, c serveConfig, st *natsstore.Store) (store.Notes, error) {
	if !c.chat.slack.given() && !c.chat.email.given() {
		return nil, nil
	}
	return st.Notes(ctx, "web", notesTTL(c))
}

// startServeChat makes serve's Slack and email responders, if its flags
// configure them: their card links open the service's card, and the mails'
// links are signed by a key derived from the fleet's key ring, so that
// every replica verifies them.
func (e env) startServeChat(ctx context.Context, c serveConfig, card *serve.Card, ring *secretstore.KeyRing, addr *net.TCPAddr, logger *slog.Logger, st *natsstore.Store) (*chat, error) {
	useSlack, useEmail := c.chat.slack.given(), c.chat.email.given()
	if !useSlack && !useEmail {
		return &chat{}, nil
	}
	host, _ := cardHost(c.listen, addr)
	s := chatStart{public: "http://" + host, logger: logger}
	if c.chat.publicURL != "" {
		s.public = strings.TrimRight(c.chat.publicURL, "/")
	}
	if c.chat.publicURL == "" && addr.Port == 0 {
		fmt.Fprintf(e.stderr, "askuser serve: --listen %s picks its port at start, so the links in Slack messages and mails name port 0: give --public-url URL\n", c.listen)
	}
	public := s.public
	s.cardURL = func(session, _ string) string { return card.URL(public, session) }
	if w, ok := card.Unwrap().(*web.Responder); ok {
		s.secretLink = w.OneTimeLinks(public, 0)
	}
	if useEmail {
		k, err := ring.Derive("askuser serve: email links")
		if err != nil {
			return nil, err
		}
		s.key = k[:]
	}
	ttl := notesTTL(c)
	var err error
	if useSlack {
		if s.slackNotes, err = st.Notes(ctx, "slack", ttl); err != nil {
			return nil, err
		}
	}
	if useEmail {
		if s.emailNotes, err = st.Notes(ctx, "email", ttl); err != nil {
			return nil, err
		}
	}
	ch, err := c.chat.start(ctx, useSlack, useEmail, s)
	if err != nil {
		return nil, err
	}
	if ch.slack != nil {
		where := "POST " + public + "/slack/interactivity"
		if ch.slack.SocketMode() {
			where = "Socket Mode"
		}
		fmt.Fprintf(e.stderr, "askuser serve: posting asks to Slack channel %s; interactions over %s\n", c.chat.slack.channel, where)
	}
	if ch.email != nil {
		fmt.Fprintf(e.stderr, "askuser serve: mailing asks to %s; links under %s/email/\n", c.chat.email.to, public)
	}
	return ch, nil
}
