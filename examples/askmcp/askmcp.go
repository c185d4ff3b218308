// Package askmcp registers askuser's ask_user tool on an MCP server built
// with the MCP Go SDK, with askuser's own inputSchema and outputSchema.
package askmcp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/schema"
)

// Tool returns the ask_user tool as the SDK's Tool, from schema.MCP. Its
// schemas are kept as raw JSON, so the SDK sends them as askuser wrote
// them.
func Tool() (*mcp.Tool, error) {
	var t struct {
		Name         string               `json:"name"`
		Title        string               `json:"title"`
		Description  string               `json:"description"`
		InputSchema  json.RawMessage      `json:"inputSchema"`
		OutputSchema json.RawMessage      `json:"outputSchema"`
		Annotations  *mcp.ToolAnnotations `json:"annotations"`
	}
	if err := json.Unmarshal(schema.MCP(), &t); err != nil {
		return nil, err
	}
	return &mcp.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Annotations:  t.Annotations,
	}, nil
}

// AddTool registers ask_user on s, answered through o. It uses the SDK's
// low-level Server.AddTool with a raw handler, so askuser's decoder, not
// the SDK, judges the arguments, and the model gets askuser's message for
// an invalid call. Each MCP session is an askuser session (its secrets are
// its own). A result is both the structured content and its JSON as text.
func AddTool(s *mcp.Server, o *askuser.Orchestrator) error {
	t, err := Tool()
	if err != nil {
		return err
	}
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		session := ""
		if req.Session != nil {
			session = req.Session.ID()
		}
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		text, isError, err := schema.Handle(ctx, o, session, "", args)
		if err != nil {
			return nil, err // the caller is gone: no result
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
		if !isError {
			res.StructuredContent = json.RawMessage(text)
		}
		return res, nil
	})
	return nil
}
