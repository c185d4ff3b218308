package askmcp_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/examples/askmcp"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/schema"
)

// connect starts an MCP server with ask_user answered through o, and
// connects the SDK's own client to it over in-memory transports.
func connect(t *testing.T, o *askuser.Orchestrator) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser-example", Version: "v0.0.1"}, nil)
	if err := askmcp.AddTool(server, o); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

// roundTrip encodes v and decodes it as plain JSON values.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data)
}

// TestListTools: the client sees ask_user with askuser's own schemas and
// annotations.
func TestListTools(t *testing.T) {
	cs := connect(t, &askuser.Orchestrator{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("%d tools; want 1", len(res.Tools))
	}
	got := roundTrip(t, res.Tools[0]).(map[string]any)
	want := decode(t, schema.MCP()).(map[string]any)
	for _, k := range []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"} {
		if diff := cmp.Diff(want[k], got[k]); diff != "" {
			t.Errorf("%s (-askuser +client):\n%s", k, diff)
		}
	}
}

// TestCallTool: the client calls ask_user, a scripted person picks
// production and adds a note, and the client reads the result back as
// structured content and as text.
func TestCallTool(t *testing.T) {
	o := &askuser.Orchestrator{Responder: scripted.New(
		scripted.Step{Answer: &askuser.Answer{QuestionID: "env", Selected: []string{"production"}, Note: "after 6pm"}},
		scripted.Step{End: scripted.EndSubmit},
	)}
	cs := connect(t, o)
	args := map[string]any{"questions": []any{map[string]any{
		"id": "env", "header": "Env", "question": "Deploy where?",
		"options": []any{
			map[string]any{"label": "staging", "description": "Safe to break", "default": true},
			map[string]any{"label": "production", "description": "Real users"},
		},
	}}}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("isError; content %v", roundTrip(t, res.Content))
	}
	want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null,"note":"after 6pm"}]}`
	if diff := cmp.Diff(decode(t, []byte(want)), roundTrip(t, res.StructuredContent)); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks; want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T; want text", res.Content[0])
	}
	if diff := cmp.Diff(want, text.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

// TestCallToolInvalid: askuser's decoder, not the SDK, judges the
// arguments, and the model gets askuser's message as an error result.
func TestCallToolInvalid(t *testing.T) {
	cs := connect(t, &askuser.Orchestrator{})
	args := map[string]any{"questions": []any{map[string]any{
		"header": "Env", "question": "Deploy where?", "Options": []any{},
	}}}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	want := "invalid ask_user arguments: questions[0].Options: unknown field; allowed fields: kind, id, header, question, multi_select, allow_other, options, secret_name, purpose"
	got := ""
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			got = tc.Text
		}
	}
	if !res.IsError || got != want {
		t.Errorf("isError %v, text %q; want true and %q", res.IsError, got, want)
	}
	if res.StructuredContent != nil {
		t.Errorf("structured content %v on an error result", res.StructuredContent)
	}
}
