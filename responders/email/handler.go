package email

import (
	"context"
	"errors"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/store"
)

const linkPath = "/email/l/"

// ServeHTTP serves the links: GET /email/l/TOKEN shows the confirm page
// and decides nothing; POST /email/l/TOKEN decides, once.
func (r *Responder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer") // the token is in the URL
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	i := strings.Index(req.URL.Path, linkPath)
	if i < 0 {
		page(w, http.StatusNotFound, "Not found", "This is not a link askuser sent.")
		return
	}
	token := req.URL.Path[i+len(linkPath):]
	l, err := verify(r.opts.Key, token, time.Now())
	switch {
	case errors.Is(err, errLinkExpired):
		page(w, http.StatusGone, "This link has expired", "The ask it answered is over; nothing was changed.")
		return
	case err != nil:
		page(w, http.StatusNotFound, "Not a valid link", "This link is not one askuser sent, or it was changed; nothing was changed.")
		return
	}
	used, err := r.used(req.Context(), l.Nonce)
	if err != nil {
		r.log.Error("askuser email: the notes of the links already used could not be read", "err", err)
		page(w, http.StatusServiceUnavailable, "Try again", "The answer could not be checked just now; nothing was changed. Open the link again in a moment.")
		return
	}
	if used {
		page(w, http.StatusConflict, "This link was used", "It decided once already; nothing was changed.")
		return
	}
	a, release, err := r.find(req.Context(), l)
	if err != nil {
		r.log.Error("askuser email: a link's ask could not be read from the pending-ask store", "ask", l.Ask, "err", err)
		page(w, http.StatusServiceUnavailable, "Try again", "The question could not be read just now; nothing was changed. Open the link again in a moment.")
		return
	}
	defer release()
	if a == nil {
		page(w, http.StatusGone, "This ask has ended", "It was answered, or its time ran out; nothing was changed.")
		return
	}
	f := a.Form()
	opts := choices(f)
	if l.Question != 0 || l.Option >= len(opts) {
		page(w, http.StatusNotFound, "Not a valid link", "This link names no option of its ask; nothing was changed.")
		return
	}
	opt := opts[l.Option]
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		r.confirm(w, f, opt, req.URL.Path)
	case http.MethodPost:
		m := l.mailing(r.addr(r.opts.To))
		principal := "mailto:" + m.to
		if f.Approval != nil {
			if r.opts.Authorize != nil {
				p, ok := r.opts.Authorize(req)
				if !ok {
					page(w, http.StatusForbidden, "Sign in first", "An approval needs you, not only your mailbox: sign in where the program says, then open the link again. Nothing was changed.")
					return
				}
				principal = p
			}
			req.Body = http.MaxBytesReader(w, req.Body, 4<<10)
			if err := req.ParseForm(); err != nil {
				page(w, http.StatusBadRequest, "Not taken", "The form could not be read. Nothing was changed.")
				return
			}
			if status, why := r.checkCode(req.Context(), codeID(a.ID(), m), req.PostForm.Get("code")); status != 0 {
				title := "Not the code"
				if status == http.StatusServiceUnavailable {
					title = "Try again"
				}
				page(w, status, title, why)
				return
			}
		}
		// The link is spent before it decides, by the first replica to
		// note it: a replay, here or on another replica, finds it used.
		first, err := r.spend(req.Context(), l.Nonce)
		switch {
		case err != nil:
			r.log.Error("askuser email: noting a used link failed", "err", err)
			page(w, http.StatusServiceUnavailable, "Try again", "The answer could not be taken just now; nothing was changed. Open the link again in a moment.")
			return
		case !first:
			page(w, http.StatusConflict, "This link was used", "It decided once already; nothing was changed.")
			return
		}
		a.SetPrincipal(principal)
		err = a.Report(askuser.Answer{QuestionID: f.Questions[0].ID, Selected: []string{opt.Value}})
		if err == nil {
			err = a.Submit()
		}
		switch {
		case errors.Is(err, askuser.ErrAskEnded):
			page(w, http.StatusGone, "This ask has ended", "It was answered, or its time ran out; nothing was changed.")
		case err != nil:
			page(w, http.StatusConflict, "Not taken", inert.Line(err.Error()))
		default:
			page(w, http.StatusOK, "Thank you", "Your answer was taken: "+inert.Line(opt.Label)+".")
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		page(w, http.StatusMethodNotAllowed, "Not allowed", "Open the link, then press the button.")
	}
}

// usedKey is the note of a spent link (a nonce is hex).
func usedKey(nonce string) (string, bool) {
	for _, c := range nonce {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return "used." + nonce, nonce != "" && len(nonce) <= 64
}

// used reports whether a link was spent, on any replica.
func (r *Responder) used(ctx context.Context, nonce string) (bool, error) {
	key, ok := usedKey(nonce)
	if !ok {
		return true, nil // not a nonce this responder makes: it decides nothing
	}
	_, err := r.notes.Get(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	}
	return false, err
}

// spend notes a link as used, and reports whether this was its first use
// across the fleet.
func (r *Responder) spend(ctx context.Context, nonce string) (bool, error) {
	key, ok := usedKey(nonce)
	if !ok {
		return false, nil
	}
	_, err := r.notes.Create(ctx, key, nil)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrExists):
		return false, nil
	}
	return false, err
}

// find finds a link's ask: one mailed here, or one of the fleet, held
// until release is called. It returns nil when the ask has ended or is not
// known.
func (r *Responder) find(ctx context.Context, l link) (*askuser.Ask, func(), error) {
	r.mu.Lock()
	a := r.asks[mailKey(l.Ask, l.Via)]
	r.mu.Unlock()
	if a != nil {
		return a, func() {}, nil
	}
	s := r.sessions.Load()
	if s == nil || l.Session == "" {
		return nil, func() {}, nil
	}
	a, _, release, err := s.Find(ctx, l.Session, l.Ask)
	if errors.Is(err, askuser.ErrUnknownAsk) {
		err = nil
	}
	if a == nil || err != nil {
		release()
		return nil, func() {}, err
	}
	if l.Via != "" {
		a = responder.Through(a, l.Via) // a step's mail answers through its channel
	}
	return a, release, nil
}

// confirm is the page a link opens: what it decides, and the button that
// does.
func (r *Responder) confirm(w http.ResponseWriter, f *askuser.Form, opt askuser.Option, path string) {
	var b strings.Builder
	esc := func(s string) string { return strings.ReplaceAll(html.EscapeString(inert.Text(s)), "\n", "<br>") }
	if f.HumanIntent != "" {
		b.WriteString("<p>Agent: " + esc(f.HumanIntent) + "</p>")
	}
	if ap := f.Approval; ap != nil {
		b.WriteString("<p><b>Action:</b> " + esc(ap.Action) + "</p><p><b>Why:</b> " + esc(ap.Reason) + "</p><p>" + esc(termtext.Risk(ap.Risk)) + "</p><p><b>Digest:</b> <code>" + esc(ap.Digest) + "</code></p>")
		if ap.Details != "" {
			b.WriteString("<pre>" + html.EscapeString(inert.Text(ap.Details)) + "</pre>")
		}
	} else {
		q := &f.Questions[0]
		b.WriteString("<p><b>" + esc(q.Header) + "</b></p><p>" + esc(q.Text) + "</p>")
	}
	b.WriteString("<p>Your answer: <b>" + esc(opt.Label) + "</b>")
	if opt.Description != "" {
		b.WriteString(" — " + esc(opt.Description))
	}
	b.WriteString("</p>")
	if !f.ExpiresAt.IsZero() {
		b.WriteString("<p>Answer by " + f.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC") + ".</p>")
	}
	b.WriteString(`<form method="post" action="` + html.EscapeString(path) + `">`)
	if f.Approval != nil && r.opts.SendCode != nil {
		b.WriteString(`<p><label>The code sent to you apart from this mail: <input name="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required></label></p>`)
	}
	b.WriteString(`<button type="submit">Confirm: ` + esc(opt.Label) + `</button></form>`)
	writePage(w, http.StatusOK, "Confirm your answer", b.String())
}

func page(w http.ResponseWriter, code int, title, msg string) {
	writePage(w, code, title, "<p>"+html.EscapeString(msg)+"</p>")
}

func writePage(w http.ResponseWriter, code int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>` +
		html.EscapeString(title) + `</title></head><body style="font-family:sans-serif;max-width:40em;margin:2em auto"><h1>` +
		html.EscapeString(title) + `</h1>` + body + `</body></html>`))
}
