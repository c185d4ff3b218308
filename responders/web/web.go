// Package web is askuser's web card responder: an http.Handler that an
// embedding program mounts in its own server, serving one card page and a
// JSON API through which any front end shows pending asks and answers them.
//
//	r := web.New(&web.Options{Authorize: myAuth})
//	defer r.Close()
//	mux.Handle("/askuser/", http.StripPrefix("/askuser", r))
//	o := &askuser.Orchestrator{Responder: r}
//
// The handler may be mounted under any prefix: the page refers to the API
// by relative URLs only.
//
// # Routes
//
// Paths are relative to where the handler is mounted. A session is one path
// segment (escape it with url.PathEscape); an ask is addressed by its id
// (Ask.ID, 128 random bits), a question by its id within that ask.
//
//	GET  /sessions/{session}                 the card page: every pending ask of the session, live
//	GET  /asks/{id}                          the card page for one ask
//	GET  /api/sessions/{session}/asks        {"csrf_token": "…", "asks": [ask…]}, oldest first
//	GET  /api/sessions/{session}/events      server-sent events (below)
//	GET  /api/asks/{id}                      one ask, pending or recently ended
//	PUT  /api/asks/{id}/answers/{question}   one answer (the answer shape below)
//	POST /api/asks/{id}/submit               {"answers": {"<question>": answer, …}} (optional), then submit
//	POST /api/asks/{id}/decline              decline the whole call
//	POST /api/asks/{id}/dismiss              {"on_question": "<question>"} (optional): dismiss the card
//
// Every ask route takes the ask's session as ?session=… (the page sends it
// with every request); see On a fleet.
//
// An ask is the normalized call: its questions with ids, kinds, options
// (each marked "recommended" when it is a declared default), the declared
// defaults, what the deadline applies, the answers accepted so far (a
// sealed answer only as "sealed": true), the deadlines (asked_at, nudge_at,
// expires_at, and nudge_in_ms / expires_in_ms counted from the response,
// so a page needs no synchronized clock), and once it has ended its
// "final" state: answered, auto_selected, declined or cancelled, with the
// status, who decided and the final answers.
//
// An answer is {"selected": [values…], "other_text": "…", "note": "…",
// "option_notes": {value: "…"}, "secret": "…"}; every field is optional.
// A body that names "answered_by" is refused: only the orchestrator says who
// decided. An answer is reported through Ask.Answer as soon as it arrives,
// so what the person answered counts even when the deadline comes before
// they submit. A secret is posted as its value in "secret" and handed to the
// orchestrator as a secret.Value, which seals it when it accepts it: a post
// that loses (late, or after another ending) never reaches the store. No
// response, event or log line carries it.
//
// Status codes: 200 with {"question_id": …, "answer": …} for an accepted
// answer (a sealed one only as "sealed": true), and with the ask for a GET
// or an ending (which waits briefly for the final state); 400 with
// {"error": Reason, "question_id": …} for an answer the orchestrator
// refuses (see askuser.CheckAnswer) or a body that is not an answer, and
// with {"error": …, "unanswered": [ids]} for a submit while a required
// question has no answer; 403 when Authorize refuses, or the request is
// cross-origin or lacks the CSRF token; 404 for an unknown ask, or a
// question the ask does not have (so an earlier ask's card cannot answer a
// later one); 408 for a body that does not arrive within
// Options.BodyTimeout; 409 with the ask once it has ended
// (askuser.ErrAskEnded); 413 for a body over Options.MaxBodyBytes; 421 with
// {"error": …} on every route for a Host that is not allowed (see Security);
// 503 for an event stream once the card is closed, and where the
// pending-ask store fails (see On a fleet).
//
// # Events
//
// GET /api/sessions/{session}/events is a text/event-stream. It opens with
// a "snapshot" event ({"asks": [ask…]}: the pending asks), then sends "ask"
// when an ask arrives, "nudge" (the ask again) at its nudge_at, when a page
// shows its countdown, and "outcome" (the ask with its final state) when it
// ends. A comment line every 15 seconds keeps proxies from closing the
// stream. A client that falls behind is disconnected; EventSource
// reconnects and the snapshot brings it up to date.
//
// # On a fleet
//
// Replicas whose orchestrators share a pending-ask store
// (Orchestrator.Asks) each have a card, and a page works on any of them.
// A card holds the asks begun on its replica and those of the sessions it
// follows (see askuser.SessionFollower): a session's listing follows the
// session once before it answers, and its event stream for as long as it
// is open, so both show the session's asks wherever they began. An ask's
// routes find an ask begun elsewhere by the session the request names in
// ?session=: the request is authorized for that session (403) before the
// card reads the store, and an ask of another session is not found (404).
// Without ?session= a card finds only the asks it holds. When the store
// fails, the listing and the stream carry the asks this replica holds (the
// stream then ends, for the page to reconnect and try again); a listing
// with none, or an ask not found, answers 503. Give the replicas one
// Options.CSRFKey, so that a page's token is good on every replica.
//
// # Security
//
// The responder answers only for the host names in Options.AllowedHosts:
// by default localhost, 127.0.0.1 and [::1], on any port. Any other Host
// gets 421 Misdirected Request, whose body names the hosts allowed and
// says to list another in AllowedHosts. Without that check a page at
// evil.example whose name an attacker rebinds to 127.0.0.1 (DNS
// rebinding) would be same-origin with the card: it could read a
// session's asks and CSRF token and answer. A program that serves the card
// under a real name lists that name (and the loopback names, if it still
// wants them); the check is no substitute for Authorize.
//
// Ask ids are unguessable. Options.Authorize decides who may see and answer
// a session; its principal is recorded with Ask.SetPrincipal and reaches
// the Outcome and the journal. Without it every request is allowed: set it
// whenever anyone but the person can reach the server. Authorize sees the
// request as it comes — cookies, headers — since EventSource sends no
// custom headers. A browser does not scope a cookie by port: a cookie for
// 127.0.0.1 is sent to every server on 127.0.0.1, so two servers whose
// cookies share a name overwrite each other's (name it for the server, as
// askuser's command names its cookie for its port), and any other server
// on the same host that the person's browser visits receives it. Do not
// rely on a cookie alone where such a server may be hostile.
//
// Every PUT and POST must come from the same origin (http.CrossOriginProtection:
// Sec-Fetch-Site, else Origin against Host; Options.TrustedOrigins adds
// others) and carry the session's CSRF token in the X-CSRF-Token header. The
// token is an HMAC of the session under Options.CSRFKey, or a key made up
// when the Responder is created; the page carries it, the session listing returns it, and
// Responder.CSRFToken gives it to an embedding program's own front end. A
// cross-site form can set neither the header nor read the token.
//
// Bodies are capped (Options.MaxBodyBytes) and bounded in time: a body
// must arrive within Options.BodyTimeout of its header, on every route,
// or the connection is dropped (408 when the handler was reading it),
// so that a request declaring a body it never sends cannot hold a
// connection. The responder sets that deadline with
// http.ResponseController, unless the server's own ReadTimeout is as
// short. The rest is the server's to bound: set ReadHeaderTimeout,
// IdleTimeout and WriteTimeout, and cap connections, as askuser's command
// does. An event stream is exempt from the server's read and write
// deadlines (it bounds each of its writes instead), and an ending's reply
// waits at most 5 seconds for the final state, so a WriteTimeout of a few
// seconds more suits every route.
//
// A chat message or a mail that carries a question the card must answer
// (a secret) links to it with a one-time link (Responder.OneTimeLinks):
// good once, until it expires, for one ask only, and admitting the
// browser that uses it to that ask in place of Authorize; never with a
// URL that opens the whole session to whoever reads the channel.
//
// Approvals need more than the above: see Approvals.
//
// Every string the model wrote reaches the page only through JSON and
// textContent, never as markup; the page is an html/template served with a
// Content-Security-Policy that allows scripts and styles only by a
// per-response nonce, connections only to its own origin, and no framing by
// other sites.
//
// # Approvals
//
// An approval (approvaltool.Form) shows as a card of its own: the
// risk, prominent (in colour and in words: irreversible loudest), the
// action, the reason, the details behind a disclosure, an optional note,
// a "for this session" checkbox that makes Approve and Deny remember the
// decision for the session (approve_session, deny_session), and Approve /
// Deny buttons. For an irreversible action Approve is enabled only once
// the person has typed "approve".
//
// The card takes approvals only where something admits the person, never
// on the strength of a URL alone: Options.Authorize, which must then tell
// the person apart from anyone (an agent) who may have seen the card's
// URL, or Options.ApprovalCode, a code the person types on the card. Without
// either, CanTakeApprovals reports false and the orchestrator treats an
// approval as having nobody to ask (unresolved). An approval's ask carries
// "approval": {"action", "reason", "risk", "details", "digest",
// "needs_code": whether a decision needs the code, "confirm": the word an
// approve must carry, "approve", for an irreversible action}. It is decided
// in one request:
//
//	POST /api/asks/{id}/submit   {"answers": {"approval": {"selected": ["approve"], "note": "…"}},
//	                              "code": "1234-5678", "confirm": "approve"}
//
// where selected holds one of approve, approve_session, deny and
// deny_session; note, code and confirm are optional as the approval needs
// them. A decline ({"code": …}) denies too; a dismissal ({"on_question": …,
// "code": …}) leaves it unresolved. An approval's question takes no PUT
// (400): a decision is never assembled from earlier reports. Refusals, in
// the order they are checked: 400 for a body that is not a decision; 403
// when the card takes no approvals (any more), when the code is missing,
// or wrong (the reply says how many attempts are left); 400 for a decision
// that is not one of the four, and for an approve of an irreversible action
// without "confirm": "approve". Once the ask has ended, 409 as for any ask.
// An ended approval's "final" carries "verdict": {"status": approved,
// denied or unresolved, "decided_by", "ended", "remember", "note"}, as
// approvaltool.VerdictOf gives it, and its state is that status. The
// principal of a decision is Authorize's, or else "web approval code".
// No response, event or log line carries the code.
//
// # Presence
//
// The Responder is reachable for every session by default: an ask waits on
// the card until it is answered or its deadline passes, whether or not a
// page is open (the person may open it later). With
// Options.OnlyWhenConnected it reports a session reachable only while a
// page (an event stream) is connected for it, so that the orchestrator
// applies the unattended rules at once when nobody is looking.
package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/sharedask"
	"github.com/askuser-go/askuser/store"
)

// Options configures a Responder. The zero value works: every request for
// a loopback host name is allowed, bodies are capped at 64 KiB and must
// arrive within 10 seconds, the last 1,024 ended asks stay readable.
type Options struct {
	// AllowedHosts are the host names the responder answers for: the Host
	// of every request must be one of them, or it is refused with 421
	// Misdirected Request. They are exact names or IP addresses
	// ("card.example.com", "192.0.2.7", "[2001:db8::7]"), compared without
	// regard to case; a port, in an entry or in a request, is ignored.
	// Empty allows localhost, 127.0.0.1 and [::1] only. A program that
	// serves the card under any other name must list it, and the loopback
	// names too if it still wants them; see Security in the package doc.
	AllowedHosts []string
	// Authorize decides whether the request may see and answer the
	// session's asks. It returns the principal answering (an opaque name
	// recorded with Ask.SetPrincipal, so it reaches the Outcome and the
	// journal), or an error to refuse with 403. Nil allows every request,
	// with no principal.
	Authorize func(r *http.Request, session string) (principal string, err error)
	// TrustedOrigins are other origins ("https://app.example.com") allowed
	// to PUT and POST (see http.CrossOriginProtection.AddTrustedOrigin).
	TrustedOrigins []string
	// MaxBodyBytes caps a request body (zero: 64 KiB).
	MaxBodyBytes int64
	// BodyTimeout is how long a request body may take to arrive once its
	// header has (zero: 10 seconds; negative: no limit of the responder's
	// own). The responder sets it as the connection's read deadline with
	// http.ResponseController, unless the server's ReadTimeout is as short;
	// see Security in the package doc.
	BodyTimeout time.Duration
	// KeepEnded is how many ended asks stay readable (GET) and answer 409
	// rather than 404 (zero: 1,024).
	KeepEnded int
	// OnlyWhenConnected makes a session reachable only while a page is
	// connected to its event stream; see Presence in the package doc.
	OnlyWhenConnected bool
	// ApprovalCode is a code the person types on the card before they
	// decide an approval: every approve, deny, decline or dismissal of one
	// carries it in "code" and is refused (403) without it. Show it where
	// only the person reads it — askuser's command prints it on its
	// controlling terminal — never where an agent can (its shell's output,
	// the card's URL). NewApprovalCode makes one. It is compared in
	// constant time, without regard to spaces, dashes and case; it must
	// have at least 6 characters besides those, or no approval is taken.
	// After MaxApprovalCodeAttempts wrong codes in all, the card takes no
	// more approvals: the pending ones end as having nobody to ask. With
	// both this and Authorize set, a decision needs both. See Approvals in
	// the package doc.
	ApprovalCode string
	// Logger receives what goes wrong in the handler (nil: slog.Default()).
	// No answer and no secret is ever logged.
	Logger *slog.Logger
	// CSRFKey is the key the session's CSRF tokens are an HMAC under (nil:
	// a random key made up when the Responder is created, so that a token
	// is good on this Responder only). Replicas sharing a card (a page
	// loaded from one and its answers posted to another, or to the same
	// one after a restart) set the same key: at least 32 random bytes,
	// derived from a secret they share, never sent to the pages.
	CSRFKey []byte
	// Notes, when set, keeps the codes of the one-time links
	// (OneTimeLinks) — each code's digest, the ask, session and principal
	// it admits to, its expiry — and their single use, so that a link made
	// on one replica of a fleet is redeemed, once, on any replica: give
	// every replica the same one (natsstore's Store.Notes), with a time to
	// live longer than the longest ask, and the same CSRFKey (the cookie a
	// link sets is signed under it). A redemption is a compare-and-set on
	// the code's note: two replicas redeeming one code at once admit once.
	// Nil: the codes live in this Responder's memory, and a link must come
	// back to the replica that made it.
	Notes store.Notes
}

// A Responder shows asks on a web card and takes answers through its JSON
// API; see the package doc. It is an http.Handler. Its methods are safe for
// concurrent use. Close it when the server stops.
type Responder struct {
	opts        Options
	maxBody     int64
	bodyTimeout time.Duration
	keep        int
	hosts       map[string]bool // AllowedHosts, by hostName
	hostList    string          // AllowedHosts, for a refusal
	csrfKey     [32]byte
	cop         *http.CrossOriginProtection
	mux         *http.ServeMux

	codeSum [32]byte // SHA-256 of ApprovalCode, normalized
	badCode bool     // ApprovalCode is too short: no approval is taken

	fleet atomic.Pointer[askuser.Sessions] // what the card follows sessions through; nil without an orchestrator

	mu         sync.Mutex
	closed     bool
	wrongCodes int            // wrong approval codes so far
	codeLocked bool           // MaxApprovalCodeAttempts reached: no more approvals
	active     sync.WaitGroup // asks shown whose ending is not yet published
	asks       map[string]*entry
	ended      []string // ended ask ids, oldest first
	sessions   map[string]*session
	once       map[string]onceCode // one-time codes not yet used, by onceKey
	onceUsed   map[string]bool     // one-time codes used, by onceKey
}

// entry is an ask the responder knows: pending, or ended and kept.
type entry struct {
	a     *askuser.Ask
	ended bool
	nudge *time.Timer // publishes the nudge; nil when NudgeAt had passed
}

// session is what the responder keeps per session: its pending asks and
// its connected event streams.
type session struct {
	pending map[string]*askuser.Ask
	subs    map[*subscriber]struct{}
}

// New returns a responder; opts may be nil.
func New(opts *Options) *Responder {
	r := &Responder{
		asks:     map[string]*entry{},
		sessions: map[string]*session{},
		cop:      http.NewCrossOriginProtection(),
	}
	if opts != nil {
		r.opts = *opts
	}
	r.maxBody = r.opts.MaxBodyBytes
	if r.maxBody <= 0 {
		r.maxBody = 64 << 10
	}
	r.bodyTimeout = r.opts.BodyTimeout
	if r.bodyTimeout == 0 {
		r.bodyTimeout = 10 * time.Second
	}
	r.hosts, r.hostList = allowedHosts(r.opts.AllowedHosts)
	r.keep = r.opts.KeepEnded
	if r.keep <= 0 {
		r.keep = 1024
	}
	for _, o := range r.opts.TrustedOrigins {
		if err := r.cop.AddTrustedOrigin(o); err != nil {
			r.logger().Error("web: a trusted origin is not valid; it is ignored", "origin", o, "err", err)
		}
	}
	r.cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusForbidden, errorBody{Error: "cross-origin requests are not allowed"})
	}))
	if len(r.opts.CSRFKey) > 0 {
		r.csrfKey = sha256.Sum256(r.opts.CSRFKey)
		r.opts.CSRFKey = nil // not kept beside its digest
	} else {
		_, _ = rand.Read(r.csrfKey[:])
	}
	r.setupApprovals()
	r.routes()
	return r
}

func (r *Responder) logger() *slog.Logger {
	if r.opts.Logger != nil {
		return r.opts.Logger
	}
	return slog.Default()
}

// ResponderName names the responder in the journal: "web".
func (r *Responder) ResponderName() string { return "web" }

// CanCollectSecrets reports true: the card takes a secret in a password
// field and posts it to its own origin.
func (r *Responder) CanCollectSecrets() bool { return true }

// Reachable reports whether a person can be reached for the session: always
// (until Close), or with Options.OnlyWhenConnected only while a page is
// connected to the session's event stream.
func (r *Responder) Reachable(_ context.Context, sess string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if !r.opts.OnlyWhenConnected {
		return true
	}
	s := r.sessions[sess]
	return s != nil && len(s.subs) > 0
}

// CSRFToken returns the token a front end sends in the X-CSRF-Token header
// of every PUT and POST for the session's asks.
func (r *Responder) CSRFToken(sess string) string {
	m := hmac.New(sha256.New, r.csrfKey[:])
	m.Write([]byte("askuser/web csrf\x00"))
	m.Write([]byte(sess))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (r *Responder) checkCSRF(req *http.Request, sess string) bool {
	got := req.Header.Get("X-CSRF-Token")
	return got != "" && hmac.Equal([]byte(got), []byte(r.CSRFToken(sess)))
}

// Asked shows the ask on the card of its session until it ends; see the
// package doc. The orchestrator calls it in place of Respond: the card is
// driven by its pages' requests, and holds no goroutine for a pending ask.
// The ask's ending and its final outcome are published to the connected
// pages once the outcome is final.
func (r *Responder) Asked(a *askuser.Ask) {
	r.mu.Lock()
	if r.asks[a.ID()] != nil {
		// Told again of an ask the card shows (a replica that begins an
		// ask of a session it follows may tell it twice): it is shown,
		// and ends, once.
		r.mu.Unlock()
		return
	}
	if r.closed && sharedask.Is(a) {
		// An ask in a shared store that reaches a closed card (a session
		// followed as Close came) stays pending for another replica's
		// card, as Close leaves those it holds.
		r.mu.Unlock()
		return
	}
	if r.closed || (a.Form().Approval != nil && !r.approvalsLocked()) {
		// Closed; or an approval, which nobody is admitted to decide here
		// (handed over by something that did not ask CanTakeApprovals).
		r.mu.Unlock()
		if err := unreachable(a); err != nil {
			r.logger().Error("web: ending an ask as unreachable failed", "ask", a.ID(), "err", err)
		}
		return
	}
	// An ask in a shared store outlives this card: Close leaves it
	// pending and does not wait for its end.
	shared := sharedask.Is(a)
	if !shared {
		r.active.Add(1)
	}
	e := r.addLocked(a)
	if d := time.Until(a.Form().NudgeAt); d > 0 {
		e.nudge = time.AfterFunc(d, func() { r.nudge(a) })
	} // else already past: a page shows the countdown from nudge_in_ms
	r.mu.Unlock()
	a.AfterEnd(func() {
		if !shared {
			defer r.active.Done()
		}
		r.finish(a)
	})
	r.publish(a.Session(), "ask", a)
}

// Respond shows the ask as Asked does, for a caller that hands asks over
// one by one (FirstReachable), and returns once ctx is done.
func (r *Responder) Respond(ctx context.Context, a *askuser.Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

// nudge tells the pages that a pending ask's deadline is near.
func (r *Responder) nudge(a *askuser.Ask) {
	r.mu.Lock()
	e := r.asks[a.ID()]
	pending := e != nil && !e.ended
	r.mu.Unlock()
	if pending {
		r.publish(a.Session(), "nudge", a)
	}
}

func unreachable(a *askuser.Ask) error {
	if err := a.Unreachable(); err != nil && err != askuser.ErrAskEnded {
		return err
	}
	return nil
}

func (r *Responder) addLocked(a *askuser.Ask) *entry {
	e := &entry{a: a}
	r.asks[a.ID()] = e
	s := r.sessionLocked(a.Session())
	s.pending[a.ID()] = a
	return e
}

func (r *Responder) sessionLocked(name string) *session {
	s := r.sessions[name]
	if s == nil {
		s = &session{pending: map[string]*askuser.Ask{}, subs: map[*subscriber]struct{}{}}
		r.sessions[name] = s
	}
	return s
}

// finish moves an ended ask from pending to the kept ones and tells the
// session's pages its outcome.
func (r *Responder) finish(a *askuser.Ask) {
	r.mu.Lock()
	if e := r.asks[a.ID()]; e != nil {
		e.ended = true
		if e.nudge != nil {
			e.nudge.Stop()
		}
	}
	r.ended = append(r.ended, a.ID())
	for len(r.ended) > r.keep {
		delete(r.asks, r.ended[0])
		r.ended[0] = ""
		r.ended = r.ended[1:]
	}
	if s := r.sessions[a.Session()]; s != nil {
		delete(s.pending, a.ID())
		if len(s.pending) == 0 && len(s.subs) == 0 {
			delete(r.sessions, a.Session())
		}
	}
	r.mu.Unlock()
	r.publish(a.Session(), "outcome", a)
}

// lookup returns the ask with the given id, pending or kept.
func (r *Responder) lookup(id string) *askuser.Ask {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.asks[id]; e != nil {
		return e.a
	}
	return nil
}

// pending returns the session's pending asks, oldest first.
func (r *Responder) pending(sess string) []*askuser.Ask {
	r.mu.Lock()
	s := r.sessions[sess]
	var as []*askuser.Ask
	if s != nil {
		as = make([]*askuser.Ask, 0, len(s.pending))
		for _, a := range s.pending {
			as = append(as, a)
		}
	}
	r.mu.Unlock()
	sortAsks(as)
	return as
}

// Close ends the pending asks as unreachable (nobody can be asked through
// this responder any more), waits until their outcomes are published to
// the pages, and then ends every event stream once it has sent what it had
// queued. Asks in a shared store (Orchestrator.Asks) are left pending: another
// replica's card still takes them. Later asks are unreachable at once, and
// new event streams are refused with 503.
// An http.Server that serves the responder should call Close before or
// during Shutdown (http.Server.RegisterOnShutdown), since an open event
// stream never goes idle.
func (r *Responder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	var pending []*askuser.Ask
	for _, s := range r.sessions {
		for _, a := range s.pending {
			if !sharedask.Is(a) {
				pending = append(pending, a)
			}
		}
	}
	r.mu.Unlock()
	for _, a := range pending {
		if err := unreachable(a); err != nil {
			r.logger().Error("web: ending an ask as unreachable failed", "ask", a.ID(), "err", err)
		}
	}
	r.active.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sessions {
		for sub := range s.subs {
			sub.end()
		}
	}
	return nil
}

var (
	_ askuser.Responder       = (*Responder)(nil)
	_ askuser.Named           = (*Responder)(nil)
	_ askuser.EventDriven     = (*Responder)(nil)
	_ askuser.SessionFollower = (*Responder)(nil)
	_ askuser.Presence        = (*Responder)(nil)
	_ askuser.SecretCapable   = (*Responder)(nil)
	_ askuser.ApprovalCapable = (*Responder)(nil)
	_ http.Handler            = (*Responder)(nil)
)
