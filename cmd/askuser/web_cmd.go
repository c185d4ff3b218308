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
	"strconv"
	"sync"
	"time"

	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/responders/web"
)

// webLimits bounds what a connection may hold of the card's server, so that
// nobody else on the machine can lock the person out by opening connections
// and sending nothing, or too little.
type webLimits struct {
	header   time.Duration // to send a request's header (http.Server.ReadHeaderTimeout)
	body     time.Duration // to send an API request's body once its header is in (web.Options.BodyTimeout)
	read     time.Duration // to send a whole request, header and body, on any route (http.Server.ReadTimeout)
	write    time.Duration // to take a response (http.Server.WriteTimeout); event streams bound each write instead
	idle     time.Duration // between two requests on a keep-alive connection (http.Server.IdleTimeout)
	maxConns int           // connections served at once; more wait to be accepted
}

// cardLimits are the card server's limits; tests shorten them.
var cardLimits = webLimits{
	header:   10 * time.Second,
	body:     10 * time.Second,
	read:     30 * time.Second,
	write:    30 * time.Second,
	idle:     30 * time.Second,
	maxConns: 1024,
}

// webResponder serves the web card on addr and prints the session's card
// URL on standard error. The URL carries a random access token: opening it
// sets the token as a cookie (HttpOnly, SameSite=Strict) named for the
// card's port, so that cards on other ports keep theirs, and redirects to
// the same page without it; every request then needs the cookie, so
// another user or site on the machine cannot answer. The card answers only
// for the loopback host names and the host --listen names (a DNS-rebinding
// page is refused), and drops connections that stall (cardLimits). done
// ends the pending asks and the pages' event streams and stops the server.
func (e env) webResponder(addr, session string) (r *web.Responder, done func(), err error) {
	r, cardURL, done, err := serveCard(addr, session, nil)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(e.stderr, "askuser: answer on %s\n", cardURL)
	return r, done, nil
}

// serveCard serves the web card on addr, as webResponder describes, with
// the options setup adds (nil: none), and returns the session's card URL
// with its access token. done ends the pending asks and the pages' event
// streams and stops the server.
func serveCard(addr, session string, setup func(*web.Options)) (r *web.Responder, cardURL string, done func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	tcp := ln.Addr().(*net.TCPAddr)
	cookie := "askuser_token_" + strconv.Itoa(tcp.Port)
	urlHost, allowed := cardHost(addr, tcp)
	lim := cardLimits
	opts := &web.Options{
		AllowedHosts: allowed,
		BodyTimeout:  lim.body,
		Authorize: func(req *http.Request, _ string) (string, error) {
			c, err := req.Cookie(cookie)
			if err != nil || subtle.ConstantTimeCompare([]byte(c.Value), []byte(token)) != 1 {
				return "", errors.New("no access token: open the URL askuser printed")
			}
			return "cli", nil
		},
	}
	if setup != nil {
		setup(opts)
	}
	r = web.New(opts)
	srv := &http.Server{
		Handler:           withToken(r, cookie, token),
		ReadHeaderTimeout: lim.header,
		ReadTimeout:       lim.read,
		WriteTimeout:      lim.write,
		IdleTimeout:       lim.idle,
	}
	srv.RegisterOnShutdown(func() { r.Close() })
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(limitListener(ln, lim.maxConns))
	}()
	cardURL = fmt.Sprintf("http://%s/%s?token=%s", urlHost, web.SessionPath(session), token)
	return r, cardURL, func() {
		r.Close() // publishes the outcome to the page, then ends its stream
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close() // a request still held: drop it
		}
		<-served
	}, nil
}

// cardHost returns the host:port the card's URL names, and the host names
// the card answers for (web.Options.AllowedHosts; nil: the loopback names
// only). A card listening on every address is reached through 127.0.0.1
// (or [::1]); one listening on a particular address other than loopback
// also through that address, or the name --listen gave for it.
func cardHost(addr string, tcp *net.TCPAddr) (string, []string) {
	port := strconv.Itoa(tcp.Port)
	switch {
	case tcp.IP.IsUnspecified() && tcp.IP.To4() != nil:
		return net.JoinHostPort("127.0.0.1", port), nil
	case tcp.IP.IsUnspecified():
		return net.JoinHostPort("::1", port), nil
	case tcp.IP.IsLoopback():
		return tcp.String(), nil
	}
	allowed := []string{"localhost", "127.0.0.1", "[::1]", tcp.IP.String()}
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" && net.ParseIP(h) == nil {
		allowed = append(allowed, h)
	}
	return tcp.String(), allowed
}

// withToken turns a GET carrying the right ?token= into the card's cookie,
// and redirects to the same path on this server without the token.
func withToken(h http.Handler, cookie, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		q := req.URL.Query()
		if t := q.Get("token"); t != "" && req.Method == http.MethodGet {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Referrer-Policy", "no-referrer")
			if subtle.ConstantTimeCompare([]byte(t), []byte(token)) != 1 {
				http.Error(w, "the access token is wrong; open the URL askuser printed", http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			w.Header().Set("Location", hostcheck.LocalPath(req.URL.EscapedPath(), q.Encode()))
			w.WriteHeader(http.StatusSeeOther)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// limitListener accepts at most n connections at once (n ≤ 0: any number);
// Accept waits for one to close. Held connections are dropped by the
// server's timeouts, so a slot frees within them.
func limitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitedListener{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, free: func() { <-l.slots }}, nil
}

func (l *limitedListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitedConn gives its slot back once it is closed.
type limitedConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
