package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/internal/inert"
)

// Bounds of the client side.
const (
	// clientHeaderTimeout is how long a response's header may take: a
	// status request waits up to maxStatusWait for the ask.
	clientHeaderTimeout = maxStatusWait + 30*time.Second
	// maxResponseBytes caps what is read of a response.
	maxResponseBytes = 1 << 20
	// clientRetries is how many failed status requests in a row end a
	// wait (a replica restarting answers 503 or not at all for a while).
	clientRetries = 10
)

// ErrInvalidCall is matched (errors.Is) by the *Error of a call the
// service refused as invalid (400): give the model the Error's Result
// where it has one, else its Message, so that it can fix its call.
var ErrInvalidCall = errors.New("serve: the call is invalid")

// ErrSecretsNotServed is the error of Client.Secret from a service that
// does not serve secrets to the agent's token (Config.Secrets is not set;
// askuser serve without --secrets-api): resolve them from the store with
// the key ring instead.
var ErrSecretsNotServed = errors.New("serve: the service does not serve secrets to the agent's bearer token (its Config.Secrets is not set): resolve them from the store with the key ring instead")

// An Error is the service's refusal of a request: its HTTP status, what it
// said, and for an invalid call the contract's tool result.
type Error struct {
	// StatusCode is the HTTP status of the response (400, 401, 404, 503…).
	StatusCode int
	// Message is what the service said is wrong and what to do: the
	// "error" of its JSON body, or the body itself when it is not one (a
	// proxy's page). For an invalid call it is the model-facing message.
	Message string
	// Result is the contract's tool result for an invalid call, for the
	// contracts that have one (pi, pi-ask); nil otherwise.
	Result json.RawMessage

	call bool // a 400 refusal of a call, in the service's own JSON
}

// Error returns the status and the message ("401 Unauthorized: the bearer
// token is missing or wrong: …"), with every control character in the
// message escaped, so that it is safe to print on a terminal.
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), inert.Line(e.Message))
}

// Is reports whether e is the service's refusal of an invalid call, for
// errors.Is(err, ErrInvalidCall).
func (e *Error) Is(target error) bool { return target == ErrInvalidCall && e.call }

// refusalError reads a response that is not the one asked for.
func refusalError(code int, body []byte) *Error {
	var ej errorJSON
	if json.Unmarshal(body, &ej) == nil && ej.Error != "" {
		return &Error{StatusCode: code, Message: ej.Error, Result: ej.Result, call: code == http.StatusBadRequest}
	}
	return &Error{StatusCode: code, Message: strings.TrimSpace(string(body))}
}

// A Call is one tool call for the agent API, as the model sent it.
type Call struct {
	// Session owns the ask and its secrets.
	Session string `json:"session"`
	// ToolCallID is the model's tool-call id: the same call sent again
	// joins its ask, or replays its result, by session and tool-call id.
	ToolCallID string `json:"tool_call_id"`
	// Dialect is the contract of Arguments and of the result: "ask_user"
	// (or empty), "pi-ask" or "pi".
	Dialect string `json:"dialect,omitempty"`
	// Arguments are the tool call's arguments, the JSON object the model
	// sent.
	Arguments json.RawMessage `json:"arguments"`
}

// A Status is what the service says of a call: its tool result once the
// ask is final, and while it is pending where the person answers it and
// where its result is read.
type Status struct {
	// Result is the tool result, exactly the bytes to give the model; nil
	// while the ask is pending.
	Result json.RawMessage
	// AskID is the ask's id (empty when the service did not say).
	AskID string
	// CardURL is the session's card URL, with its access token: whoever
	// holds it answers the session's asks (empty without a card).
	CardURL string
	// StatusURL is where the result is read.
	StatusURL string
}

// Pending reports whether the ask has no result yet.
func (s *Status) Pending() bool { return s.Result == nil }

// A Client talks to the agent API of a Handler (or of askuser serve). Set
// URL and Token; the zero value of the other fields works. Its methods are
// safe for concurrent use. A refusal of the service is an *Error; a
// failure to reach it is the HTTP client's error.
type Client struct {
	// URL is where the service is mounted: scheme://host[:port], with its
	// path prefix if any ("http://127.0.0.1:8080").
	URL string
	// Token is the agent's bearer token (askuser serve's --token-file).
	Token string
	// HTTPClient sends the requests (nil: a client shared by every Client
	// without one, whose wait for a response's header outlasts the longest
	// long poll). One of your own must let a response's header take more
	// than a minute.
	HTTPClient *http.Client
}

// defaultHTTPClient is the HTTP client of a Client without one.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = clientHeaderTimeout
	return &http.Client{Transport: tr}
})

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return defaultHTTPClient()
}

// CloseIdleConnections closes the idle connections of the client's HTTP
// client (see http.Client.CloseIdleConnections).
func (c *Client) CloseIdleConnections() { c.httpClient().CloseIdleConnections() }

// base checks URL and returns it without a trailing slash.
func (c *Client) base() (string, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("serve: Client.URL %q is not the URL of the service: give http://host:port (https:// behind a proxy), with the path it is mounted under if any", c.URL)
	}
	if c.Token == "" {
		return "", errors.New("serve: Client.Token is empty: give the agent's bearer token (askuser serve's --token-file)")
	}
	return strings.TrimRight(c.URL, "/"), nil
}

// do sends a request and reads the response, at most maxResponseBytes.
func (c *Client) do(ctx context.Context, method, path string, body []byte, prefer string) (int, []byte, error) {
	base, err := c.base()
	if err != nil {
		return 0, nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if prefer != "" {
		req.Header.Set("Prefer", prefer)
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes+1))
	switch {
	case err != nil:
		return res.StatusCode, nil, err
	case len(data) > maxResponseBytes:
		clear(data)
		return res.StatusCode, nil, fmt.Errorf("serve: the response to %s %s is larger than %s, the most the client reads", method, path, hostcheck.Bytes(maxResponseBytes))
	}
	return res.StatusCode, data, nil
}

// callPath is the path of a session's tool call's status.
func callPath(session, toolCallID string) string {
	return "/v1/sessions/" + url.PathEscape(session) + "/calls/" + url.PathEscape(toolCallID)
}

// Call asks call and waits for its tool result: it starts the ask (Start)
// and then waits for it (Wait), so that a proxy's timeout or a replica
// restarting in between loses nothing. An invalid call is an *Error that
// matches ErrInvalidCall. When ctx ends first, the ask stays pending: the
// same call sent again joins it.
func (c *Client) Call(ctx context.Context, call Call) (json.RawMessage, error) {
	st, err := c.Start(ctx, call)
	if err != nil {
		return nil, err
	}
	if !st.Pending() {
		return st.Result, nil
	}
	return c.Wait(ctx, call.Session, call.ToolCallID)
}

// Start posts call with Prefer: respond-async: the service begins the ask
// (or finds the one the same call began) and answers at once, with where
// the person answers it and where its result is read; the Status is
// pending. An invalid call is an *Error that matches ErrInvalidCall.
func (c *Client) Start(ctx context.Context, call Call) (*Status, error) {
	body, err := json.Marshal(call)
	if err != nil {
		return nil, fmt.Errorf("serve: the call cannot be sent: %w", err)
	}
	code, resp, err := c.do(ctx, http.MethodPost, "/v1/calls", body, "respond-async")
	switch {
	case err != nil:
		return nil, err
	case code == http.StatusOK:
		return &Status{Result: resp}, nil
	case code != http.StatusAccepted:
		return nil, refusalError(code, resp)
	}
	return pendingStatus(resp), nil
}

// pendingStatus reads the body of a 202; a body that does not say is a
// pending Status all the same.
func pendingStatus(body []byte) *Status {
	var j asyncJSON
	_ = json.Unmarshal(body, &j)
	return &Status{AskID: j.AskID, CardURL: j.CardURL, StatusURL: j.StatusURL}
}

// Status reads the status of a session's tool call, waiting up to wait
// for the ask to end (zero or less: the service's floor, a quarter of a
// second; it waits at most a minute, in whole seconds). A call no ask
// answers (never asked, or past the store's retention) is an *Error with
// StatusCode 404.
func (c *Client) Status(ctx context.Context, session, toolCallID string, wait time.Duration) (*Status, error) {
	path := callPath(session, toolCallID)
	if wait > 0 {
		path += "?wait=" + strconv.Itoa(int(min(wait, maxStatusWait)/time.Second))
	}
	code, resp, err := c.do(ctx, http.MethodGet, path, nil, "")
	switch {
	case err != nil:
		return nil, err
	case code == http.StatusOK:
		return &Status{Result: resp}, nil
	case code == http.StatusAccepted:
		return pendingStatus(resp), nil
	}
	return nil, refusalError(code, resp)
}

// Wait waits for the tool result of a session's tool call with long polls,
// until the ask is final or ctx ends. A service that does not answer, or
// answers 503 (a replica stopping or restarting, a store failing over),
// is asked again, after a pause that grows, up to ten times in a row; the
// last failure is then the error. Any other refusal (*Error) ends the wait.
// When ctx ends, the ask stays pending on the service, and the error says
// where its result is read.
func (c *Client) Wait(ctx context.Context, session, toolCallID string) (json.RawMessage, error) {
	for failures := 0; ; {
		st, err := c.Status(ctx, session, toolCallID, maxStatusWait)
		var se *Error
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("serve: stopped waiting (%w); the ask stays pending on the service, and its result is at %s%s", ctx.Err(), strings.TrimRight(c.URL, "/"), callPath(session, toolCallID))
		case err == nil && !st.Pending():
			return st.Result, nil
		case err == nil:
			failures = 0
			continue
		case errors.As(err, &se) && se.StatusCode != http.StatusServiceUnavailable:
			return nil, err
		}
		if failures++; failures > clientRetries {
			return nil, err
		}
		t := time.NewTimer(time.Duration(failures) * time.Second)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// Supersede ends every pending ask of the session, as cancelled /
// unattended with what was answered so far (the person wrote in the chat
// instead of answering), and returns how many it ended.
func (c *Client) Supersede(ctx context.Context, session string) (int, error) {
	code, resp, err := c.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(session)+"/supersede", nil, "")
	switch {
	case err != nil:
		return 0, err
	case code != http.StatusOK:
		return 0, refusalError(code, resp)
	}
	var n struct {
		Superseded *int `json:"superseded"`
	}
	if json.Unmarshal(resp, &n) != nil || n.Superseded == nil {
		return 0, fmt.Errorf("serve: the service's answer to a supersede does not say how many asks it ended: %s", inert.Line(strings.TrimSpace(string(resp))))
	}
	return *n.Superseded, nil
}

// Secret returns the value of a session's secret, from a service that
// serves secrets to the agent's token (Config.Secrets; askuser serve
// --secrets-api), or ErrSecretsNotServed. Put the value where it is used
// (a command's environment), never in the model's context, and clear it
// after. A secret of no such name is an *Error with StatusCode 404.
func (c *Client) Secret(ctx context.Context, session, name string) ([]byte, error) {
	code, body, err := c.do(ctx, http.MethodGet, "/v1/sessions/"+url.PathEscape(session)+"/secrets/"+url.PathEscape(name), nil, "")
	switch {
	case err != nil:
		return nil, err
	case code == http.StatusOK:
		return body, nil
	}
	defer clear(body)
	if code == http.StatusNotFound && bytes.Contains(body, []byte("not a route")) {
		return nil, ErrSecretsNotServed
	}
	return nil, refusalError(code, body)
}
