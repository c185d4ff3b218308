package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/sharedask"
	"github.com/askuser-go/askuser/store"
)

// OneTimeLinks returns a function that makes one-time links to the card
// mounted at base (scheme://host[:port][/prefix], as the person reaches
// it): what the Slack and email responders take as their SecretLink, so
// that a secret question in a chat message or a mail links to the card
// with a code of its own, never with a URL that opens a whole session.
//
// A link names one ask and carries a one-time code. It is good once: a
// GET of it shows a page with one button and decides nothing (mail
// scanners and chat unfurlers fetch links), and the button's POST (same
// origin) redeems the code, sets a cookie that admits the browser to that
// ask — its page and its API, in place of Options.Authorize, with the
// principal the link was made for — and goes to the ask's page. A second
// use, an expired code, a code whose ask has ended, and a code used for
// another ask are refused with a page that says which, and change
// nothing. The code expires at the ask's deadline, or lifetime after it
// was made when that is sooner (lifetime zero: the deadline). A link is
// made for a form without an approval only (an approval needs Authorize
// or ApprovalCode; see Approvals in the package doc).
//
// Issuing a link puts the ask on the card (as Asked does) if the card
// does not show it yet, so that the card needs no other part in the
// orchestrator. The codes live in Options.Notes when it is set, so that on
// a fleet a link made on one replica is redeemed once on any replica (the
// one that redeems it finds the ask through the sessions it follows);
// without Notes they live in this Responder's memory, and a link must come
// back to the replica that made it. The cookie it sets is signed under
// Options.CSRFKey, and admits on every replica with that key. Give a link
// only to whoever may answer the ask.
func (r *Responder) OneTimeLinks(base string, lifetime time.Duration) func(a *askuser.Ask, principal string) (string, error) {
	base = strings.TrimRight(base, "/")
	return func(a *askuser.Ask, principal string) (string, error) {
		code, err := r.issueOnce(a, principal, lifetime)
		if err != nil {
			return "", err
		}
		return base + "/" + oncePath + code, nil
	}
}

// oncePath is where the one-time links are served, relative to the mount.
const oncePath = "once/"

// The errors of OneTimeLinks' function.
var (
	errOnceApproval = errors.New("web: an approval is not decided through a one-time link: it needs the card's Authorize or ApprovalCode")
	errOnceClosed   = errors.New("web: the card is closed: it makes no more one-time links")
	errOnceEnded    = errors.New("web: the ask has ended: a one-time link to it would open nothing")
)

// onceCode is a one-time code not yet used.
type onceCode struct {
	ask, session, principal string
	until                   time.Time
}

// issueOnce makes a code for a, puts a on the card if it is not there,
// and returns the code.
func (r *Responder) issueOnce(a *askuser.Ask, principal string, lifetime time.Duration) (string, error) {
	if a.Form().Approval != nil {
		return "", errOnceApproval
	}
	select {
	case <-a.Done():
		return "", errOnceEnded
	default:
	}
	now := time.Now()
	until := a.Form().ExpiresAt
	if lifetime > 0 && (until.IsZero() || now.Add(lifetime).Before(until)) {
		until = now.Add(lifetime)
	}
	if until.IsZero() {
		until = now.Add(time.Hour)
	}
	var b [20]byte
	_, _ = rand.Read(b[:])
	code := base64.RawURLEncoding.EncodeToString(b[:])
	c := onceCode{ask: a.ID(), session: a.Session(), principal: principal, until: until}
	if n := r.opts.Notes; n != nil {
		if r.isClosed() {
			return "", errOnceClosed
		}
		ctx, cancel := context.WithTimeout(context.Background(), onceNoteTimeout)
		defer cancel()
		if _, err := n.Create(ctx, onceNoteKey(code), c.note()); err != nil {
			return "", fmt.Errorf("web: the one-time link could not be noted for the replicas, so none was made: %w", err)
		}
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return "", errOnceClosed
	}
	if r.opts.Notes == nil {
		for k, c := range r.once {
			if !now.Before(c.until) {
				delete(r.once, k)
			}
		}
		if r.once == nil {
			r.once = map[string]onceCode{}
		}
		r.once[onceKey(code)] = c
	}
	if r.asks[a.ID()] != nil {
		r.mu.Unlock()
		return code, nil
	}
	// Not on the card yet: shown as Asked shows an ask.
	shared := sharedask.Is(a)
	if !shared {
		r.active.Add(1)
	}
	e := r.addLocked(a)
	if d := time.Until(a.Form().NudgeAt); d > 0 {
		e.nudge = time.AfterFunc(d, func() { r.nudge(a) })
	}
	r.mu.Unlock()
	a.AfterEnd(func() {
		if !shared {
			defer r.active.Done()
		}
		r.finish(a)
	})
	r.publish(a.Session(), "ask", a)
	return code, nil
}

// onceKey is what the card keeps of a code: its digest, so that a code is
// not in memory as a person could type it.
func onceKey(code string) string {
	d := sha256.Sum256([]byte(code))
	return hex.EncodeToString(d[:])
}

// The refusals of a one-time link, as its page says them.
const (
	onceUsedMsg    = "This link was used already: it opens the card once. Ask for a new one where you found it."
	onceUnknownMsg = "This is not a link the card made, or it was changed."
	onceExpiredMsg = "This link has expired. Ask for a new one where you found it."
	onceEndedMsg   = "The question this link was for has ended: it was answered, or its time ran out."
	onceRetryMsg   = "This link could not be checked just now; nothing was changed. Open it again in a moment."
)

// redeemOnce takes a code, once: it returns what the code admits to, or a
// refusal (status and page) saying why not.
func (r *Responder) redeemOnce(ctx context.Context, code string) (onceCode, int, string) {
	if r.opts.Notes != nil {
		return r.redeemNoted(ctx, code)
	}
	now := time.Now()
	key := onceKey(code)
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.once[key]
	switch {
	case !ok && r.onceUsed[key]:
		return c, http.StatusGone, onceUsedMsg
	case !ok:
		return c, http.StatusNotFound, onceUnknownMsg
	case !now.Before(c.until):
		delete(r.once, key)
		return c, http.StatusGone, onceExpiredMsg
	}
	if e := r.asks[c.ask]; e == nil || e.ended {
		delete(r.once, key)
		return c, http.StatusGone, onceEndedMsg
	}
	delete(r.once, key)
	if r.onceUsed == nil {
		r.onceUsed = map[string]bool{}
	}
	if len(r.onceUsed) >= maxOnceUsed {
		clear(r.onceUsed) // past this, a reused code reads as unknown: refused all the same
	}
	r.onceUsed[key] = true
	return c, 0, ""
}

// maxOnceUsed bounds how many used codes the card remembers, to say
// "used" rather than "not a link".
const maxOnceUsed = 4096

// onceGrace is how long the cookie a code sets outlives the code's ask,
// so that the page can still show how the ask ended.
const onceGrace = 10 * time.Minute

// onceRoute serves a one-time link: GET shows the button, POST redeems.
func (r *Responder) onceRoute(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
	code := req.PathValue("code")
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		used, ok, err := r.peekOnce(req.Context(), code)
		switch {
		case err != nil:
			oncePage(w, http.StatusServiceUnavailable, onceRetryMsg, false)
		case used:
			oncePage(w, http.StatusGone, onceUsedMsg, false)
		case !ok:
			oncePage(w, http.StatusNotFound, onceUnknownMsg, false)
		default:
			oncePage(w, http.StatusOK, "This link opens the question on the web card, once, for you. Opening this page decided nothing.", true)
		}
	case http.MethodPost:
		if err := r.cop.Check(req); err != nil {
			oncePage(w, http.StatusForbidden, "This link must be opened from its own page.", false)
			return
		}
		c, status, why := r.redeemOnce(req.Context(), code)
		if status != 0 {
			oncePage(w, status, why, false)
			return
		}
		exp := c.until
		if dl := r.expiry(c.ask); dl.After(exp) {
			exp = dl
		}
		exp = exp.Add(onceGrace)
		http.SetCookie(w, &http.Cookie{Name: onceCookie(c.ask), Value: r.admission(c, exp), Path: "/",
			Expires: exp, HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// The ask's page, relative to this one (once/CODE → ../asks/ID),
		// so that it stays under the prefix the card is mounted at
		// (http.Redirect would make it absolute from the stripped path).
		h.Set("Location", "../"+AskPath(c.ask)+"?session="+url.QueryEscape(c.session))
		w.WriteHeader(http.StatusSeeOther)
	default:
		h.Set("Allow", "GET, POST")
		oncePage(w, http.StatusMethodNotAllowed, "Open the link, then press its button.", false)
	}
}

// expiry is the deadline of the ask the card holds, or zero.
func (r *Responder) expiry(id string) time.Time {
	if a := r.lookup(id); a != nil {
		return a.Form().ExpiresAt
	}
	return time.Time{}
}

// onceCookie names the cookie that admits a browser to one ask.
func onceCookie(ask string) string {
	d := sha256.Sum256([]byte(ask))
	return "askuser_once_" + hex.EncodeToString(d[:8])
}

// admissionJSON is what an admission cookie says, signed.
type admissionJSON struct {
	Ask       string `json:"a"`
	Session   string `json:"s"`
	Principal string `json:"p,omitempty"`
	Expires   int64  `json:"e"`
}

func (r *Responder) admissionMAC(body string) []byte {
	m := hmac.New(sha256.New, r.csrfKey[:])
	m.Write([]byte("askuser/web one-time admission\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// admission is the cookie value that admits to c's ask until exp.
func (r *Responder) admission(c onceCode, exp time.Time) string {
	p, _ := json.Marshal(admissionJSON{Ask: c.ask, Session: c.session, Principal: c.principal, Expires: exp.Unix()})
	body := base64.RawURLEncoding.EncodeToString(p)
	return body + "." + base64.RawURLEncoding.EncodeToString(r.admissionMAC(body))
}

// admitted reports whether the request's cookie admits it to the ask of
// the session, and with which principal.
func (r *Responder) admitted(req *http.Request, ask, session string) (string, bool) {
	ck, err := req.Cookie(onceCookie(ask))
	if err != nil || len(ck.Value) > 4096 {
		return "", false
	}
	body, sig, ok := strings.Cut(ck.Value, ".")
	if !ok {
		return "", false
	}
	strict := base64.RawURLEncoding.Strict() // one encoding per value
	got, err := strict.DecodeString(sig)
	if err != nil || subtle.ConstantTimeCompare(got, r.admissionMAC(body)) != 1 {
		return "", false
	}
	p, err := strict.DecodeString(body)
	var a admissionJSON
	if err != nil || json.Unmarshal(p, &a) != nil {
		return "", false
	}
	if a.Ask != ask || a.Session != session || time.Now().Unix() >= a.Expires {
		return "", false
	}
	if a.Principal == "" {
		a.Principal = "one-time link"
	}
	return a.Principal, true
}

var onceTmpl = template.Must(template.New("once").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>askuser: a one-time link</title></head>
<body>
<h1>{{if .Open}}Open the question{{else}}This link opens nothing{{end}}</h1>
<p>{{.Message}}</p>
{{if .Open}}<form method="post"><button type="submit">Open the question</button></form>{{end}}
</body></html>
`))

func oncePage(w http.ResponseWriter, status int, msg string, open bool) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = onceTmpl.Execute(w, struct {
		Message string
		Open    bool
	}{msg, open})
}

// onceNoteTimeout bounds each read and write of a one-time code's note.
const onceNoteTimeout = 10 * time.Second

// onceNoteKey is the key of a code's note in Options.Notes: its digest,
// so that the store holds no code a person could use.
func onceNoteKey(code string) string { return "once." + onceKey(code) }

// onceNoteJSON is what a code's note holds.
type onceNoteJSON struct {
	Ask       string `json:"a"`
	Session   string `json:"s"`
	Principal string `json:"p,omitempty"`
	Until     int64  `json:"u"` // unix milliseconds
	Used      bool   `json:"used,omitempty"`
}

// note is c as its note holds it, not yet used.
func (c onceCode) note() []byte {
	p, _ := json.Marshal(onceNoteJSON{Ask: c.ask, Session: c.session, Principal: c.principal, Until: c.until.UnixMilli()})
	return p
}

// readOnceNote reads a code's note: the code, whether it was used, and
// whether there is one; err when the notes could not be read.
func (r *Responder) readOnceNote(ctx context.Context, code string) (n onceNoteJSON, e store.Entry, ok bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, onceNoteTimeout)
	defer cancel()
	e, err = r.opts.Notes.Get(ctx, onceNoteKey(code))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return n, e, false, nil
	case err != nil:
		r.logger().Error("web: reading a one-time link's note failed", "err", err)
		return n, e, false, err
	}
	if json.Unmarshal(e.Data, &n) != nil || n.Ask == "" {
		// Not a note this card wrote: no link it made.
		return n, e, false, nil
	}
	return n, e, true, nil
}

// peekOnce reports, for a GET, whether a code was used and whether it is
// one the card (or, with Notes, a replica's card) made and has not used.
func (r *Responder) peekOnce(ctx context.Context, code string) (used, ok bool, err error) {
	if r.opts.Notes == nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		_, ok = r.once[onceKey(code)]
		return r.onceUsed[onceKey(code)], ok, nil
	}
	n, _, found, err := r.readOnceNote(ctx, code)
	return n.Used, found && !n.Used, err
}

// redeemNoted is redeemOnce on Options.Notes: the code's note is marked
// used by a compare-and-set, so that of the replicas redeeming one code
// at once, one admits. The ask is looked for among those the card holds,
// then in its session on the fleet.
func (r *Responder) redeemNoted(ctx context.Context, code string) (onceCode, int, string) {
	n, e, ok, err := r.readOnceNote(ctx, code)
	switch {
	case err != nil:
		return onceCode{}, http.StatusServiceUnavailable, onceRetryMsg
	case !ok:
		return onceCode{}, http.StatusNotFound, onceUnknownMsg
	case n.Used:
		return onceCode{}, http.StatusGone, onceUsedMsg
	case !time.Now().Before(time.UnixMilli(n.Until)):
		return onceCode{}, http.StatusGone, onceExpiredMsg
	}
	c := onceCode{ask: n.Ask, session: n.Session, principal: n.Principal, until: time.UnixMilli(n.Until)}
	if !r.showing(c.ask) {
		if !r.followOnce(ctx, c.session) {
			return onceCode{}, http.StatusServiceUnavailable, onceRetryMsg
		}
		if !r.showing(c.ask) {
			return onceCode{}, http.StatusGone, onceEndedMsg
		}
	}
	n.Used = true
	p, _ := json.Marshal(n)
	uctx, cancel := context.WithTimeout(ctx, onceNoteTimeout)
	defer cancel()
	switch _, err := r.opts.Notes.Update(uctx, onceNoteKey(code), p, e.Revision); {
	case errors.Is(err, store.ErrChanged):
		return onceCode{}, http.StatusGone, onceUsedMsg // another redemption came first
	case err != nil:
		r.logger().Error("web: noting a one-time link as used failed", "err", err)
		return onceCode{}, http.StatusServiceUnavailable, onceRetryMsg
	}
	return c, 0, ""
}

// showing reports whether the card shows the ask, pending.
func (r *Responder) showing(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.asks[id]
	return e != nil && !e.ended
}
