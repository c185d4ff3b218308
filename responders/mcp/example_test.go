package mcpresponder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// An MCP server whose ask_user asks the person through the client's
// elicitation. Here the client is the SDK's own, over in-memory
// transports, and its person picks production; a real server runs on
// &mcp.StdioTransport{} (or a streamable HTTP handler) instead.
func Example() {
	ctx := context.Background()
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil)}
	tool := &mcpresponder.Tool{Orchestrator: o}
	defer tool.Close()
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "v1"}, nil)
	if err := mcpresponder.AddTool(server, tool); err != nil {
		log.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println(req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"env": "production"}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_user", Arguments: json.RawMessage(`{
		"human_intent": "Deploying the login fix",
		"questions": [{"id": "env", "header": "Env", "question": "Deploy where?", "allow_other": false,
			"options": [{"label": "staging", "description": "Safe to break", "default": true},
			            {"label": "production", "description": "Real users"}]}],
		"timeout_seconds": 120}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Deploying the login fix
	//
	// You have 2 minutes to answer. After that the agent goes on with the recommended answers.
	// {"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}
}

// A program with its own tool handler puts the tool call on the context it
// hands to Orchestrator.Handle, so that the Responder asks through that
// call's client (before protocol revision 2026-07-28; Tool serves every
// revision).
func ExampleWithCall() {
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil)}
	server := mcp.NewServer(&mcp.Implementation{Name: "my-server", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask_user", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := o.Handle(mcpresponder.WithCall(ctx, req), askuser.Request{
				Session: "s", ToolCallID: "call-1", Arguments: req.Params.Arguments,
			})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out.Result)}}}, nil
		})
	fmt.Println("ask_user served")
	// Output: ask_user served
}
