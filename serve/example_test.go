package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/serve"
	"github.com/askuser-go/askuser/store"
)

// The service mounted on an httptest.Server, with nobody there to answer
// (responders/auto): the call ends at once, with its declared default. An
// agent in Go posts the call with the Client.
func Example() {
	o := &askuser.Orchestrator{Responder: auto.New()} // Asks: a natsstore store, for a fleet
	defer o.Close()
	const token = "agent-token-0123456789abcdef"
	srv := httptest.NewServer(serve.NewHandler(serve.Config{Orchestrator: o, Tokens: []string{token}}))
	defer srv.Close()

	c := &serve.Client{URL: srv.URL, Token: token}
	defer c.CloseIdleConnections()
	result, err := c.Call(context.Background(), serve.Call{
		Session:    "run-42",
		ToolCallID: "call_7",
		Arguments: json.RawMessage(`{"questions": [{"id": "env", "header": "Env", "question": "Deploy where?",
			"options": [{"label": "staging", "description": "safe", "default": true},
			            {"label": "production", "description": "real users"}]}]}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(result))
	// Output:
	// {"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}
}

// An invalid call is an *Error that matches ErrInvalidCall: the model gets
// the contract's result where it has one, else the message, and can fix
// its call.
func ExampleErrInvalidCall() {
	o := &askuser.Orchestrator{Responder: auto.New(), Asks: store.NewMemory(0)}
	defer o.Close()
	const token = "agent-token-0123456789abcdef"
	srv := httptest.NewServer(serve.NewHandler(serve.Config{Orchestrator: o, Tokens: []string{token}}))
	defer srv.Close()

	c := &serve.Client{URL: srv.URL, Token: token}
	defer c.CloseIdleConnections()
	_, err := c.Call(context.Background(), serve.Call{Session: "run-42", ToolCallID: "call_8", Arguments: json.RawMessage(`{"questions": []}`)})
	var refused *serve.Error
	if errors.Is(err, serve.ErrInvalidCall) && errors.As(err, &refused) {
		fmt.Println("for the model:", refused.Message)
	}
	// Output:
	// for the model: invalid ask_user arguments: questions must contain between 1 and 4 items
}

// The service with its web card, mounted in a server of your own: the card
// is the orchestrator's responder, and the Handler serves it beside the
// agent API. The agent starts the call and hands the person its card URL;
// the person answers there (here, nobody does: the session is superseded).
func ExampleNewCard() {
	key, _ := secretstore.RandomKey("fleet-1")
	ring, _ := secretstore.NewKeyRing(key) // a fleet's: secretstore.KeysFromFile, the same on every replica
	card, err := serve.NewCard(serve.CardConfig{Keys: ring})
	if err != nil {
		fmt.Println(err)
		return
	}
	o := &askuser.Orchestrator{Responder: card, Asks: store.NewMemory(0)}
	defer o.Close()
	const token = "agent-token-0123456789abcdef"
	mux := http.NewServeMux()
	mux.Handle("/", serve.NewHandler(serve.Config{Orchestrator: o, Tokens: []string{token}, Card: card}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c := &serve.Client{URL: srv.URL, Token: token}
	defer c.CloseIdleConnections()
	ctx := context.Background()
	st, err := c.Start(ctx, serve.Call{Session: "run-42", ToolCallID: "call_9", Arguments: json.RawMessage(`{"questions": [
		{"id": "env", "header": "Env", "question": "Deploy where?",
		 "options": [{"label": "staging", "description": "safe"}, {"label": "production", "description": "real users"}]}]}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	cardURL, _ := url.Parse(st.CardURL)
	statusURL, _ := url.Parse(st.StatusURL)
	fmt.Println("pending:", st.Pending())
	fmt.Println("card:", cardURL.Path, "with a token:", cardURL.Query().Get("token") != "")
	fmt.Println("status:", statusURL.Path)

	n, _ := c.Supersede(ctx, "run-42")
	result, _ := c.Wait(ctx, "run-42", "call_9")
	fmt.Println("superseded:", n, string(result))
	// Output:
	// pending: true
	// card: /sessions/run-42 with a token: true
	// status: /v1/sessions/run-42/calls/call_9
	// superseded: 1 {"status":"cancelled","answered_by":"unattended","answers":[]}
}
