package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"

	"github.com/askuser-go/askuser/secretstore"
)

// The secrets of a fleet. Every replica of askuser serve reads the same
// key ring (--key-file, $ASKUSER_SECRET_KEY, or the key file beside the
// embedded server's state), and derives from its current key, with
// HKDF-SHA-256 under labels of their own, the keys of the card's access
// tokens and of its CSRF tokens: so a card URL made by one replica opens
// the card on every replica, before and after a restart, and a page loaded
// from one replica posts its answers to another. The ring itself never
// leaves the process (NATS holds only what it sealed). Rotating the ring's
// current key changes the derived keys, and so every card URL handed out
// before.

// fleetKeys are the keys derived from the ring's current key.
type fleetKeys struct {
	access [32]byte // card access tokens, one per session
	csrf   [32]byte // the card's CSRF tokens (web.Options.CSRFKey)
}

// keyMaterial is a key ring and where it came from, for messages.
type keyMaterial struct {
	ring   *secretstore.KeyRing
	source string
}

// keyFromFile reads a key file: its ring, with the checks every key file
// gets (a regular file, its size, its mode).
func keyFromFile(what, name string) (keyMaterial, error) {
	ring, err := readKeyFile(what, name)
	if err != nil {
		return keyMaterial{}, err
	}
	return keyMaterial{ring: ring, source: name}, nil
}

// keyFromEnv reads the ring in $ASKUSER_SECRET_KEY.
func keyFromEnv() (keyMaterial, error) {
	ring, err := secretstore.KeysFromEnv()
	if err != nil {
		return keyMaterial{}, err
	}
	return keyMaterial{ring: ring, source: "$" + secretstore.KeyEnv}, nil
}

// derive returns the fleet's keys, from the ring's current key
// (secretstore.KeyRing.Derive, under labels of serve's own).
func (k keyMaterial) derive() (fleetKeys, error) {
	var fk fleetKeys
	var err error
	if fk.access, err = k.ring.Derive("askuser serve: card access tokens"); err != nil {
		return fleetKeys{}, fmt.Errorf("%s: %w", k.source, err)
	}
	if fk.csrf, err = k.ring.Derive("askuser serve: card CSRF tokens"); err != nil {
		return fleetKeys{}, fmt.Errorf("%s: %w", k.source, err)
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
		w.Header().Set("Location", localPath(r.URL.EscapedPath(), q.Encode()))
		w.WriteHeader(http.StatusSeeOther)
	})
	return mux
}
