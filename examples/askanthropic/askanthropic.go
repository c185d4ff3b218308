// Package askanthropic puts askuser's ask_user tool into the Anthropic Go
// SDK's types and answers its tool_use blocks through an
// askuser.Orchestrator.
package askanthropic

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/schema"
)

// Tool returns the ask_user tool as the SDK's ToolParam, built from
// schema.Anthropic, or schema.AnthropicStrict when strict is set (strict
// tool use).
func Tool(strict bool) (anthropic.ToolParam, error) {
	def := schema.Anthropic()
	if strict {
		def = schema.AnthropicStrict()
	}
	var t struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description"`
		Strict      bool                       `json:"strict"`
		InputSchema map[string]json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal(def, &t); err != nil {
		return anthropic.ToolParam{}, err
	}
	in := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range t.InputSchema {
		switch k {
		case "type": // always "object", the SDK's constant
		case "properties":
			in.Properties = v
		case "required":
			if err := json.Unmarshal(v, &in.Required); err != nil {
				return anthropic.ToolParam{}, err
			}
		default:
			in.ExtraFields[k] = v
		}
	}
	p := anthropic.ToolParam{
		Name:        t.Name,
		Description: anthropic.String(t.Description),
		InputSchema: in,
	}
	if t.Strict {
		p.Strict = anthropic.Bool(true)
	}
	return p, nil
}

// Answer asks a tool_use block through o and returns the tool_result block
// to send back in the next user message. An invalid call becomes a
// tool_result with is_error set. When ctx ends first, it returns ctx's
// error and no block: the agent run has stopped.
func Answer(ctx context.Context, o *askuser.Orchestrator, session string, use anthropic.ToolUseBlock) (anthropic.ContentBlockParamUnion, error) {
	if use.Name != askuserwire.ToolName {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("askanthropic: tool %q is not %s", use.Name, askuserwire.ToolName)
	}
	text, isError, err := schema.Handle(ctx, o, session, use.ID, use.Input)
	if err != nil {
		return anthropic.ContentBlockParamUnion{}, err
	}
	return anthropic.NewToolResultBlock(use.ID, text, isError), nil
}
