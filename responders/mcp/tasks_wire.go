package mcpresponder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The methods of the Tasks extension.
const (
	methodGet    = "tasks/get"
	methodUpdate = "tasks/update"
	methodCancel = "tasks/cancel"
)

// maxTaskID bounds a taskId as a client sends it: an ask's id is 32 hex
// digits.
const maxTaskID = 128

// rpcMessage is the part of a JSON-RPC message Tasks reads: a request
// (ID set), or a notification.
type rpcMessage struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// parseMessage reads a frame as one JSON-RPC request or notification. It
// reports false for anything else (a response, a batch, not JSON), which
// is not Tasks' to answer.
func parseMessage(frame []byte) (*rpcMessage, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(frame, &m) != nil || m.JSONRPC != "2.0" || m.Method == nil {
		return nil, false
	}
	out := &rpcMessage{Method: *m.Method, Params: m.Params}
	if id := bytes.TrimSpace(m.ID); len(id) > 0 && !bytes.Equal(id, []byte("null")) {
		if id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
			return nil, false // an id is a string or a number
		}
		out.ID = append(json.RawMessage(nil), id...)
	}
	return out, true
}

// taskParams are a task request's params, as far as Tasks reads them.
type taskParams struct {
	TaskID    string
	Meta      mcp.Meta
	Responses map[string]json.RawMessage // tasks/update's inputResponses
}

// parseTaskParams reads the params of tasks/get, tasks/update or
// tasks/cancel. What is wrong is said as the invalid-params message: what
// the field must be.
func parseTaskParams(method string, params json.RawMessage) (*taskParams, error) {
	var p struct {
		TaskID         *string                    `json:"taskId"`
		Meta           mcp.Meta                   `json:"_meta"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, errors.New(method + ": params are missing; send an object with the taskId")
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, errors.New(method + ": params must be an object with a string taskId" + updateShape(method))
	}
	switch {
	case p.TaskID == nil:
		return nil, errors.New(method + ": params.taskId is missing; send the taskId the tools/call returned")
	case !validTaskID(*p.TaskID):
		return nil, errors.New(method + ": params.taskId is not a task id of this server: one is 1 to " + strconv.Itoa(maxTaskID) + " letters, digits, '-' or '_'")
	case method == methodUpdate && p.InputResponses == nil:
		return nil, errors.New(method + ": params.inputResponses is missing; send an object of the input request's key and the person's reply")
	}
	for k, v := range p.InputResponses {
		if len(k) > maxTaskID {
			return nil, errors.New(method + ": params.inputResponses has a key longer than " + strconv.Itoa(maxTaskID) + " bytes; the keys are those of the task's inputRequests")
		}
		if b := bytes.TrimSpace(v); len(b) == 0 || b[0] != '{' {
			// A reply that is no object is kept, to be shown as unreadable.
			p.InputResponses[k] = json.RawMessage(`{}`)
		}
	}
	return &taskParams{TaskID: *p.TaskID, Meta: p.Meta, Responses: p.InputResponses}, nil
}

func updateShape(method string) string {
	if method == methodUpdate {
		return " and an object inputResponses"
	}
	return ""
}

func validTaskID(s string) bool {
	if s == "" || len(s) > maxTaskID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// declaresTasks reports whether a request's metadata declares the Tasks
// extension among the client's capabilities.
func declaresTasks(meta mcp.Meta) bool {
	caps, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	if !ok {
		return false
	}
	ext, ok := caps["extensions"].(map[string]any)
	if !ok {
		return false
	}
	_, ok = ext[TasksExtension]
	return ok
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func rpcResult(id json.RawMessage, res any) []byte {
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, res})
	if err != nil {
		return rpcFailure(id, codeInternalError, "askuser could not encode the result", nil)
	}
	return data
}

func rpcFailure(id json.RawMessage, code int64, msg string, data any) []byte {
	out, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{Code: code, Message: msg, Data: data}})
	return out
}

// Handler serves the Tasks extension in front of next, the SDK's
// streamable HTTP handler: a POST whose body is a task request, or a
// tools/call that becomes a task, is answered here (application/json),
// and every other request goes on to next unchanged. The caller is who
// the request's verified bearer token names (auth.TokenInfoFromContext):
// mount Handler behind the token check. A body is read up to
// DefaultMaxFrame bytes; a longer one goes on to next.
func (ts *Tasks) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, DefaultMaxFrame+1))
		if err != nil {
			http.Error(w, "the request's body could not be read", http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		if len(body) > DefaultMaxFrame {
			next.ServeHTTP(w, r)
			return
		}
		reply, handled := ts.serve(r.Context(), body, taskCaller{token: auth.TokenInfoFromContext(r.Context()), header: r.Header})
		switch {
		case !handled:
			next.ServeHTTP(w, r)
		case reply == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(reply)
		}
	})
}

// Filter serves the Tasks extension in front of the SDK over
// newline-delimited JSON (standard input and output): it returns the
// reader and writer to hand IOTransport (or the SDK's own transports)
// instead of r and w. The reader takes the task requests, and the
// tools/calls that become tasks, out of what r carries and answers them
// on the writer, between the SDK's own messages; every other frame passes
// on unchanged, and so does a line longer than DefaultMaxFrame. The
// caller is the program at the other end: no principal.
func (ts *Tasks) Filter(r io.ReadCloser, w io.WriteCloser) (io.ReadCloser, io.WriteCloser) {
	lw := &lockedWriter{w: w}
	return &taskFilter{ts: ts, src: bufio.NewReaderSize(r, 64<<10), closer: r, out: lw}, lw
}

// taskFilter is Filter's reader.
type taskFilter struct {
	ts     *Tasks
	src    *bufio.Reader
	closer io.Closer
	out    io.Writer
	buf    []byte // a line being read
	long   bool   // the line being read is longer than DefaultMaxFrame: it passes
	next   []byte // what is left to hand on
	err    error
}

func (f *taskFilter) Read(p []byte) (int, error) {
	for len(f.next) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		chunk, err := f.src.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if f.long {
				f.next = append(f.next[:0], chunk...)
				continue
			}
			f.buf = append(f.buf, chunk...)
			if len(f.buf) > DefaultMaxFrame {
				f.next, f.buf, f.long = f.buf, nil, true
			}
			continue
		}
		f.err = err
		line := append(f.buf, chunk...)
		f.buf = nil
		if f.long {
			f.long = false
			f.next = line
			continue
		}
		if len(line) > 0 && len(line) <= DefaultMaxFrame+1 && f.take(line) { // +1: the newline
			continue
		}
		f.next = line
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

func (f *taskFilter) Close() error { return f.closer.Close() }

// take answers a frame that is the extension's, in a goroutine of its own
// (Close waits for it), so that a store that is slow holds back no other
// message; it reports whether it took the frame.
func (f *taskFilter) take(line []byte) bool {
	frame := bytes.TrimSpace(line)
	if !bytes.Contains(frame, []byte(`"tasks/`)) && !bytes.Contains(frame, []byte(TasksExtension)) {
		return false
	}
	m, ok := parseMessage(frame)
	if !ok || (m.Method != "tools/call" && m.Method != methodGet && m.Method != methodUpdate && m.Method != methodCancel) {
		return false
	}
	var tc *taskCall
	if m.Method == "tools/call" {
		if m.ID == nil {
			return false
		}
		if tc, ok = f.ts.taskable(m.Params, taskCaller{}); !ok {
			return false
		}
	}
	if f.ts.init() != nil || !f.ts.enter() {
		return false // the SDK answers: method not found, or the call as it is
	}
	go func() {
		defer f.ts.running.Done()
		var reply []byte
		if tc != nil {
			reply = rpcResult(m.ID, f.ts.start(f.ts.ctx, tc))
		} else {
			reply = f.ts.answer(f.ts.ctx, m, taskCaller{})
		}
		if reply != nil {
			_, _ = f.out.Write(append(reply, '\n'))
		}
	}()
	return true
}
