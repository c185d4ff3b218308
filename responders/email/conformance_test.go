package email

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/web"
)

// TestConformance runs the conformance suite against the email responder,
// with the suite's person following the links of the mails it receives,
// typing the codes sent apart from them, and answering secrets on the web
// card through the mails' one-time links: once with approvals taken (by a
// code sent apart), once without. Between the two, every case runs.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	boxes := map[*Responder]*inbox{}
	run := func(t *testing.T, codes bool) map[string]string {
		return respondertest.Run(t, func(t *testing.T) askuser.Responder {
			m := newMailbox(t, false)
			card := newCard(t)
			box := &inbox{m: m, mails: map[string][]byte{}, codes: map[string]string{}, card: card}
			opts := Options{SecretLink: card.OneTimeLinks(cardBase, 0)}
			if codes {
				opts.SendCode = func(_ context.Context, mailbox string, a *askuser.Ask, code string) error {
					box.mu.Lock()
					box.codes[a.ID()] = code
					box.mu.Unlock()
					return nil
				}
			}
			r := newResponder(t, m, opts)
			mu.Lock()
			boxes[r] = box
			mu.Unlock()
			return r
		}, &respondertest.Options{Person: func(r askuser.Responder) respondertest.Person {
			mu.Lock()
			defer mu.Unlock()
			return linkFollower{r: r.(*Responder), box: boxes[r.(*Responder)]}
		}})
	}
	var with, without map[string]string
	t.Run("approvals-by-code", func(t *testing.T) { with = run(t, true) })
	t.Run("no-approvals", func(t *testing.T) { without = run(t, false) })
	var never []string
	for name := range with {
		if _, ok := without[name]; ok {
			never = append(never, name)
		}
	}
	if len(never) != 0 || len(with) != 1 {
		t.Errorf("cases that ran in neither run: %v (with approvals, skipped %v); want every case to run in one", never, with)
	}
	t.Logf("with approvals %d of %d cases ran, without %d", len(respondertest.Cases())-len(with), len(respondertest.Cases()), len(respondertest.Cases())-len(without))
}

// inbox sorts a mailbox's mails by the ask they are for.
type inbox struct {
	m     *mailbox
	card  *web.Responder
	mu    sync.Mutex
	mails map[string][]byte // ask id → mail
	codes map[string]string // ask id → the code sent apart
}

// mail waits up to a minute for the mail of an ask.
func (b *inbox) mail(askID string) ([]byte, error) {
	deadline := time.After(time.Minute)
	for {
		b.mu.Lock()
		raw, ok := b.mails[askID]
		b.mu.Unlock()
		if ok {
			return raw, nil
		}
		select {
		case raw := <-b.m.got:
			msg, err := mail.ReadMessage(bytes.NewReader(raw))
			if err != nil {
				return nil, err
			}
			id, _, _ := strings.Cut(strings.TrimPrefix(msg.Header.Get("Message-ID"), "<"), ".")
			b.mu.Lock()
			b.mails[id] = raw
			b.mu.Unlock()
		case <-deadline:
			return nil, fmt.Errorf("no mail for ask %s within a minute", askID)
		}
	}
}

// linkFollower is the suite's person: it opens a mail's link, as a person
// would, and presses the confirm page's button.
type linkFollower struct {
	r   *Responder
	box *inbox
}

func (p linkFollower) follow(a *askuser.Ask, option int) error { return p.followID(a.ID(), option) }

// followID follows a link of the mail of the ask askID.
func (p linkFollower) followID(askID string, option int) error {
	raw, err := p.box.mail(askID)
	if err != nil {
		return err
	}
	links, err := textLinks(raw)
	if err != nil {
		return err
	}
	if option >= len(links) {
		return fmt.Errorf("the mail has %d links; option %d has none", len(links), option)
	}
	path := string(links[option][1])
	get := httptest.NewRecorder()
	p.r.ServeHTTP(get, httptest.NewRequest(http.MethodGet, path, nil))
	if get.Code == http.StatusGone {
		return askuser.ErrAskEnded
	}
	if get.Code != http.StatusOK || !strings.Contains(get.Body.String(), `<form method="post"`) {
		return fmt.Errorf("the link's confirm page: %d %s", get.Code, get.Body)
	}
	p.box.mu.Lock()
	code := p.box.codes[askID]
	p.box.mu.Unlock()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Test-Person", "signed in") // for a responder that verifies by Authorize (the fleet's)
	post := httptest.NewRecorder()
	p.r.ServeHTTP(post, req)
	switch post.Code {
	case http.StatusOK:
		return nil
	case http.StatusGone, http.StatusConflict:
		return askuser.ErrAskEnded
	}
	return fmt.Errorf("the confirm page's POST: %d %s", post.Code, post.Body)
}

// textLinks reads the links of the mail's plain-text part, in order.
func textLinks(raw []byte) ([][][]byte, error) {
	b, err := textPart(raw)
	if err != nil {
		return nil, err
	}
	return linkRE.FindAllSubmatch(b, -1), nil
}

// textPart reads the mail's plain-text part.
func textPart(raw []byte) ([]byte, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err != nil {
			return nil, errors.New("the mail has no plain-text part")
		}
		if strings.HasPrefix(part.Header.Get("Content-Type"), "text/plain") {
			return io.ReadAll(part) // quoted-printable is decoded by the reader
		}
	}
}

func (p linkFollower) Choose(a *askuser.Ask, question, option int) error {
	if question != 0 {
		return fmt.Errorf("question %d: a mail's links answer the first question only", question)
	}
	return p.follow(a, option)
}

func (p linkFollower) Decide(a *askuser.Ask, choice string) error {
	for i, o := range a.Form().Questions[0].Options {
		if o.Value == choice {
			return p.follow(a, i)
		}
	}
	return fmt.Errorf("the approval has no option %q", choice)
}

// Fill answers a form with a secret on the web card, through the mail's
// one-time link.
func (p linkFollower) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	raw, err := p.box.mail(a.ID())
	if err != nil {
		return err
	}
	text, err := textPart(raw)
	if err != nil {
		return err
	}
	m := onceRE.FindSubmatch(text)
	if m == nil {
		return fmt.Errorf("the mail has no one-time link to the card:\n%s", text)
	}
	b := &browser{card: p.box.card}
	if err := b.open(string(m[1])); err != nil {
		return err
	}
	return b.answer(a, answers)
}
