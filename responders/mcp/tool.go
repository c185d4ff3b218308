package mcpresponder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/schema"
	"github.com/askuser-go/askuser/secretstore"
)

// inputKey names askuser's one input request in a multi round-trip result.
const inputKey = "askuser"

// DefaultProgressInterval is how often a tool call that waits for the
// person sends a progress notification, when the client asked for them.
const DefaultProgressInterval = 15 * time.Second

// A Tool serves one askuser contract as an MCP tool whose calls are asked
// through the client's elicitation, on every protocol revision the SDK
// speaks:
//
//   - before 2026-07-28, the call stays open while the person answers: the
//     Responder elicits from within it (see WithCall), and the call sends
//     progress notifications meanwhile, so that a client that asked for
//     them does not time it out; past MaxRounds forms whose replies did
//     not fit, the call returns at once an error result that says so, and
//     the ask stays pending until its deadline (or, with a Bridge, goes
//     on through it at once);
//   - from 2026-07-28 on, the call returns the form as its input request,
//     with an opaque requestState, and the client retries it with the
//     reply; the ask stays pending here in the meantime, and is finalized
//     (and journaled) at its deadline if no retry comes. Each retry
//     shows at most MaxRounds forms in all; past them the retry gets an
//     error result that says so, and the ask waits for its deadline.
//
// With a shared store (Orchestrator.Asks), servers that share it and Keys
// serve one ask between them, as behind a load balancer: a retry resumes
// the store's pending ask on whichever server it reaches, each form's
// reply is taken once across all of them (its round is claimed in the
// store, create-only), the reply is reported into the ask itself
// (Orchestrator.Resume), so the ask has one ending and one journal
// record, and its deadline is the store's timer, which ends it even when
// the server that asked is gone. Without one, a retry that reaches
// another server (sharing Keys) asks again there, under the same tool-call
// id and with the deadline it had, while the first server still holds
// its copy.
//
// A refused requestState (altered, expired, used before, of another
// session, principal or call) is a tool result marked isError whose text
// says which, never a JSON-RPC error. A retry after the deadline, within
// StateGrace, gets the ask's result: timed_out, with the defaults applied.
//
// Every result is the contract's result both as text and as
// structuredContent; where the contract's result is a tool result of its
// own (pi, pi-ask: content, details, isError), its text is the content, the
// whole result is the structuredContent (which is what the tool's
// outputSchema describes), and its isError is the MCP result's.
//
// The zero Tool serves ask_user through an orchestrator of its own whose
// responder is New(nil). Set the fields before the first call and do not
// change them after.
type Tool struct {
	// Orchestrator asks the calls (nil: one with New(nil) as its
	// responder). Its responder must be, or reach, a *Responder, or nobody
	// is asked through the client.
	Orchestrator *askuser.Orchestrator
	// Dialect is the tool's contract (nil: askusertool.Dialect()). A server
	// that offers request_approval (approvaltool.Dialect()) beside
	// ask_user adds a Tool for each, on the same orchestrator.
	Dialect askuser.Dialect
	// Keys seal the requestState of a multi round-trip ask (nil: a key
	// made up for the life of the Tool, so that only this process can
	// resume its asks). Servers that share a client share a key ring.
	Keys *secretstore.KeyRing
	// Session names the askuser session a call belongs to, which owns its
	// secrets (nil: the MCP session's id where the transport has one,
	// else "mcp").
	Session func(req *mcp.CallToolRequest) string
	// Principal names who is calling, for the requestState's binding (nil:
	// the user id of the request's verified bearer token, else "").
	Principal func(req *mcp.CallToolRequest) string
	// ProgressInterval is how often a call that waits sends a progress
	// notification, when the client gave a progress token (zero:
	// DefaultProgressInterval; negative: never).
	ProgressInterval time.Duration
	// Bridge, when set, hands on an ask that the person has not answered
	// in the client within Bridge.After to another responder, and the
	// call returns where it went (see Bridge; nil: the call waits for the
	// ask's end).
	Bridge *Bridge

	initOnce sync.Once
	o        *askuser.Orchestrator
	keys     *secretstore.KeyRing
	initErr  error

	mu      sync.Mutex
	convs   map[string]*conv     // pending multi round-trip asks, by tool-call id
	used    map[string]time.Time // requestState nonces taken, until they expire
	sweepAt int                  // the size of used at which expired nonces are swept
	closed  bool
	active  sync.WaitGroup // asks of multi round-trip calls still running
	bridges bridges        // asks of bridged calls still going on
}

func (t *Tool) init() error {
	t.initOnce.Do(func() {
		t.o = t.Orchestrator
		if t.o == nil {
			t.o = &askuser.Orchestrator{Responder: New(nil)}
		}
		t.keys = t.Keys
		if t.keys == nil {
			k, err := secretstore.RandomKey("state-" + newID()[:8])
			if err == nil {
				t.keys, err = secretstore.NewKeyRing(k)
			}
			clear(k.Secret[:])
			t.initErr = err
		}
		t.convs = map[string]*conv{}
		t.used = map[string]time.Time{}
	})
	return t.initErr
}

func (t *Tool) dialect() askuser.Dialect {
	if t.Dialect == nil {
		return askusertool.Dialect()
	}
	return t.Dialect
}

func (t *Tool) session(req *mcp.CallToolRequest) string {
	if t.Session != nil {
		return t.Session(req)
	}
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			return id
		}
	}
	return "mcp"
}

func (t *Tool) principal(req *mcp.CallToolRequest) string {
	if t.Principal != nil {
		return t.Principal(req)
	}
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}

// Definition returns the tool as the SDK's Tool: the MCP rendering of the
// contract that package schema makes (name, title, description,
// inputSchema, outputSchema, annotations), with the orchestrator's ceiling
// on timeouts. The schemas are kept as raw JSON, so the SDK sends them as
// askuser wrote them.
func (t *Tool) Definition() (*mcp.Tool, error) {
	if err := t.init(); err != nil {
		return nil, err
	}
	data, err := schema.Options{Dialect: t.dialect().Name(), MaxTimeoutSeconds: t.o.Limits.MaxTimeoutSeconds}.Render(schema.FormatMCP)
	if err != nil {
		return nil, err
	}
	var d struct {
		Name         string               `json:"name"`
		Title        string               `json:"title"`
		Description  string               `json:"description"`
		InputSchema  json.RawMessage      `json:"inputSchema"`
		OutputSchema json.RawMessage      `json:"outputSchema"`
		Annotations  *mcp.ToolAnnotations `json:"annotations"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	return &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description,
		InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, Annotations: d.Annotations}, nil
}

// AddTool registers t on s under its Definition, with Handle as the
// handler (the SDK's low-level Server.AddTool, so that askuser's decoder,
// not the SDK, judges the arguments and the model gets askuser's message
// for an invalid call).
func AddTool(s *mcp.Server, t *Tool) error {
	def, err := t.Definition()
	if err != nil {
		return err
	}
	s.AddTool(def, t.Handle)
	return nil
}

// Handle answers one tools/call; see Tool. It returns an error only when
// the call's context ends before its result is ready (the client went
// away, and nobody reads a result).
func (t *Tool) Handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := t.init(); err != nil {
		return errorResult(t.dialect().Name(), "askuser could not start: "+err.Error()), nil
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return errorResult(t.dialect().Name(), errClosed.Error()), nil
	}
	ctx = withTrace(ctx, req.Params.Meta)
	args := []byte(req.Params.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	if req.ProtocolVersion() >= multiRoundTrip {
		return t.roundTrip(ctx, req, args)
	}
	return t.bridgeHandle(ctx, req, args)
}

// newToolCallID makes askuser's tool-call id for a call: MCP has none, and
// the SDK does not hand a tool its JSON-RPC request id.
func newToolCallID() string { return "mcp-" + newID() }

// roundTrip serves a call of the multi round-trip protocol: the first
// call starts the ask, a retry carries the reply to its last form.
func (t *Tool) roundTrip(ctx context.Context, req *mcp.CallToolRequest, args []byte) (*mcp.CallToolResult, error) {
	if req.Params.RequestState == "" {
		cv, err := t.start(ctx, req, args, newToolCallID(), time.Time{}, 0, nil, false)
		if err != nil {
			return errorResult(t.dialect().Name(), err.Error()), nil
		}
		return t.await(ctx, req, args, cv, true)
	}
	st, err := t.open(req, args)
	if err != nil {
		return errorResult(t.dialect().Name(), strings.TrimPrefix(err.Error(), "mcpresponder: ")), nil
	}
	res, _ := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	if t.o.Asks != nil {
		return t.resumeShared(ctx, req, args, st, res)
	}
	if err := t.take(st); err != nil {
		return errorResult(t.dialect().Name(), strings.TrimPrefix(err.Error(), "mcpresponder: ")), nil
	}
	t.mu.Lock()
	cv := t.convs[st.Call]
	t.mu.Unlock()
	if cv == nil {
		// The ask is not pending here: it was asked by another server, or
		// it has ended (a retry after the deadline). Asked again under
		// its tool-call id and with its own AskedAt, it resumes with its
		// deadline, or replays its result.
		if cv, err = t.start(ctx, req, args, st.Call, st.AskedAt, st.Round, res, true); err != nil {
			return errorResult(t.dialect().Name(), err.Error()), nil
		}
		return t.await(ctx, req, args, cv, false)
	}
	n, err := cv.answer(st.Round, res)
	switch {
	case err != nil:
		return errorResult(t.dialect().Name(), strings.TrimPrefix(err.Error(), "mcpresponder: ")), nil
	case n != nil: // the reply did not match: the form again
		return t.inputRequest(req, args, cv.id, n)
	}
	return t.await(ctx, req, args, cv, false)
}

// errClosed refuses a call once the Tool is closed.
var errClosed = errors.New("askuser's MCP tool is shutting down; call it again later")

// start begins (or resumes) a multi round-trip ask: Handle runs on past
// this call, until the ask ends.
func (t *Tool) start(ctx context.Context, req *mcp.CallToolRequest, args []byte, id string, askedAt time.Time, round int, preset *mcp.ElicitResult, resumed bool) (*conv, error) {
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	cv := newConv(id, round, preset, resumed, cancel)
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		cancel()
		return nil, errClosed
	}
	t.convs[id] = cv
	t.active.Add(1)
	t.mu.Unlock()
	r := askuser.Request{Session: t.session(req), ToolCallID: id, Dialect: t.dialect(), Arguments: args, AskedAt: askedAt}
	hctx = context.WithValue(hctx, callKey{}, newCall(req, cv))
	go func() {
		defer t.active.Done()
		out, err := t.o.Handle(hctx, r)
		t.mu.Lock()
		if t.convs[id] == cv {
			delete(t.convs, id)
		}
		t.mu.Unlock()
		cancel()
		cv.result <- handled{out, err}
	}()
	return cv, nil
}

// await waits for what the ask does next: a form to send (the call returns
// it as its input request) or its end (the call returns the result). When
// the first call of an ask goes away before anything was asked, the ask
// ends as its caller gone.
func (t *Tool) await(ctx context.Context, req *mcp.CallToolRequest, args []byte, cv *conv, first bool) (*mcp.CallToolResult, error) {
	stop := t.progress(ctx, req)
	defer stop()
	select {
	case n := <-cv.need:
		select {
		case h := <-cv.result: // the ask ended meanwhile: that is the answer
			return t.result(h.out, h.err)
		default:
		}
		return t.inputRequest(req, args, cv.id, &n)
	case h := <-cv.result:
		return t.result(h.out, h.err)
	case <-ctx.Done():
		if first {
			cv.cancel()
		}
		return nil, ctx.Err()
	}
}

// inputRequest returns the form as the call's input request, with its
// requestState for the ask of tool-call id: always both, never a
// requestState alone, which some clients show as an error. Past the
// rounds an ask may take, it is the error result that says so.
func (t *Tool) inputRequest(req *mcp.CallToolRequest, args []byte, id string, n *need) (*mcp.CallToolResult, error) {
	if n != nil && n.capped != nil {
		return errorResult(t.dialect().Name(), n.capped.message(time.Now())), nil
	}
	if n == nil || n.params == nil {
		return errorResult(t.dialect().Name(), "askuser has no form to send for this ask (an internal error); call the tool again without the requestState to ask anew"), nil
	}
	st := &state{
		V: stateVersion, Session: t.session(req), Principal: t.principal(req),
		Tool: req.Params.Name, Call: id, Args: argsNames(args),
		AskedAt: n.askedAt, ExpiresAt: n.expiresAt, Round: n.round, Nonce: newID(),
	}
	s, err := sealState(t.keys, st)
	if err != nil {
		return errorResult(t.dialect().Name(), "askuser could not seal the requestState: "+err.Error()), nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey: n.params}, RequestState: s}, nil
}

// open opens a retry's requestState and checks that it belongs to this
// call and has not expired; take (in this process) or claim (on a shared
// store) then makes sure it is used once.
func (t *Tool) open(req *mcp.CallToolRequest, args []byte) (*state, error) {
	st, err := openState(t.keys, req.Params.RequestState)
	switch {
	case err != nil:
		return nil, err
	case st.Session != t.session(req):
		return nil, ErrStateSession
	case st.Principal != t.principal(req):
		return nil, ErrStatePrincipal
	case st.Tool != req.Params.Name || !sameArgs(st.Args, args):
		return nil, ErrStateCall
	}
	if !time.Now().Before(st.ExpiresAt.Add(StateGrace)) {
		return nil, ErrStateExpired
	}
	return st, nil
}

// take takes a requestState's nonce in this process, once.
func (t *Tool) take(st *state) error {
	now := time.Now()
	until := st.ExpiresAt.Add(StateGrace)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.used) >= t.sweepAt {
		// Forget the nonces whose states have expired, once the map has
		// doubled since the last sweep: amortized, a sweep costs each
		// retry a constant.
		for n, exp := range t.used {
			if !now.Before(exp) {
				delete(t.used, n)
			}
		}
		t.sweepAt = max(2*len(t.used), 64)
	}
	if _, taken := t.used[st.Nonce]; taken {
		return ErrStateUsed
	}
	t.used[st.Nonce] = until
	return nil
}

// Close ends the multi round-trip asks still pending, and those whose call
// returned before them (a Bridge handed them on, or their rounds ended),
// as their caller gone, and waits for them; with a shared store
// (Orchestrator.Asks) it lets go of them instead, and they stay pending in
// the store, where a retry on another server resumes them and their
// deadline ends them. Calls after Close are refused with an error result.
func (t *Tool) Close() error {
	_ = t.init()
	t.mu.Lock()
	t.closed = true
	for _, cv := range t.convs {
		cv.cancel()
	}
	t.mu.Unlock()
	t.active.Wait()
	t.bridges.close()
	return nil
}

// progress sends progress notifications while the call waits, when the
// client gave a progress token, and returns the function that stops them.
func (t *Tool) progress(ctx context.Context, req *mcp.CallToolRequest) (stop func()) {
	every := t.ProgressInterval
	if every == 0 {
		every = DefaultProgressInterval
	}
	token := req.Params.GetProgressToken()
	if token == nil || every < 0 || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(n), Message: "waiting for the person to answer",
			})
		}
	}()
	return func() { cancel(); <-done }
}

// result turns what Orchestrator.Handle returned into the tool's result.
func (t *Tool) result(out *askuser.Outcome, err error) (*mcp.CallToolResult, error) {
	var ce *dialect.CallError
	switch {
	case err == nil && out != nil && out.Result != nil:
		return toolResult(out.Result), nil
	case err == nil:
		return errorResult(t.dialect().Name(), "askuser could not encode the result; the server's log says why"), nil
	case errors.As(err, &ce):
		if ce.Result != nil {
			return toolResult(ce.Result), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ce.Message}}, IsError: true}, nil
	}
	return nil, err // the call's context ended: nobody reads a result
}

// toolResult makes a contract's result an MCP result: text and
// structuredContent, or, for a contract whose result is a tool result of
// its own, its content, the whole result as structuredContent, and its
// isError.
func toolResult(res []byte) *mcp.CallToolResult {
	var own struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if bytes.Contains(res, []byte(`"content"`)) && json.Unmarshal(res, &own) == nil && len(own.Content) > 0 {
		out := &mcp.CallToolResult{StructuredContent: json.RawMessage(res), IsError: own.IsError}
		for _, c := range own.Content {
			if c.Type == "text" {
				out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
			}
		}
		return out
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res)}}, StructuredContent: json.RawMessage(res)}
}

// errorResult is a result marked isError that tells the model what went
// wrong with the call.
func errorResult(tool, msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool + ": " + msg}}, IsError: true}
}
