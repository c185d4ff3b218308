// Package askopenai puts askuser's ask_user tool into the OpenAI Go SDK's
// types (Chat Completions, strict function calling) and answers its tool
// calls through an askuser.Orchestrator.
package askopenai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/schema"
)

// Tool returns the ask_user tool as the SDK's Chat Completions function
// tool, strict, built from schema.OpenAI.
func Tool() (openai.ChatCompletionToolUnionParam, error) {
	var t struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Strict      bool           `json:"strict"`
		Parameters  map[string]any `json:"parameters"`
	}
	if err := json.Unmarshal(schema.OpenAI(), &t); err != nil {
		return openai.ChatCompletionToolUnionParam{}, err
	}
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        t.Name,
		Description: openai.String(t.Description),
		Strict:      openai.Bool(t.Strict),
		Parameters:  shared.FunctionParameters(t.Parameters),
	}), nil
}

// Answer asks a tool call through o and returns the tool message to append
// to the conversation. The API has no error flag on a tool message: an
// invalid call's message is its content, which the model reads and fixes.
// When ctx ends first, it returns ctx's error and no message.
func Answer(ctx context.Context, o *askuser.Orchestrator, session string, call openai.ChatCompletionMessageToolCallUnion) (openai.ChatCompletionMessageParamUnion, error) {
	fn := call.AsFunction()
	if fn.Function.Name != askuserwire.ToolName {
		return openai.ChatCompletionMessageParamUnion{}, fmt.Errorf("askopenai: tool %q is not %s", fn.Function.Name, askuserwire.ToolName)
	}
	text, _, err := schema.Handle(ctx, o, session, fn.ID, fn.Function.Arguments)
	if err != nil {
		return openai.ChatCompletionMessageParamUnion{}, err
	}
	return openai.ToolMessage(text, fn.ID), nil
}
