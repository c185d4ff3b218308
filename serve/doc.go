// Package serve is askuser as an HTTP service, for agents in any language:
// a Handler that answers the agent API (an agent posts its model's tool
// calls to POST /v1/calls and reads the tool results back, at once or with
// long polls) behind bearer tokens (one for every session, or one per
// tenant scoped to a session prefix), and serves the web card a person
// answers on (a Card, admitted by each session's expiring access tokens)
// beside it;
// and a Client for that API. Mount the Handler in your own server as any
// http.Handler — mux.Handle("/", serve.NewHandler(serve.Config{Orchestrator:
// o, Tokens: []string{token}, Card: card})) — or on an httptest.Server in a
// test. Give the Orchestrator a shared store (the natsstore package's) and
// an ask outlives the replica that began it, and any replica serves it. `askuser
// serve` is this package behind flags; its documentation (docs/serve.md)
// describes every route, status and body.
package serve
