package slack

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

// inproc is an HTTP client that hands every request to a handler in this
// process (no network, so that tests run in a synctest bubble).
type inproc struct{ h http.Handler }

func (c inproc) Do(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

const signingSecret = slacktest.SigningSecret

// signed is an interaction request as Slack sends it, signed at t.
func signed(payload any, t time.Time, secret string) *http.Request {
	return slacktest.Signed("/slack/interactivity", payload, t, secret)
}

var (
	click      = slacktest.Click
	submission = slacktest.Submission
)
