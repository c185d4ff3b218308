package slack

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
)

// fakeSlack is Slack's Web API as far as the responder uses it, served in
// process (no network, so that tests run in a synctest bubble). It records
// every call.
type fakeSlack struct {
	mu      sync.Mutex
	calls   []apiCall
	fail    map[string]string // method → Slack error it answers
	members []string          // the user group's
	nextTS  int
	posted  chan apiCall // every chat.postMessage
	updated chan apiCall // every chat.update
	opened  chan apiCall // every views.open
}

type apiCall struct {
	Method string
	Form   url.Values     // form-encoded calls
	JSON   map[string]any // JSON calls (views.open)
}

func newFakeSlack() *fakeSlack {
	return &fakeSlack{fail: map[string]string{}, posted: make(chan apiCall, 64), updated: make(chan apiCall, 64), opened: make(chan apiCall, 64)}
}

func (f *fakeSlack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	c := apiCall{Method: method}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(body, &c.JSON)
	} else {
		c.Form, _ = url.ParseQuery(string(body))
	}
	if r.Header.Get("Authorization") != "Bearer xoxb-test" && (c.Form == nil || c.Form.Get("token") != "xoxb-test") {
		f.answer(w, c, `{"ok":false,"error":"invalid_auth"}`)
		return
	}
	f.mu.Lock()
	e, failing := f.fail[method]
	f.nextTS++
	ts := fmt.Sprintf("1700000000.%06d", f.nextTS)
	members := f.members
	f.mu.Unlock()
	if failing {
		f.answer(w, c, `{"ok":false,"error":"`+e+`"}`)
		return
	}
	switch method {
	case "auth.test":
		f.answer(w, c, `{"ok":true,"team_id":"T1","user_id":"UBOT","team":"Test"}`)
	case "conversations.info":
		f.answer(w, c, `{"ok":true,"channel":{"id":"`+c.Form.Get("channel")+`"}}`)
	case "usergroups.users.list":
		b, _ := json.Marshal(members)
		f.answer(w, c, `{"ok":true,"users":`+string(b)+`}`)
	case "chat.postMessage":
		f.answer(w, c, `{"ok":true,"channel":"`+c.Form.Get("channel")+`","ts":"`+ts+`"}`)
		f.posted <- c
	case "chat.update":
		f.answer(w, c, `{"ok":true,"channel":"`+c.Form.Get("channel")+`","ts":"`+c.Form.Get("ts")+`"}`)
		f.updated <- c
	case "chat.postEphemeral":
		f.answer(w, c, `{"ok":true,"message_ts":"`+ts+`"}`)
	case "views.open":
		f.answer(w, c, `{"ok":true,"view":{"id":"V1"}}`)
		f.opened <- c
	default:
		f.answer(w, c, `{"ok":false,"error":"unknown_method"}`)
	}
}

func (f *fakeSlack) answer(w http.ResponseWriter, c apiCall, body string) {
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// methods lists the methods called so far, in order.
func (f *fakeSlack) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Method)
	}
	return out
}

// ephemerals are the texts of the ephemeral messages posted, by user.
func (f *fakeSlack) ephemerals() []string {
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

// inproc is an HTTP client that hands every request to a handler in this
// process.
type inproc struct{ h http.Handler }

func (c inproc) Do(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// signed is an interaction request as Slack sends it, signed at t.
func signed(payload any, t time.Time, secret string) *http.Request {
	p, _ := json.Marshal(payload)
	body := "payload=" + url.QueryEscape(string(p))
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + ts + ":" + body))
	req := httptest.NewRequest(http.MethodPost, "/slack/interactivity", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(m.Sum(nil)))
	return req
}

// click is a block_actions payload: user U of team T clicked a button.
func click(team, user, actionID, value string) map[string]any {
	return map[string]any{
		"type":       "block_actions",
		"team":       map[string]any{"id": team},
		"user":       map[string]any{"id": user, "team_id": team},
		"channel":    map[string]any{"id": "C1"},
		"trigger_id": "trig-" + user,
		"actions":    []any{map[string]any{"action_id": actionID, "block_id": "a0", "value": value, "type": "button"}},
	}
}

// submission is a view_submission payload with the given state values.
func submission(team, user, callbackID, metadata string, values map[string]map[string]any) map[string]any {
	return map[string]any{
		"type": "view_submission",
		"team": map[string]any{"id": team},
		"user": map[string]any{"id": user, "team_id": team},
		"view": map[string]any{"callback_id": callbackID, "private_metadata": metadata, "state": map[string]any{"values": values}},
	}
}
