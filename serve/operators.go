package serve

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askuser-go/askuser/internal/inert"
)

// operatorsLifetime is how long the operators' page cookie admits without
// the admin token again.
const operatorsLifetime = 12 * time.Hour

// maxOperatorRows caps the page's table.
const maxOperatorRows = 500

// operators serves GET /operators: the pending asks across the fleet, for
// an operator's browser, behind the admin token. Opened once as
// /operators?token=ADMIN (or with Authorization: Bearer ADMIN), it sets a
// cookie of its own — named for the port, signed with the admin token,
// expiring after 12 hours — and redirects to drop the token from the
// address bar. The page holds no script and no answer: who asked what,
// since when, until when, and which questions have an answer.
func (s *Handler) operators(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	name := operatorsCookie(r)
	if tok := r.URL.Query().Get("token"); tok != "" {
		if !tokenIn("Bearer "+tok, s.admins) {
			operatorsPage(w, http.StatusUnauthorized, "Not admitted", "<p>That is not the admin token (askuser serve's --admin-token-file).</p>")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: name, Value: s.opsCookie(tok, time.Now().Add(operatorsLifetime)), Path: "/operators",
			HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: int(operatorsLifetime.Seconds()), Secure: r.TLS != nil})
		http.Redirect(w, r, "/operators", http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(name)
	if !tokenIn(r.Header.Get("Authorization"), s.admins) && (err != nil || !s.opsCookieOK(c.Value, time.Now())) {
		operatorsPage(w, http.StatusUnauthorized, "Not admitted", "<p>Open this page as /operators?token=ADMIN, with the token in askuser serve's --admin-token-file. An admission lasts 12 hours.</p>")
		return
	}
	lq, err := parseListQuery(r.URL.Query())
	if err != nil {
		operatorsPage(w, http.StatusBadRequest, "Bad query", "<p>"+html.EscapeString(err.Error())+"</p>")
		return
	}
	asks, err := s.asksOf(r.Context(), lq)
	var le *listError
	switch {
	case errors.As(err, &le):
		operatorsPage(w, http.StatusBadRequest, "Pending asks", "<p>"+html.EscapeString(le.msg)+"</p>")
		return
	case err != nil:
		s.logger.Error("askuser serve: listing the asks for the operators' page failed", "err", err)
		operatorsPage(w, http.StatusServiceUnavailable, "Pending asks", "<p>The asks could not be listed now (the shared store failed); reload in a moment.</p>")
		return
	}
	asks = slices.DeleteFunc(asks, func(a askJSON) bool { return !lq.matches(a) })
	slices.SortFunc(asks, func(x, y askJSON) int {
		return cmp.Or(x.AskedAt.Compare(y.AskedAt), strings.Compare(x.AskID, y.AskID))
	})
	var b strings.Builder
	esc := func(s string) string { return html.EscapeString(inert.Line(s)) }
	b.WriteString(`<p>` + strconv.Itoa(len(asks)) + ` ` + esc(lq.status) + ` · as of ` + time.Now().UTC().Format("2006-01-02 15:04:05 UTC") + ` · <a href="/operators">reload</a></p>`)
	b.WriteString(`<table><tr><th>session</th><th>tool call</th><th>contract</th><th>questions</th><th>answered</th><th>status</th><th>asked</th><th>deadline</th></tr>`)
	for i, a := range asks {
		if i == maxOperatorRows {
			b.WriteString(`<tr><td colspan="8">… and ` + strconv.Itoa(len(asks)-i) + ` more: narrow it with ?session=</td></tr>`)
			break
		}
		var qs []string
		for _, q := range a.Questions {
			qs = append(qs, esc(q.Header))
		}
		left := ""
		if !a.ExpiresAt.IsZero() && a.Status == "pending" {
			left = " (in " + time.Until(a.ExpiresAt).Round(time.Second).String() + ")"
		}
		b.WriteString(`<tr><td>` + esc(a.Session) + `</td><td>` + esc(a.ToolCallID) + `</td><td>` + esc(a.Contract) + `</td><td>` + strings.Join(qs, ", ") +
			`</td><td>` + strconv.Itoa(len(a.Answered)) + ` of ` + strconv.Itoa(len(a.Questions)) + `</td><td>` + esc(a.Status) + `</td><td>` +
			a.AskedAt.UTC().Format("15:04:05") + `</td><td>` + fmtTime(a.ExpiresAt) + left + `</td></tr>`)
	}
	b.WriteString(`</table>`)
	operatorsPage(w, http.StatusOK, "Pending asks", b.String())
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("15:04:05")
}

// operatorsCookie names the page's cookie for the port the browser
// reached, so that services on several ports keep theirs apart.
func operatorsCookie(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		port = "80"
	}
	return "askuser_ops_" + port
}

// opsCookie is an admission until exp, signed with the admin token: it
// does not hold the token, and ends when the token is rotated.
func (s *Handler) opsCookie(token string, exp time.Time) string {
	ts := strconv.FormatInt(exp.Unix(), 10)
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("askuser operators' page\x00" + ts))
	return ts + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Handler) opsCookieOK(v string, now time.Time) bool {
	ts, _, ok := strings.Cut(v, ".")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || now.Unix() >= sec || sec > now.Add(operatorsLifetime).Unix()+1 {
		return false
	}
	for _, t := range s.admins {
		if hmac.Equal([]byte(s.opsCookie(string(t), time.Unix(sec, 0))), []byte(v)) {
			return true
		}
	}
	return false
}

func operatorsPage(w http.ResponseWriter, code int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>askuser · ` +
		html.EscapeString(title) + `</title><style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;font-size:.9em}</style></head><body><h1>` +
		html.EscapeString(title) + `</h1>` + body + `</body></html>`))
}
