package mcpresponder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/askusertool"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
)

// request_approval served beside ask_user, through one orchestrator: the
// model has somewhere to put permission questions. The client's person
// sees the approval in words above a form, and approves it.
func ExampleTool_approval() {
	ctx := context.Background()
	o := &askuser.Orchestrator{Responder: mcpresponder.New(nil)}
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "v1"}, nil)
	for _, d := range []askuser.Dialect{askusertool.Dialect(), approvaltool.Dialect()} {
		tool := &mcpresponder.Tool{Orchestrator: o, Dialect: d}
		defer tool.Close()
		if err := mcpresponder.AddTool(server, tool); err != nil {
			log.Fatal(err)
		}
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
			fmt.Println("--")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "note": "go ahead"}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request_approval", Arguments: json.RawMessage(`{
		"action": "Restart the login service", "reason": "It holds a stale certificate",
		"risk": "medium", "details": "systemctl restart login", "timeout_seconds": 120}`)})
	if err != nil {
		log.Fatal(err)
	}
	var v struct {
		Status    string `json:"status"`
		DecidedBy string `json:"decided_by"`
		Note      string `json:"note"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &v); err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Status, "by", v.DecidedBy+":", v.Note)
	// Output:
	// Your agent asks your permission.
	// Risk: medium
	// Action: Restart the login service
	// Reason: It holds a stale certificate
	// Details:
	//   | systemctl restart login
	//
	// You have 2 minutes to decide. After that nothing is decided, and your agent has no permission.
	// --
	// approved by user: go ahead
}
