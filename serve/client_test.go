package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// newClient returns a Client of the replica's, with a transport closed
// when the test ends.
func newClient(t *testing.T, base, token string) *Client {
	tr := &http.Transport{ResponseHeaderTimeout: clientHeaderTimeout}
	t.Cleanup(tr.CloseIdleConnections)
	return &Client{URL: base, Token: token, HTTPClient: &http.Client{Transport: tr}}
}

// TestClient drives a Handler with the Client, as an agent does.
func TestClient(t *testing.T) {
	rp := newReplica(t, nil, func(c *Config) { c.Secrets = c.Orchestrator.Secrets })
	c := newClient(t, rp.base+"/", testToken)
	person := newAgentClient(t, testToken)
	ctx := context.Background()

	t.Run("Call, answered on the card", func(t *testing.T) {
		got := make(chan error, 1)
		go func() {
			res, err := c.Call(ctx, Call{Session: "s1", ToolCallID: "c1", Arguments: json.RawMessage(serveChoice)})
			if err == nil && string(res) != serveAnswered {
				err = errors.New("result " + string(res))
			}
			got <- err
		}()
		p := person.waitPending(rp.base, "s1", "c1")
		person.answerOn(rp.base, p.CardURL, "s1", "c1", serveAnswer)
		if err := <-got; err != nil {
			t.Fatalf("Call: %v; want %s", err, serveAnswered)
		}
	})

	t.Run("Start, Status, Wait", func(t *testing.T) {
		st, err := c.Start(ctx, Call{Session: "s2", ToolCallID: "c2", Dialect: "ask_user", Arguments: json.RawMessage(serveChoice)})
		if err != nil || !st.Pending() || st.AskID == "" || !strings.HasPrefix(st.CardURL, rp.base+"/sessions/s2?token=") || st.StatusURL != rp.base+"/v1/sessions/s2/calls/c2" {
			t.Fatalf("Start: %+v, %v; want it pending, with its ask, card and status URLs", st, err)
		}
		now, err := c.Status(ctx, "s2", "c2", 0)
		if err != nil || !now.Pending() || now.AskID != st.AskID {
			t.Errorf("Status while pending: %+v, %v; want ask %s pending", now, err, st.AskID)
		}
		person.answerOn(rp.base, st.CardURL, "s2", "c2", serveAnswer)
		res, err := c.Wait(ctx, "s2", "c2")
		if err != nil || string(res) != serveAnswered {
			t.Errorf("Wait: %s, %v; want %s", res, err, serveAnswered)
		}
		final, err := c.Status(ctx, "s2", "c2", time.Second)
		if err != nil || final.Pending() || string(final.Result) != serveAnswered {
			t.Errorf("Status once final: %+v, %v", final, err)
		}
	})

	t.Run("an invalid call", func(t *testing.T) {
		_, err := c.Call(ctx, Call{Session: "s", ToolCallID: "bad", Dialect: "pi", Arguments: json.RawMessage(`{"questions":[]}`)})
		var e *Error
		if !errors.Is(err, ErrInvalidCall) || !errors.As(err, &e) || e.StatusCode != 400 ||
			!strings.HasPrefix(e.Message, "Validation failed:") || !strings.HasPrefix(string(e.Result), `{"content":[{"type":"text","text":"Validation failed:`) {
			t.Fatalf("Call of an invalid pi call: %v; want an *Error matching ErrInvalidCall, with the message and the contract's result", err)
		}
		if want := "400 Bad Request: Validation failed:\\n- /questions: Expected array length to be greater or equal to 1"; err.Error() != want {
			t.Errorf("the error says %q; want %q (the message inert)", err, want)
		}
		_, err = c.Start(ctx, Call{Session: "s", ToolCallID: "bad", Arguments: json.RawMessage(`{"questions":[]}`)})
		if !errors.Is(err, ErrInvalidCall) || !errors.As(err, &e) || e.Result != nil || !strings.HasPrefix(e.Message, "invalid ask_user arguments") {
			t.Errorf("Start of an invalid ask_user call: %v; want ErrInvalidCall with the message and no result", err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		wrong := newClient(t, rp.base, "wrong-token-0123456789abcdef")
		_, err := wrong.Call(ctx, Call{Session: "s", ToolCallID: "c", Arguments: json.RawMessage(serveChoice)})
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != 401 || errors.Is(err, ErrInvalidCall) || !strings.HasPrefix(err.Error(), "401 Unauthorized: the bearer token is missing or wrong") {
			t.Errorf("a wrong token: %v; want a 401 *Error", err)
		}
		_, err = c.Status(ctx, "s", "never", 0)
		if !errors.As(err, &e) || e.StatusCode != 404 {
			t.Errorf("Status of a call never asked: %v; want a 404 *Error", err)
		}
		if _, err := c.Wait(ctx, "s", "never"); !errors.As(err, &e) || e.StatusCode != 404 {
			t.Errorf("Wait for a call never asked: %v; want the 404 at once", err)
		}
		for _, bad := range []*Client{{URL: "127.0.0.1:8080", Token: testToken}, {URL: "http://u@127.0.0.1", Token: testToken}, {URL: rp.base}} {
			if _, err := bad.Status(ctx, "s", "c", 0); err == nil || !strings.HasPrefix(err.Error(), "serve: Client.") {
				t.Errorf("Client{URL: %q, Token: %q}: %v; want an error that says which field is wrong", bad.URL, bad.Token, err)
			}
		}
	})

	t.Run("Wait until ctx ends", func(t *testing.T) {
		if _, err := c.Start(ctx, Call{Session: "s3", ToolCallID: "c3", Arguments: json.RawMessage(serveChoice)}); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_, err := c.Wait(wctx, "s3", "c3")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the ask stays pending on the service, and its result is at "+rp.base+"/v1/sessions/s3/calls/c3") {
			t.Errorf("Wait when ctx ends: %v; want ctx's error and where the result is", err)
		}
	})

	t.Run("Supersede", func(t *testing.T) {
		n, err := c.Supersede(ctx, "s3")
		if err != nil || n != 1 {
			t.Fatalf("Supersede: %d, %v; want 1", n, err)
		}
		res, err := c.Wait(ctx, "s3", "c3")
		if want := `{"status":"cancelled","answered_by":"unattended","answers":[]}`; err != nil || string(res) != want {
			t.Errorf("the result once superseded: %s, %v; want %s", res, err, want)
		}
		if n, err := c.Supersede(ctx, "s3"); err != nil || n != 0 {
			t.Errorf("Supersede again: %d, %v; want 0", n, err)
		}
	})

	t.Run("Secret", func(t *testing.T) {
		st, err := c.Start(ctx, Call{Session: "s5", ToolCallID: "c5", Arguments: json.RawMessage(serveSecret)})
		if err != nil {
			t.Fatal(err)
		}
		person.answerOn(rp.base, st.CardURL, "s5", "c5", `{"answers":{"tok":{"secret":"hunter2-value"}}}`)
		if _, err := c.Wait(ctx, "s5", "c5"); err != nil {
			t.Fatal(err)
		}
		v, err := c.Secret(ctx, "s5", "DEPLOY_TOKEN")
		if err != nil || string(v) != "hunter2-value" {
			t.Errorf("Secret: %q, %v", v, err)
		}
		var e *Error
		if _, err := c.Secret(ctx, "s5", "NOPE"); !errors.As(err, &e) || e.StatusCode != 404 || errors.Is(err, ErrSecretsNotServed) {
			t.Errorf("Secret of no such name: %v; want a 404 *Error", err)
		}
		off := newReplica(t, nil, nil)
		if _, err := newClient(t, off.base, testToken).Secret(ctx, "s5", "DEPLOY_TOKEN"); !errors.Is(err, ErrSecretsNotServed) {
			t.Errorf("Secret from a service without Secrets: %v; want ErrSecretsNotServed", err)
		}
	})
}

// roundTripper answers a Client's requests in memory, on synctest's clock.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func answer(code int, body string) *http.Response {
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
}

// TestClientWaitRetries: Wait asks again after a 503 or no answer, after
// a pause that grows a second each time and starts again after a 202, and
// gives up after ten failures in a row with the last one.
func TestClientWaitRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var script []*http.Response // nil: a transport error
		var asked []time.Duration
		start := time.Now()
		c := &Client{URL: "http://askuser.test", Token: testToken, HTTPClient: &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			if r.URL.RawQuery != "wait=60" || r.Header.Get("Authorization") != "Bearer "+testToken {
				t.Errorf("the request %s with %q", r.URL, r.Header.Get("Authorization"))
			}
			asked = append(asked, time.Since(start))
			res := script[0]
			script = script[1:]
			if res == nil {
				return nil, errors.New("connection refused")
			}
			return res, nil
		})}}
		script = []*http.Response{answer(503, `{"error":"stopping"}`), nil, answer(202, `{"status":"pending"}`), answer(503, ""), answer(200, serveAnswered)}
		res, err := c.Wait(context.Background(), "s", "c")
		if err != nil || string(res) != serveAnswered {
			t.Fatalf("Wait: %s, %v; want %s", res, err, serveAnswered)
		}
		if diff := cmp.Diff([]time.Duration{0, time.Second, 3 * time.Second, 3 * time.Second, 4 * time.Second}, asked); diff != "" {
			t.Errorf("when Wait asked (-want +got):\n%s", diff)
		}

		for range clientRetries + 1 {
			script = append(script, answer(503, `{"error":"the call could not be served now"}`))
		}
		start, asked = time.Now(), nil
		_, err = c.Wait(context.Background(), "s", "c")
		var e *Error
		if !errors.As(err, &e) || e.StatusCode != 503 || len(asked) != clientRetries+1 || asked[len(asked)-1] != 55*time.Second {
			t.Errorf("Wait after %d failures: %v, asked at %v; want the last 503, after 1+2+…+10 seconds", len(asked), err, asked)
		}
	})
}
