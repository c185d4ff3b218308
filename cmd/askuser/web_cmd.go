package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/askuser-go/askuser/responders/web"
)

// tokenCookie carries the card's access token once the printed URL has
// been opened.
const tokenCookie = "askuser_token"

// webResponder serves the web card on addr and prints the session's card
// URL on standard error. The URL carries a random access token: opening it
// sets the token as a cookie (HttpOnly, SameSite=Strict) and redirects to
// the same page without it; every request then needs the cookie, so
// another user or site on the machine cannot answer. done ends the pending
// asks and the pages' event streams and stops the server.
func (e env) webResponder(addr, session string) (r *web.Responder, done func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	r = web.New(&web.Options{Authorize: func(req *http.Request, _ string) (string, error) {
		c, err := req.Cookie(tokenCookie)
		if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(token)) != 1 {
			return "", errors.New("no access token: open the URL askuser printed")
		}
		return "cli", nil
	}})
	srv := &http.Server{Handler: withToken(r, token), ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(func() { r.Close() })
	go srv.Serve(ln)
	fmt.Fprintf(e.stderr, "askuser: answer on http://%s/%s?token=%s\n", ln.Addr(), web.SessionPath(session), token)
	return r, func() {
		r.Close() // publishes the outcome to the page, then ends its stream
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// withToken turns a request carrying the right ?token= into the cookie,
// and redirects to the URL without it.
func withToken(h http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		if t := q.Get("token"); t != "" && req.Method == http.MethodGet {
			if subtle.ConstantTimeCompare([]byte(t), []byte(token)) != 1 {
				http.Error(w, "the access token is wrong; open the URL askuser printed", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := *req.URL
			u.RawQuery = q.Encode()
			w.Header().Set("Referrer-Policy", "no-referrer")
			http.Redirect(w, req, u.RequestURI(), http.StatusSeeOther)
			return
		}
		h.ServeHTTP(w, req)
	})
}
