package email

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
)

// TestConformance runs the conformance suite against the email responder
// (approvals taken, behind a sign-in only the suite's person passes), with
// the suite's person following the links of the mails it receives.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	boxes := map[*Responder]*inbox{}
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		m := newMailbox(t, false)
		r := newResponder(t, m, Options{Authorize: func(req *http.Request) (string, bool) {
			return "person", req.Header.Get("X-Test-Person") == "signed in"
		}})
		mu.Lock()
		boxes[r] = &inbox{m: m, mails: map[string][]byte{}}
		mu.Unlock()
		return r
	}, &respondertest.Options{Person: func(r askuser.Responder) respondertest.Person {
		mu.Lock()
		defer mu.Unlock()
		return linkFollower{r: r.(*Responder), box: boxes[r.(*Responder)]}
	}})
}

// inbox sorts a mailbox's mails by the ask they are for.
type inbox struct {
	m     *mailbox
	mu    sync.Mutex
	mails map[string][]byte // ask id → mail
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
		return askuser.ErrClosed
	}
	if get.Code != http.StatusOK || !strings.Contains(get.Body.String(), `<form method="post"`) {
		return fmt.Errorf("the link's confirm page: %d %s", get.Code, get.Body)
	}
	req := httptest.NewRequest(http.MethodPost, path, nil)
	req.Header.Set("X-Test-Person", "signed in")
	post := httptest.NewRecorder()
	p.r.ServeHTTP(post, req)
	switch post.Code {
	case http.StatusOK:
		return nil
	case http.StatusGone, http.StatusConflict:
		return askuser.ErrClosed
	}
	return fmt.Errorf("the confirm page's POST: %d %s", post.Code, post.Body)
}

// textLinks reads the links of the mail's plain-text part, in order.
func textLinks(raw []byte) ([][][]byte, error) {
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
			b, err := io.ReadAll(part) // quoted-printable is decoded by the reader
			if err != nil {
				return nil, err
			}
			return linkRE.FindAllSubmatch(b, -1), nil
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
