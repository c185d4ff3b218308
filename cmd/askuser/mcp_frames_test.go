package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawLine is a line the server sent on standard output, read as JSON-RPC.
type rawLine struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// tap passes the server's output to the SDK's client and hands the test
// each line that answers a frame the test wrote itself (an id "raw-…").
type tap struct {
	r       io.Reader
	pending []byte
	lines   chan rawLine
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.pending = append(t.pending, p[:n]...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			break
		}
		var l rawLine
		if json.Unmarshal(t.pending[:i], &l) == nil && bytes.HasPrefix(l.ID, []byte(`"raw-`)) {
			t.lines <- l
		}
		t.pending = t.pending[i+1:]
	}
	return n, err
}

// inject writes the client's frames and the test's own, whole, one at a
// time; it keeps the client's last tools/call frame.
type inject struct {
	mu       sync.Mutex
	w        io.WriteCloser
	lastCall []byte
}

func (in *inject) Write(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if bytes.Contains(p, []byte(`"tools/call"`)) {
		in.lastCall = bytes.Clone(bytes.TrimSpace(p))
	}
	return in.w.Write(p)
}

func (in *inject) Close() error { return in.w.Close() }

func (in *inject) raw(t *testing.T, line string) {
	t.Helper()
	if _, err := in.Write([]byte(line + "\n")); err != nil {
		t.Fatalf("writing a frame: %v", err)
	}
}

// stdioInProcess runs `askuser mcp args…` in process over pipes and
// connects the SDK's own client to it; the test writes frames of its own
// beside the client's (inject) and reads the answers to them (tap.lines).
func stdioInProcess(t *testing.T, version string, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *inject, *tap) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exited := make(chan int, 1)
	var stderr mcpStderr
	go func() {
		exited <- run(ctx, append([]string{"mcp"}, args...), inR, outW, &stderr)
		outW.Close()
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("askuser mcp's standard error:\n%s", stderr.String())
		}
	})
	in := &inject{w: inW}
	tp := &tap{r: outR, lines: make(chan rawLine, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, opts)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(tp), Writer: in}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to askuser mcp: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		inW.Close()
		select {
		case code := <-exited:
			if code != exitOK {
				t.Errorf("askuser mcp exited %d; want 0 when stopped", code)
			}
		case <-time.After(time.Minute): // a bound on a hang, not a timing assertion
			t.Error("askuser mcp did not stop")
		}
	})
	return cs, in, tp
}

// next returns the server's next answer to a frame of the test's.
func (t *tap) next(tb testing.TB) rawLine {
	tb.Helper()
	select {
	case l := <-t.lines:
		return l
	case <-time.After(time.Minute): // a bound on a hang, not a timing assertion
		tb.Fatal("askuser mcp answered nothing")
	}
	return rawLine{}
}

// TestMCPStdioBadFrames: frames the SDK cannot read — nested deeper than
// 1,000 levels, longer than the frame cap, not JSON, a batch — are each
// refused with a JSON-RPC error, and askuser mcp stays up: the ask pending
// meanwhile is answered. (The SDK's own transport ends the connection, and
// every pending ask with it, on the first of them.)
func TestMCPStdioBadFrames(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		entered <- struct{}{}
		<-release
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
	}}
	cs, in, tp := stdioInProcess(t, "2025-11-25", opts)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // on a failure too, so that the client can close
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(mcpDeployCall)})
		if err != nil {
			t.Errorf("the pending ask's call failed: %v", err)
		}
		called <- res
	}()
	<-entered // the ask is pending: the form is shown

	deep := `{"jsonrpc":"2.0","id":"raw-1","method":"tools/list","params":{"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`
	long := `{"jsonrpc":"2.0","id":"raw-2","method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	for _, c := range []struct {
		name, frame, id string
		code            int
		says            string
	}{
		{"nested deeper than 1000", deep, `"raw-1"`, -32600, "deeper than 1000 levels"},
		{"longer than the cap", long, `"raw-2"`, -32600, "longer than 1048576 bytes"},
		{"not JSON", `{"jsonrpc":"2.0","id":"raw-3",`, `"raw-3"`, -32700, "not JSON"},
		{"no JSON-RPC message", `{"id":"raw-5","hello":1}`, `"raw-5"`, -32600, "not a JSON-RPC"},
		// A batch has no one id to answer: it is refused, and only logged.
		{"a batch, then a frame that is answered", `[{"jsonrpc":"2.0","id":"raw-4","method":"ping"}]` + "\n" + `{"jsonrpc":"2.0","id":"raw-6",`, `"raw-6"`, -32700, "not JSON"},
	} {
		in.raw(t, c.frame)
		l := tp.next(t)
		if string(l.ID) != c.id || l.Error == nil || l.Error.Code != c.code || !strings.Contains(l.Error.Message, c.says) {
			t.Errorf("%s: answered id %s, error %+v; want id %s, code %d, saying %q", c.name, l.ID, l.Error, c.id, c.code, c.says)
		}
	}
	free()
	res := <-called
	if res == nil {
		t.Fatal("the pending ask got no result: askuser mcp went down")
	}
	resultJSON(t, res, `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`)
	// And it still takes calls.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Errorf("tools/list after the bad frames: %v", err)
	}
}

// TestMCPStdioContentArray: a 2026-07-28 retry whose reply's content is an
// array (the SDK cannot read it as a reply, and would refuse the whole
// call with a JSON-RPC error) gets the form again, saying the reply could
// not be read: never a JSON-RPC error, as docs/mcp.md says.
func TestMCPStdioContentArray(t *testing.T) {
	opts := &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	}
	cs, in, tp := stdioInProcess(t, "2026-07-28", opts)
	first := callTool(t, cs, "ask_user", mcpDeployCall)
	if first.RequestState == "" || len(first.InputRequests) == 0 {
		t.Fatalf("the first call returned no input request: %+v", first)
	}
	in.mu.Lock()
	var call map[string]any
	err := json.Unmarshal(in.lastCall, &call)
	in.mu.Unlock()
	if err != nil {
		t.Fatalf("the client's tools/call frame: %v", err)
	}
	call["id"] = "raw-1"
	params := call["params"].(map[string]any)
	params["requestState"] = first.RequestState
	params["inputResponses"] = map[string]any{"askuser": map[string]any{"action": "accept", "content": []any{"production"}}}
	frame, _ := json.Marshal(call)
	in.raw(t, string(frame))
	l := tp.next(t)
	if l.Error != nil {
		t.Fatalf("the retry got JSON-RPC error %d %q; want the form again", l.Error.Code, l.Error.Message)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(l.Result, &res); err != nil {
		t.Fatal(err)
	}
	p, ok := res.InputRequests["askuser"].(*mcp.ElicitParams)
	if !ok || res.RequestState == "" || res.RequestState == first.RequestState {
		t.Fatalf("the retry's result %s; want the form again with a new requestState", l.Result)
	}
	if !strings.HasPrefix(p.Message, "Your last answer could not be used: the reply could not be read") {
		t.Errorf("the form's message %q does not say the reply could not be read", p.Message)
	}
}
