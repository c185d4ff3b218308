package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/responders/slack/slacktest"
)

const slackChoice = `{"questions":[{"id":"env","header":"Env","question":"Which environment first?","options":[{"label":"staging","description":"Smoke tests first"},{"label":"production","description":"Straight to users"}]}],"timeout_seconds":300}`

// slackArgs are the --slack-* flags for the fake, with the token files in
// dir.
func slackArgs(t *testing.T, fake *slacktest.Fake, dir string, extra ...string) []string {
	t.Helper()
	return append([]string{
		"--slack-bot-token-file", writeSecretFile(t, dir, "slack-bot-token", slacktest.BotToken),
		"--slack-signing-secret-file", writeSecretFile(t, dir, "slack-signing-secret", slacktest.SigningSecret),
		"--slack-channel", "C1", "--slack-allowed-users", "U1", "--slack-api-url", fake.APIURL(),
	}, extra...)
}

func nextCall(t *testing.T, c <-chan slacktest.Call, what string) slacktest.Call {
	t.Helper()
	select {
	case got := <-c:
		return got
	case <-time.After(serveWait):
		t.Fatalf("no %s within %v", what, serveWait)
		return slacktest.Call{}
	}
}

// send posts a signed interaction to the endpoint at url.
func send(t *testing.T, url string, payload any, secret string) int {
	t.Helper()
	return sendOr(t, url, payload, secret, func() string { return "" })
}

// sendOr is send, saying what output says when the request fails.
func sendOr(t *testing.T, url string, payload any, secret string, output func() string) int {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(slacktest.Signed(url, payload, time.Now(), secret))
	if err != nil {
		t.Fatalf("%v; the command said:\n%s", err, output())
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeSlack: askuser serve with the --slack-* flags posts an ask to
// the channel, serves POST /slack/interactivity (bad signatures 401, a
// stranger's click changes nothing, an allowed user's click answers), takes
// request_approval on POST /v1/calls, and edits the message of an ask
// answered on the card.
func TestServeSlack(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	f := newServeFixture(t, slackArgs(t, fake, dir)...)
	base := f.srv.base
	a := newAgentClient(t, f.token)
	endpoint := base + "/slack/interactivity"

	// An approval, answered in Slack.
	r := a.do("POST", base+"/v1/calls", callBody("s", "c1", "request_approval", `{"action":"Deploy v2 to production","reason":"release","risk":"medium"}`), map[string]string{"Prefer": "respond-async"})
	if r.code != http.StatusAccepted {
		t.Fatalf("request_approval: %d %s; want 202 (Slack's allowed users take approvals)", r.code, r.body)
	}
	posted := nextCall(t, fake.Posted, "chat.postMessage")
	approve := slacktest.Buttons(posted)["askuser_approve"]
	if len(approve) == 0 || !strings.Contains(posted.Form.Get("blocks"), "Deploy v2 to production") {
		t.Fatalf("the approval's message %s; want the action and its buttons", posted.Form.Get("blocks"))
	}
	click := slacktest.Click(slacktest.Team, "U1", "askuser_approve", approve[0])
	if code := send(t, endpoint, click, "not the secret"); code != http.StatusUnauthorized {
		t.Errorf("a bad signature: %d; want 401", code)
	}
	if code := send(t, endpoint, slacktest.Click(slacktest.Team, "U666", "askuser_approve", approve[0]), slacktest.SigningSecret); code != http.StatusOK {
		t.Errorf("a stranger's click: %d", code)
	}
	if s := a.status(base, "s", "c1", ""); s.code != http.StatusAccepted {
		t.Fatalf("after a stranger's click the approval is %d %s; want still pending", s.code, s.body)
	}
	if code := send(t, endpoint, click, slacktest.SigningSecret); code != http.StatusOK {
		t.Fatalf("the click: %d", code)
	}
	s := a.status(base, "s", "c1", "?wait=30")
	if s.code != http.StatusOK || !strings.Contains(s.body, `"approved"`) {
		t.Fatalf("the approval after the click: %d %s; want approved", s.code, s.body)
	}
	up := nextCall(t, fake.Updated, "chat.update")
	if up.Form.Get("ts") != posted.Form.Get("ts") && up.Form.Get("ts") == "" || !strings.Contains(up.Form.Get("blocks"), "U1") {
		t.Errorf("the edited message %v; want who decided", up.Form)
	}

	// A question, answered on the card: the Slack message is edited.
	j := a.callAsync(base, "s", "c2", slackChoice)
	nextCall(t, fake.Posted, "chat.postMessage")
	a.answerOn(base, j.CardURL, "s", "c2", `{"answers":{"env":{"selected":["production"]}}}`)
	up = nextCall(t, fake.Updated, "chat.update")
	if strings.Contains(up.Form.Get("blocks"), `"actions"`) || !strings.Contains(up.Form.Get("blocks"), "production") {
		t.Errorf("the message of the ask answered on the card %s; want the answer and no buttons", up.Form.Get("blocks"))
	}
}

// TestServeSlackMisconfigured: a token auth.test refuses and an unknown
// channel stop serve at start, saying what to fix.
func TestServeSlackMisconfigured(t *testing.T) {
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, want string
		args       []string
	}{
		{"bad token", "auth.test refused the bot token: invalid_auth", []string{"--slack-bot-token-file", writeSecretFile(t, dir, "wrong", "xoxb-wrong")}},
		{"unknown channel", "channel C999: channel_not_found", []string{"--slack-channel", "C999"}},
		{"nobody allowed", "say who may answer in Slack", []string{"--slack-allowed-users", ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--state", filepath.Join(t.TempDir(), "state"), "--nats-listen", "127.0.0.1:0"}, slackArgs(t, fake, dir, tt.args...)...)
			var stderr syncBuffer
			code := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr)
			if code == exitOK || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("serve exited %d: %s; want a failure saying %q", code, stderr.String(), tt.want)
			}
			if strings.Contains(stderr.String(), "xoxb-") {
				t.Errorf("the token is in the output: %s", stderr.String())
			}
		})
	}
}

var interactivityLine = regexp.MustCompile(`serving POST (http://\S+/slack/interactivity)`)

// TestAskSlack: askuser ask --responder slack posts the ask, serves the
// interactivity endpoint on --listen, prints the answer a click gave, and
// edits the message before it exits.
func TestAskSlack(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(context.Background(), append([]string{"ask", "--responder", "slack", "--listen", "127.0.0.1:0"}, slackArgs(t, fake, dir)...), strings.NewReader(slackChoice), &stdout, &stderr)
	}()
	posted := nextCall(t, fake.Posted, "chat.postMessage")
	m := interactivityLine.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("ask does not say where it serves the endpoint: %s", stderr.String())
	}
	pick := slacktest.Buttons(posted)["askuser_pick"]
	if len(pick) != 2 {
		t.Fatalf("buttons %v; want one per option", slacktest.Buttons(posted))
	}
	if c := sendOr(t, m[1], slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[1]), slacktest.SigningSecret, func() string { return stdout.String() + stderr.String() }); c != http.StatusOK {
		t.Fatalf("the click: %d", c)
	}
	select {
	case c := <-code:
		if c != exitOK || !strings.Contains(stdout.String(), "production") {
			t.Errorf("ask exited %d with %s (stderr %s); want production", c, stdout.String(), stderr.String())
		}
		// The message was edited before ask exited: its buttons are gone.
		select {
		case up := <-fake.Updated:
			if strings.Contains(up.Form.Get("blocks"), `"actions"`) {
				t.Errorf("the edited message keeps its buttons: %s", up.Form.Get("blocks"))
			}
		default:
			t.Error("ask exited without editing the message: its buttons stay live")
		}
	case <-time.After(serveWait):
		t.Fatal("ask did not end after the click")
	}
}

// TestChatFlagRefusals: flags that do not go together are refused before
// anything starts.
func TestChatFlagRefusals(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "--responder", "email", "--smtp", "127.0.0.1:25", "--smtp-from", "a@example.test", "--email-to", "b@example.test"}, "--responder email takes no approvals"},
		{[]string{"ask", "--responder", "stdio", "--slack-channel", "C1"}, "the --slack-* flags configure --responder slack"},
		{[]string{"ask", "--responder", "slack", "--slack-bot-token-file", "x", "--slack-signing-secret-file", "y", "--slack-channel", "C1", "--slack-allowed-users", "U1", "--slack-allowed-usergroup", "S1"}, "not both"},
		{[]string{"ask", "--responder", "email", "--smtp", "nohostport", "--smtp-from", "a@example.test", "--email-to", "b@example.test"}, "is not HOST:PORT"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--public-url", "askuser.example"}, "--public-url"},
	} {
		var stderr syncBuffer
		code := run(context.Background(), tt.args, strings.NewReader(slackChoice), io.Discard, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, %s; want 2 saying %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// mailbox is an SMTP server on loopback that keeps the mails it receives.
type mailbox struct {
	addr string
	got  chan []byte
}

type mailSession struct{ m *mailbox }

func (s mailSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s mailSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err == nil {
		s.m.got <- b
	}
	return err
}
func (mailSession) Reset()        {}
func (mailSession) Logout() error { return nil }

func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	m := &mailbox{got: make(chan []byte, 16)}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return mailSession{m}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = ln.Addr().String()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return m
}

// textPart is a mail's plain-text part.
func textPart(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("the mail has no text/plain part: %v", err)
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/plain") {
			b, _ := io.ReadAll(quotedprintable.NewReader(p))
			return string(b)
		}
	}
}

var emailLink = regexp.MustCompile(`/email/l/[A-Za-z0-9_.-]+`)

// TestServeEmail: askuser serve with --smtp mails an ask; following a
// link with GET only (as a mail scanner does) decides nothing; the POST of
// its confirm page answers; the used link then changes nothing.
func TestServeEmail(t *testing.T) {
	mb := newMailbox(t)
	f := newServeFixture(t, "--smtp", mb.addr, "--smtp-from", "askuser@example.test", "--email-to", "oncall@example.test")
	base := f.srv.base
	a := newAgentClient(t, f.token)
	a.callAsync(base, "s", "c1", slackChoice)
	var raw []byte
	select {
	case raw = <-mb.got:
	case <-time.After(serveWait):
		t.Fatal("no mail arrived")
	}
	links := emailLink.FindAllString(textPart(t, raw), -1)
	if len(links) != 2 {
		t.Fatalf("links %q; want one per option", links)
	}
	prod := base + links[1]
	get := a.do("GET", prod, "", map[string]string{"Authorization": ""})
	if get.code != http.StatusOK || !strings.Contains(get.body, "production") || !strings.Contains(get.body, `method="post"`) {
		t.Fatalf("GET of the link: %d %s; want the confirm page", get.code, get.body)
	}
	if s := a.status(base, "s", "c1", ""); s.code != http.StatusAccepted {
		t.Fatalf("after a GET the ask is %d %s; want still pending", s.code, s.body)
	}
	post := a.do("POST", prod, "", map[string]string{"Authorization": ""})
	if post.code != http.StatusOK {
		t.Fatalf("POST of the link: %d %s", post.code, post.body)
	}
	s := a.status(base, "s", "c1", "?wait=30")
	var res map[string]any
	if s.code != http.StatusOK || json.Unmarshal([]byte(s.body), &res) != nil || !strings.Contains(s.body, "production") {
		t.Fatalf("the result: %d %s; want production", s.code, s.body)
	}
	if again := a.do("POST", prod, "", map[string]string{"Authorization": ""}); again.code == http.StatusOK {
		t.Errorf("a used link answered again: %d %s", again.code, again.body)
	}
}

// TestServeEmailUnreachable: a mail server that cannot be reached stops
// serve at start.
func TestServeEmailUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var stderr syncBuffer
	code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--state", filepath.Join(t.TempDir(), "state"), "--nats-listen", "127.0.0.1:0",
		"--smtp", addr, "--smtp-from", "askuser@example.test", "--email-to", "oncall@example.test"}, strings.NewReader(""), io.Discard, &stderr)
	if code == exitOK || !strings.Contains(stderr.String(), "connecting to the SMTP server") {
		t.Errorf("serve exited %d: %s; want it to say the SMTP server cannot be reached", code, stderr.String())
	}
}

// TestAskSlackSocketMode: with --slack-app-token-file, askuser ask takes
// the click over Socket Mode (the fake's websocket on loopback), with no
// endpoint served and no signing secret.
func TestAskSlackSocketMode(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	fake := slacktest.New()
	defer fake.Close()
	dir := t.TempDir()
	args := []string{"ask", "--responder", "slack",
		"--slack-bot-token-file", writeSecretFile(t, dir, "slack-bot-token", slacktest.BotToken),
		"--slack-app-token-file", writeSecretFile(t, dir, "slack-app-token", slacktest.AppToken),
		"--slack-channel", "C1", "--slack-allowed-users", "U1", "--slack-api-url", fake.APIURL()}
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), args, strings.NewReader(slackChoice), &stdout, &stderr) }()
	var sock *slacktest.Socket
	select {
	case sock = <-fake.Sockets:
	case <-time.After(serveWait):
		t.Fatalf("ask did not connect to Socket Mode: %s", stderr.String())
	}
	posted := nextCall(t, fake.Posted, "chat.postMessage")
	if strings.Contains(stderr.String(), "/slack/interactivity") {
		t.Errorf("ask says it serves the endpoint in Socket Mode: %s", stderr.String())
	}
	pick := slacktest.Buttons(posted)["askuser_pick"]
	if _, err := sock.Interact(slacktest.Click(slacktest.Team, "U1", "askuser_pick", pick[0]), serveWait); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != exitOK || !strings.Contains(stdout.String(), "staging") {
			t.Errorf("ask exited %d with %s (stderr %s); want staging", c, stdout.String(), stderr.String())
		}
	case <-time.After(serveWait):
		t.Fatal("ask did not end after the click")
	}
}
