package slack

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

const socketWait = time.Minute

func socketResponder(t *testing.T, fake *slacktest.Fake, appToken string) (*Responder, error) {
	t.Helper()
	r, err := New(context.Background(), Options{BotToken: slacktest.BotToken, AppToken: appToken, Channel: "C1", AllowedUsers: []string{"U1"}, APIURL: fake.APIURL()})
	if err == nil {
		t.Cleanup(func() { _ = r.Close() })
	}
	return r, err
}

// TestSocketMode: with an app-level token the responder takes the
// interactions over Socket Mode, through the fake's websocket on
// loopback: a stranger's click changes nothing, a wrong confirmation code
// is refused in the acknowledgement, and an allowed user's click answers.
func TestSocketMode(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	if _, err := socketResponder(t, fake, "xapp-wrong"); err == nil || !strings.Contains(err.Error(), "apps.connections.open refused the app-level token: invalid_auth") {
		t.Fatalf("New with a wrong app token: %v; want it refused at start", err)
	}
	r, err := socketResponder(t, fake, slacktest.AppToken)
	if err != nil {
		t.Fatal(err)
	}
	if !r.SocketMode() {
		t.Error("SocketMode reports false with an app token")
	}
	var sock *slacktest.Socket
	select {
	case sock = <-fake.Sockets:
	case <-time.After(socketWait):
		t.Fatal("the responder did not connect to Socket Mode")
	}
	o := &askuser.Orchestrator{Responder: r}
	defer o.Close()
	out := make(chan *askuser.Outcome, 1)
	go func() {
		res, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(deployCall)})
		if err != nil {
			t.Errorf("Handle: %v", err)
		}
		out <- res
	}()
	var posted slacktest.Call
	select {
	case posted = <-fake.Posted:
	case <-time.After(socketWait):
		t.Fatal("nothing posted")
	}
	pick := slacktest.Buttons(posted)[actionPick]
	if len(pick) != 2 {
		t.Fatalf("buttons %v", slacktest.Buttons(posted))
	}
	if _, err := sock.Interact(slacktest.Click(slacktest.Team, "U666", actionPick, pick[1]), socketWait); err != nil {
		t.Fatal(err)
	}
	// The stranger is told, and nothing changes.
	for deadline := time.Now().Add(socketWait); len(fake.Ephemerals()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stranger was not told the ask isn't theirs")
		}
	}
	id, _, _ := strings.Cut(pick[1], sep)
	ack, err := sock.Interact(slacktest.Submission(slacktest.Team, "U1", viewConfirm, id+sep+approval.ApproveOnce, map[string]map[string]any{"code": {"v": map[string]any{"type": "plain_text_input", "value": "XXXX"}}}), socketWait)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ack), `"response_action":"errors"`) {
		t.Errorf("a wrong code's acknowledgement %s; want the modal's errors", ack)
	}
	select {
	case o := <-out:
		t.Fatalf("the ask ended before an allowed click: %+v", o)
	default:
	}
	if _, err := sock.Interact(slacktest.Click(slacktest.Team, "U1", actionPick, pick[1]), socketWait); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-out:
		if o.AnsweredBy != askuser.ByUser || o.Principal != "slack:T1/U1" || o.Answers[0].Selected[0] != "production" {
			t.Errorf("outcome %+v; want production by slack:T1/U1", o)
		}
	case <-time.After(socketWait):
		t.Fatal("the click over Socket Mode did not answer")
	}
	select {
	case up := <-fake.Updated:
		if strings.Contains(up.Form.Get("blocks"), `"actions"`) {
			t.Errorf("the edited message keeps its buttons: %s", up.Form.Get("blocks"))
		}
	case <-time.After(socketWait):
		t.Fatal("the message was not edited")
	}
	if eph := fake.Ephemerals(); len(eph) != 1 || !strings.HasPrefix(eph[0], "U666: This ask isn't yours") {
		t.Errorf("ephemerals %q; want the stranger told", eph)
	}
}
