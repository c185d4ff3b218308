package email

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secret"
)

// cardBase is where the tests' web card is mounted.
const cardBase = "http://localhost"

var onceRE = regexp.MustCompile(`(` + regexp.QuoteMeta(cardBase) + `/once/[A-Za-z0-9_-]+)`)

// newCard is a web card that admits nobody by Authorize: only its
// one-time links open an ask.
func newCard(t *testing.T) *web.Responder {
	t.Helper()
	card := web.New(&web.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	t.Cleanup(func() { _ = card.Close() })
	return card
}

// browser follows a one-time link on the card as a person's browser does
// (GET the page, POST its button, then the ask's page) and answers there.
type browser struct {
	card    *web.Responder
	cookies []*http.Cookie
	csrf    string
}

var csrfRE = regexp.MustCompile(`<meta name="askuser-csrf" content="([^"]+)">`)

func (b *browser) do(method, u, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, u, strings.NewReader(body))
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	if b.csrf != "" {
		req.Header.Set("X-CSRF-Token", b.csrf)
	}
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	b.card.ServeHTTP(rec, req)
	return rec
}

func (b *browser) open(link string) error {
	if rec := b.do("GET", link, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `<form method="post">`) {
		return fmt.Errorf("GET of the one-time link: %d %s", rec.Code, rec.Body)
	}
	rec := b.do("POST", link, "")
	if rec.Code != http.StatusSeeOther {
		return fmt.Errorf("POST of the one-time link: %d %s", rec.Code, rec.Body)
	}
	b.cookies = rec.Result().Cookies()
	base, _ := url.Parse(link)
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil {
		return err
	}
	page := b.do("GET", base.ResolveReference(loc).String(), "")
	m := csrfRE.FindStringSubmatch(page.Body.String())
	if page.Code != http.StatusOK || m == nil {
		return fmt.Errorf("the ask's page: %d %s", page.Code, page.Body)
	}
	b.csrf = m[1]
	return nil
}

// answer puts each answer of a on the card, and submits.
func (b *browser) answer(a *askuser.Ask, answers []askuser.Answer) error {
	return b.answerID(a.ID(), a.Session(), answers)
}

// answerID is answer for the ask of id in session.
func (b *browser) answerID(id, session string, answers []askuser.Answer) error {
	for _, ans := range answers {
		body := map[string]any{}
		if len(ans.Selected) > 0 {
			body["selected"] = ans.Selected
		}
		if ans.Other != "" {
			body["other_text"] = ans.Other
		}
		if !ans.Secret.Empty() {
			v := ans.Secret.Reveal()
			body["secret"] = string(v)
			clear(v)
		}
		js, _ := json.Marshal(body)
		if rec := b.do("PUT", cardBase+"/api/asks/"+id+"/answers/"+ans.QuestionID+"?session="+url.QueryEscape(session), string(js)); rec.Code != http.StatusOK {
			return fmt.Errorf("the card refused the answer to %s: %d %s", ans.QuestionID, rec.Code, rec.Body)
		}
	}
	rec := b.do("POST", cardBase+"/api/asks/"+id+"/submit?session="+url.QueryEscape(session), "{}")
	switch rec.Code {
	case http.StatusOK:
		return nil
	case http.StatusConflict:
		return askuser.ErrAskEnded
	}
	return fmt.Errorf("the card's submit: %d %s", rec.Code, rec.Body)
}

// handle runs one call through an orchestrator over r, in a goroutine.
func handle(t *testing.T, r *Responder, req askuser.Request) (*askuser.Orchestrator, <-chan *askuser.Outcome) {
	t.Helper()
	o := &askuser.Orchestrator{Responder: r}
	t.Cleanup(func() { _ = o.Close() })
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, err := o.Handle(context.Background(), req)
		if err != nil {
			t.Error(err)
		}
		out <- res
	}()
	return o, out
}

const secretCall = `{"questions":[{"id":"token","header":"Token","question":"Paste the deploy token","kind":"secret","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":300}`

// TestSecretLink: the mail of a secret question carries a one-time link
// to the card, never the session's card URL; the link opens the card for
// that ask once, as the mailbox; the secret answered there ends the ask
// and is in no mail.
func TestSecretLink(t *testing.T) {
	m := newMailbox(t, false)
	card := newCard(t)
	sessionURL := func(session, _ string) string {
		return "https://askuser.example.test/sessions/" + session + "?token=SESSION-TOKEN"
	}
	r := newResponder(t, m, Options{CardURL: sessionURL, SecretLink: card.OneTimeLinks(cardBase, 0)})
	o, out := handle(t, r, askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(secretCall)})
	raw := m.next(t)
	_, text, html := parts(t, raw)
	link := onceRE.FindString(text)
	if link == "" || strings.Contains(text+html, "SESSION-TOKEN") || !strings.Contains(html, `href="`+link+`"`) {
		t.Fatalf("the mail:\n%s\n%s\nwant a one-time link to the card in both parts, and no session URL", text, html)
	}
	b := &browser{card: card}
	if err := b.open(link); err != nil {
		t.Fatal(err)
	}
	if rec := (&browser{card: card}).do("POST", link, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "used already") {
		t.Errorf("the link a second time: %d %s; want 410, used already", rec.Code, rec.Body)
	}
	const canary = "email-canary-51c0ffee9a"
	p := o.Pending("s")
	if len(p) != 1 {
		t.Fatalf("pending %+v", p)
	}
	if err := b.answer(heldAsk(t, r, p[0].AskID), []askuser.Answer{{QuestionID: "token", Secret: secret.FromString(canary)}}); err != nil {
		t.Fatal(err)
	}
	res := <-out
	if res.Reason != askuser.ReasonSubmitted || res.Principal != "mailto:oncall@example.test" {
		t.Fatalf("outcome %s, principal %q; want submitted, as the mailbox", res.Reason, res.Principal)
	}
	if strings.Contains(string(raw), canary) {
		t.Error("the secret is in the mail")
	}
	select {
	case more := <-m.got:
		t.Errorf("another mail was sent: %s", more)
	default:
	}

}

// TestSecretMailHasNoSessionURL: the mail of a secret question never
// carries the session's card URL, which opens every ask of the session to
// whoever holds the mail; without a one-time link it says the secret is not
// answered by email.
func TestSecretMailHasNoSessionURL(t *testing.T) {
	m := newMailbox(t, false)
	r := newResponder(t, m, Options{CardURL: func(session, _ string) string {
		return "https://askuser.example.test/sessions/" + session + "?token=SESSION-TOKEN"
	}})
	o := &askuser.Orchestrator{Responder: r}
	defer o.Close()
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, _ := o.Handle(context.Background(), askuser.Request{Session: "s2", ToolCallID: "c", Arguments: []byte(secretCall)})
		out <- res
	}()
	_, text, html := parts(t, m.next(t))
	if strings.Contains(text+html, "SESSION-TOKEN") || !strings.Contains(text, "never answered by email") {
		t.Errorf("the mail of a secret question:\n%s\nwant no session card URL, saying the secret is never answered by email", text)
	}
	o.Supersede("s2")
	<-out
}

// heldAsk is the ask with the id that the responder holds.
func heldAsk(t *testing.T, r *Responder, id string) *askuser.Ask {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.asks[mailKey(id, "")]
	if a == nil {
		t.Fatalf("the responder holds no ask %s", id)
	}
	return a
}
