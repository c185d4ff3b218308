package slack

import (
	"bytes"
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
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secret"
)

// cardBase is where the tests' web card is mounted.
const cardBase = "http://localhost"

// newCard is a web card that admits nobody by Authorize: only its
// one-time links open an ask.
func newCard(t *testing.T) *web.Responder {
	t.Helper()
	card := web.New(&web.Options{Logger: quietLog, Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	t.Cleanup(func() { _ = card.Close() })
	return card
}

// tap records the body of every Web API request the responder sends.
type tap struct {
	h    http.Handler
	mu   sync.Mutex
	sent []string
}

func (t *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	t.mu.Lock()
	t.sent = append(t.sent, r.URL.Path+"?"+string(b))
	t.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	t.h.ServeHTTP(w, r)
}

func (t *tap) all() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.sent, "\n")
}

var onceLinkRE = regexp.MustCompile(`<(` + regexp.QuoteMeta(cardBase) + `/once/[A-Za-z0-9_-]+)\|`)

// oneTimeLink clicks the message's "Answer on the web card" as user, and
// returns the link the ephemeral reply gave them.
func oneTimeLink(f *slacktest.Fake, r *Responder, user string, a *askuser.Ask) (string, error) {
	return oneTimeLinkFor(f, r, user, a.ID())
}

// oneTimeLinkFor is oneTimeLink for the ask of id, clicked on r.
func oneTimeLinkFor(f *slacktest.Fake, r *Responder, user, id string) (string, error) {
	n := len(f.Ephemerals())
	if rec := serve(r, signed(click("T1", user, actionCard, id), time.Now(), signingSecret)); rec.Code != http.StatusOK {
		return "", fmt.Errorf("the click: %d %s", rec.Code, rec.Body)
	}
	synctest.Wait()
	got := f.Ephemerals()[n:]
	if len(got) != 1 {
		return "", fmt.Errorf("after the click the ephemerals %q; want one", got)
	}
	m := onceLinkRE.FindStringSubmatch(got[0])
	if m == nil || !strings.HasPrefix(got[0], user+": ") {
		return "", fmt.Errorf("the ephemeral %q holds no one-time link for %s", got[0], user)
	}
	return m[1], nil
}

// browser follows a one-time link on the card as a person's browser does
// (GET the page, POST its button, then the ask's page) and answers there.
type browser struct {
	card    *web.Responder
	cookies []*http.Cookie
	csrf    string
}

var csrfRE = regexp.MustCompile(`<meta name="askuser-csrf" content="([^"]+)">`)

func (b *browser) do(method, url, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, url, strings.NewReader(body))
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
		if rec := b.do("PUT", cardBase+"/api/asks/"+id+"/answers/"+ans.QuestionID+"?session="+session, string(js)); rec.Code != http.StatusOK {
			return fmt.Errorf("the card refused the answer to %s: %d %s", ans.QuestionID, rec.Code, rec.Body)
		}
	}
	rec := b.do("POST", cardBase+"/api/asks/"+id+"/submit?session="+session, "{}")
	switch rec.Code {
	case http.StatusOK:
		return nil
	case http.StatusConflict:
		return askuser.ErrAskEnded
	}
	return fmt.Errorf("the card's submit: %d %s", rec.Code, rec.Body)
}

const secretCall = `{"questions":[{"id":"token","header":"Token","question":"Paste the deploy token","kind":"secret","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}],"timeout_seconds":300}`

// TestSecretGoesToTheCard: a secret question's message carries no link,
// only a button; a click by a stranger gets no link; the allowed user's
// click gets a one-time link, in a message only they see, which opens the
// card for that ask once; the secret answered there ends the ask, with
// the Slack identity as principal, and is in no request made to Slack.
func TestSecretGoesToTheCard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		tp := &tap{h: f}
		card := newCard(t)
		r := newResponder(t, f, Options{SecretLink: card.OneTimeLinks(cardBase, 0), HTTPClient: &http.Client{Transport: roundTrip{tp}}})
		out, posted := asking(t, f, r, secretCall)
		blocks := posted.Form.Get("blocks")
		if strings.Contains(blocks, "http") || strings.Contains(blocks, `"url"`) || !strings.Contains(blocks, actionCard) {
			t.Fatalf("the message %s; want a card button and no link", blocks)
		}
		id := slacktest.Buttons(posted)[actionCard][0]
		var a *askuser.Ask
		r.mu.Lock()
		a = r.asks[id].a
		r.mu.Unlock()

		serve(r, signed(click("T1", "U666", actionCard, id), time.Now(), signingSecret))
		synctest.Wait()
		if got := f.Ephemerals(); len(got) != 1 || strings.Contains(got[0], "/once/") || !strings.Contains(got[0], "isn't yours") {
			t.Errorf("a stranger's click got %q; want no link, and that the ask isn't theirs", got)
		}
		link, err := oneTimeLink(f, r, "U1", a)
		if err != nil {
			t.Fatal(err)
		}
		b := &browser{card: card}
		if err := b.open(link); err != nil {
			t.Fatal(err)
		}
		// Someone else in the channel who got hold of the link after it
		// was used opens nothing.
		if rec := (&browser{card: card}).do("POST", link, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "used already") {
			t.Errorf("the used link again: %d %s; want 410, used already", rec.Code, rec.Body)
		}
		const canary = "slack-canary-7f3e19d2b4"
		if err := b.answer(a, []askuser.Answer{{QuestionID: "token", Secret: secretOf(canary)}}); err != nil {
			t.Fatal(err)
		}
		o := <-out
		if o.Reason != askuser.ReasonSubmitted || o.AnsweredBy != askuser.ByUser || o.Principal != "slack:T1/U1" {
			t.Fatalf("outcome %s by %s, principal %q; want submitted by the user, slack:T1/U1", o.Reason, o.AnsweredBy, o.Principal)
		}
		<-f.Updated
		synctest.Wait()
		if all := tp.all(); strings.Contains(all, canary) || !strings.Contains(all, "chat.update") {
			t.Errorf("the secret reached Slack, or the message was not edited:\n%s", all)
		}
	})
}

// TestSecretWithoutCard: with no SecretLink, a secret question says it
// cannot be answered here, and its button sends no link.
func TestSecretWithoutCard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{})
		_, posted := asking(t, f, r, secretCall)
		if b := posted.Form.Get("blocks"); !strings.Contains(b, "cannot be answered here") || strings.Contains(b, actionCard) {
			t.Errorf("the message %s; want it to say the secret cannot be answered here, with no button", b)
		}
		r.mu.Lock()
		for id := range r.asks {
			r.mu.Unlock()
			serve(r, signed(click("T1", "U1", actionCard, id), time.Now(), signingSecret))
			r.mu.Lock()
		}
		r.mu.Unlock()
		synctest.Wait()
		if got := f.Ephemerals(); len(got) != 1 || !strings.Contains(got[0], "cannot be answered from Slack") {
			t.Errorf("a click on a card button that was never shown got %q", got)
		}
	})
}

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func secretOf(s string) secret.Value { return secret.FromString(s) }
