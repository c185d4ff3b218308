package mcpresponder_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/journal"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// The protocol revisions the tests run on: the two before multi round-trip
// (one without titled options and arrays, one with), and 2026-07-28.
const (
	v20250618 = "2025-06-18"
	v20251125 = "2025-11-25"
	v20260728 = "2026-07-28"
)

var generations = []string{v20250618, v20251125, v20260728}

// memJournal keeps every record the orchestrator writes.
type memJournal struct {
	mu   sync.Mutex
	recs []*journal.Record
}

func (j *memJournal) Append(_ context.Context, sr store.Record) error {
	r, derr := journal.Decode(sr.Data)
	if derr != nil {
		return derr
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.recs = append(j.recs, r)
	return nil
}

func (j *memJournal) records() []*journal.Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]*journal.Record(nil), j.recs...)
}

// A rig is one MCP server serving ask_user through a Tool, and a client of
// the SDK's own connected to it over in-memory transports.
type rig struct {
	tool    *mcpresponder.Tool
	o       *askuser.Orchestrator
	journal *memJournal
	server  *mcp.Server
	cs      *mcp.ClientSession
}

// rigOptions configures a rig.
type rigOptions struct {
	version   string                   // the protocol revision the client asks for
	client    *mcp.ClientOptions       // the client's options (its elicitation handler)
	responder *mcpresponder.Options    // the responder's options
	tool      func(*mcpresponder.Tool) // changes to the Tool before it serves
	dialect   askuser.Dialect
}

// newRig starts a server and connects a client; everything is closed when
// the test ends.
func newRig(t *testing.T, ro rigOptions) *rig {
	t.Helper()
	r := &rig{journal: &memJournal{}}
	r.o = &askuser.Orchestrator{Secrets: secretstore.NewMemory(nil), Consents: &store.MemoryConsents{}, Responder: mcpresponder.New(ro.responder), Journal: r.journal, Logger: quiet}
	r.tool = &mcpresponder.Tool{Orchestrator: r.o, Dialect: ro.dialect, ProgressInterval: -1}
	if ro.tool != nil {
		ro.tool(r.tool)
	}
	r.server = mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
	if err := mcpresponder.AddTool(r.server, r.tool); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.tool.Close()
		r.o.WaitResponders()
	})
	r.cs = connect(t, r.server, ro.version, ro.client)
	return r
}

// connect connects a client of the SDK's own to server over in-memory
// transports, on the given protocol revision.
func connect(t *testing.T, server *mcp.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &o)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("the client speaks %s with the server; want %s", got, version)
	}
	return cs
}

// call calls ask_user with args, a JSON object.
func (r *rig) call(t *testing.T, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

// structured returns a result's structured content as plain JSON values,
// and checks that its text says the same.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("an error result: %s", text(res))
	}
	var m map[string]any
	if err := json.Unmarshal(mustJSON(t, res.StructuredContent), &m); err != nil {
		t.Fatal(err)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Fatalf("the text is not the result's JSON: %v\n%s", err, text(res))
	}
	if diff := cmp.Diff(m, fromText); diff != "" {
		t.Errorf("structured content and text differ (-structured +text):\n%s", diff)
	}
	return m
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	return v
}

// wantResult compares a result's structured content with the JSON want.
func wantResult(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if diff := cmp.Diff(decodeJSON(t, want), any(structured(t, res))); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// deployCall asks where to deploy, staging recommended, with free text.
const deployCall = `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
	{"label":"staging","description":"Safe to break","default":true},
	{"label":"production","description":"Real users"}]}],"timeout_seconds":120}`

// mixedCall asks a multi-select, a closed choice and a text question.
const mixedCall = `{"questions":[
	{"id":"checks","header":"Checks","question":"Which checks?","multi_select":true,"allow_other":false,"options":[
		{"label":"lint","description":"Linters","default":true},
		{"label":"unit","description":"Unit tests","default":true},
		{"label":"e2e","description":"Browser tests"}]},
	{"id":"when","header":"When","question":"Deploy when?","allow_other":false,"options":[
		{"label":"now","description":"Right away"},
		{"label":"tonight","description":"After 6pm","default":true}]},
	{"id":"note","kind":"text","header":"Note","question":"Anything to tell the team?"}],"timeout_seconds":120}`

// secretCall asks for a credential.
const secretCall = `{"questions":[{"kind":"secret","id":"token","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to deploy the login fix"}],"timeout_seconds":120}`

// accepting returns an elicitation handler that records each request and
// answers with the replies in turn (the last one for ever after).
type handler struct {
	mu       sync.Mutex
	requests []*mcp.ElicitParams
	replies  []func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

func (h *handler) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	h.mu.Lock()
	h.requests = append(h.requests, req.Params)
	n := len(h.requests)
	f := h.replies[min(n, len(h.replies))-1]
	h.mu.Unlock()
	return f(ctx, req)
}

func (h *handler) seen() []*mcp.ElicitParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), h.requests...)
}

func reply(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}
}

func answering(replies ...func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*handler, *mcp.ClientOptions) {
	h := &handler{replies: replies}
	return h, &mcp.ClientOptions{ElicitationHandler: h.handle}
}
