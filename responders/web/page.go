package web

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
)

//go:embed card.html
var pageFS embed.FS

var pageTmpl = template.Must(template.ParseFS(pageFS, "card.html"))

// pageData is all the page template gets: no string the model wrote.
type pageData struct {
	Nonce   string
	CSRF    string
	Root    string // the mount point, relative to the page
	Session string
	AskID   string
	Once    bool // admitted by a one-time link: to this ask only
}

// csp returns the page's Content-Security-Policy for a nonce.
func csp(nonce string) string {
	return "default-src 'self'; script-src 'nonce-" + nonce + "'; style-src 'nonce-" + nonce + "'; " +
		"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
		"form-action 'none'; frame-ancestors 'self'"
}

// sessionPage serves a session's card page. It does not follow the
// session: the page shows no ask of its own, and its event stream follows
// the session.
func (r *Responder) sessionPage(w http.ResponseWriter, req *http.Request) {
	sess := req.PathValue("session")
	if _, ok := r.authorize(w, req, sess); !ok {
		return
	}
	r.page(w, pageData{Session: sess})
}

// askPage serves one ask's card page; see findAsk for an ask begun on
// another replica.
func (r *Responder) askPage(w http.ResponseWriter, req *http.Request) {
	a, _, ok := r.findAsk(w, req, true)
	if !ok {
		return
	}
	_, once := r.admitted(req, a.ID(), a.Session())
	r.page(w, pageData{Session: a.Session(), AskID: a.ID(), Once: once})
}

func (r *Responder) page(w http.ResponseWriter, d pageData) {
	var n [16]byte
	_, _ = rand.Read(n[:])
	d.Nonce = base64.RawURLEncoding.EncodeToString(n[:]) // no character html/template escapes
	d.CSRF = r.CSRFToken(d.Session)
	d.Root = "../"
	var b bytes.Buffer
	if err := pageTmpl.Execute(&b, d); err != nil {
		r.logger().Error("web: rendering the card failed", "err", err)
		http.Error(w, "the card could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp(d.Nonce))
	h.Set("X-Frame-Options", "SAMEORIGIN")
	_, _ = w.Write(b.Bytes())
}

// SessionPath returns the path of a session's card page, relative to where
// the handler is mounted: "sessions/" and the escaped session.
func SessionPath(session string) string { return "sessions/" + url.PathEscape(session) }

// AskPath returns the path of one ask's card page, relative to where the
// handler is mounted. On a fleet, where any replica may serve the page,
// name the ask's session too: AskPath(id) + "?session=" +
// url.QueryEscape(session); see On a fleet in the package doc.
func AskPath(id string) string { return "asks/" + url.PathEscape(id) }
