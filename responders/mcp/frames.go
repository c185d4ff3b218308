package mcpresponder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bounds of one frame (a line of newline-delimited JSON) that
// IOTransport hands the SDK.
const (
	// DefaultMaxFrame is the longest frame IOTransport takes by default,
	// as askuser's command takes a request's body over HTTP.
	DefaultMaxFrame = 1 << 20
	// MaxFrameDepth is how deep a frame may nest objects and arrays: the
	// SDK's own bound, past which it would end the connection.
	MaxFrameDepth = 1000
)

// The JSON-RPC error codes of a refused frame.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// unreadableAction stands in for an input response the SDK could not read
// as a result (see RepairFrame); the Tool reads it as a reply that does not
// fit the form.
const unreadableAction = "askuser/unreadable"

// An IOTransport is the SDK's mcp.IOTransport (newline-delimited JSON,
// as over standard input and output) with every frame checked before the
// SDK reads it. The SDK ends the connection, and with it every pending
// ask, on a frame it cannot read; IOTransport answers such a frame with a
// JSON-RPC error of its own instead, and reads on:
//
//   - a frame longer than MaxFrame bytes, or nested deeper than
//     MaxFrameDepth, is refused as an invalid request (-32600);
//   - a frame that is not JSON is refused as a parse error (-32700);
//   - a frame that is not one JSON-RPC message (a batch, which MCP has
//     not had since 2025-06-18, or an object that is no request, response
//     or notification) is refused as an invalid request;
//   - a tools/call retry whose input responses the SDK could not read as
//     results is passed on with those responses marked unreadable
//     (RepairFrame), so that the Tool shows the form again instead of the
//     SDK refusing the call.
//
// A refusal carries the frame's id, read from as much of the frame as can
// be read. A frame whose id cannot be read is not answered but logged: the
// MCP schema has no error response without an id, and the SDK's own
// client ends its connection on one. Blank lines are skipped.
type IOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxFrame is the longest frame taken, in bytes, without its newline
	// (zero: DefaultMaxFrame).
	MaxFrame int
	// Logger receives the refusals of frames whose id cannot be read (nil:
	// slog.Default()). Nothing of a frame's content is logged.
	Logger *slog.Logger
}

// Connect implements mcp.Transport.
func (t *IOTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	max := t.MaxFrame
	if max <= 0 {
		max = DefaultMaxFrame
	}
	w := &lockedWriter{w: t.Writer}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	fr := &frameReader{src: bufio.NewReaderSize(t.Reader, 64<<10), out: w, max: max, logger: logger}
	inner := &mcp.IOTransport{Reader: readCloser{fr, t.Reader}, Writer: w, MaxLineLength: -1}
	return inner.Connect(ctx)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// lockedWriter serializes writes: the SDK writes one whole message per
// Write, and so does a refusal, so that neither cuts into the other.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// frameReader hands the SDK the frames that pass checkFrame, each with its
// newline, and answers the others.
type frameReader struct {
	src    *bufio.Reader
	out    io.Writer
	max    int
	logger *slog.Logger
	next   []byte // what is left of the frame being handed over
	err    error
}

func (r *frameReader) Read(p []byte) (int, error) {
	for len(r.next) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, long, err := r.line()
		r.err = err
		if long {
			r.refuse(frameID(line), codeInvalidRequest, "the frame is longer than "+strconv.Itoa(r.max)+" bytes; send a message of at most that, on one line")
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		frame, id, code, msg := checkFrame(line)
		if msg != "" {
			r.refuse(id, code, msg)
			continue
		}
		r.next = append(frame, '\n')
	}
	n := copy(p, r.next)
	r.next = r.next[n:]
	return n, nil
}

// idPrefix is how much of a frame that is too long is kept to read its id.
const idPrefix = 4 << 10

// line reads the next line, without its newline; long reports a line
// longer than max, which is read to its end and dropped but for its first
// idPrefix bytes.
func (r *frameReader) line() (line []byte, long bool, err error) {
	var buf []byte
	for {
		chunk, err := r.src.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > r.max+1 { // +1: the newline
				long = true
				buf = append(buf, chunk...)[:min(idPrefix, len(buf)+len(chunk))]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if long {
			if err == nil {
				return buf, true, nil
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return buf, true, err
		}
		switch {
		case err == nil:
			return bytes.TrimRight(buf, "\r\n"), long, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0 && !long:
			return buf, false, nil // the last frame may lack its newline
		}
		return nil, long, err
	}
}

// refuse answers a frame with a JSON-RPC error; id is the frame's, or nil
// where it cannot be read, and then the refusal is only logged.
func (r *frameReader) refuse(id json.RawMessage, code int, msg string) {
	if id == nil {
		r.logger.Warn("mcpresponder: refused a frame whose id cannot be read, without an answer", "code", code, "why", msg)
		return
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: "askuser: " + msg}})
	if err != nil {
		return
	}
	_, _ = r.out.Write(append(data, '\n'))
}

// checkFrame checks one frame: it returns the frame to hand the SDK (see
// RepairFrame), or the id, code and message of its refusal.
func checkFrame(line []byte) (frame, id json.RawMessage, code int, msg string) {
	if tooDeep(line, MaxFrameDepth) {
		return nil, frameID(line), codeInvalidRequest, "the frame nests objects and arrays deeper than " + strconv.Itoa(MaxFrameDepth) + " levels; send a message nested less deeply"
	}
	if !json.Valid(line) {
		return nil, frameID(line), codeParseError, "the frame is not JSON; send one JSON-RPC message per line"
	}
	if b := bytes.TrimLeft(line, " \t\r"); len(b) > 0 && b[0] == '[' {
		return nil, nil, codeInvalidRequest, "the frame is a batch; send one JSON-RPC message per line (MCP has no batches since 2025-06-18)"
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return nil, frameID(line), codeInvalidRequest, "the frame is not a JSON-RPC request, response or notification"
	}
	return RepairFrame(line), nil, 0, ""
}

// tooDeep reports whether data nests objects and arrays deeper than max,
// counted as the SDK counts (strings skipped).
func tooDeep(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// frameID reads the id of a frame that is a JSON object, when it is a
// string or a number; else it returns nil. It reads as far as the frame
// can be read, so that the id of a frame cut short or broken after it is
// found.
func frameID(line []byte) json.RawMessage {
	d := jsontext.NewDecoder(bytes.NewReader(line))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return nil
		}
		if name.String() != "id" {
			if d.SkipValue() != nil {
				return nil
			}
			continue
		}
		v, err := d.ReadValue()
		if err != nil || (v.Kind() != '"' && v.Kind() != '0') {
			return nil
		}
		return json.RawMessage(bytes.Clone(v))
	}
	return nil
}

// RepairFrame returns a JSON-RPC frame as it is, unless it is a tools/call
// whose inputResponses the SDK could not read as results — an elicitation
// reply whose content is not an object, say —, which it would refuse
// whole with a JSON-RPC error before the tool sees it. Then each response
// it cannot read (or, when inputResponses is not an object, the reply to
// the Tool's input request) is replaced by one that the Tool reads as a
// reply that does not fit the form, so that the person is shown the form
// again, as for any other such reply. IOTransport applies it to every
// frame; askuser's command applies it to each request's body over HTTP.
func RepairFrame(frame []byte) []byte {
	if !bytes.Contains(frame, []byte(`"inputResponses"`)) {
		return frame
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(frame, &msg) != nil || string(msg["method"]) != `"tools/call"` {
		return frame
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil {
		return frame
	}
	raw, ok := params["inputResponses"]
	if !ok {
		return frame
	}
	var probe mcp.InputResponseMap
	if json.Unmarshal(raw, &probe) == nil {
		return frame // the SDK reads it
	}
	unreadable := json.RawMessage(`{"action":"` + unreadableAction + `"}`)
	var responses map[string]json.RawMessage
	if json.Unmarshal(raw, &responses) != nil {
		responses = map[string]json.RawMessage{inputKey: unreadable}
	}
	for k, v := range responses {
		var one mcp.InputResponseMap
		if json.Unmarshal([]byte(`{"k":`+string(v)+`}`), &one) != nil {
			responses[k] = unreadable
		}
	}
	var err error
	if params["inputResponses"], err = json.Marshal(responses); err != nil {
		return frame
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return frame
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return frame
	}
	return out
}
