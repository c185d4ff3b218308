package serve

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// CardConfig configures a Card. The zero value works: card URLs and CSRF
// tokens are good on this Card only, for its life, and the web card has
// its defaults.
type CardConfig struct {
	// Keys is the fleet's key ring, the same on every replica: the card's
	// access tokens and its CSRF tokens are keyed by keys derived from its
	// current key (HKDF-SHA-256, under labels of the service's own), so a
	// card URL one replica hands out opens the card on every replica,
	// before and after a restart, and a page loaded from one replica posts
	// its answers to another. Rotating the ring's current key changes the
	// derived keys, and so every card URL handed out before. The ring
	// itself never leaves the process. Nil: keys made up for the life of
	// the Card.
	Keys *secretstore.KeyRing
	// URLLifetime is how long a card URL the agent API hands out opens
	// the card (zero: an hour). Each answer that hands one out mints a
	// fresh one; a status request hands out another.
	URLLifetime time.Duration
	// CookieLifetime is how long the access a card URL gives a browser
	// lasts without the card being used (zero: 12 hours). Opening a card
	// URL sets it as a cookie, named for the session and the port; a
	// request to the card once a quarter of it has passed gets a fresh
	// cookie, so that the access of a card in use does not lapse and the
	// value a browser holds keeps changing. An expired cookie is refused
	// (403, saying so): open a fresh card URL.
	CookieLifetime time.Duration
	// Web are the web card's options (see web.Options). A request to the
	// card must carry the session's access token; an Authorize given here
	// must admit it too, and names the principal (else "card"). A nil
	// CSRFKey is derived from Keys.
	Web web.Options
}

// A Card is the web card of the service: a web.Responder (see
// responders/web) whose pages admit a request by the session's access
// token. The token is carried by the card URL that the agent API hands
// out (http://HOST/sessions/{session}?token=…), and expires
// (CardConfig.URLLifetime); opening that URL sets a cookie of its own for
// that session and port (HttpOnly, SameSite=Strict), which expires too and
// is renewed as the card is used (CardConfig.CookieLifetime), and
// redirects to the page without the token; every other card request needs
// the cookie.
//
// Make it the Orchestrator's Responder and Config.Card. It takes no
// approval: whoever holds a card URL could decide one, and the agent
// hands the URL on. An approval another program began on the same store
// is left to that program's responders.
type Card struct {
	web     *web.Responder
	access  cardAccess
	hosts   []string // web.Options.AllowedHosts
	handler http.Handler
}

// NewCard returns a card as c configures it. Its error is a key ring from
// which no key derives.
func NewCard(c CardConfig) (*Card, error) {
	opts := c.Web
	access := cardAccess{urlLife: c.URLLifetime, cookieLife: c.CookieLifetime}
	if access.urlLife <= 0 {
		access.urlLife = defaultURLLifetime
	}
	if access.cookieLife <= 0 {
		access.cookieLife = defaultCookieLifetime
	}
	if c.Keys != nil {
		fk, err := deriveKeys(c.Keys)
		if err != nil {
			return nil, err
		}
		access.key = fk.access
		if opts.CSRFKey == nil {
			opts.CSRFKey = fk.csrf[:]
		}
	} else {
		_, _ = rand.Read(access.key[:])
	}
	if user := opts.Authorize; user != nil {
		opts.Authorize = func(r *http.Request, session string) (string, error) {
			if _, err := access.authorize(r, session); err != nil {
				return "", err
			}
			return user(r, session)
		}
	} else {
		opts.Authorize = access.authorize
	}
	r := web.New(&opts)
	return &Card{web: r, access: access, hosts: opts.AllowedHosts, handler: access.withSessionToken(r)}, nil
}

// Asked shows every ask but approvals on the card.
func (c *Card) Asked(a *askuser.Ask) {
	if a.Form().Approval == nil {
		c.web.Asked(a)
	}
}

// Respond shows the ask as Asked does, until ctx ends.
func (c *Card) Respond(ctx context.Context, a *askuser.Ask) error {
	c.Asked(a)
	<-ctx.Done()
	return nil
}

// CanTakeApprovals reports false: see Card.
func (*Card) CanTakeApprovals() bool { return false }

// Unwrap returns the web card, where the orchestrator finds what else the
// card can do (see askuser.Responder).
func (c *Card) Unwrap() askuser.Responder { return c.web }

// ServeHTTP serves the card page and its JSON API (see responders/web),
// turning a card URL's token into the session's cookie.
func (c *Card) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.handler.ServeHTTP(w, r) }

// URL is the card URL of a session, with its access token, under base
// (scheme://host[:port], as Config.BaseURL): what the agent API hands out,
// for the messages and mails of other responders.
func (c *Card) URL(base, session string) string {
	return strings.TrimRight(base, "/") + "/" + web.SessionPath(session) + "?token=" + c.access.urlTokenAt(session, time.Now())
}

// Close ends the card's event streams (see web.Responder.Close); asks in
// the shared store stay pending, for another replica's card or this one's
// when it comes back. Call it when the server stops.
func (c *Card) Close() error { return c.web.Close() }

var (
	_ askuser.EventDriven     = (*Card)(nil)
	_ askuser.ApprovalCapable = (*Card)(nil)
)

// fleetKeys are the keys derived from the ring's current key.
type fleetKeys struct {
	access [32]byte // card access tokens, one per session
	csrf   [32]byte // the card's CSRF tokens (web.Options.CSRFKey)
}

// deriveKeys returns the fleet's keys, from the ring's current key
// (secretstore.KeyRing.Derive, under labels of the service's own: every
// replica, whatever its version, must use the same).
func deriveKeys(ring *secretstore.KeyRing) (fleetKeys, error) {
	var fk fleetKeys
	var err error
	if fk.access, err = ring.Derive("askuser serve: card access tokens"); err != nil {
		return fleetKeys{}, err
	}
	if fk.csrf, err = ring.Derive("askuser serve: card CSRF tokens"); err != nil {
		return fleetKeys{}, err
	}
	return fk, nil
}

// Lifetimes of the card's access (CardConfig.URLLifetime and
// CookieLifetime).
const (
	defaultURLLifetime    = time.Hour
	defaultCookieLifetime = 12 * time.Hour
	// rotateAfter is the share of a cookie's lifetime after which a
	// request to the card gets a fresh one.
	rotateAfter = 4 // a quarter
)

// cardAccess makes and checks the card's access tokens, the same on every
// replica: a card URL's, good for urlLife, which opening the URL turns into
// a cookie's, good for cookieLife and renewed as the card is used. Each is
// bound to its session and its kind, and carries its expiry:
// <unix seconds>.<hex of HMAC-SHA-256 of kind, session and expiry under
// the derived access key>.
type cardAccess struct {
	key                 [32]byte
	urlLife, cookieLife time.Duration
}

// The kinds of access token: a card URL's cannot stand for a cookie's, nor
// the other way round.
const (
	urlToken    = "url"
	cookieToken = "cookie"
)

// mac is the MAC of a token of kind for session, expiring at exp.
func (c cardAccess) mac(kind, session string, exp int64) string {
	m := hmac.New(sha256.New, c.key[:])
	m.Write([]byte("askuser card access\x00"))
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(session))
	m.Write([]byte{0})
	m.Write(strconv.AppendInt(nil, exp, 10))
	return hex.EncodeToString(m.Sum(nil))
}

// token is a token of kind for session, good until exp (rounded down to
// the second).
func (c cardAccess) token(kind, session string, exp time.Time) string {
	e := exp.Unix()
	return strconv.FormatInt(e, 10) + "." + c.mac(kind, session, e)
}

// urlTokenAt is the token of a card URL handed out at now.
func (c cardAccess) urlTokenAt(session string, now time.Time) string {
	return c.token(urlToken, session, now.Add(c.urlLife))
}

// Why a token is refused.
var (
	errTokenWrong   = errors.New("the access token is wrong for this session")
	errTokenExpired = errors.New("the access token has expired")
)

// check returns the expiry of t, a token of kind for session, in constant
// time over its MAC: errTokenWrong for a token that is not one (another
// session's, kind's or key's, or no token at all), errTokenExpired for one
// whose time is past at now.
func (c cardAccess) check(kind, session, t string, now time.Time) (time.Time, error) {
	es, mac, ok := strings.Cut(t, ".")
	e, err := strconv.ParseInt(es, 10, 64)
	if !ok || err != nil || e <= 0 || es != strconv.FormatInt(e, 10) ||
		subtle.ConstantTimeCompare([]byte(mac), []byte(c.mac(kind, session, e))) != 1 {
		return time.Time{}, errTokenWrong
	}
	exp := time.Unix(e, 0)
	if !now.Before(exp) {
		return exp, errTokenExpired
	}
	return exp, nil
}

// cookie is the name of the cookie that holds a session's access token on
// the port the request came to. A browser sends a host's cookies to every
// port of it: named for the port, the cookies of two services on one host
// (or of two sessions of one) do not overwrite each other.
func (c cardAccess) cookie(r *http.Request, session string) string {
	h := sha256.Sum256([]byte(session))
	name := "askuser_card_"
	if _, port, err := net.SplitHostPort(r.Host); err == nil && port != "" && strings.Trim(port, "0123456789") == "" {
		name += port + "_"
	}
	return name + hex.EncodeToString(h[:8])
}

// setCookie gives the browser a fresh cookie for session, good for
// cookieLife from now.
func (c cardAccess) setCookie(w http.ResponseWriter, r *http.Request, session string, now time.Time) {
	exp := now.Add(c.cookieLife)
	http.SetCookie(w, &http.Cookie{
		Name: c.cookie(r, session), Value: c.token(cookieToken, session, exp), Path: "/",
		Expires: exp, MaxAge: int(c.cookieLife / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

// errNoCardAccess is why a card request without the session's cookie is
// refused.
var errNoCardAccess = errors.New("no access token for this session: open the card URL the agent was given")

// admit checks the request's cookie for session at now: nil, or why it
// is refused. A cookie past a quarter of its life is renewed: its
// successor is set on the response (the writer withSessionToken put in
// the request's context).
func (c cardAccess) admit(r *http.Request, session string, now time.Time) error {
	ck, err := r.Cookie(c.cookie(r, session))
	if err != nil {
		return errNoCardAccess
	}
	exp, err := c.check(cookieToken, session, ck.Value, now)
	if err != nil {
		return err
	}
	if exp.Sub(now) < c.cookieLife-c.cookieLife/rotateAfter {
		if w, ok := r.Context().Value(writerKey{}).(http.ResponseWriter); ok {
			c.setCookie(w, r, session, now)
		}
	}
	return nil
}

// authorize is the card's web.Options.Authorize: the request must carry
// the session's access token in its cookie (see admit). The principal is
// "card".
func (c cardAccess) authorize(r *http.Request, session string) (string, error) {
	if err := c.admit(r, session, time.Now()); err != nil {
		return "", err
	}
	return "card", nil
}

// writerKey keys, in a card request's context, the response writer, for
// admit to renew the cookie on.
type writerKey struct{}

// refuse answers a card request whose access is refused: 403, saying why
// and what to do; as the card's API does ({"error": …}) when api is set.
func (c cardAccess) refuse(w http.ResponseWriter, err error, api bool) {
	var msg string
	switch {
	case errors.Is(err, errTokenExpired):
		msg = "your access to this session's card has expired (a card URL is good for " + lifetime(c.urlLife) +
			" until it is opened, the access it gives for " + lifetime(c.cookieLife) + " after the card was last used): open a fresh card URL; the agent's status URL hands one out"
	case errors.Is(err, errTokenWrong):
		msg = "the access token is wrong for this session; open the card URL the agent was given"
	default:
		msg = err.Error()
	}
	w.Header().Set("Cache-Control", "no-store")
	if api {
		apiError(w, http.StatusForbidden, msg)
		return
	}
	http.Error(w, msg, http.StatusForbidden)
}

// lifetime says d for a person: "12 hours", "90 minutes".
func lifetime(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	switch {
	case d%time.Hour == 0:
		n, unit = int64(d/time.Hour), "hour"
	case d%time.Minute == 0:
		n, unit = int64(d/time.Minute), "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return strconv.FormatInt(n, 10) + " " + unit
}

// withSessionToken turns a GET of a session's card page carrying a card
// URL's ?token= into the session's cookie (HttpOnly, SameSite=Strict),
// and redirects to the same page without the token; a wrong or expired
// token is refused with 403, saying which. A request to a session's page,
// listing or event stream without a good cookie is refused here too, with
// the reason; every other request goes to h, which checks the cookie
// (cardAccess.authorize) and may renew it.
func (c cardAccess) withSessionToken(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	pass := func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), writerKey{}, w)))
	}
	checked := func(api bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := c.admit(r, r.PathValue("session"), time.Now()); err != nil {
				c.refuse(w, err, api)
				return
			}
			pass(w, r)
		}
	}
	mux.HandleFunc("/", pass)
	mux.HandleFunc("GET /api/sessions/{session}/{what}", checked(true))
	mux.HandleFunc("GET /sessions/{session}", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		t := q.Get("token")
		if t == "" {
			checked(false)(w, r)
			return
		}
		session := r.PathValue("session")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		now := time.Now()
		if _, err := c.check(urlToken, session, t, now); err != nil {
			c.refuse(w, err, false)
			return
		}
		c.setCookie(w, r, session, now)
		q.Del("token")
		w.Header().Set("Location", hostcheck.LocalPath(requestPath(r), q.Encode()))
		w.WriteHeader(http.StatusSeeOther)
	})
	return mux
}

// requestPath is the escaped path the client asked for: the request's
// own, before a prefix was stripped from r.URL (http.StripPrefix), so that
// a redirect to it stays under the prefix the card is mounted at.
func requestPath(r *http.Request) string {
	if r.RequestURI != "" {
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
			return u.EscapedPath()
		}
	}
	return r.URL.EscapedPath()
}
