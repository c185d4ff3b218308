package askanthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/examples/askanthropic"
	"github.com/askuser-go/askuser/responder/scripted"
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

// TestTool: the SDK's ToolParam, marshalled by the SDK as it sends it, is
// askuser's rendering.
func TestTool(t *testing.T) {
	for _, tt := range []struct {
		strict bool
		want   []byte
	}{{false, schema.Anthropic()}, {true, schema.AnthropicStrict()}} {
		p, err := askanthropic.Tool(tt.strict)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(anthropic.ToolUnionParam{OfTool: &p})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(decode(t, tt.want), decode(t, got)); diff != "" {
			t.Errorf("strict=%v: the SDK sends (-askuser +SDK):\n%s", tt.strict, diff)
		}
	}
}

// A response as the Messages API returns it when the model calls the tool.
const cannedResponse = `{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
  "stop_reason": "tool_use", "stop_sequence": null,
  "usage": {"input_tokens": 10, "output_tokens": 20},
  "content": [
    {"type": "text", "text": "I need to know where to deploy."},
    {"type": "tool_use", "id": "toolu_01", "name": "ask_user", "input": %s}
  ]
}`

const deployCall = `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
  {"label":"staging","description":"Safe to break","default":true},
  {"label":"production","description":"Real users"}]}]}`

func toolUse(t *testing.T, input string) anthropic.ToolUseBlock {
	t.Helper()
	var msg anthropic.Message
	if err := json.Unmarshal([]byte(fmt.Sprintf(cannedResponse, input)), &msg); err != nil {
		t.Fatal(err)
	}
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			return b.AsToolUse()
		}
	}
	t.Fatal("no tool_use block in the canned response")
	return anthropic.ToolUseBlock{}
}

// TestAnswer: a canned tool_use goes through the orchestrator, a scripted
// person picks production, and the tool_result block, built with the SDK's
// types, carries askuser's result.
func TestAnswer(t *testing.T) {
	tests := []struct {
		name, input string
		want        string
	}{
		{"answered", deployCall, `{"type":"tool_result","tool_use_id":"toolu_01","is_error":false,"content":[{"type":"text",
			"text":"{\"status\":\"answered\",\"answered_by\":\"user\",\"answers\":[{\"id\":\"env\",\"selected\":[\"production\"],\"other_text\":null}]}"}]}`},
		{"invalid call", `{"questions":[{"header":"Env","question":"Deploy where?"}]}`, `{"type":"tool_result","tool_use_id":"toolu_01","is_error":true,"content":[{"type":"text",
			"text":"invalid ask_user arguments: question 1 options must contain between 2 and 6 items"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &askuser.Orchestrator{Responder: scripted.New(
				scripted.Step{Answer: &askuser.Answer{QuestionID: "env", Selected: []string{"production"}}},
				scripted.Step{End: scripted.EndSubmit},
			)}
			block, err := askanthropic.Answer(context.Background(), o, "session-1", toolUse(t, tt.input))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(block)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decode(t, []byte(tt.want)), decode(t, got)); diff != "" {
				t.Errorf("tool_result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnswerCallerGone: when the agent run stops, there is no tool_result.
func TestAnswerCallerGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := &askuser.Orchestrator{Responder: scripted.New()}
	if _, err := askanthropic.Answer(ctx, o, "s", toolUse(t, deployCall)); err != context.Canceled {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}
