package mcpresponder_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/responders/slack"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

// inProcess hands each request to a handler in process, so that the Slack
// responder reaches the fake within a synctest bubble.
type inProcess struct{ h http.Handler }

func (p inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// TestBridgeToSlack: with the Slack responder as the bridge, a call the
// person does not answer in the client returns at the bridge's time (and
// not before) saying the question went to the channel; the ask is posted
// there, a click on the message answers it, and it is journaled once,
// answered by the person.
func TestBridgeToSlack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := slacktest.NewHandler()
		sr, err := slack.New(context.Background(), slack.Options{
			BotToken: slacktest.BotToken, SigningSecret: slacktest.SigningSecret, Channel: "C1",
			AllowedUsers: []string{"U1"}, APIURL: fake.APIURL(), HTTPClient: &http.Client{Transport: inProcess{fake}}, Logger: quiet,
		})
		if err != nil {
			t.Fatal(err)
		}
		// Closed after the rig (cleanups run last first): the ended ask's
		// message is edited before.
		t.Cleanup(func() { _ = sr.Close() })
		r := newRig(t, rigOptions{version: v20251125, client: waitingClient(), tool: func(tl *mcpresponder.Tool) {
			tl.Bridge = &mcpresponder.Bridge{After: 45 * time.Second, To: sr,
				Where: func(*askuser.Ask) string { return "the Slack channel C1" }}
		}})
		start := time.Now()
		res := r.call(t, deployCall)
		if d := time.Since(start); d != 45*time.Second {
			t.Errorf("the call returned after %v; want the bridge's 45s", d)
		}
		if txt := text(res); res.IsError || !strings.Contains(txt, "went on to the Slack channel C1") {
			t.Errorf("the call's result: %q (isError %v); want that the ask went to the Slack channel", txt, res.IsError)
		}
		synctest.Wait()
		var posted slacktest.Call
		select {
		case posted = <-fake.Posted:
		default:
			t.Fatal("the ask was not posted to Slack")
		}
		pick := slacktest.Buttons(posted)["askuser_pick"]
		if len(pick) != 2 {
			t.Fatalf("buttons %v; want one per option", slacktest.Buttons(posted))
		}
		time.Sleep(30 * time.Second) // the person clicks a while later
		rec := httptest.NewRecorder()
		sr.ServeHTTP(rec, slacktest.Signed("http://askuser.test/slack/interactivity", slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[1]), time.Now(), slacktest.SigningSecret))
		if rec.Code != http.StatusOK {
			t.Fatalf("the click: %d %s", rec.Code, rec.Body)
		}
		synctest.Wait()
		recs := r.journal.records()
		if len(recs) != 1 || recs[0].Status != askuser.StatusAnswered || recs[0].AnsweredBy != askuser.ByUser ||
			len(recs[0].Answers) != 1 || strings.Join(recs[0].Answers[0].Selected, ",") != "production" {
			t.Fatalf("journal: %s; want one record, production, answered by the person in Slack", mustJSON(t, recs))
		}
	})
}
