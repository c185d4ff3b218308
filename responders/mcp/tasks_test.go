package mcpresponder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natstest"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// taskMeta is the _meta of a 2026-07-28 request of a client that takes
// form elicitation and, with ext, declares the Tasks extension.
func taskMeta(ext bool) map[string]any {
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	if ext {
		caps["extensions"] = map[string]any{mcpresponder.TasksExtension: map[string]any{}}
	}
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    v20260728,
		mcp.MetaKeyClientCapabilities: caps,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw-client", "version": "v0.0.1"},
	}
}

// A taskServer is an orchestrator serving ask_user, with Tasks in front of
// the SDK's stateless streamable handler.
type taskServer struct {
	o       *askuser.Orchestrator
	journal *memJournal
	tool    *mcpresponder.Tool
	tasks   *mcpresponder.Tasks
	handler http.Handler
}

func newTaskServer(t *testing.T, o *askuser.Orchestrator) *taskServer {
	t.Helper()
	s := &taskServer{journal: &memJournal{}}
	if o == nil {
		o = &askuser.Orchestrator{}
	}
	o.Responder, o.Journal, o.Logger = mcpresponder.New(nil), s.journal, quiet
	s.o = o
	s.tool = &mcpresponder.Tool{Orchestrator: o, ProgressInterval: -1}
	s.tasks = &mcpresponder.Tasks{Tools: []*mcpresponder.Tool{s.tool}, Logger: quiet}
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(server, s.tool); err != nil {
		t.Fatal(err)
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: quiet})
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: "user-" + tok, Expiration: time.Now().Add(time.Hour)}, nil
	}
	s.handler = auth.RequireBearerToken(verify, nil)(s.tasks.Handler(sdk))
	t.Cleanup(func() {
		s.tasks.Close()
		s.tool.Close()
		s.o.WaitResponders()
	})
	return s
}

// A rawTasks client speaks JSON-RPC to a handler, in process (through an
// httptest recorder, so that it runs in a synctest bubble) or over
// loopback HTTP.
type rawTasks struct {
	t     *testing.T
	h     http.Handler
	url   string
	token string
	ext   bool
	id    int
}

func (c *rawTasks) rpc(method string, params map[string]any) (map[string]any, map[string]any) {
	c.t.Helper()
	name, _ := params["name"].(string)
	if id, ok := params["taskId"].(string); ok {
		name = id
	}
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = taskMeta(c.ext)
	}
	c.id++
	body := mustJSON(c.t, map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	var data []byte
	if c.h != nil {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		c.header(req, method, name)
		w := httptest.NewRecorder()
		c.h.ServeHTTP(w, req)
		data = w.Body.Bytes()
	} else {
		req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
		if err != nil {
			c.t.Fatal(err)
		}
		c.header(req, method, name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			c.t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ = io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
			data = sseData(c.t, data)
		}
	}
	var reply struct {
		ID     int            `json:"id"`
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(data, &reply); err != nil {
		c.t.Fatalf("%s: the reply is not JSON-RPC: %v\n%s", method, err, data)
	}
	if reply.ID != c.id {
		c.t.Fatalf("%s: the reply's id is %d; want %d", method, reply.ID, c.id)
	}
	return reply.Result, reply.Error
}

func (c *rawTasks) header(req *http.Request, method, name string) {
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", v20260728)
	tok := c.token
	if tok == "" {
		tok = "alice"
	}
	req.Header.Set("Authorization", "Bearer "+tok)
}

// sseData is the data of the one message of an event stream.
func sseData(t *testing.T, data []byte) []byte {
	t.Helper()
	for _, line := range strings.Split(string(data), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(d)
		}
	}
	t.Fatalf("no data in the event stream:\n%s", data)
	return nil
}

// ok calls method and fails the test on a JSON-RPC error.
func (c *rawTasks) ok(method string, params map[string]any) map[string]any {
	c.t.Helper()
	res, rerr := c.rpc(method, params)
	if rerr != nil {
		c.t.Fatalf("%s: JSON-RPC error %v", method, rerr)
	}
	return res
}

// create calls ask_user with args and returns the task it made.
func (c *rawTasks) create(args string) map[string]any {
	c.t.Helper()
	res := c.ok("tools/call", map[string]any{"name": "ask_user", "arguments": json.RawMessage(args)})
	if res["resultType"] != "task" {
		c.t.Fatalf("tools/call: %s; want a task (resultType task)", mustJSON(c.t, res))
	}
	return res
}

func (c *rawTasks) get(task string) map[string]any {
	c.t.Helper()
	return c.ok("tasks/get", map[string]any{"taskId": task})
}

func (c *rawTasks) update(task, key string, reply map[string]any) {
	c.t.Helper()
	res := c.ok("tasks/update", map[string]any{"taskId": task, "inputResponses": map[string]any{key: reply}})
	if diff := cmp.Diff(map[string]any{"resultType": "complete"}, res); diff != "" {
		c.t.Errorf("tasks/update's acknowledgement (-want +got):\n%s", diff)
	}
}

// inputRequest checks that a task is input_required with one form
// elicitation, and returns its key and params.
func inputRequest(t *testing.T, task map[string]any) (string, map[string]any) {
	t.Helper()
	if task["status"] != "input_required" || task["resultType"] != "complete" {
		t.Fatalf("task: %s; want status input_required, resultType complete", mustJSON(t, task))
	}
	reqs, _ := task["inputRequests"].(map[string]any)
	if len(reqs) != 1 {
		t.Fatalf("inputRequests: %s; want one", mustJSON(t, task["inputRequests"]))
	}
	for k, v := range reqs {
		r, _ := v.(map[string]any)
		p, _ := r["params"].(map[string]any)
		if r["method"] != "elicitation/create" || p["mode"] != "form" || p["requestedSchema"] == nil {
			t.Fatalf("input request %s: %s; want a form elicitation", k, mustJSON(t, r))
		}
		return k, p
	}
	return "", nil
}

// completed checks that a task is completed and returns its tool result's
// structured content.
func completed(t *testing.T, task map[string]any) map[string]any {
	t.Helper()
	if task["status"] != "completed" {
		t.Fatalf("task: %s; want completed", mustJSON(t, task))
	}
	res, _ := task["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc == nil || res["isError"] == true {
		t.Fatalf("the task's result: %s; want the tool's result with structuredContent", mustJSON(t, res))
	}
	return sc
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	if diff := cmp.Diff(decodeJSON(t, want), decodeJSON(t, string(mustJSON(t, got)))); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// TestTaskRoundTrip: over loopback HTTP, a client that declares the
// extension gets a task for its call, polls it to input_required, sends
// the person's reply by tasks/update and polls the task to completed,
// with the tool's result; the ask is journaled once. A call without the
// extension still goes to the SDK (the multi round-trip input request).
func TestTaskRoundTrip(t *testing.T) {
	s := newTaskServer(t, nil)
	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	c := &rawTasks{t: t, url: hs.URL + "/mcp", ext: true}

	created := c.create(deployCall)
	task, _ := created["taskId"].(string)
	if len(task) != 32 || created["status"] != "working" || created["pollIntervalMs"] != 2000.0 ||
		created["ttlMs"] != float64((120*time.Second+mcpresponder.DefaultTaskRetention).Milliseconds()) ||
		created["createdAt"] == nil || created["lastUpdatedAt"] == nil {
		t.Errorf("the task: %s; want a 32-digit taskId, status working, pollIntervalMs 2000, ttlMs the timeout plus the retention", mustJSON(t, created))
	}
	pending := s.o.Pending("mcp")
	if len(pending) != 1 || pending[0].AskID != task {
		t.Fatalf("pending: %s; want the one ask, whose id is the task's", mustJSON(t, pending))
	}
	key, p := inputRequest(t, c.get(task))
	if key != "askuser-1" || !strings.Contains(p["message"].(string), "You have 2 minutes to answer") {
		t.Errorf("input request %s: %s; want askuser-1, the form's message", key, mustJSON(t, p))
	}
	wantJSON(t, "the form", p["requestedSchema"], `{"type":"object","properties":{"env":{"type":"string","title":"Env","description":"Deploy where?",
		"oneOf":[{"const":"staging","title":"staging — Safe to break"},{"const":"production","title":"production — Real users"}],"default":"staging"},
		"env_other":{"type":"string","title":"Something else","description":"Your own answer to: Deploy where?"}}}`)
	c.update(task, key, map[string]any{"action": "accept", "content": map[string]any{"env": "production"}})
	var done map[string]any
	for range 100 { // the reply is acted on at once; the finalization may take a moment
		if done = c.get(task); done["status"] == "completed" {
			break
		}
		if done["status"] != "working" && done["status"] != "input_required" {
			t.Fatalf("task after the reply: %s", mustJSON(t, done))
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantJSON(t, "the task's result", completed(t, done), answeredProduction)
	s.o.WaitResponders()
	if recs := s.journal.records(); len(recs) != 1 || recs[0].AskID != task {
		t.Errorf("journal: %s; want one record, of the task's ask", mustJSON(t, recs))
	}

	// Without the extension: the SDK's multi round-trip.
	plain := &rawTasks{t: t, url: hs.URL + "/mcp"}
	res := plain.ok("tools/call", map[string]any{"name": "ask_user", "arguments": json.RawMessage(deployCall)})
	if res["resultType"] != "input_required" || res["requestState"] == nil {
		t.Errorf("a call without the extension: %s; want the SDK's input request", mustJSON(t, res))
	}
}

// TestTaskBadUpdate: a reply that does not fit the form is no answer: the
// next input request has a new key and says what was wrong, naming the
// question and what it takes; a response to the old key is ignored; after
// the third such reply no form is outstanding, and the deadline decides.
func TestTaskBadUpdate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTaskServer(t, nil)
		c := &rawTasks{t: t, h: s.handler, ext: true}
		task := c.create(deployCall)["taskId"].(string)
		key, _ := inputRequest(t, c.get(task))
		c.update(task, key, map[string]any{"action": "accept", "content": map[string]any{"env": "qa"}})
		key2, p := inputRequest(t, c.get(task))
		msg, _ := p["message"].(string)
		if key2 != "askuser-2" || !strings.HasPrefix(msg, `Your last answer could not be used: Env: `) || !strings.Contains(msg, `"staging", "production"`) {
			t.Errorf("after a bad reply: %s %q; want askuser-2, naming the field and what it takes", key2, msg)
		}
		c.update(task, key, map[string]any{"action": "accept", "content": map[string]any{"env": "production"}})
		if k, _ := inputRequest(t, c.get(task)); k != "askuser-2" {
			t.Errorf("a reply to an old key was taken: the key is %s; want askuser-2 still", k)
		}
		c.update(task, key2, map[string]any{"action": "accept", "content": []any{"not", "an", "object"}})
		key3, p := inputRequest(t, c.get(task))
		if msg, _ := p["message"].(string); key3 != "askuser-3" || !strings.Contains(msg, "the reply could not be read") {
			t.Errorf("after an unreadable reply: %s %q; want askuser-3, saying it could not be read", key3, msg)
		}
		c.update(task, key3, map[string]any{"action": "accept", "content": map[string]any{"nope": true}})
		if got := c.get(task); got["status"] != "working" || got["inputRequests"] != nil {
			t.Errorf("after the third bad reply: %s; want working, no input request", mustJSON(t, got))
		}
		time.Sleep(121 * time.Second)
		synctest.Wait()
		wantJSON(t, "the result at the deadline", completed(t, c.get(task)),
			`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
	})
}

// TestTaskCancel: tasks/cancel withdraws the ask: the task is cancelled,
// and the journal says nobody answered (superseded).
func TestTaskCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTaskServer(t, nil)
		c := &rawTasks{t: t, h: s.handler, ext: true}
		task := c.create(deployCall)["taskId"].(string)
		if res := c.ok("tasks/cancel", map[string]any{"taskId": task}); res["resultType"] != "complete" || len(res) != 1 {
			t.Errorf("tasks/cancel: %s; want an empty acknowledgement", mustJSON(t, res))
		}
		synctest.Wait()
		if got := c.get(task); got["status"] != "cancelled" || got["result"] != nil {
			t.Errorf("after tasks/cancel: %s; want cancelled", mustJSON(t, got))
		}
		s.o.WaitResponders()
		recs := s.journal.records()
		if len(recs) != 1 || recs[0].Reason != askuser.ReasonSuperseded || recs[0].AnsweredBy != askuser.ByUnattended {
			t.Errorf("journal: %s; want one record, superseded, unattended", mustJSON(t, recs))
		}
		// Cancelling again changes nothing.
		c.ok("tasks/cancel", map[string]any{"taskId": task})
		if got := c.get(task); got["status"] != "cancelled" {
			t.Errorf("after a second tasks/cancel: %s; want cancelled", mustJSON(t, got))
		}
	})
}

// TestTaskDeadline: a task nobody answers completes at its ask's
// deadline, the recommended option applied.
func TestTaskDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTaskServer(t, nil)
		c := &rawTasks{t: t, h: s.handler, ext: true}
		task := c.create(deployCall)["taskId"].(string)
		time.Sleep(119 * time.Second)
		inputRequest(t, c.get(task))
		time.Sleep(time.Second)
		synctest.Wait()
		wantJSON(t, "the result at the deadline", completed(t, c.get(task)),
			`{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`)
		// Past the retention the task is gone.
		time.Sleep(mcpresponder.DefaultTaskRetention)
		if _, rerr := c.rpc("tasks/get", map[string]any{"taskId": task}); rerr == nil || rerr["code"] != -32602.0 ||
			!strings.Contains(rerr["message"].(string), "Task has expired") {
			t.Errorf("tasks/get past the retention: %v; want -32602, expired", rerr)
		}
	})
}

// TestTaskRefused: a task request of a client that does not declare the
// extension is refused with -32021; an unknown task, a task of another
// principal and malformed params with -32602 saying what is wrong.
func TestTaskRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTaskServer(t, nil)
		c := &rawTasks{t: t, h: s.handler, ext: true}
		task := c.create(deployCall)["taskId"].(string)
		for _, tc := range []struct {
			name   string
			client *rawTasks
			method string
			params map[string]any
			code   float64
			msg    string
		}{
			{"no extension", &rawTasks{t: t, h: s.handler}, "tasks/get", map[string]any{"taskId": task}, -32021, "Missing required client capability"},
			{"unknown", c, "tasks/get", map[string]any{"taskId": strings.Repeat("0", 32)}, -32602, "Task not found"},
			{"another principal", &rawTasks{t: t, h: s.handler, ext: true, token: "mallory"}, "tasks/get", map[string]any{"taskId": task}, -32602, "Task not found"},
			{"another principal cancels", &rawTasks{t: t, h: s.handler, ext: true, token: "mallory"}, "tasks/cancel", map[string]any{"taskId": task}, -32602, "Task not found"},
			{"no taskId", c, "tasks/get", map[string]any{}, -32602, "params.taskId is missing"},
			{"bad taskId", c, "tasks/get", map[string]any{"taskId": "../x"}, -32602, "letters, digits, '-' or '_'"},
			{"number taskId", c, "tasks/update", map[string]any{"taskId": 7, "inputResponses": map[string]any{}}, -32602, "string taskId"},
			{"no inputResponses", c, "tasks/update", map[string]any{"taskId": task}, -32602, "params.inputResponses is missing"},
		} {
			_, rerr := tc.client.rpc(tc.method, tc.params)
			if rerr == nil || rerr["code"] != tc.code || !strings.Contains(rerr["message"].(string), tc.msg) {
				t.Errorf("%s: %v; want code %v, %q", tc.name, rerr, tc.code, tc.msg)
			}
		}
		inputRequest(t, c.get(task)) // still there, for its own caller
	})
}

// TestTaskOtherServer: two servers on one JetStream serve one task: made
// on the first, which then goes away, it is polled, answered and
// completed on the second, and journaled once.
func TestTaskOtherServer(t *testing.T) {
	st := natstest.Open(t, natsstore.Config{Prefix: "tasks"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	newServer := func() *taskServer {
		o := &askuser.Orchestrator{Asks: st.Asks()}
		t.Cleanup(func() { o.Close() })
		s := newTaskServer(t, o)
		if err := o.Ready(ctx); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := newServer(), newServer()
	ca := &rawTasks{t: t, h: a.handler, ext: true}
	cb := &rawTasks{t: t, h: b.handler, ext: true}

	task := ca.create(deployCall)["taskId"].(string)
	if k, _ := inputRequest(t, cb.get(task)); k != "askuser-1" {
		t.Errorf("the second server's input request is %s; want askuser-1", k)
	}
	// The first server goes away; its ask stays pending in the store.
	a.tasks.Close()
	a.tool.Close()
	a.o.Close()
	cb.update(task, "askuser-1", map[string]any{"action": "accept", "content": map[string]any{"env": "qa"}})
	key, _ := inputRequest(t, cb.get(task))
	if key != "askuser-2" {
		t.Errorf("after a bad reply on the second server the key is %s; want askuser-2", key)
	}
	cb.update(task, key, map[string]any{"action": "accept", "content": map[string]any{"env": "production"}})
	var done map[string]any
	for range 500 {
		if done = cb.get(task); done["status"] == "completed" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantJSON(t, "the task's result", completed(t, done), answeredProduction)
	b.o.WaitResponders()
	b.o.Close() // the journal record follows the final result; Close waits for it
	if ra, rb := a.journal.records(), b.journal.records(); len(ra)+len(rb) != 1 {
		t.Errorf("journals: %d and %d records; want one in all", len(ra), len(rb))
	}
}

// TestTaskStdio: over standard input and output, Filter answers the task
// requests between the SDK's own messages, which pass on.
func TestTaskStdio(t *testing.T) {
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil), Logger: quiet}
	tool := &mcpresponder.Tool{Orchestrator: o, ProgressInterval: -1}
	tasks := &mcpresponder.Tasks{Tools: []*mcpresponder.Tool{tool}, Logger: quiet}
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(server, tool); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r, w := tasks.Filter(inR, outW)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- server.Run(ctx, &mcpresponder.IOTransport{Reader: r, Writer: w, Logger: quiet}) }()
	defer func() {
		cancel()
		inW.Close()
		<-ran
		tasks.Close()
		tool.Close()
		o.WaitResponders()
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		dec := json.NewDecoder(outR)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(lines)
				return
			}
			lines <- m
		}
	}()
	var mu sync.Mutex
	id := 0
	send := func(method string, params map[string]any) map[string]any {
		t.Helper()
		mu.Lock()
		id++
		n := id
		mu.Unlock()
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = taskMeta(true)
		if _, err := inW.Write(append(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": n, "method": method, "params": params}), '\n')); err != nil {
			t.Fatal(err)
		}
		m := <-lines
		if m["id"] != float64(n) || m["error"] != nil {
			t.Fatalf("%s: %s; want the result of request %d", method, mustJSON(t, m), n)
		}
		res, _ := m["result"].(map[string]any)
		return res
	}
	created := send("tools/call", map[string]any{"name": "ask_user", "arguments": json.RawMessage(deployCall)})
	task, _ := created["taskId"].(string)
	if created["resultType"] != "task" || task == "" {
		t.Fatalf("tools/call: %s; want a task", mustJSON(t, created))
	}
	if res := send("tools/list", nil); res["tools"] == nil {
		t.Errorf("tools/list, answered by the SDK: %s; want the tools", mustJSON(t, res))
	}
	key, _ := inputRequest(t, send("tasks/get", map[string]any{"taskId": task}))
	send("tasks/update", map[string]any{"taskId": task, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"env": "production"}}}})
	var done map[string]any
	for range 100 {
		if done = send("tasks/get", map[string]any{"taskId": task}); done["status"] == "completed" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantJSON(t, "the task's result", completed(t, done), answeredProduction)
}

// TestTaskNotForSecrets: a call with a secret question is no task: it
// goes to the SDK, which answers it as the tool does (declined, without a
// card).
func TestTaskNotForSecrets(t *testing.T) {
	s := newTaskServer(t, nil)
	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	c := &rawTasks{t: t, url: hs.URL + "/mcp", ext: true}
	res := c.ok("tools/call", map[string]any{"name": "ask_user", "arguments": json.RawMessage(secretCall)})
	if res["resultType"] == "task" {
		t.Fatalf("a secret question became a task: %s", mustJSON(t, res))
	}
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["status"] != "declined" {
		t.Errorf("a secret question without a card: %s; want declined", mustJSON(t, res))
	}
}
