package schema_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/schema"
)

// The OpenAI rendering is a function tool in strict mode.
func ExampleOpenAI() {
	var tool struct {
		Type   string `json:"type"`
		Name   string `json:"name"`
		Strict bool   `json:"strict"`
	}
	if err := json.Unmarshal(schema.OpenAI(), &tool); err != nil {
		panic(err)
	}
	fmt.Println(tool.Type, tool.Name, tool.Strict)
	// Output: function ask_user true
}

// The Chat Completions API takes the same tool with its fields nested under
// "function".
func ExampleOpenAI_chatCompletions() {
	var responses map[string]any
	if err := json.Unmarshal(schema.OpenAI(), &responses); err != nil {
		panic(err)
	}
	chat := map[string]any{"type": "function", "function": map[string]any{
		"name":        responses["name"],
		"description": responses["description"],
		"strict":      responses["strict"],
		"parameters":  responses["parameters"],
	}}
	b, err := json.Marshal(chat)
	if err != nil {
		panic(err)
	}
	var check struct {
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Type string `json:"type"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &check); err != nil {
		panic(err)
	}
	fmt.Println(check.Function.Name, check.Function.Parameters.Type)
	// Output: ask_user object
}

// A program whose orchestrator allows at most two minutes renders the same
// ceiling, so the model is never offered a wait the decoder refuses.
func ExampleOptions() {
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: 120}}
	var s struct {
		Properties struct {
			Timeout struct {
				Maximum int `json:"maximum"`
			} `json:"timeout_seconds"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema.Options{MaxTimeoutSeconds: o.Limits.MaxTimeoutSeconds}.JSONSchema(), &s); err != nil {
		panic(err)
	}
	fmt.Println(s.Properties.Timeout.Maximum)
	// Output: 120
}

// A program whose model calls pi's ask tool renders that contract: here for
// OpenAI, with pi's two call shapes merged into one object and timeoutMs
// bounded by the orchestrator's ceiling, in milliseconds.
func ExampleOptions_dialect() {
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: 120}}
	var tool struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]struct {
				Maximum int `json:"maximum"`
			} `json:"properties"`
		} `json:"parameters"`
	}
	opts := schema.Options{Dialect: pi.Dialect().Name(), MaxTimeoutSeconds: o.Limits.MaxTimeoutSeconds}
	if err := json.Unmarshal(opts.OpenAI(), &tool); err != nil {
		panic(err)
	}
	_, options := tool.Parameters.Properties["questions"]
	_, rich := tool.Parameters.Properties["question"]
	fmt.Println(tool.Name, options, rich, tool.Parameters.Properties["timeoutMs"].Maximum)
	// Output: ask true true 120000
}

// The MCP tool carries annotations a client shows and acts on.
func ExampleMCP() {
	var tool struct {
		Name        string `json:"name"`
		Annotations struct {
			ReadOnly    bool `json:"readOnlyHint"`
			Destructive bool `json:"destructiveHint"`
			OpenWorld   bool `json:"openWorldHint"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(schema.MCP(), &tool); err != nil {
		panic(err)
	}
	fmt.Printf("%s read-only=%v destructive=%v open-world=%v\n", tool.Name,
		tool.Annotations.ReadOnly, tool.Annotations.Destructive, tool.Annotations.OpenWorld)
	// Output: ask_user read-only=true destructive=false open-world=false
}

// Handle takes a provider's tool call to the orchestrator and returns the
// tool result's content. Nobody is there to answer here, so the recommended
// option applies at once; an invalid call comes back as an error result.
func ExampleHandle() {
	o := &askuser.Orchestrator{Responder: auto.New()}
	args := `{"questions":[{"id":"env","header":"Env","question":"Deploy where?","options":[
		{"label":"staging","description":"Safe to break","default":true},
		{"label":"production","description":"Real users"}]}]}`
	text, isError, err := schema.Handle(context.Background(), o, "session-1", "call_1", args)
	fmt.Println(text, isError, err)

	text, isError, err = schema.Handle(context.Background(), o, "session-1", "call_2", `{"questions":[]}`)
	fmt.Println(text, isError, err)
	// Output:
	// {"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]} false <nil>
	// invalid ask_user arguments: questions must contain between 1 and 4 items true <nil>
}
