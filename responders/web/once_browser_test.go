package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// TestBrowserOneTimeLink: a person's browser follows a one-time link (as
// a Slack or mail message gives it) to a card under a prefix, presses its
// button, types the secret on the card the link opens, and submits; the
// ask ends with the link's principal, and the link opens nothing again.
func TestBrowserOneTimeLink(t *testing.T) {
	const canary = "canary-0b7d55-ONCE-secret-value"
	ctx, d := browser(t)
	d.allowConsole("status of 410") // the used link, opened again
	card := web.New(&web.Options{Logger: quiet, Authorize: func(*http.Request, string) (string, error) {
		return "", errors.New("only a one-time link admits here")
	}})
	mux := http.NewServeMux()
	mux.Handle("/askuser/", http.StripPrefix("/askuser", card))
	srv := httptest.NewServer(mux)
	asks := make(chan *askuser.Ask, 1)
	o := &askuser.Orchestrator{Responder: chat{asks}, Logger: quiet, Secrets: secretstore.NewMemory(nil)}
	t.Cleanup(func() { o.Close(); card.Close(); srv.Close() })
	done := make(chan *askuser.Outcome, 1)
	go func() {
		out, err := o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c", Arguments: []byte(tokenCall)})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	a := <-asks
	link, err := card.OneTimeLinks(srv.URL+"/askuser", 0)(a, "slack:T1/U1")
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`form button`)),
		chromedp.Click(chromedp.CSS(`form button`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-secret`)),
		chromedp.SendKeys(chromedp.CSS(`#a0-q0-secret`), canary),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	if status := text(t, ctx, `#status`); !strings.Contains(status, "one-time link") {
		t.Errorf("the page's status reads %q; want it to say it was opened by a one-time link", status)
	}
	out := <-done
	if out.Status != askuser.StatusAnswered || out.Principal != "slack:T1/U1" {
		t.Fatalf("outcome %s, principal %q; want answered, by slack:T1/U1", out.Status, out.Principal)
	}
	run(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	if got := text(t, ctx, `body`); !strings.Contains(got, "used already") {
		t.Errorf("the link a second time reads %q; want that it was used", got)
	}
}
