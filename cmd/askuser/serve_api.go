package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// The agent API of askuser serve, behind a bearer token:
//
//	POST /v1/calls                                   ask a call; 200 with the bare result once final
//	     (Prefer: respond-async)                     202 {"ask_id", "card_url", "status_url"} at once
//	GET  /v1/sessions/{session}/calls/{tool_call_id} 200 with the bare result, 202 while pending
//	     ?wait=SECONDS                               long-poll up to SECONDS (at most maxStatusWait)
//	POST /v1/sessions/{session}/supersede            200 {"superseded": n}
//	GET  /v1/sessions/{session}/secrets/{name}       a secret's value (only with --secrets-api)
//
// Every other path is the web card's, which admits a request by the
// session's access token (cardAccess).

// Bounds of the agent API.
const (
	// maxCallBody caps the body of POST /v1/calls: a call's arguments at
	// their cap (askuser.DefaultMaxCallBytes, or --max-timeout-seconds'
	// orchestrator's) fit several times over, with the fields around them.
	maxCallBody = 256 << 10
	// maxIDBytes caps a session id and a tool-call id.
	maxIDBytes = 1024
	// maxStatusWait bounds ?wait= on a status request.
	maxStatusWait = 60 * time.Second
	// serveMaxConns is how many connections the service serves at once:
	// every blocking call and long poll holds one.
	serveMaxConns = 4096
)

// callFields are the fields of a POST /v1/calls body.
const callFields = `"session", "tool_call_id", "dialect" (optional: ask_user, pi-ask or pi) and "arguments"`

// A callRequest is the body of POST /v1/calls.
type callRequest struct {
	Session    string
	ToolCallID string
	Dialect    askuser.Dialect
	Arguments  json.RawMessage
}

// parseCall reads the body of POST /v1/calls: one JSON object with the
// fields callFields names, and no other. Its errors say what is wrong and
// what is allowed; the call's arguments themselves are the dialect's to
// check.
func parseCall(body []byte) (*callRequest, error) {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("the body must be one JSON object with %s", callFields)
	}
	if dec.Decode(new(json.RawMessage)) != io.EOF {
		return nil, fmt.Errorf("the body holds more than one JSON value; send one object with %s", callFields)
	}
	for k := range m {
		switch k {
		case "session", "tool_call_id", "dialect", "arguments":
		default:
			return nil, fmt.Errorf("the body has a field %q; the fields are %s", k, callFields)
		}
	}
	c := &callRequest{}
	var dialect string
	for _, f := range []struct {
		name string
		dst  *string
		req  string
	}{
		{"session", &c.Session, "the session that owns the ask and its secrets"},
		{"tool_call_id", &c.ToolCallID, "the model's tool-call id: a retried call joins its ask, or replays its result, by session and tool_call_id"},
		{"dialect", &dialect, ""},
	} {
		raw, ok := m[f.name]
		if !ok || string(raw) == "null" {
			if f.req != "" {
				return nil, fmt.Errorf("%q is required: %s", f.name, f.req)
			}
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return nil, fmt.Errorf("%q must be a string", f.name)
		}
		switch {
		case f.req != "" && *f.dst == "":
			return nil, fmt.Errorf("%q is empty; it is required: %s", f.name, f.req)
		case len(*f.dst) > maxIDBytes:
			return nil, fmt.Errorf("%q is %d bytes long; at most %d are allowed", f.name, len(*f.dst), maxIDBytes)
		case !utf8.ValidString(*f.dst):
			return nil, fmt.Errorf("%q is not valid UTF-8", f.name)
		}
	}
	d, err := apiDialect(dialect)
	if err != nil {
		return nil, err
	}
	c.Dialect = d
	args, ok := m["arguments"]
	if !ok || string(args) == "null" {
		return nil, errors.New(`"arguments" is required: the tool call's arguments, the JSON object the model sent`)
	}
	if args = bytes.TrimSpace(args); len(args) == 0 || args[0] != '{' {
		return nil, errors.New(`"arguments" must be a JSON object: the tool call's arguments as the model sent them`)
	}
	c.Arguments = args
	return c, nil
}

// apiDialect returns the contract the API's "dialect" names.
// request_approval is not served: an approval is decided only by a person
// admitted apart from the agent, and the card URL the API hands the agent
// admits whoever holds it.
func apiDialect(name string) (askuser.Dialect, error) {
	if name == approvaltool.ToolName {
		return nil, fmt.Errorf(`"dialect" %q is not served by the agent API (an approval needs a person the agent cannot stand in for); allowed: ask_user, pi-ask, pi`, name)
	}
	d, err := dialectNamed(name)
	if err != nil {
		return nil, fmt.Errorf(`"dialect" %q is not a contract; allowed: ask_user, pi-ask, pi`, name)
	}
	return d, nil
}

// serveAPI is the HTTP side of askuser serve: the agent API behind the
// bearer token, and the web card behind the sessions' access tokens.
type serveAPI struct {
	o       *askuser.Orchestrator
	token   string            // the agent's bearer token
	access  cardAccess        // the card's access tokens
	secrets secretstore.Store // serves GET …/secrets/{name}; nil: not served
	logger  *slog.Logger
	urlHost string        // host:port of the URLs handed out when the request's Host will not do
	write   time.Duration // how long a response may take to write once it is ready
}

// handler returns the whole service: the Host and Origin checks, then the
// agent API under /v1/ and the card everywhere else.
func (s *serveAPI) handler(card http.Handler, allowed []string) http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("POST /v1/calls", s.call)
	api.HandleFunc("GET /v1/sessions/{session}/calls/{tool_call_id}", s.status)
	api.HandleFunc("POST /v1/sessions/{session}/supersede", s.supersede)
	routes := "POST /v1/calls, GET /v1/sessions/{session}/calls/{tool_call_id}, POST /v1/sessions/{session}/supersede"
	if s.secrets != nil {
		api.HandleFunc("GET /v1/sessions/{session}/secrets/{name}", s.secret)
		routes += ", GET /v1/sessions/{session}/secrets/{name}"
	}
	api.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, r.Method+" "+r.URL.Path+" is not a route of the agent API; its routes are "+routes)
	})
	root := http.NewServeMux()
	root.Handle("/v1/", s.bearer(api))
	root.Handle("/", s.access.withSessionToken(card))
	return newHostCheck(allowed).wrap(root)
}

// bearer admits a request that carries the agent's token.
func (s *serveAPI) bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		auth := r.Header.Get("Authorization")
		ok := len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") &&
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(auth[7:])), []byte(s.token)) == 1
		if !ok {
			h.Set("WWW-Authenticate", `Bearer realm="askuser"`)
			apiError(w, http.StatusUnauthorized, "the bearer token is missing or wrong: send Authorization: Bearer <the token in askuser serve's --token-file>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// errorJSON is the body of every refusal; Result is the contract's tool
// result for an invalid call, where the contract has one.
type errorJSON struct {
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result,omitempty"`
}

func writeAPI(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(`{"error":"the response could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

func apiError(w http.ResponseWriter, code int, msg string) {
	writeAPI(w, code, errorJSON{Error: msg})
}

// readAPIBody reads a request's body, at most limit bytes; the server's
// ReadTimeout bounds how long it may take. It writes the refusal and
// reports false when there is no body to go on with.
func readAPIBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		return body, true
	}
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		apiError(w, http.StatusRequestEntityTooLarge, "the body is larger than "+bytesString(limit)+", the most the agent API reads of a call")
	case errors.Is(err, os.ErrDeadlineExceeded):
		apiError(w, http.StatusRequestTimeout, "the body did not arrive in time")
	default:
		apiError(w, http.StatusBadRequest, "the body could not be read")
	}
	return nil, false
}

// hold exempts a request that waits for a person (a blocking call, a long
// poll) from the server's stall timeouts: its body is in, and nothing is
// written until the wait is over. release bounds the write again.
func hold(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

func (s *serveAPI) release(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.write))
}

// preferAsync reports whether the request's Prefer header asks for
// respond-async (RFC 7240).
func preferAsync(h http.Header) bool {
	for _, v := range h.Values("Prefer") {
		for pref := range strings.SplitSeq(v, ",") {
			tok, _, _ := strings.Cut(pref, ";")
			if strings.EqualFold(strings.TrimSpace(tok), "respond-async") {
				return true
			}
		}
	}
	return false
}

// call serves POST /v1/calls.
func (s *serveAPI) call(w http.ResponseWriter, r *http.Request) {
	body, ok := readAPIBody(w, r, maxCallBody)
	if !ok {
		return
	}
	c, err := parseCall(body)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	req := askuser.Request{Session: c.Session, ToolCallID: c.ToolCallID, Dialect: c.Dialect, Arguments: c.Arguments}
	if preferAsync(r.Header) {
		id, err := s.o.Begin(r.Context(), req)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		status := s.statusURL(r, c.Session, c.ToolCallID)
		w.Header().Set("Preference-Applied", "respond-async")
		w.Header().Set("Location", status)
		writeAPI(w, http.StatusAccepted, asyncJSON{AskID: id, CardURL: s.cardURL(r, c.Session), StatusURL: status})
		return
	}
	if _, err := s.o.Begin(r.Context(), req); err != nil {
		s.fail(w, r, err)
		return
	}
	hold(w)
	out, err := s.await(r.Context(), c.Session, c.ToolCallID, 0)
	s.release(w)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.result(w, out)
}

// rereadEvery is how often a wait for a result reads the store again.
// Await learns of the result from the orchestrator's watch of the store;
// should that watch fall behind (a NATS connection failing over), reading
// the store again bounds how late a waiting client hears of it.
const rereadEvery = 5 * time.Second

// await waits for the result of a session's tool call, up to wait (zero:
// until the ask is final or ctx ends), and returns as Await does: the
// outcome, ctx's error or context.DeadlineExceeded while it is pending,
// ErrUnknownCall, ErrOrchestratorClosed.
func (s *serveAPI) await(ctx context.Context, session, call string, wait time.Duration) (*askuser.Outcome, error) {
	var end time.Time
	if wait > 0 {
		end = time.Now().Add(wait)
	}
	for {
		slice := rereadEvery
		if wait > 0 {
			slice = min(slice, time.Until(end))
		}
		sctx, cancel := context.WithTimeout(ctx, slice)
		out, err := s.o.Await(sctx, session, call)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) || wait > 0 && time.Until(end) <= 0 {
			return out, err
		}
	}
}

// asyncJSON is the answer to a call with Prefer: respond-async, and (with
// "status": "pending") to a status request while the ask is pending.
type asyncJSON struct {
	Status    string `json:"status,omitempty"`
	AskID     string `json:"ask_id,omitempty"`
	CardURL   string `json:"card_url"`
	StatusURL string `json:"status_url"`
}

// result writes a final outcome: the bare result, as the model reads it.
func (s *serveAPI) result(w http.ResponseWriter, out *askuser.Outcome) {
	if out.Result == nil {
		apiError(w, http.StatusInternalServerError, "the ask ended, but its result could not be encoded; the service's log says why")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Result)
}

// fail answers a call that has no outcome.
func (s *serveAPI) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ce *askuser.CallError
	switch {
	case errors.As(err, &ce):
		writeAPI(w, http.StatusBadRequest, errorJSON{Error: ce.Message, Result: ce.Result})
	case errors.Is(err, askuser.ErrOrchestratorClosed):
		w.Header().Set("Retry-After", "1")
		apiError(w, http.StatusServiceUnavailable, "this replica is stopping; the ask stays pending: send the same call again, to any replica, to join it")
	case r.Context().Err() != nil:
		// The caller went away; the ask stays pending.
	default:
		s.logger.Error("askuser serve: a call could not be served", "err", err)
		w.Header().Set("Retry-After", "1")
		apiError(w, http.StatusServiceUnavailable, "the call could not be served now (the shared store failed); send it again: it joins its ask, or replays its result")
	}
}

// status serves GET /v1/sessions/{session}/calls/{tool_call_id}.
func (s *serveAPI) status(w http.ResponseWriter, r *http.Request) {
	session, call := r.PathValue("session"), r.PathValue("tool_call_id")
	wait, err := parseWait(r.URL.Query().Get("wait"))
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	hold(w)
	out, err := s.await(r.Context(), session, call, wait)
	s.release(w)
	switch {
	case err == nil:
		s.result(w, out)
	case errors.Is(err, askuser.ErrUnknownCall):
		apiError(w, http.StatusNotFound, "no ask is known for this session's tool call: it was never asked, or its result is past the store's retention")
	case errors.Is(err, askuser.ErrOrchestratorClosed), r.Context().Err() == nil && errors.Is(err, context.DeadlineExceeded):
		p := asyncJSON{Status: "pending", CardURL: s.cardURL(r, session), StatusURL: s.statusURL(r, session, call)}
		for _, a := range s.o.Pending(session) {
			if a.ToolCallID == call {
				p.AskID = a.AskID
			}
		}
		writeAPI(w, http.StatusAccepted, p)
	case r.Context().Err() != nil:
		// The caller went away.
	default:
		s.fail(w, r, err)
	}
}

// statusFloor is the least a status request waits, so that ?wait=0 still
// reads the store: it answers within this, not at once.
const statusFloor = 250 * time.Millisecond

// parseWait reads a status request's ?wait=SECONDS: a whole number from
// 0, capped at maxStatusWait.
func parseWait(v string) (time.Duration, error) {
	if v == "" {
		return statusFloor, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("wait=%q is not a whole number of seconds; give 0 to %d (more waits %d)", v, int(maxStatusWait/time.Second), int(maxStatusWait/time.Second))
	}
	return max(statusFloor, min(time.Duration(n)*time.Second, maxStatusWait)), nil
}

// supersede serves POST /v1/sessions/{session}/supersede.
func (s *serveAPI) supersede(w http.ResponseWriter, r *http.Request) {
	writeAPI(w, http.StatusOK, struct {
		Superseded int `json:"superseded"`
	}{s.o.Supersede(r.PathValue("session"))})
}

// secret serves GET /v1/sessions/{session}/secrets/{name}: the value of a
// secret, as the body, for askuser secret exec --server, which puts it in
// its command's environment. It is served only with --secrets-api: whoever
// holds the agent's bearer token reads every session's secrets through it,
// so an agent (or a model with a shell) that can read the token file can
// read the values. Without it, tools resolve secrets over NATS with the
// key ring (secret exec --nats), which the agent need not hold.
func (s *serveAPI) secret(w http.ResponseWriter, r *http.Request) {
	session, name := r.PathValue("session"), r.PathValue("name")
	v, err := s.secrets.Get(r.Context(), session, name)
	switch {
	case errors.Is(err, secretstore.ErrNotFound):
		apiError(w, http.StatusNotFound, "no secret of this name is stored for this session")
		return
	case err != nil:
		s.logger.Error("askuser serve: reading a secret failed", "err", err)
		apiError(w, http.StatusServiceUnavailable, "the secret could not be read now; the service's log says why")
		return
	}
	b := v.Reveal()
	defer clear(b)
	defer v.Wipe()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// base returns http://host of the URLs handed out: the request's Host,
// which the Host check allowed, when it is a plain host[:port], else the
// address the service listens on.
func (s *serveAPI) base(r *http.Request) string {
	h := r.Host
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	if hostOnly(h) == "" || !plainHost(strings.Trim(host, "[]")) || strings.Trim(port, "0123456789") != "" {
		h = s.urlHost
	}
	return "http://" + h
}

// plainHost reports whether h is a host name or an IP address literal: no
// user info, path or query to smuggle into a URL.
func plainHost(h string) bool {
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '_') {
			return false
		}
	}
	return h != ""
}

// cardURL is the session's card URL, with its access token.
func (s *serveAPI) cardURL(r *http.Request, session string) string {
	return s.base(r) + "/" + web.SessionPath(session) + "?token=" + s.access.token(session)
}

// statusURL is where the result of a session's tool call is read.
func (s *serveAPI) statusURL(r *http.Request, session, toolCallID string) string {
	return s.base(r) + "/v1/sessions/" + url.PathEscape(session) + "/calls/" + url.PathEscape(toolCallID)
}
