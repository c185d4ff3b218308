package askopenai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/examples/askopenai"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/schema"
)

func decode(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

// TestTool: the SDK's function tool, marshalled by the SDK as it sends it,
// is askuser's rendering, strict, in the Chat Completions envelope
// ({"type": "function", "function": {...}}).
func TestTool(t *testing.T) {
	tool, err := askopenai.Tool()
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(schema.OpenAI(), &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "function", "function": map[string]any{
		"name": r["name"], "description": r["description"], "strict": r["strict"], "parameters": r["parameters"],
	}}
	if diff := cmp.Diff(want, decode(t, got)); diff != "" {
		t.Errorf("the SDK sends (-askuser +SDK):\n%s", diff)
	}
}

// A Chat Completions response in which the model calls the tool; the
// arguments are a string of JSON, as the API sends them.
const cannedResponse = `{
  "id": "chatcmpl-1", "object": "chat.completion", "created": 1764493200, "model": "gpt-4o",
  "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
    "message": {"role": "assistant", "content": null, "refusal": null,
      "tool_calls": [{"id": "call_1", "type": "function",
        "function": {"name": "ask_user", "arguments": %q}}]}}]
}`

// The call as strict mode makes the model write it: every field present,
// the optional ones null.
const strictCall = `{"questions":[{"kind":null,"id":"env","header":"Env","question":"Deploy where?",
  "multi_select":null,"allow_other":null,"secret_name":null,"purpose":null,"options":[
  {"label":"staging","description":"Safe to break","default":true},
  {"label":"production","description":"Real users","default":null}]}],"timeout_seconds":null}`

func toolCall(t *testing.T, args string) openai.ChatCompletionMessageToolCallUnion {
	t.Helper()
	var c openai.ChatCompletion
	if err := json.Unmarshal([]byte(fmt.Sprintf(cannedResponse, args)), &c); err != nil {
		t.Fatal(err)
	}
	calls := c.Choices[0].Message.ToolCalls
	if len(calls) != 1 {
		t.Fatalf("%d tool calls in the canned response", len(calls))
	}
	return calls[0]
}

// TestAnswer: a canned tool call goes through the orchestrator (nobody is
// there: the recommended option applies at once) and comes back as a tool
// message built with the SDK's types.
func TestAnswer(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"answered", strictCall, `{"role":"tool","tool_call_id":"call_1",
			"content":"{\"status\":\"answered\",\"answered_by\":\"unattended\",\"answers\":[{\"id\":\"env\",\"selected\":[\"staging\"],\"other_text\":null}]}"}`},
		{"invalid call", `{"questions":[{"header":"Seventeen chars!!","question":"Deploy where?"}]}`, `{"role":"tool","tool_call_id":"call_1",
			"content":"invalid ask_user arguments: question 1 header must not exceed 16 characters"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &askuser.Orchestrator{Responder: auto.New()}
			msg, err := askopenai.Answer(context.Background(), o, "session-1", toolCall(t, tt.args))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, got)); diff != "" {
				t.Errorf("tool message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnswerCallerGone: when the agent run stops, there is no tool message.
func TestAnswerCallerGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := &askuser.Orchestrator{Responder: auto.New()}
	if _, err := askopenai.Answer(ctx, o, "s", toolCall(t, strictCall)); err != context.Canceled {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}
