package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// chat is an event-driven responder that hands each ask to the test, as a
// chat responder would hold it: the card is not the orchestrator's.
type chat struct{ asks chan *askuser.Ask }

func (c chat) Asked(a *askuser.Ask) { c.asks <- a }

func (c chat) Respond(ctx context.Context, a *askuser.Ask) error {
	c.Asked(a)
	<-ctx.Done()
	return nil
}

// onceSetup is a card that refuses every request by Authorize, and an
// orchestrator over a chat responder that links its asks to the card.
type onceSetup struct {
	card  *web.Responder
	o     *askuser.Orchestrator
	asks  chan *askuser.Ask
	links func(a *askuser.Ask, principal string) (string, error)
	n     int
}

func newOnce(t *testing.T, lifetime time.Duration) *onceSetup {
	t.Helper()
	s := &onceSetup{asks: make(chan *askuser.Ask, 4)}
	s.card = web.New(&web.Options{Logger: quiet, Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	s.o = &askuser.Orchestrator{Responder: chat{s.asks}, Logger: quiet, Secrets: secretstore.NewMemory(nil)}
	s.links = s.card.OneTimeLinks("http://localhost/", lifetime)
	t.Cleanup(func() { s.o.Close(); s.card.Close() })
	return s
}

const secretCall = `{"timeout_seconds":300,"questions":[{"id":"token","header":"Token","question":"Paste the deploy token","kind":"secret","secret_name":"DEPLOY_TOKEN","purpose":"to deploy"}]}`

// ask starts a call and returns its ask and where its outcome arrives.
func (s *onceSetup) ask(t *testing.T, session, call string) (*askuser.Ask, <-chan *askuser.Outcome) {
	t.Helper()
	out := make(chan *askuser.Outcome, 1)
	s.n++
	id := "c" + strconv.Itoa(s.n)
	go func() {
		o, err := s.o.Handle(context.Background(), askuser.Request{Session: session, ToolCallID: id, Arguments: []byte(call)})
		if err != nil {
			t.Errorf("Handle: %v", err)
		}
		out <- o
	}()
	select {
	case a := <-s.asks:
		return a, out
	case o := <-out:
		t.Fatalf("the ask ended before the responder saw it: %+v", o)
		return nil, nil
	}
}

func (s *onceSetup) serve(method, url string, cookies []*http.Cookie, hdr map[string]string, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	for _, c := range cookies {
		req.AddCookie(c)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.card.ServeHTTP(rec, req)
	return rec
}

// TestOneTimeLink: a one-time link's GET decides nothing; its POST admits
// the browser to its ask, in place of Authorize, with the link's
// principal; the secret answered there ends the ask. A second use is
// refused, and says so, and the admission opens no other ask.
func TestOneTimeLink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newOnce(t, 0)
		a, out := s.ask(t, "s1", secretCall)
		other, otherOut := s.ask(t, "s1", secretCall)
		link, err := s.links(a, "slack:T1/U1")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(link, "http://localhost/once/") || strings.Contains(link, "s1") || strings.Contains(link, a.ID()) {
			t.Fatalf("link %q; want http://localhost/once/CODE, naming neither the session nor the ask", link)
		}
		if rec := s.serve("GET", "http://localhost/api/asks/"+a.ID(), nil, nil, ""); rec.Code != http.StatusForbidden {
			t.Fatalf("the ask without the link: %d; want 403 (Authorize refuses)", rec.Code)
		}
		get := s.serve("GET", link, nil, nil, "")
		if get.Code != http.StatusOK || !strings.Contains(get.Body.String(), `<form method="post">`) || get.Header().Get("Set-Cookie") != "" {
			t.Fatalf("GET of the link: %d %q %v; want the page with its button, and no cookie", get.Code, get.Body, get.Header())
		}
		post := s.serve("POST", link, nil, nil, "")
		if post.Code != http.StatusSeeOther || post.Header().Get("Location") != "../asks/"+a.ID()+"?session=s1" {
			t.Fatalf("POST of the link: %d %v; want 303 to the ask's page", post.Code, post.Header())
		}
		cookies := post.Result().Cookies()
		if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode {
			t.Fatalf("cookies %v; want one, HttpOnly and SameSite=Strict", cookies)
		}
		if rec := s.serve("GET", "http://localhost/asks/"+a.ID()+"?session=s1", cookies, nil, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `data-once="yes"`) {
			t.Fatalf("the ask's page with the cookie: %d %s", rec.Code, rec.Body)
		}
		// The admission is for this ask only: another ask the card shows
		// (its own link made, not used) is refused.
		link2, err := s.links(other, "slack:T1/U1")
		if err != nil {
			t.Fatal(err)
		}
		if rec := s.serve("GET", "http://localhost/api/asks/"+other.ID(), cookies, nil, ""); rec.Code != http.StatusForbidden {
			t.Errorf("another ask of the session with the cookie: %d; want 403", rec.Code)
		}
		if rec := s.serve("GET", "http://localhost/api/sessions/s1/asks", cookies, nil, ""); rec.Code != http.StatusForbidden {
			t.Errorf("the session's listing with the cookie: %d; want 403", rec.Code)
		}
		// A second use of the link, GET or POST, opens nothing.
		for _, m := range []string{"GET", "POST"} {
			if rec := s.serve(m, link, nil, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "used already") || rec.Header().Get("Set-Cookie") != "" {
				t.Errorf("%s of a used link: %d %q; want 410 saying it was used", m, rec.Code, rec.Body)
			}
		}
		hdr := map[string]string{"X-CSRF-Token": s.card.CSRFToken("s1"), "Content-Type": "application/json"}
		if rec := s.serve("PUT", "http://localhost/api/asks/"+a.ID()+"/answers/token", cookies, hdr, `{"secret":"hunter2-canary"}`); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "hunter2") {
			t.Fatalf("the secret: %d %s", rec.Code, rec.Body)
		}
		if rec := s.serve("POST", "http://localhost/api/asks/"+a.ID()+"/submit", cookies, hdr, `{}`); rec.Code != http.StatusOK {
			t.Fatalf("submit: %d %s", rec.Code, rec.Body)
		}
		o := <-out
		if o.Reason != askuser.ReasonSubmitted || o.Principal != "slack:T1/U1" || o.AnsweredBy != askuser.ByUser {
			t.Errorf("outcome %s by %s, principal %q; want submitted by the user, principal slack:T1/U1", o.Reason, o.AnsweredBy, o.Principal)
		}
		// The other ask's own link opens it.
		if rec := s.serve("POST", link2, nil, nil, ""); rec.Code != http.StatusSeeOther || !strings.Contains(rec.Header().Get("Location"), other.ID()) {
			t.Errorf("the other ask's link: %d %v", rec.Code, rec.Header())
		}
		s.o.Supersede("s1")
		<-otherOut
	})
}

// TestOneTimeLinkRefusals: an expired link, a link whose ask has ended,
// a link that is not one, and an approval are refused, with a page (or
// an error) that says why.
func TestOneTimeLinkRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newOnce(t, time.Minute)
		a, out := s.ask(t, "s2", secretCall)
		expired, _ := s.links(a, "p")
		time.Sleep(2 * time.Minute)
		if rec := s.serve("POST", expired, nil, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "expired") || rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("an expired link: %d %q; want 410 saying it expired", rec.Code, rec.Body)
		}
		fresh, _ := s.links(a, "p")
		s.o.Supersede("s2")
		<-out
		synctest.Wait()
		if rec := s.serve("POST", fresh, nil, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "has ended") {
			t.Errorf("the link of an ended ask: %d %q; want 410 saying the question ended", rec.Code, rec.Body)
		}
		if rec := s.serve("POST", "http://localhost/once/not-a-code", nil, nil, ""); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "not a link") {
			t.Errorf("a made-up link: %d %q; want 404", rec.Code, rec.Body)
		}
		if _, err := s.links(a, "p"); err == nil {
			t.Error("a link was made for an ended ask")
		}
	})
}

// TestOneTimeLinkNotForApprovals: no one-time link opens an approval.
func TestOneTimeLinkNotForApprovals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newOnce(t, 0)
		f, err := approvaltool.Form(approval.Request{Action: "Restart login", Reason: "stale cert", Risk: approval.RiskLow}, 300)
		if err != nil {
			t.Fatal(err)
		}
		s.o.Responder = approvalChat{chat{s.asks}}
		out := make(chan *askuser.Outcome, 1)
		go func() {
			o, _ := s.o.Handle(context.Background(), askuser.Request{Session: "s4", ToolCallID: "c", Form: f})
			out <- o
		}()
		a := <-s.asks
		if _, err := s.links(a, "p"); err == nil || !strings.Contains(err.Error(), "approval") {
			t.Errorf("a link for an approval: %v; want it refused", err)
		}
		s.o.Supersede("s4")
		<-out
	})
}

type approvalChat struct{ chat }

func (approvalChat) CanTakeApprovals() bool { return true }
