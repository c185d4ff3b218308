package serve

import (
	"context"
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

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// Bounds of the agent API.
const (
	// defaultMaxBody caps the body of POST /v1/calls: a call's arguments
	// at their cap (dialect.DefaultMaxCallBytes) fit several times over,
	// with the fields around them.
	defaultMaxBody = 256 << 10
	// maxIDBytes caps a session id and a tool-call id.
	maxIDBytes = 1024
	// maxStatusWait bounds ?wait= on a status request.
	maxStatusWait = 60 * time.Second
	// statusFloor is the least a status request waits, so that ?wait=0
	// still reads the store: it answers within this, not at once.
	statusFloor = 250 * time.Millisecond
	// defaultWriteTimeout is Config.WriteTimeout's default.
	defaultWriteTimeout = 30 * time.Second
	// rereadEvery is how often a wait for a result reads the store again.
	// Await learns of the result from the orchestrator's watch of the
	// store; should that watch fall behind (a NATS connection failing
	// over), reading the store again bounds how late a waiting client
	// hears of it.
	rereadEvery = 5 * time.Second
)

// Config configures a Handler. Only Orchestrator is required; the zero
// value of every other field is the default its comment gives.
type Config struct {
	// Orchestrator asks the calls. With a shared store (Orchestrator.Asks:
	// the natsstore package's for a fleet) an ask outlives the replica
	// that began it; without one, the asks live as long as this process.
	// Close it when the server stops: the callers still waiting are then
	// told that their ask stays pending (503), and the long polls that it
	// is pending (202).
	Orchestrator *askuser.Orchestrator
	// Tokens are the agent's bearer tokens: every request under /v1/ must
	// carry one of them (Authorization: Bearer <token>), or it is refused
	// with 401. A token here reaches every session. Give two while
	// rotating. Empty tokens are ignored; with none (and no Tenants), the
	// agent API refuses every request.
	Tokens []string
	// Tenants are bearer tokens scoped to a session prefix each (see
	// Tenant and ParseTokens), for several agents on one service: a
	// request naming a session outside its token's prefix is refused with
	// 403, so that one agent cannot read, wait on, supersede or join
	// another's asks, nor read its secrets.
	Tenants []Tenant
	// AdminTokens are the operators' bearer tokens: GET /v1/asks, the
	// asks across the fleet, requires one of them, and no agent token
	// opens it. None may be one of Tokens or Tenants'. Empty: the admin
	// API is not served (404).
	AdminTokens []string
	// Card is the web card, served at every path outside /v1/ (nil: none,
	// and those paths are 404). The agent API hands out its card URLs.
	// It should be the Orchestrator's Responder, or among its responders.
	Card *Card
	// Secrets, when set, serves a secret's value to the agent's bearer
	// token: GET /v1/sessions/{session}/secrets/{name}, with the value as
	// the body (nil: not served, and that path is 404). Whoever holds a
	// token then reads the secrets of every session it reaches (every
	// session, for a token of Tokens): set it only where the
	// token is kept from the model (an agent whose model can run a shell
	// and read the token can print them into its context). It is usually
	// the Orchestrator's Secrets.
	Secrets secretstore.Store
	// AllowedHosts are the host names the service answers for: a request
	// whose Host is another is refused with 421 Misdirected Request, and
	// one whose Origin names another host with 403, so that a page of
	// another site that rebinds its name to this address (DNS rebinding)
	// reaches nothing. Entries are as in web.Options.AllowedHosts; a port
	// is ignored. Empty: the Card's (CardConfig.Web.AllowedHosts), else
	// localhost, 127.0.0.1 and [::1]. The Card checks the Host again
	// against its own list, so name a host in both, or in the Card's only.
	AllowedHosts []string
	// BaseURL is where agents and people reach the service, as
	// scheme://host[:port], with the path prefix it is mounted under if
	// any ("https://askuser.example.com", "https://platform.example/askuser"):
	// the card and status URLs handed out begin with it. Empty: http://
	// and the request's Host (which the host check allowed), or Addr when
	// that Host is not a plain host[:port].
	BaseURL string
	// Addr is the host:port the URLs handed out name when BaseURL is empty
	// and a request's Host will not do (empty: the local address the
	// request came in on, else localhost).
	Addr string
	// MaxBodyBytes caps the body of POST /v1/calls (zero: 256 KiB); a
	// larger one is refused with 413. The call's arguments are capped
	// again by the Orchestrator (Orchestrator.Limits.MaxCallBytes).
	MaxBodyBytes int64
	// WriteTimeout is how long a response may take to write once a request
	// that waited for a person (a blocking call, a long poll) has its
	// answer (zero: 30 seconds). Such a request is exempt from the
	// server's read and write deadlines while it waits; set this to the
	// server's WriteTimeout.
	WriteTimeout time.Duration
	// Approvals serves request_approval on POST /v1/calls. Set it only when
	// the Orchestrator's responder takes approvals from people the agent
	// cannot stand in for (Slack's allowed users, say): the card URL the
	// API hands out never decides an approval (see Card), but the
	// responder that does must admit the person apart from the agent.
	Approvals bool
	// Logger receives what goes wrong in the handler: a store that
	// fails (nil: slog.Default()). No answer and no secret is ever logged.
	Logger *slog.Logger
}

// A Handler is the whole service: the Host and Origin checks, then the
// agent API under /v1/ behind the bearer tokens, and the card (Config.Card)
// at every other path, behind each session's access token. It is safe for
// concurrent use. The agent API:
//
//	POST /v1/calls                                   ask a call; 200 with the bare tool result once final
//	     (Prefer: respond-async)                     202 {"ask_id", "card_url", "status_url"} at once
//	GET  /v1/sessions/{session}/calls/{tool_call_id} 200 with the bare tool result, 202 while pending
//	     ?wait=SECONDS                               long-poll up to SECONDS (at most 60)
//	POST /v1/sessions/{session}/supersede            200 {"superseded": n}
//	GET  /v1/sessions/{session}/secrets/{name}       a secret's value (only with Config.Secrets)
//	GET  /v1/asks?session=&status=&limit=&cursor=    the asks across the fleet, a page at a time (behind Config.AdminTokens)
//	GET  /v1/openapi.json                            the API's OpenAPI 3.1 description (no token)
//	GET  /healthz, GET /readyz                       alive; ready (following the store, the store and journal answering), whatever the Host
//
// The body of POST /v1/calls is one JSON object: "session", "tool_call_id",
// "dialect" (optional: ask_user, the default, pi-ask or pi) and
// "arguments" (the tool call's arguments, as the model sent them). A call
// posted again with the same session and tool-call id joins its ask, or
// replays its result. An invalid call is refused with 400 {"error": the
// model-facing message, "result": the contract's tool result, for the
// contracts that have one}; every other refusal is {"error": …}, saying
// what is wrong and what to do.
type Handler struct {
	o       *askuser.Orchestrator
	tenants []*tenant
	admins  [][]byte // Config.AdminTokens
	card    *Card
	secrets secretstore.Store
	logger  *slog.Logger
	baseURL string // Config.BaseURL without its trailing slash
	addr    string
	maxBody int64
	write   time.Duration
	h       http.Handler

	approvals bool
}

// NewHandler returns the service as c configures it. It panics if
// c.Orchestrator is nil.
func NewHandler(c Config) *Handler {
	if c.Orchestrator == nil {
		panic("serve: Config.Orchestrator is nil: give the orchestrator that asks the calls")
	}
	s := &Handler{
		o:       c.Orchestrator,
		card:    c.Card,
		secrets: c.Secrets,
		logger:  c.Logger,
		baseURL: strings.TrimRight(c.BaseURL, "/"),
		addr:    c.Addr,
		maxBody: c.MaxBodyBytes,
		write:   c.WriteTimeout,

		approvals: c.Approvals,
	}
	s.tenants = tenants(c)
	s.admins = adminTokens(c)
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.maxBody <= 0 {
		s.maxBody = defaultMaxBody
	}
	if s.write <= 0 {
		s.write = defaultWriteTimeout
	}
	allowed := c.AllowedHosts
	if len(allowed) == 0 && c.Card != nil {
		allowed = c.Card.hosts
	}
	s.h = s.probes(hostcheck.New(allowed).Wrap(s.routes()))
	return s
}

// ServeHTTP serves the agent API and the card; see Handler.
func (s *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }

// routes returns the agent API under /v1/ and the card everywhere else.
func (s *Handler) routes() http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("POST /v1/calls", traced(s.call))
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
	root.HandleFunc("GET /v1/openapi.json", s.openAPI)
	if len(s.admins) > 0 {
		root.Handle("/v1/asks", s.admin(s.listAsks))
		root.HandleFunc("GET /operators", s.operators)
	}
	if s.card != nil {
		root.Handle("/", s.card)
	}
	return root
}

// bearer admits a request that carries one of the agent's tokens, with
// its tenant in its context (see admitSession).
func (s *Handler) bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		t := s.authenticate(r.Header.Get("Authorization"))
		if t == nil {
			h.Set("WWW-Authenticate", `Bearer realm="askuser"`)
			apiError(w, http.StatusUnauthorized, "the bearer token is missing or wrong: send Authorization: Bearer <the token in askuser serve's --token-file>")
			return
		}
		next.ServeHTTP(w, withTenant(r, t))
	})
}

// errorJSON is the body of every refusal; Result is the contract's tool
// result for an invalid call, where the contract has one.
type errorJSON struct {
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result,omitempty"`
}

// asyncJSON is the answer to a call with Prefer: respond-async, and (with
// "status": "pending") to a status request while the ask is pending.
type asyncJSON struct {
	Status    string `json:"status,omitempty"`
	AskID     string `json:"ask_id,omitempty"`
	CardURL   string `json:"card_url,omitempty"`
	StatusURL string `json:"status_url"`
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

// readBody reads a request's body, at most limit bytes; the server's
// ReadTimeout bounds how long it may take. It writes the refusal and
// reports false when there is no body to go on with.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err == nil {
		return body, true
	}
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &mb):
		apiError(w, http.StatusRequestEntityTooLarge, "the body is larger than "+hostcheck.Bytes(limit)+", the most the agent API reads of a call")
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

func (s *Handler) release(w http.ResponseWriter) {
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
func (s *Handler) call(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, s.maxBody)
	if !ok {
		return
	}
	c, err := parseCallFor(body, s.approvals)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.admitSession(w, r, c.Session) {
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

// await waits for the result of a session's tool call, up to wait (zero:
// until the ask is final or ctx ends), and returns as Await does: the
// outcome, ctx's error or context.DeadlineExceeded while it is pending,
// ErrUnknownAsk, ErrOrchestratorClosed.
func (s *Handler) await(ctx context.Context, session, call string, wait time.Duration) (*askuser.Outcome, error) {
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

// result writes a final outcome: the bare result, as the model reads it.
func (s *Handler) result(w http.ResponseWriter, out *askuser.Outcome) {
	if out.Result == nil {
		apiError(w, http.StatusInternalServerError, "the ask ended, but its result could not be encoded; the service's log says why")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Result)
}

// fail answers a call that has no outcome.
func (s *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ce *dialect.CallError
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
func (s *Handler) status(w http.ResponseWriter, r *http.Request) {
	session, call := r.PathValue("session"), r.PathValue("tool_call_id")
	if !s.admitSession(w, r, session) {
		return
	}
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
	case errors.Is(err, askuser.ErrUnknownAsk):
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
func (s *Handler) supersede(w http.ResponseWriter, r *http.Request) {
	if !s.admitSession(w, r, r.PathValue("session")) {
		return
	}
	writeAPI(w, http.StatusOK, struct {
		Superseded int `json:"superseded"`
	}{s.o.Supersede(r.PathValue("session"))})
}

// secret serves GET /v1/sessions/{session}/secrets/{name}: the value of a
// secret, as the body, for a tool (askuser secret exec --server) that puts
// it in its command's environment. It is served only with Config.Secrets:
// whoever holds the agent's bearer token reads every session's secrets
// through it. Without it, tools resolve secrets from the store with the key
// ring, which the agent need not hold.
func (s *Handler) secret(w http.ResponseWriter, r *http.Request) {
	session, name := r.PathValue("session"), r.PathValue("name")
	if !s.admitSession(w, r, session) {
		return
	}
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

// base returns the scheme://host[/prefix] of the URLs handed out:
// Config.BaseURL; else http:// and the request's Host, which the host
// check allowed, when it is a plain host[:port]; else http:// and Addr.
func (s *Handler) base(r *http.Request) string {
	if s.baseURL != "" {
		return s.baseURL
	}
	h := r.Host
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	if hostcheck.HostOnly(h) == "" || !hostcheck.Plain(strings.Trim(host, "[]")) || strings.Trim(port, "0123456789") != "" {
		h = s.fallbackHost(r)
	}
	return "http://" + h
}

// fallbackHost is the host:port of the URLs handed out when the request's
// Host will not do: Addr, else the address the request came in on.
func (s *Handler) fallbackHost(r *http.Request) string {
	if s.addr != "" {
		return s.addr
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
		return a.String()
	}
	return "localhost"
}

// cardURL is the session's card URL, with its access token; empty without
// a card.
func (s *Handler) cardURL(r *http.Request, session string) string {
	if s.card == nil {
		return ""
	}
	return s.base(r) + "/" + web.SessionPath(session) + "?token=" + s.card.access.urlTokenAt(session, time.Now())
}

// statusURL is where the result of a session's tool call is read.
func (s *Handler) statusURL(r *http.Request, session, toolCallID string) string {
	return s.base(r) + "/v1/sessions/" + url.PathEscape(session) + "/calls/" + url.PathEscape(toolCallID)
}
