package serve

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

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
	// Web are the web card's options (see web.Options). A request to the
	// card must carry the session's access token; an Authorize given here
	// must admit it too, and names the principal (else "card"). A nil
	// CSRFKey is derived from Keys.
	Web web.Options
}

// A Card is the web card of the service: a web.Responder (see
// responders/web) whose pages admit a request by the session's access
// token. The token is carried by the card URL that the agent API hands
// out (http://HOST/sessions/{session}?token=…); opening that URL sets it as
// a cookie for that session (HttpOnly, SameSite=Strict) and redirects to
// the page without it, and every other card request needs the cookie.
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
	var access cardAccess
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
// card can do (see askuser.Wrapper).
func (c *Card) Unwrap() askuser.Responder { return c.web }

// ServeHTTP serves the card page and its JSON API (see responders/web),
// turning a card URL's token into the session's cookie.
func (c *Card) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.handler.ServeHTTP(w, r) }

// URL is the card URL of a session, with its access token, under base
// (scheme://host[:port], as Config.BaseURL): what the agent API hands out,
// for the messages and mails of other responders.
func (c *Card) URL(base, session string) string {
	return strings.TrimRight(base, "/") + "/" + web.SessionPath(session) + "?token=" + c.access.token(session)
}

// Close ends the card's event streams (see web.Responder.Close); asks in
// the shared store stay pending, for another replica's card or this one's
// when it comes back. Call it when the server stops.
func (c *Card) Close() error { return c.web.Close() }

var (
	_ askuser.EventDriven     = (*Card)(nil)
	_ askuser.ApprovalCapable = (*Card)(nil)
	_ askuser.Wrapper         = (*Card)(nil)
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

// cardAccess makes and checks the card's access tokens: one per session,
// the same on every replica, carried by the card URL and then by a cookie
// named for the session.
type cardAccess struct{ key [32]byte }

// token is the access token of a session's card: hex of HMAC-SHA-256 of
// the session under the derived access key.
func (c cardAccess) token(session string) string {
	m := hmac.New(sha256.New, c.key[:])
	m.Write([]byte("askuser card access\x00"))
	m.Write([]byte(session))
	return hex.EncodeToString(m.Sum(nil))
}

// cookie is the name of the cookie that holds a session's access token:
// one per session, so that a person answering several sessions in one
// browser keeps each card's.
func (c cardAccess) cookie(session string) string {
	h := sha256.Sum256([]byte(session))
	return "askuser_card_" + hex.EncodeToString(h[:8])
}

// check reports whether t is the session's access token, in constant time.
func (c cardAccess) check(session, t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(c.token(session))) == 1
}

// errNoCardAccess is why a card request without the session's cookie is
// refused.
var errNoCardAccess = errors.New("no access token for this session: open the card URL the agent was given")

// authorize is the card's web.Options.Authorize: the request must carry
// the session's access token in its cookie. The principal is "card".
func (c cardAccess) authorize(r *http.Request, session string) (string, error) {
	ck, err := r.Cookie(c.cookie(session))
	if err != nil || !c.check(session, ck.Value) {
		return "", errNoCardAccess
	}
	return "card", nil
}

// withSessionToken turns a GET of a session's card page carrying the
// session's ?token= into the session's cookie (HttpOnly, SameSite=Strict),
// and redirects to the same page without the token; a wrong token is
// refused with 403. Every other request goes to h, which checks the cookie
// (cardAccess.authorize).
func (c cardAccess) withSessionToken(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /sessions/{session}", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		t := q.Get("token")
		if t == "" {
			h.ServeHTTP(w, r)
			return
		}
		session := r.PathValue("session")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if !c.check(session, t) {
			http.Error(w, "the access token is wrong for this session; open the card URL the agent was given", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: c.cookie(session), Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
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
