package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natstest"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// announcing is a replica's responder: its card, which it tells of every
// ask, and a channel the test takes the asks begun there from (as a chat
// responder holds them to make their links).
type announcing struct {
	card *web.Responder
	asks chan *askuser.Ask
}

func (r announcing) Asked(a *askuser.Ask) {
	r.card.Asked(a)
	if responder.BeganHere(a) {
		r.asks <- a
	}
}

func (r announcing) Respond(ctx context.Context, a *askuser.Ask) error {
	r.Asked(a)
	<-ctx.Done()
	return nil
}

func (r announcing) Unwrap() askuser.Responder { return r.card }
func (r announcing) AnnouncesAsks() bool       { return true }

func (r announcing) FollowSessions(s *askuser.Sessions) { r.card.FollowSessions(s) }

// onceReplica is one replica of a fleet whose cards share notes and a CSRF
// key: an orchestrator in step with the shared stores, and its card, which
// admits nobody by Authorize.
type onceReplica struct {
	t    *testing.T
	card *web.Responder
	o    *askuser.Orchestrator
	asks chan *askuser.Ask
}

// fleetKey is the CSRF key the replicas share.
var fleetKey = []byte("the fleet's CSRF key: 32 bytes at the least")

func newOnceReplica(t *testing.T, st store.Pending, notes store.Notes, secrets secretstore.Store) *onceReplica {
	t.Helper()
	card := web.New(&web.Options{Logger: quiet, CSRFKey: fleetKey, Notes: notes, Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	rp := &onceReplica{t: t, card: card, asks: make(chan *askuser.Ask, 4)}
	rp.o = &askuser.Orchestrator{Responder: announcing{card, rp.asks}, Asks: st, Logger: quiet, Secrets: secrets}
	if err := rp.o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rp.o.Close(); card.Close(); rp.o.WaitResponders() })
	return rp
}

// begin begins a secret ask in session s on the replica and returns it.
func (rp *onceReplica) begin(toolCallID string) *askuser.Ask {
	rp.t.Helper()
	if _, err := rp.o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: toolCallID, Arguments: []byte(secretCall)}); err != nil {
		rp.t.Fatal(err)
	}
	select {
	case a := <-rp.asks:
		return a
	case <-time.After(time.Minute):
		rp.t.Fatal("the replica was not told of the ask it began")
		return nil
	}
}

func (rp *onceReplica) serve(method, target string, cookies []*http.Cookie, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for _, c := range cookies {
		req.AddCookie(c)
	}
	if strings.Contains(target, "/api/") && method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", rp.card.CSRFToken("s"))
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	rp.card.ServeHTTP(rec, req)
	return rec
}

// sharedNotes are the ways the replicas' cards share their notes: in
// memory, and in a JetStream bucket on an embedded NATS server.
func sharedNotes(t *testing.T) map[string]func(t *testing.T) (store.Pending, store.Notes) {
	return map[string]func(t *testing.T) (store.Pending, store.Notes){
		"memory": func(*testing.T) (store.Pending, store.Notes) { return store.NewMemory(0), &store.MemoryNotes{} },
		"jetstream": func(t *testing.T) (store.Pending, store.Notes) {
			s := natstest.Open(t, natsstore.Config{})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			notes, err := s.Notes(ctx, "web", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return s.Asks(), notes
		},
	}
}

// TestOneTimeLinkFleet: a one-time link made on replica A is opened and
// redeemed on replica B, whose card admits the browser to the ask it
// holds only through the fleet; the secret typed there ends A's ask, with
// the link's principal. The link, used, is refused on A and on B.
func TestOneTimeLinkFleet(t *testing.T) {
	for name, open := range sharedNotes(t) {
		t.Run(name, func(t *testing.T) {
			st, notes := open(t)
			secrets := secretstore.NewMemory(nil)
			a, b := newOnceReplica(t, st, notes, secrets), newOnceReplica(t, st, notes, secrets)
			ask := a.begin("c1")
			link, err := a.card.OneTimeLinks("http://localhost/", 0)(ask, "slack:T1/U1")
			if err != nil {
				t.Fatal(err)
			}
			if rec := b.serve("GET", link, nil, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `<form method="post">`) {
				t.Fatalf("GET of A's link on B: %d %s; want the page with its button", rec.Code, rec.Body)
			}
			post := b.serve("POST", link, nil, "")
			if post.Code != http.StatusSeeOther || post.Header().Get("Location") != "../asks/"+ask.ID()+"?session=s" {
				t.Fatalf("POST of A's link on B: %d %v %s; want 303 to the ask's page", post.Code, post.Header(), post.Body)
			}
			cookies := post.Result().Cookies()
			for _, rp := range []*onceReplica{a, b} {
				for _, m := range []string{"GET", "POST"} {
					if rec := rp.serve(m, link, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "used already") || rec.Header().Get("Set-Cookie") != "" {
						t.Errorf("%s of the used link: %d %q; want 410 saying it was used", m, rec.Code, rec.Body)
					}
				}
			}
			if rec := b.serve("GET", "http://localhost/asks/"+ask.ID()+"?session=s", cookies, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `data-once="yes"`) {
				t.Fatalf("the ask's page on B with the cookie: %d %s", rec.Code, rec.Body)
			}
			if rec := b.serve("PUT", "http://localhost/api/asks/"+ask.ID()+"/answers/token?session=s", cookies, `{"secret":"hunter2-canary"}`); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "hunter2") {
				t.Fatalf("the secret on B: %d %s", rec.Code, rec.Body)
			}
			if rec := b.serve("POST", "http://localhost/api/asks/"+ask.ID()+"/submit?session=s", cookies, `{}`); rec.Code != http.StatusOK {
				t.Fatalf("submit on B: %d %s", rec.Code, rec.Body)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := a.o.Await(ctx, "s", "c1")
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != askuser.StatusAnswered || out.AnsweredBy != askuser.ByUser || out.Principal != "slack:T1/U1" {
				t.Errorf("A's result %s by %s, principal %q; want answered by the user, principal slack:T1/U1", out.Status, out.AnsweredBy, out.Principal)
			}
		})
	}
}

// TestOneTimeLinkFleetRace: two replicas redeeming one link at once admit
// one browser: one POST sets the cookie, the other is refused as used.
func TestOneTimeLinkFleetRace(t *testing.T) {
	for name, open := range sharedNotes(t) {
		t.Run(name, func(t *testing.T) {
			st, notes := open(t)
			secrets := secretstore.NewMemory(nil)
			a, b := newOnceReplica(t, st, notes, secrets), newOnceReplica(t, st, notes, secrets)
			ask := a.begin("c1")
			defer a.o.Supersede("s")
			link, err := a.card.OneTimeLinks("http://localhost/", 0)(ask, "p")
			if err != nil {
				t.Fatal(err)
			}
			// B follows the session first, so that neither POST waits on
			// the store more than the other.
			if rec := b.serve("GET", link, nil, ""); rec.Code != http.StatusOK {
				t.Fatalf("GET on B: %d", rec.Code)
			}
			var wg sync.WaitGroup
			recs := make([]*httptest.ResponseRecorder, 2)
			for i, rp := range []*onceReplica{a, b} {
				wg.Go(func() { recs[i] = rp.serve("POST", link, nil, "") })
			}
			wg.Wait()
			admitted, refused := 0, 0
			for _, rec := range recs {
				switch {
				case rec.Code == http.StatusSeeOther && len(rec.Result().Cookies()) == 1:
					admitted++
				case rec.Code == http.StatusGone && strings.Contains(rec.Body.String(), "used already") && rec.Header().Get("Set-Cookie") == "":
					refused++
				}
			}
			if admitted != 1 || refused != 1 {
				t.Errorf("the racing POSTs: %d and %d; want one 303 with a cookie and one 410 saying it was used", recs[0].Code, recs[1].Code)
			}
		})
	}
}

// TestOneTimeLinkFleetEnded: a link whose ask ended on A is refused on B,
// saying the question ended, and B's card is not opened by it.
func TestOneTimeLinkFleetEnded(t *testing.T) {
	st, notes := store.NewMemory(0), &store.MemoryNotes{}
	secrets := secretstore.NewMemory(nil)
	a, b := newOnceReplica(t, st, notes, secrets), newOnceReplica(t, st, notes, secrets)
	ask := a.begin("c1")
	link, err := a.card.OneTimeLinks("http://localhost/", 0)(ask, "p")
	if err != nil {
		t.Fatal(err)
	}
	a.o.Supersede("s")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := a.o.Await(ctx, "s", "c1"); err != nil {
		t.Fatal(err)
	}
	if rec := b.serve("POST", link, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "has ended") || rec.Header().Get("Set-Cookie") != "" {
		t.Errorf("the link of an ended ask on B: %d %q; want 410 saying the question ended", rec.Code, rec.Body)
	}
	if rec := b.serve("POST", "http://localhost/once/not-a-code", nil, ""); rec.Code != http.StatusNotFound {
		t.Errorf("a made-up link on B: %d; want 404", rec.Code)
	}
}

// TestOneTimeLinkNotedRefusals: on notes, as in memory, a link past its
// lifetime is refused as expired, and a link whose ask has ended as
// ended, each with no cookie.
func TestOneTimeLinkNotedRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &onceSetup{asks: make(chan *askuser.Ask, 4)}
		s.card = web.New(&web.Options{Logger: quiet, Notes: &store.MemoryNotes{}, Authorize: func(*http.Request, string) (string, error) {
			return "", errors.New("only a one-time link admits here")
		}})
		s.o = &askuser.Orchestrator{Responder: chat{s.asks}, Logger: quiet, Secrets: secretstore.NewMemory(nil)}
		s.links = s.card.OneTimeLinks("http://localhost/", time.Minute)
		defer func() { s.o.Close(); s.card.Close() }()
		a, out := s.ask(t, "s", secretCall)
		expired, err := s.links(a, "p")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute - time.Second)
		if rec := s.serve("GET", expired, nil, nil, ""); rec.Code != http.StatusOK {
			t.Fatalf("the link before its lifetime: %d; want its page", rec.Code)
		}
		time.Sleep(time.Second)
		if rec := s.serve("POST", expired, nil, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "expired") || rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("the link at its lifetime: %d %q; want 410 saying it expired", rec.Code, rec.Body)
		}
		fresh, err := s.links(a, "p")
		if err != nil {
			t.Fatal(err)
		}
		s.o.Supersede("s")
		<-out
		synctest.Wait()
		if rec := s.serve("POST", fresh, nil, nil, ""); rec.Code != http.StatusGone || !strings.Contains(rec.Body.String(), "has ended") || rec.Header().Get("Set-Cookie") != "" {
			t.Errorf("the link of an ended ask: %d %q; want 410 saying the question ended", rec.Code, rec.Body)
		}
	})
}
