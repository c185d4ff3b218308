package mcpresponder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/sharedask"
	"github.com/askuser-go/askuser/store"
)

// TasksExtension names the MCP Tasks extension (SEP-2663), which a client
// declares in its per-request capabilities and a server advertises in its
// capabilities' extensions:
//
//	caps := &mcp.ServerCapabilities{}
//	caps.AddExtension(mcpresponder.TasksExtension, nil)
const TasksExtension = "io.modelcontextprotocol/tasks"

// The defaults of Tasks.
const (
	// DefaultTaskPollInterval is the pollIntervalMs a task suggests.
	DefaultTaskPollInterval = 2 * time.Second
	// DefaultTaskRetention is how long past its ask's deadline a task is
	// kept, so that a client that polls late still gets its result.
	DefaultTaskRetention = time.Hour
)

// The JSON-RPC error codes of the Tasks extension.
const (
	codeInvalidParams     = -32602
	codeInternalError     = -32603
	codeMissingCapability = -32021
)

// The task statuses of the Tasks extension.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskCancelled     = "cancelled"
	taskFailed        = "failed"
)

// Tasks serves the MCP Tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663) for Tools, in front of the SDK, which does not implement it:
// a tools/call of one of the Tools, from a client on 2026-07-28 or later
// that declares the extension on the request and takes form elicitation,
// is answered with a task instead of the multi round-trip input request.
// The task is the call's ask, begun with Orchestrator.Begin before the
// task is returned (its id is the ask's id), so that it is a pending ask
// like any other: it ends at its deadline, is journaled once, and, with a
// shared store (Orchestrator.Asks), outlives this process and is served
// by every server on the store.
//
//   - tasks/get reports the task: input_required with the form as its
//     one input request (elicitation/create, keyed askuser-1, askuser-2,
//     … — a key is never used twice), working once the reply is taken and
//     while the ask waits for its deadline, completed with the tool's
//     result, or cancelled;
//   - tasks/update carries the person's reply to the input request, in
//     inputResponses, checked against the form as every MCP reply is: a
//     reply that does not fit is no answer, and the next input request
//     says what was wrong, naming the question and what it takes, at most
//     twice; a response to a key that is not outstanding is ignored;
//   - tasks/cancel withdraws the ask (Orchestrator.Withdraw): it ends as
//     superseded — cancelled, unattended, with the answers given so far —
//     and the task as cancelled.
//
// The round a task is on is kept beside the ask: in the orchestrator's
// shared store when it has one, else in this process's memory. A task is
// bound to the session and the principal of the call that made it (Tool's
// Session and Principal functions, applied to the task request as to a
// tool call): for any other caller it does not exist. An ask with a secret
// question is no task: it goes the way of the tool call (the card).
//
// The SDK has no hook for methods of an extension, so Tasks reads the
// JSON-RPC messages before the SDK does: Handler in front of the SDK's
// streamable HTTP handler, Filter in front of its standard input and
// output (IOTransport). Set the fields before the first request and do
// not change them after; Close when done.
type Tasks struct {
	// Tools are the tools whose calls become tasks. They share one
	// orchestrator.
	Tools []*Tool
	// PollInterval is the pollIntervalMs a task suggests (zero:
	// DefaultTaskPollInterval).
	PollInterval time.Duration
	// Retention is how long past its ask's deadline a task is kept (zero:
	// DefaultTaskRetention).
	Retention time.Duration
	// Logger receives what goes wrong (nil: slog.Default()). No answer is
	// ever logged.
	Logger *slog.Logger

	initOnce sync.Once
	initErr  error
	byName   map[string]*Tool
	o        *askuser.Orchestrator
	records  taskStore
	ctx      context.Context // ends at Close
	cancel   context.CancelFunc

	mu      sync.Mutex // serializes this process's changes of task records
	running sync.WaitGroup
	closed  bool
}

func (ts *Tasks) init() error {
	ts.initOnce.Do(func() {
		ts.ctx, ts.cancel = context.WithCancel(context.Background())
		ts.byName = map[string]*Tool{}
		for _, t := range ts.Tools {
			def, err := t.Definition()
			if err != nil {
				ts.initErr = err
				return
			}
			switch {
			case ts.o == nil:
				ts.o = t.o
			case ts.o != t.o:
				ts.initErr = errors.New("mcpresponder: the Tools of Tasks must share one orchestrator, where their tasks' asks are")
				return
			}
			ts.byName[def.Name] = t
		}
		if ts.o != nil && ts.o.Asks != nil {
			ts.records = &storeTasks{st: ts.o.Asks}
		} else {
			ts.records = &memTasks{recs: map[string]memTask{}}
		}
	})
	return ts.initErr
}

func (ts *Tasks) logger() *slog.Logger {
	if ts.Logger != nil {
		return ts.Logger
	}
	return slog.Default()
}

func (ts *Tasks) pollInterval() time.Duration {
	if ts.PollInterval > 0 {
		return ts.PollInterval
	}
	return DefaultTaskPollInterval
}

func (ts *Tasks) retention() time.Duration {
	if ts.Retention > 0 {
		return ts.Retention
	}
	return DefaultTaskRetention
}

// Close waits for the task requests under way, and refuses those that
// come after it. With a shared store the tasks' asks stay pending, and
// their tasks are served by Tasks on any orchestrator on the store; an
// ask in this process's memory, which nobody can reach once its Tasks are
// closed, ends as unattended.
func (ts *Tasks) Close() error {
	_ = ts.init()
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	ts.running.Wait()
	ts.cancel()
	return nil
}

// enter counts a request in, unless Tasks is closed.
func (ts *Tasks) enter() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return false
	}
	ts.running.Add(1)
	return true
}

// A taskCaller is who sent a task request, as the transport knows it.
type taskCaller struct {
	token  *auth.TokenInfo
	header http.Header
}

// request makes the tool call the Tools' Session and Principal functions
// read, for a task request.
func (c taskCaller) request(name string, meta mcp.Meta, args json.RawMessage) *mcp.CallToolRequest {
	return &mcp.CallToolRequest{
		Params: &mcp.CallToolParamsRaw{Meta: meta, Name: name, Arguments: args},
		Extra:  &mcp.RequestExtra{TokenInfo: c.token, Header: c.header},
	}
}

// serve answers one JSON-RPC message when it is the extension's: a task
// request, or a tools/call that becomes a task. It reports handled false
// for every other message, which goes on to the SDK unchanged. A handled
// notification has no reply.
func (ts *Tasks) serve(ctx context.Context, frame []byte, who taskCaller) (reply []byte, handled bool) {
	if !bytes.Contains(frame, []byte(`"tasks/`)) && !bytes.Contains(frame, []byte(TasksExtension)) {
		return nil, false // the common case, without decoding
	}
	m, ok := parseMessage(frame)
	if !ok {
		return nil, false
	}
	switch m.Method {
	case "tools/call":
		if m.ID == nil {
			return nil, false
		}
		tc, ok := ts.taskable(m.Params, who)
		if !ok || !ts.enter() {
			return nil, false
		}
		defer ts.running.Done()
		return rpcResult(m.ID, ts.start(ctx, tc)), true
	case methodGet, methodUpdate, methodCancel:
	default:
		return nil, false
	}
	if m.ID == nil {
		return nil, true // a notification asks for nothing
	}
	if err := ts.init(); err != nil {
		return rpcFailure(m.ID, codeInternalError, "askuser could not serve tasks: "+err.Error(), nil), true
	}
	if !ts.enter() {
		return rpcFailure(m.ID, codeInternalError, "askuser's tasks are shutting down; try again later", nil), true
	}
	defer ts.running.Done()
	return ts.answer(ctx, m, who), true
}

// answer replies to a task request that has been counted in (enter), so
// that Close, which waits for it, cannot turn it away half served.
func (ts *Tasks) answer(ctx context.Context, m *rpcMessage, who taskCaller) []byte {
	if m.ID == nil {
		return nil // a notification asks for nothing
	}
	p, err := parseTaskParams(m.Method, m.Params)
	if err != nil {
		return rpcFailure(m.ID, codeInvalidParams, err.Error(), nil)
	}
	if !declaresTasks(p.Meta) {
		return rpcFailure(m.ID, codeMissingCapability, "Missing required client capability: "+m.Method+" is for clients that declare the "+TasksExtension+" extension in their request's capabilities",
			map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	}
	var res any
	var rerr *rpcError
	switch m.Method {
	case methodGet:
		res, rerr = ts.get(ctx, p, who)
	case methodUpdate:
		res, rerr = ts.update(ctx, p, who)
	case methodCancel:
		res, rerr = ts.cancelTask(ctx, p, who)
	}
	if rerr != nil {
		return rpcFailure(m.ID, rerr.Code, rerr.Message, nil)
	}
	return rpcResult(m.ID, res)
}

// A taskCall is a tools/call that becomes a task.
type taskCall struct {
	t    *Tool
	req  *mcp.CallToolRequest
	args []byte
	c    *call
}

// taskable reports whether a tools/call is one Tasks takes: one of its
// tools, a first call (no requestState) of a client on 2026-07-28 or
// later that declares the extension and takes forms, whose arguments
// decode and ask no secret. Any other call goes on to the SDK.
func (ts *Tasks) taskable(params json.RawMessage, who taskCaller) (*taskCall, bool) {
	var p mcp.CallToolParamsRaw
	if json.Unmarshal(params, &p) != nil || p.RequestState != "" || len(p.InputResponses) > 0 || !declaresTasks(p.Meta) {
		return nil, false
	}
	if ts.init() != nil {
		return nil, false
	}
	t := ts.byName[p.Name]
	if t == nil {
		return nil, false
	}
	args := []byte(p.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	}
	req := who.request(p.Name, p.Meta, args)
	if req.ProtocolVersion() < multiRoundTrip {
		return nil, false
	}
	c := newCall(req, nil)
	if !c.caps.declared || !c.canForm() {
		return nil, false
	}
	f, err := askuser.Decode(t.dialect(), args, t.o.Limits)
	if err != nil || sealed(f) {
		return nil, false
	}
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return nil, false
	}
	return &taskCall{t: t, req: req, args: args, c: c}, true
}

// start begins the task of a call taskable took, and returns the
// tools/call's result: the task, or the tool's result when the call is
// refused.
func (ts *Tasks) start(ctx context.Context, tc *taskCall) any {
	res, err := ts.begin(withTrace(ctx, tc.req.Params.Meta), tc.t, tc.req, tc.args, tc.c)
	if err != nil {
		out, _ := tc.t.result(nil, err)
		if out == nil {
			out = errorResult(tc.t.dialect().Name(), err.Error())
		}
		return completeResult(out)
	}
	return res
}

// begin begins the ask of a task, records the task, and returns the task
// as the tools/call's result, once a tasks/get for it would find it.
func (ts *Tasks) begin(ctx context.Context, t *Tool, req *mcp.CallToolRequest, args []byte, c *call) (any, error) {
	session, principal := t.session(req), t.principal(req)
	callID := newToolCallID()
	bctx := context.WithValue(ctx, taskKey{}, ts)
	askID, err := t.o.Begin(bctx, askuser.Request{Session: session, ToolCallID: callID, Dialect: t.dialect(), Arguments: args})
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rec := &taskRecord{
		V: taskVersion, Task: askID, Session: session, Principal: principal, Tool: req.Params.Name, Call: callID,
		Version: c.version, URL: c.caps.url, Created: now, Updated: now, Expires: now, Round: 1,
	}
	out, err := t.o.Resume(ctx, session, callID, func(a *askuser.Ask) error {
		rec.Created, rec.Updated, rec.Expires = a.Form().AskedAt, a.Form().AskedAt, a.Form().ExpiresAt
		return nil
	})
	if err != nil && !errors.Is(err, askuser.ErrAskEnded) {
		// The ask ended as it began (nobody to ask): its outcome is
		// there, or on its way.
		out, err = t.o.Await(ctx, session, callID)
		if err != nil {
			return nil, err
		}
	}
	if out != nil {
		rec.Created, rec.Updated, rec.Expires = out.Form.AskedAt, out.FinalizedAt, out.Form.ExpiresAt
	}
	if err := ts.records.create(ctx, rec); err != nil {
		ts.logger().Error("mcpresponder: recording a task failed; its ask is withdrawn", "ask", askID, "err", err)
		_ = t.o.Withdraw(context.WithoutCancel(ctx), session, callID)
		return nil, fmt.Errorf("askuser could not record the task: %w", err)
	}
	w := ts.wire(rec, taskWorking)
	w.ResultType = "task"
	w.StatusMessage = "waiting for the person to answer"
	return w, nil
}

// find reads a task for a request, checked against its caller: a task of
// another session or principal is not found, as one that never was.
func (ts *Tasks) find(ctx context.Context, p *taskParams, who taskCaller) (*taskRecord, uint64, *Tool, *rpcError) {
	rec, rev, err := ts.records.get(ctx, p.TaskID)
	switch {
	case errors.Is(err, errNoTask):
		return nil, 0, nil, &rpcError{Code: codeInvalidParams, Message: "Failed to retrieve task: Task not found (no task of this caller has that taskId)"}
	case err != nil:
		ts.logger().Error("mcpresponder: reading a task failed", "task", p.TaskID, "err", err)
		return nil, 0, nil, &rpcError{Code: codeInternalError, Message: "Failed to retrieve task: the task store failed; try again"}
	}
	t := ts.byName[rec.Tool]
	if t == nil {
		return nil, 0, nil, &rpcError{Code: codeInvalidParams, Message: "Failed to retrieve task: Task not found (no task of this caller has that taskId)"}
	}
	req := who.request(rec.Tool, p.Meta, nil)
	if t.session(req) != rec.Session || t.principal(req) != rec.Principal {
		return nil, 0, nil, &rpcError{Code: codeInvalidParams, Message: "Failed to retrieve task: Task not found (no task of this caller has that taskId)"}
	}
	if !time.Now().Before(rec.Expires.Add(ts.retention())) {
		return nil, 0, nil, &rpcError{Code: codeInvalidParams, Message: "Failed to retrieve task: Task has expired (a task is kept " + span(ts.retention()) + " past its ask's deadline)"}
	}
	return rec, rev, t, nil
}

// get answers tasks/get: the task as it is now.
func (ts *Tasks) get(ctx context.Context, p *taskParams, who taskCaller) (any, *rpcError) {
	rec, _, t, rerr := ts.find(ctx, p, who)
	if rerr != nil {
		return nil, rerr
	}
	var inputs mcp.InputRequestMap
	out, err := t.o.Resume(ctx, rec.Session, rec.Call, func(a *askuser.Ask) error {
		if !rec.Waiting {
			f := formFor(a, ts.callOf(rec, who, p.Meta))
			inputs = mcp.InputRequestMap{rec.key(): f.params(rec.Problem, time.Now())}
		}
		return nil
	})
	switch {
	case out != nil:
		return ts.final(t, rec, out), nil
	case errors.Is(err, askuser.ErrAskEnded):
		w := ts.wire(rec, taskWorking)
		w.StatusMessage = "the reply is taken; the result is on its way"
		return w, nil
	case errors.Is(err, askuser.ErrUnknownAsk):
		w := ts.wire(rec, taskFailed)
		w.StatusMessage = "the task's ask is gone: it was kept in the memory of a server that has restarted since"
		w.Error = &rpcError{Code: codeInternalError, Message: w.StatusMessage}
		return w, nil
	case err != nil:
		ts.logger().Error("mcpresponder: reading a task's ask failed", "task", rec.Task, "err", err)
		return nil, &rpcError{Code: codeInternalError, Message: "Failed to retrieve task: the pending-ask store failed; try again"}
	case inputs == nil:
		w := ts.wire(rec, taskWorking)
		w.StatusMessage = "no reply fitted the form; the ask waits for its deadline"
		return w, nil
	}
	data, err := json.Marshal(inputs)
	if err != nil {
		return nil, &rpcError{Code: codeInternalError, Message: "Failed to retrieve task: its input request could not be encoded"}
	}
	w := ts.wire(rec, taskInputRequired)
	w.StatusMessage = "waiting for the person to answer"
	w.InputRequests = data
	return w, nil
}

// final is the task of an ask that is final: completed with the tool's
// result, or cancelled when tasks/cancel withdrew it.
func (ts *Tasks) final(t *Tool, rec *taskRecord, out *askuser.Outcome) *taskWire {
	if rec.Cancelled && out.Reason == askuser.ReasonSuperseded {
		w := ts.wire(rec, taskCancelled)
		w.StatusMessage = "the task was cancelled: its ask was withdrawn"
		w.LastUpdatedAt = stamp(out.FinalizedAt)
		return w
	}
	res, _ := t.result(out, nil)
	w := ts.wire(rec, taskCompleted)
	if !out.FinalizedAt.IsZero() {
		w.LastUpdatedAt = stamp(out.FinalizedAt)
	}
	data, err := json.Marshal(res)
	if err != nil {
		w.Status = taskFailed
		w.Error = &rpcError{Code: codeInternalError, Message: "the tool's result could not be encoded"}
		return w
	}
	w.Result = data
	return w
}

// update answers tasks/update: the reply to the outstanding input
// request is acted on as the form's reply; a response to any other key
// is ignored. The acknowledgement is empty whatever the reply did: the
// task's next tasks/get says.
func (ts *Tasks) update(ctx context.Context, p *taskParams, who taskCaller) (any, *rpcError) {
	// One process changes a task's round at a time; another process that
	// changes it meanwhile makes this change lose (the store's revision).
	ts.mu.Lock()
	defer ts.mu.Unlock()
	rec, rev, t, rerr := ts.find(ctx, p, who)
	if rerr != nil {
		return nil, rerr
	}
	raw, ok := p.Responses[rec.key()]
	if !ok || rec.Waiting {
		return ack(), nil
	}
	res := readResponse(raw)
	var problem string
	var ended bool
	_, err := t.o.Resume(ctx, rec.Session, rec.Call, func(a *askuser.Ask) error {
		f := formFor(a, ts.callOf(rec, who, p.Meta))
		problem, ended, _ = f.reply(a, res) // an error is ErrAskEnded: the ask had ended
		return nil
	})
	if err != nil || ended || problem == "" {
		return ack(), nil // the ask had ended, or has now
	}
	next := *rec
	next.Updated = time.Now().UTC()
	next.Problem = problem
	if next.Round >= maxForms {
		next.Waiting = true // the deadline decides
	} else {
		next.Round++
	}
	if err := ts.records.update(ctx, &next, rev); err != nil && !errors.Is(err, errTaskChanged) {
		ts.logger().Error("mcpresponder: keeping a task's round failed", "task", rec.Task, "err", err)
		return nil, &rpcError{Code: codeInternalError, Message: "Failed to update task: the task store failed; send the reply again"}
	}
	return ack(), nil
}

// cancelTask answers tasks/cancel: the ask is withdrawn, unless it has
// ended already.
func (ts *Tasks) cancelTask(ctx context.Context, p *taskParams, who taskCaller) (any, *rpcError) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	rec, rev, t, rerr := ts.find(ctx, p, who)
	if rerr != nil {
		return nil, rerr
	}
	if !rec.Cancelled {
		next := *rec
		next.Cancelled, next.Updated = true, time.Now().UTC()
		for range 3 {
			err := ts.records.update(ctx, &next, rev)
			if err == nil {
				break
			}
			if !errors.Is(err, errTaskChanged) {
				ts.logger().Error("mcpresponder: recording a task's cancellation failed", "task", rec.Task, "err", err)
				return nil, &rpcError{Code: codeInternalError, Message: "Failed to cancel task: the task store failed; try again"}
			}
			cur, crev, err := ts.records.get(ctx, rec.Task)
			if err != nil {
				return nil, &rpcError{Code: codeInternalError, Message: "Failed to cancel task: the task store failed; try again"}
			}
			next, rev = *cur, crev
			next.Cancelled, next.Updated = true, time.Now().UTC()
		}
	}
	if err := t.o.Withdraw(ctx, rec.Session, rec.Call); err != nil && !errors.Is(err, askuser.ErrAskEnded) && !errors.Is(err, askuser.ErrUnknownAsk) {
		ts.logger().Error("mcpresponder: withdrawing a task's ask failed", "task", rec.Task, "err", err)
		return nil, &rpcError{Code: codeInternalError, Message: "Failed to cancel task: the pending-ask store failed; try again"}
	}
	return ack(), nil
}

// callOf is the call a task's form is made for: the client as it was when
// it made the task (its protocol revision and what it takes of
// elicitation), and the principal of the request now (the same, or the
// task was not found).
func (ts *Tasks) callOf(rec *taskRecord, who taskCaller, meta mcp.Meta) *call {
	return &call{
		req:     who.request(rec.Tool, meta, nil),
		version: rec.Version,
		caps:    elicitCaps{declared: true, form: true, url: rec.URL},
	}
}

// readResponse reads one input response as an elicitation's reply; what
// is none is a reply that cannot be read, which the form says.
func readResponse(raw json.RawMessage) *mcp.ElicitResult {
	var res mcp.ElicitResult
	if json.Unmarshal(raw, &res) != nil || res.Action == "" {
		return &mcp.ElicitResult{Action: unreadableAction}
	}
	return &res
}

// taskKey marks the context of an ask that a task serves: its responder
// asks nothing itself, since the form goes out as the task's input
// request and the reply comes in by tasks/update.
type taskKey struct{}

func isTask(ctx context.Context) bool {
	ts, _ := ctx.Value(taskKey{}).(*Tasks)
	return ts != nil
}

// respondTask is Respond for an ask a task serves: the ask is answered
// through Orchestrator.Resume, wherever tasks/update lands, and this waits
// for it to end. An ask in this process's memory cannot outlive its
// Tasks: once they are closed nobody can reach it, and it is unattended.
func respondTask(ctx context.Context, a *askuser.Ask) error {
	ts, _ := ctx.Value(taskKey{}).(*Tasks)
	if sharedask.Is(a) {
		<-ctx.Done()
		return nil
	}
	select {
	case <-ctx.Done():
		return nil
	case <-ts.ctx.Done():
		return a.Unreachable()
	}
}

// taskWire is a task as the extension writes it.
type taskWire struct {
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          int64           `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *rpcError       `json:"error,omitempty"`
}

func (ts *Tasks) wire(rec *taskRecord, status string) *taskWire {
	return &taskWire{
		ResultType: "complete", TaskID: rec.Task, Status: status,
		CreatedAt: stamp(rec.Created), LastUpdatedAt: stamp(rec.Updated),
		TTLMs:          (rec.Expires.Sub(rec.Created) + ts.retention()).Milliseconds(),
		PollIntervalMs: ts.pollInterval().Milliseconds(),
	}
}

// stamp writes a time as the extension's ISO 8601 timestamps.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func ack() any { return map[string]string{"resultType": "complete"} }

// completeResult is a tool result as a 2026-07-28 result: resultType
// complete.
func completeResult(res *mcp.CallToolResult) any {
	data, err := json.Marshal(res)
	if err != nil {
		return map[string]any{"resultType": "complete", "content": []any{}, "isError": true}
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return map[string]any{"resultType": "complete", "content": []any{}, "isError": true}
	}
	m["resultType"] = "complete"
	return m
}

// A taskRecord is a task as it is kept beside its ask: whose it is, which
// tool call, the client it was made for, and the round of its form.
type taskRecord struct {
	V         int       `json:"v"`
	Task      string    `json:"task"` // the ask's id
	Session   string    `json:"session"`
	Principal string    `json:"principal,omitempty"`
	Tool      string    `json:"tool"`
	Call      string    `json:"call"` // askuser's tool-call id
	Version   string    `json:"version"`
	URL       bool      `json:"url,omitempty"` // the client opens links
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	Expires   time.Time `json:"expires"` // the ask's deadline
	Round     int       `json:"round"`   // the form outstanding, from 1
	Problem   string    `json:"problem,omitempty"`
	Waiting   bool      `json:"waiting,omitempty"` // no form is outstanding: the deadline decides
	Cancelled bool      `json:"cancelled,omitempty"`
}

const taskVersion = 1

// key is the input request key of the record's round: unique over the
// task's life, since a round is never shown twice under another form.
func (r *taskRecord) key() string { return "askuser-" + strconv.Itoa(r.Round) }

// A taskStore keeps task records.
type taskStore interface {
	create(ctx context.Context, rec *taskRecord) error
	get(ctx context.Context, id string) (*taskRecord, uint64, error)
	update(ctx context.Context, rec *taskRecord, rev uint64) error
}

var (
	errNoTask      = errors.New("mcpresponder: no such task")
	errTaskChanged = errors.New("mcpresponder: the task changed meanwhile")
)

// storeTasks keeps task records in the orchestrator's shared pending-ask
// store, under keys of their own, beside the asks, so that every server
// on the store serves every task.
type storeTasks struct{ st store.Pending }

func taskStoreKey(id string) string { return "mcptask." + id }

func (s *storeTasks) create(ctx context.Context, rec *taskRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = s.st.Create(ctx, taskStoreKey(rec.Task), data)
	return err
}

func (s *storeTasks) get(ctx context.Context, id string) (*taskRecord, uint64, error) {
	e, err := s.st.Get(ctx, taskStoreKey(id))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, 0, errNoTask
	case err != nil:
		return nil, 0, err
	}
	var rec taskRecord
	if err := json.Unmarshal(e.Data, &rec); err != nil || rec.V != taskVersion || rec.Task != id {
		return nil, 0, errNoTask
	}
	return &rec, e.Revision, nil
}

func (s *storeTasks) update(ctx context.Context, rec *taskRecord, rev uint64) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = s.st.Update(ctx, taskStoreKey(rec.Task), data, rev)
	if errors.Is(err, store.ErrChanged) {
		return errTaskChanged
	}
	return err
}

// memTasks keeps task records in this process's memory, as long as their
// asks are kept: until their retention has passed.
type memTasks struct {
	mu      sync.Mutex
	recs    map[string]memTask
	sweepAt int
}

type memTask struct {
	rec taskRecord
	rev uint64
}

func (m *memTasks) create(_ context.Context, rec *taskRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.recs) >= m.sweepAt {
		// Forget the tasks past their retention once the map has doubled
		// since the last sweep: amortized, a constant per task.
		now := time.Now()
		for id, t := range m.recs {
			if now.After(t.rec.Expires.Add(DefaultTaskRetention + 24*time.Hour)) {
				delete(m.recs, id)
			}
		}
		m.sweepAt = max(2*len(m.recs), 64)
	}
	if _, ok := m.recs[rec.Task]; ok {
		return store.ErrExists
	}
	m.recs[rec.Task] = memTask{rec: *rec, rev: 1}
	return nil
}

func (m *memTasks) get(_ context.Context, id string) (*taskRecord, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.recs[id]
	if !ok {
		return nil, 0, errNoTask
	}
	rec := t.rec
	return &rec, t.rev, nil
}

func (m *memTasks) update(_ context.Context, rec *taskRecord, rev uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.recs[rec.Task]
	if !ok || t.rev != rev {
		return errTaskChanged
	}
	m.recs[rec.Task] = memTask{rec: *rec, rev: rev + 1}
	return nil
}
