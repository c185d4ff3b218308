//go:build linux

package fleettest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// requestWait bounds a request that does not long-poll.
const requestWait = 30 * time.Second

// A client drives the fleet as an agent (the API, with the bearer token)
// and as a person (the card, with a session's cookie, which the caller
// keeps: one cookie jar over thousands of sessions would send every
// cookie with every request, since the card's cookies are set on /).
type client struct {
	hc    *http.Client
	token string
}

func newClient(t *testing.T, token string) *client {
	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &client{token: token, hc: &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// A reply is a response's status code and body.
type reply struct {
	code int
	body string
}

func (r reply) String() string { return fmt.Sprintf("%d %s", r.code, strings.TrimSpace(r.body)) }

func readBody(res *http.Response) (string, error) {
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// send sends a request, bounded by wait, and reads the whole reply. An
// error is a request that got no reply: connection refused while a
// replica is down, or one that broke when it died.
func (c *client) send(ctx context.Context, wait time.Duration, req *http.Request, setup func(*http.Response)) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res, err := c.hc.Do(req.WithContext(ctx))
	if err != nil {
		return reply{}, err
	}
	if setup != nil {
		setup(res)
	}
	body, err := readBody(res)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: reading the body: %w", req.Method, req.URL, err)
	}
	return reply{res.StatusCode, body}, nil
}

// agent sends an agent-API request with the bearer token.
func (c *client) agent(ctx context.Context, wait time.Duration, method, url, body string, async bool) (reply, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if async {
		req.Header.Set("Prefer", "respond-async")
	}
	return c.send(ctx, wait, req, nil)
}

// asyncJSON is the 202 of an async call, and of a status request while
// the ask is pending.
type asyncJSON struct {
	Status    string `json:"status"`
	AskID     string `json:"ask_id"`
	CardURL   string `json:"card_url"`
	StatusURL string `json:"status_url"`
}

// decodeJSON reports whether s decodes into v.
func decodeJSON(s string, v any) bool { return json.Unmarshal([]byte(s), v) == nil }

// post posts a call with Prefer: respond-async. A reply other than 202
// with an ask id is an error that carries the reply.
func (c *client) post(ctx context.Context, base, session, toolCall, args string) (asyncJSON, error) {
	body, _ := json.Marshal(map[string]any{"session": session, "tool_call_id": toolCall, "arguments": json.RawMessage(args)})
	r, err := c.agent(ctx, requestWait, "POST", base+"/v1/calls", string(body), true)
	if err != nil {
		return asyncJSON{}, err
	}
	var a asyncJSON
	if r.code != http.StatusAccepted || json.Unmarshal([]byte(r.body), &a) != nil || a.AskID == "" {
		return asyncJSON{}, fmt.Errorf("POST %s/v1/calls: %v; want 202 with an ask_id", base, r)
	}
	return a, nil
}

// status reads a call's status on base, long-polling up to wait seconds.
func (c *client) status(ctx context.Context, base, session, toolCall string, wait int) (reply, error) {
	u := fmt.Sprintf("%s/v1/sessions/%s/calls/%s?wait=%d", base, url.PathEscape(session), url.PathEscape(toolCall), wait)
	return c.agent(ctx, time.Duration(wait)*time.Second+requestWait, "GET", u, "", false)
}

// supersede supersedes a session's pending asks on base and returns how
// many it ended.
func (c *client) supersede(ctx context.Context, base, session string) (int, error) {
	r, err := c.agent(ctx, requestWait, "POST", base+"/v1/sessions/"+url.PathEscape(session)+"/supersede", "", false)
	if err != nil {
		return 0, err
	}
	var s struct {
		Superseded *int `json:"superseded"`
	}
	if r.code != 200 || json.Unmarshal([]byte(r.body), &s) != nil || s.Superseded == nil {
		return 0, fmt.Errorf("supersede on %s: %v; want 200 with superseded", base, r)
	}
	return *s.Superseded, nil
}

// openCard opens a card URL on base (the URL may name another replica:
// the session's token is the same on every one) and returns the cookie it
// sets, as a browser keeps it.
func (c *client) openCard(ctx context.Context, base, cardURL string) (*http.Cookie, error) {
	u, err := url.Parse(cardURL)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest("GET", base+u.RequestURI(), nil)
	if err != nil {
		return nil, err
	}
	var cookies []*http.Cookie
	r, err := c.send(ctx, requestWait, req, func(res *http.Response) { cookies = res.Cookies() })
	if err != nil {
		return nil, err
	}
	if r.code != http.StatusSeeOther || len(cookies) != 1 {
		return nil, fmt.Errorf("opening the card on %s: %v with %d cookies; want 303 setting the session's cookie", base, r, len(cookies))
	}
	return cookies[0], nil
}

// card sends a card request with the session's cookie (and, for a
// change, its CSRF token).
func (c *client) card(ctx context.Context, method, url string, ck *http.Cookie, csrf, body string) (reply, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.AddCookie(ck)
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
		req.Header.Set("Content-Type", "application/json")
	}
	return c.send(ctx, requestWait, req, nil)
}

// listing is the card's GET /api/sessions/{session}/asks.
type listing struct {
	CSRFToken string `json:"csrf_token"`
	Asks      []struct {
		ID         string `json:"id"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"asks"`
}

// has reports whether the listing shows the ask.
func (l listing) has(askID string) bool {
	for _, a := range l.Asks {
		if a.ID == askID {
			return true
		}
	}
	return false
}

// list reads a session's pending asks on base's card.
func (c *client) list(ctx context.Context, base, session string, ck *http.Cookie) (listing, error) {
	r, err := c.card(ctx, "GET", base+"/api/sessions/"+url.PathEscape(session)+"/asks", ck, "", "")
	if err != nil {
		return listing{}, err
	}
	var l listing
	if r.code != 200 || json.Unmarshal([]byte(r.body), &l) != nil || l.CSRFToken == "" {
		return listing{}, fmt.Errorf("the card's listing on %s: %v", base, r)
	}
	return l, nil
}

// waitListed polls base's card until it lists the ask (another replica's
// ask reaches this one through its watch of the store).
func (c *client) waitListed(ctx context.Context, base, session, askID string, ck *http.Cookie) (listing, error) {
	for {
		l, err := c.list(ctx, base, session, ck)
		if err != nil || l.has(askID) {
			return l, err
		}
		select {
		case <-ctx.Done():
			return l, fmt.Errorf("the card on %s did not list ask %s of session %s: %w", base, askID, session, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// submit posts answers to an ask on base's card.
func (c *client) submit(ctx context.Context, base, askID, csrf string, ck *http.Cookie, answers string) (reply, error) {
	return c.card(ctx, "POST", base+"/api/asks/"+url.PathEscape(askID)+"/submit", ck, csrf, answers)
}
