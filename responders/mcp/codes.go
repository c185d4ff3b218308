package mcpresponder

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// codeAlphabet has no letters or digits a person mixes up (no I, O, 0 or
// 1): 32 symbols, 5 bits each.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// The bounds of the short codes.
const (
	codeLen = 8 // symbols: 40 bits, shown as XXXX-XXXX
	// maxCodeFailures wrong codes typed for one ask void its code for the
	// rest of the ask's life, so that guessing is over long before it
	// could succeed.
	maxCodeFailures = 10
	// admissionSlack is how long an admission outlives the code's ask, so
	// that the page can still show how the ask ended.
	admissionSlack = 10 * time.Minute
)

// Codes admits a person to the web card by a short code, for local use
// where the card has no login of its own: the MCP client shows the code
// beside the link (the link itself carries no credential, as the MCP
// specification requires), the person types it on the card, and their
// browser gets a cookie that admits it to that one ask.
//
// A code is bound to one ask: it is typed on the page the link opens, it
// admits to that ask's pages and API (and to the session's list, which
// the page reads), never to another ask of the session, and it is good
// once, until the ask's deadline. Wrong codes are counted per ask for the
// ask's whole life, and a good code resets nothing: after ten the ask's
// code is void. So whoever can start asks (and so see codes of their own)
// gains nothing against another ask's code.
//
// Set Options.Codes to it, mount Gate in front of the web card's handler,
// and use Authorize as the card's web.Options.Authorize. Gate is mounted
// at the root of its server (its page is /code). It does not check the
// request's Host: serve it behind the same Host check as the card
// (askuser's command does). The zero value is ready to use.
type Codes struct {
	// CookieName names the cookie that admits a browser (empty:
	// "askuser_mcp_code"). A browser does not scope cookies by port: name
	// it for the server when several run on one host.
	CookieName string

	mu       sync.Mutex
	issued   map[string]*issued   // by ask id
	admitted map[string]admission // by cookie value
}

// issued is an ask's code, and the wrong codes typed for the ask.
type issued struct {
	code     string // "" once used or void
	session  string
	until    time.Time
	failures int
}

// admission is what a browser's cookie admits it to: asks, with their
// sessions.
type admission struct {
	asks  map[string]string // ask id → session
	until time.Time
}

func (c *Codes) cookie() string {
	if c.CookieName != "" {
		return c.CookieName
	}
	return "askuser_mcp_code"
}

// Issue returns a new code that admits to the ask (of the session) until
// the given time, as the person reads it (XXXX-XXXX). An ask has one code:
// issuing again for it replaces a code not yet used, and issues none for
// an ask whose code was used or voided (it returns "").
func (c *Codes) Issue(session, ask string, until time.Time) string {
	var b [codeLen]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	code := string(b[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.issued == nil {
		c.issued = map[string]*issued{}
	}
	c.sweepLocked(time.Now())
	if is, ok := c.issued[ask]; ok && is.code == "" {
		return ""
	}
	c.issued[ask] = &issued{code: code, session: session, until: until}
	return code[:4] + "-" + code[4:]
}

// sweepLocked forgets the codes and admissions that have run out.
func (c *Codes) sweepLocked(now time.Time) {
	for k, v := range c.issued {
		if !now.Before(v.until) {
			delete(c.issued, k)
		}
	}
	for k, v := range c.admitted {
		if !now.Before(v.until) {
			delete(c.admitted, k)
		}
	}
}

// ErrNotAdmitted is Authorize's refusal of a browser that has not typed
// the code for the ask.
var ErrNotAdmitted = errors.New("mcpresponder: not admitted: open the link your MCP client shows and type the code shown beside it")

// Authorize admits a request whose cookie a code set: to the ask the
// request's path names (the card's /asks/{id} and /api/asks/{id}/…), or,
// for the session's own routes, to the session of an ask it was admitted
// to. It has the shape of web.Options.Authorize. The principal is "code".
func (c *Codes) Authorize(r *http.Request, session string) (string, error) {
	if c.admits(r, session, askOfPath(r.URL.Path)) {
		return "code", nil
	}
	return "", ErrNotAdmitted
}

// askOfPath returns the ask id a card path names (/asks/{id},
// /api/asks/{id}/…), or "".
func askOfPath(p string) string {
	for _, prefix := range []string{"/api/asks/", "/asks/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			id, _, _ := strings.Cut(rest, "/")
			if u, err := url.PathUnescape(id); err == nil {
				return u
			}
			return id
		}
	}
	return ""
}

// admits reports whether the request's cookie admits it to the ask (when
// ask is not empty) of the session (when session is not empty).
func (c *Codes) admits(r *http.Request, session, ask string) bool {
	ck, err := r.Cookie(c.cookie())
	if err != nil || ck.Value == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.admitted[ck.Value]
	if !ok || !time.Now().Before(a.until) {
		return false
	}
	if ask != "" {
		s, ok := a.asks[ask]
		return ok && (session == "" || s == session)
	}
	if session == "" {
		return len(a.asks) > 0
	}
	for _, s := range a.asks {
		if s == session {
			return true
		}
	}
	return false
}

// redeem turns a code typed for the ask that target names into an
// admission, added to the one the browser's cookie holds (prior), and
// returns the cookie value, or false for a code that is not the ask's.
func (c *Codes) redeem(typed, target, prior string) (string, time.Time, bool) {
	code := normalizeCode(typed)
	ask := askOfPath(target)
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked(now)
	is, ok := c.issued[ask]
	if !ok || is.code == "" {
		return "", time.Time{}, false
	}
	if subtle.ConstantTimeCompare([]byte(is.code), []byte(code)) != 1 {
		if is.failures++; is.failures >= maxCodeFailures {
			is.code = "" // void for the rest of the ask's life
		}
		return "", time.Time{}, false
	}
	is.code = "" // good once
	if c.admitted == nil {
		c.admitted = map[string]admission{}
	}
	until := is.until.Add(admissionSlack)
	a, ok := c.admitted[prior]
	if !ok || prior == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		prior = hex.EncodeToString(b[:])
		a = admission{asks: map[string]string{}}
	}
	a.asks[ask] = is.session
	if until.After(a.until) {
		a.until = until
	}
	c.admitted[prior] = a
	return prior, a.until, true
}

// normalizeCode reads a code as a person types it: any case, with or
// without the dash or spaces.
func normalizeCode(s string) string {
	s = strings.ToUpper(s)
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

// codePath is where Gate serves its page, relative to where it is mounted.
const codePath = "/code"

// Gate returns next behind the code page: a browser that has not typed a
// code is sent from any page to the code page (GET /code), which posts the
// code back (POST /code, same origin only) and, for a good code, sets the
// admission cookie and returns to the page it came from. Every other
// request goes to next, whose Authorize decides.
func (c *Codes) Gate(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == codePath {
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Referrer-Policy", "no-referrer")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'")
			switch r.Method {
			case http.MethodGet:
				codePage(w, http.StatusOK, localTarget(r.URL.Query().Get("next")), "")
			case http.MethodPost:
				if err := cop.Check(r); err != nil {
					http.Error(w, "cross-origin requests are not allowed", http.StatusForbidden)
					return
				}
				r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
				if err := r.ParseForm(); err != nil {
					http.Error(w, "the form could not be read", http.StatusBadRequest)
					return
				}
				target := localTarget(r.PostForm.Get("next"))
				prior := ""
				if ck, err := r.Cookie(c.cookie()); err == nil {
					prior = ck.Value
				}
				token, until, ok := c.redeem(r.PostForm.Get("code"), target, prior)
				if !ok {
					codePage(w, http.StatusForbidden, target, "That code is not right, or it has run out. Type the code your MCP client shows beside the link.")
					return
				}
				http.SetCookie(w, &http.Cookie{Name: c.cookie(), Value: token, Path: "/", Expires: until,
					HttpOnly: true, SameSite: http.SameSiteStrictMode})
				http.Redirect(w, r, target, http.StatusSeeOther)
			default:
				w.Header().Set("Allow", "GET, POST")
				http.Error(w, "only GET and POST", http.StatusMethodNotAllowed)
			}
			return
		}
		if r.Method == http.MethodGet && strings.Contains(r.Header.Get("Accept"), "text/html") && !c.admits(r, "", askOfPath(r.URL.Path)) {
			target := r.URL.EscapedPath()
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, codePath+"?next="+url.QueryEscape(localTarget(target)), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localTarget returns p when it is a path on this server, else "/": never
// "//host" or "/\host", which a browser reads as another host.
func localTarget(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, `/\`) || strings.ContainsAny(p, "\r\n") {
		return "/"
	}
	return p
}

var codeTemplate = template.Must(template.New("code").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>askuser: type your code</title></head>
<body>
<h1>Type the code from your MCP client</h1>
<p>Your MCP client showed a code beside the link that brought you here. Type it to see what the agent asks.</p>
{{if .Problem}}<p role="alert"><strong>{{.Problem}}</strong></p>{{end}}
<form method="post" action="code">
<input type="hidden" name="next" value="{{.Next}}">
<label>Code <input name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required autofocus></label>
<button type="submit">Continue</button>
</form>
</body></html>
`))

func codePage(w http.ResponseWriter, status int, next, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = codeTemplate.Execute(w, struct{ Next, Problem string }{next, problem})
}
