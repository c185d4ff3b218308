package schema_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/schema"
)

func TestArguments(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr bool
	}{
		{"OpenAI's string", `{"questions":[]}`, `{"questions":[]}`, false},
		{"bytes", []byte(`{"a":1}`), `{"a":1}`, false},
		{"Anthropic's raw input", json.RawMessage(`{"b":2}`), `{"b":2}`, false},
		{"Gemini's decoded args", map[string]any{"questions": []any{}}, `{"questions":[]}`, false},
		{"nothing", nil, "", true},
		{"not encodable", map[string]any{"c": make(chan int)}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := schema.Arguments(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v; want an error: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolResult(t *testing.T) {
	type result struct {
		Text    string
		IsError bool
		Err     error
	}
	gone := context.Canceled
	tests := []struct {
		name string
		out  *askuser.Outcome
		err  error
		want result
	}{
		{"an outcome is the result", &askuser.Outcome{Result: []byte(`{"status":"answered"}`)}, nil,
			result{Text: `{"status":"answered"}`}},
		{"an invalid call is an error result", nil, &dialect.CallError{Message: "invalid ask_user arguments: x"},
			result{Text: "invalid ask_user arguments: x", IsError: true}},
		{"a contract's own result for an invalid call", nil,
			&dialect.CallError{Message: "m", Result: []byte(`{"isError":true}`)},
			result{Text: `{"isError":true}`}},
		{"a caller gone is no result", nil, gone, result{Err: gone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isError, err := schema.ToolResult(tt.out, tt.err)
			got := result{text, isError, err}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := schema.ToolResult(nil, nil); err == nil {
		t.Error("ToolResult(nil, nil) returned no error")
	}
}

// TestHandleCallerGone: when the agent run stops, the caller gets its
// context's error and no tool result.
func TestHandleCallerGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := &askuser.Orchestrator{Responder: auto.New()}
	args := `{"questions":[{"header":"Env","question":"Where?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`
	text, isError, err := schema.Handle(ctx, o, "s", "call_1", args)
	if !errors.Is(err, context.Canceled) || text != "" || isError {
		t.Errorf("Handle = %q, %v, %v; want no result and context.Canceled", text, isError, err)
	}
}
