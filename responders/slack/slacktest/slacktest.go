// Package slacktest is a fake of Slack for tests of programs that use the
// askuser Slack responder: the Web API methods the responder calls, served
// on loopback by an httptest server, Socket Mode's websocket, and signed
// interaction requests as Slack sends them. Nothing in it talks to Slack.
package slacktest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// The credentials the fake takes; any other token is refused with
// invalid_auth.
const (
	BotToken      = "xoxb-test"
	AppToken      = "xapp-test"
	SigningSecret = "8f742231b10e8888abcd99yyyzzz85a5"
	Team          = "T1"
)

// A Call is one Web API request the fake answered.
type Call struct {
	Method string
	Form   url.Values     // form-encoded calls
	JSON   map[string]any // JSON calls (views.open)
}

// A Fake is Slack's Web API as far as the askuser responder uses it
// (auth.test, conversations.info, usergroups.users.list, chat.postMessage,
// chat.update, chat.postEphemeral, views.open, apps.connections.open), and
// Socket Mode's websocket. Every chat.postMessage, chat.update and
// views.open is also sent on Posted, Updated and Opened, which hold 1024
// each.
type Fake struct {
	// Posted, Updated and Opened receive every chat.postMessage,
	// chat.update and views.open call.
	Posted, Updated, Opened chan Call
	// Sockets receives each Socket Mode connection, once its hello is sent.
	Sockets chan *Socket

	srv *httptest.Server

	mu       sync.Mutex
	calls    []Call
	fail     map[string]string
	channels map[string]bool
	members  []string
	nextTS   int
}

// New starts a fake on loopback, with the channel C1; Close stops it.
func New() *Fake {
	f := NewHandler()
	f.srv = httptest.NewServer(f)
	return f
}

// NewHandler returns a fake that listens nowhere: its ServeHTTP is the Web
// API, for a client whose transport hands it requests in process (a test
// in a synctest bubble, where no listener may run). Its APIURL is
// http://slack.test/api/; Socket Mode needs New.
func NewHandler() *Fake {
	return &Fake{
		Posted: make(chan Call, 1024), Updated: make(chan Call, 1024), Opened: make(chan Call, 1024),
		Sockets: make(chan *Socket, 16), fail: map[string]string{}, channels: map[string]bool{"C1": true},
	}
}

// APIURL is the fake's Web API URL, for the responder's Options.APIURL.
func (f *Fake) APIURL() string {
	if f.srv == nil {
		return "http://slack.test/api/"
	}
	return f.srv.URL + "/api/"
}

// Close stops the fake and closes its connections.
func (f *Fake) Close() {
	if f.srv == nil {
		return
	}
	f.srv.CloseClientConnections()
	f.srv.Close()
}

// Fail makes method answer with the Slack error e ("" to stop).
func (f *Fake) Fail(method, e string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e == "" {
		delete(f.fail, method)
		return
	}
	f.fail[method] = e
}

// SetMembers sets the members usergroups.users.list answers.
func (f *Fake) SetMembers(users ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.members = users
}

// Methods lists the methods called so far, in order.
func (f *Fake) Methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Method)
	}
	return out
}

// Ephemerals are the ephemeral messages posted so far, as "USER: text".
func (f *Fake) Ephemerals() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if c.Method == "chat.postEphemeral" {
			out = append(out, c.Form.Get("user")+": "+c.Form.Get("text"))
		}
	}
	return out
}

// ServeHTTP serves the Web API under /api/ and Socket Mode at /socket.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/socket" {
		f.socket(w, r)
		return
	}
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	c := Call{Method: method}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(body, &c.JSON)
	} else {
		c.Form, _ = url.ParseQuery(string(body))
	}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" && c.Form != nil {
		token = c.Form.Get("token")
	}
	want := BotToken
	if method == "apps.connections.open" {
		want = AppToken
	}
	if token != want {
		f.answer(w, c, `{"ok":false,"error":"invalid_auth"}`)
		return
	}
	f.mu.Lock()
	e, failing := f.fail[method]
	f.nextTS++
	ts := fmt.Sprintf("1700000000.%06d", f.nextTS)
	members := f.members
	known := f.channels[c.Form.Get("channel")]
	f.mu.Unlock()
	if failing {
		f.answer(w, c, `{"ok":false,"error":"`+e+`"}`)
		return
	}
	switch method {
	case "auth.test":
		f.answer(w, c, `{"ok":true,"team_id":"`+Team+`","user_id":"UBOT","team":"Test"}`)
	case "conversations.info":
		if !known {
			f.answer(w, c, `{"ok":false,"error":"channel_not_found"}`)
			return
		}
		f.answer(w, c, `{"ok":true,"channel":{"id":"`+c.Form.Get("channel")+`"}}`)
	case "usergroups.users.list":
		b, _ := json.Marshal(members)
		f.answer(w, c, `{"ok":true,"users":`+string(b)+`}`)
	case "chat.postMessage":
		f.answer(w, c, `{"ok":true,"channel":"`+c.Form.Get("channel")+`","ts":"`+ts+`"}`)
		f.Posted <- c
	case "chat.update":
		f.answer(w, c, `{"ok":true,"channel":"`+c.Form.Get("channel")+`","ts":"`+c.Form.Get("ts")+`"}`)
		f.Updated <- c
	case "chat.postEphemeral":
		f.answer(w, c, `{"ok":true,"message_ts":"`+ts+`"}`)
	case "views.open":
		f.answer(w, c, `{"ok":true,"view":{"id":"V1"}}`)
		f.Opened <- c
	case "apps.connections.open":
		f.answer(w, c, `{"ok":true,"url":"ws://`+r.Host+`/socket"}`)
	default:
		f.answer(w, c, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *Fake) answer(w http.ResponseWriter, c Call, body string) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// A Socket is one Socket Mode connection to the fake.
type Socket struct {
	conn *websocket.Conn
	mu   sync.Mutex
	n    int
	acks chan json.RawMessage
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (f *Fake) socket(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s := &Socket{conn: conn, acks: make(chan json.RawMessage, 64)}
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","num_connections":1,"connection_info":{"app_id":"A1"}}`)); err != nil {
		conn.Close()
		return
	}
	f.Sockets <- s
	defer conn.Close()
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			close(s.acks)
			return
		}
		s.acks <- msg
	}
}

// Interact sends an interaction payload (as Click or Submission make) as
// Slack's "interactive" envelope, and returns the client's
// acknowledgement: {"envelope_id": …, "payload": …}. It fails when the
// connection ends or no acknowledgement comes within wait.
func (s *Socket) Interact(payload any, wait time.Duration) (json.RawMessage, error) {
	p, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.n++
	id := "env-" + strconv.Itoa(s.n)
	env, _ := json.Marshal(map[string]any{"envelope_id": id, "type": "interactive", "payload": json.RawMessage(p), "accepts_response_payload": true})
	err = s.conn.WriteMessage(websocket.TextMessage, env)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case a, ok := <-s.acks:
			if !ok {
				return nil, fmt.Errorf("the Socket Mode connection ended before %s was acknowledged", id)
			}
			var got struct {
				EnvelopeID string `json:"envelope_id"`
			}
			if json.Unmarshal(a, &got) == nil && got.EnvelopeID == id {
				return a, nil
			}
		case <-t.C:
			return nil, fmt.Errorf("no acknowledgement of %s within %v", id, wait)
		}
	}
}

// Close ends the connection, as Slack does when it moves a client.
func (s *Socket) Close() error { return s.conn.Close() }

// Signed is an interaction request to url as Slack sends it: the payload
// form-encoded, signed with secret at t.
func Signed(url string, payload any, t time.Time, secret string) *http.Request {
	p, _ := json.Marshal(payload)
	body := "payload=" + urlEscape(string(p))
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + ts + ":" + body))
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(m.Sum(nil)))
	return req
}

func urlEscape(s string) string { return url.QueryEscape(s) }

// Click is a block_actions payload: user of team clicked the button
// actionID whose value is value, in channel C1.
func Click(team, user, actionID, value string) map[string]any {
	return map[string]any{
		"type":       "block_actions",
		"team":       map[string]any{"id": team},
		"user":       map[string]any{"id": user, "team_id": team},
		"channel":    map[string]any{"id": "C1"},
		"trigger_id": "trig-" + user,
		"actions":    []any{map[string]any{"action_id": actionID, "block_id": "a0", "value": value, "type": "button"}},
	}
}

// Submission is a view_submission payload of the modal callbackID with
// its private metadata and state values.
func Submission(team, user, callbackID, metadata string, values map[string]map[string]any) map[string]any {
	return map[string]any{
		"type": "view_submission",
		"team": map[string]any{"id": team},
		"user": map[string]any{"id": user, "team_id": team},
		"view": map[string]any{"callback_id": callbackID, "private_metadata": metadata, "state": map[string]any{"values": values}},
	}
}

// Buttons are the values of the buttons of a posted message, by action id
// (the responder's: "askuser_pick", "askuser_approve", "askuser_modal",
// "askuser_other", …), in order.
func Buttons(posted Call) map[string][]string {
	var blocks []map[string]any
	_ = json.Unmarshal([]byte(posted.Form.Get("blocks")), &blocks)
	out := map[string][]string{}
	for _, b := range blocks {
		els, _ := b["elements"].([]any)
		if b["type"] != "actions" {
			continue
		}
		for _, e := range els {
			m, _ := e.(map[string]any)
			id, _ := m["action_id"].(string)
			v, _ := m["value"].(string)
			out[id] = append(out[id], v)
		}
	}
	return out
}
