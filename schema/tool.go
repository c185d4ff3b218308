package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
)

// Arguments returns a provider's tool-call arguments as the bytes
// askuser.Request.Arguments takes. It accepts the forms the APIs hand them
// over in: a string of JSON (OpenAI's function arguments), []byte or
// json.RawMessage (Anthropic's tool_use input, MCP's raw arguments), or an
// already decoded value such as map[string]any (Gemini's functionCall args),
// which it encodes again. Decoding is left to the orchestrator, so an
// invalid call still gets the contract's message.
func Arguments(v any) ([]byte, error) {
	switch a := v.(type) {
	case string:
		return []byte(a), nil
	case []byte:
		return a, nil
	case json.RawMessage:
		return a, nil
	case nil:
		return nil, errors.New("schema: no tool-call arguments")
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: encoding tool-call arguments: %w", err)
	}
	return data, nil
}

// ToolResult turns what askuser.Orchestrator.Handle returned into the
// content of the tool result a provider expects:
//
//   - an outcome: its Result, not an error;
//   - an invalid call (*dialect.CallError): the message for the model, as an
//     error result (Anthropic is_error, MCP isError); where the contract
//     answers an invalid call with a result of its own (the pi contracts),
//     that result, not marked, since it carries its own error flag;
//   - any other error, such as the caller's context ending: no tool result
//     at all. err is returned as is, and the caller must not answer the
//     tool call (the agent run has stopped).
func ToolResult(out *askuser.Outcome, err error) (text string, isError bool, _ error) {
	var ce *dialect.CallError
	switch {
	case err == nil && out != nil:
		return string(out.Result), false, nil
	case errors.As(err, &ce):
		if ce.Result != nil {
			return string(ce.Result), false, nil
		}
		return ce.Message, true, nil
	case err == nil:
		return "", false, errors.New("schema: no outcome and no error")
	}
	return "", false, err
}

// Handle asks a provider's tool call through o and returns the tool result's
// content: o.Handle followed by ToolResult. args is one of the forms
// Arguments takes.
func Handle(ctx context.Context, o *askuser.Orchestrator, session, toolCallID string, args any) (text string, isError bool, err error) {
	data, err := Arguments(args)
	if err != nil {
		return "", false, err
	}
	return ToolResult(o.Handle(ctx, askuser.Request{Session: session, ToolCallID: toolCallID, Arguments: data}))
}
