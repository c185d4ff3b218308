package mcpresponder_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/responders/web"
)

// inCall is the Responder with an MCP tool call on the context of every
// ask, as a server's tool handler puts it there: the conformance kit calls
// Orchestrator.Handle itself, with a context of its own.
type inCall struct {
	r   *mcpresponder.Responder
	req *mcp.CallToolRequest
}

func (c inCall) Respond(ctx context.Context, a *askuser.Ask) error {
	return c.r.Respond(mcpresponder.WithCall(ctx, c.req), a)
}

func (c inCall) Reachable(ctx context.Context, session string) bool {
	return c.r.Reachable(mcpresponder.WithCall(ctx, c.req), session)
}

func (c inCall) Unwrap() askuser.Responder { return c.r }

// conformanceResponder connects a client of the SDK's own, whose
// elicitation handler is h, over in-memory transports (on 2025-11-25: the
// kit calls Handle itself, so only the within-the-call way of asking can
// be checked by it; the multi round-trip way needs Tool, which the other
// tests drive), and returns the Responder with the tool call on its
// context. Asks with a secret go to a web card nobody opens.
func conformanceResponder(t *testing.T, h func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) askuser.Responder {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "askuser", Version: "test"}, &mcp.ServerOptions{Logger: quiet})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, &mcp.ClientOptions{
		Logger:             quiet,
		ElicitationHandler: h,
		Capabilities:       &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: v20251125})
	if err != nil {
		t.Fatal(err)
	}
	card := web.New(&web.Options{Logger: quiet})
	t.Cleanup(func() {
		card.Close()
		cs.Close()
		ss.Wait()
	})
	r := mcpresponder.New(&mcpresponder.Options{
		Card:    card,
		CardURL: func(a *askuser.Ask) string { return "http://127.0.0.1:1/" + web.AskPath(a.ID()) },
		Logger:  quiet,
	})
	return inCall{r: r, req: &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "ask_user"}}}
}

// TestConformanceNobodyAnswers runs the conformance suite with a client
// that shows every form and link and never answers: every ask waits for
// its deadline, or is superseded, or its caller goes. The transports are
// in-memory pipes, so the deadlines pass on a synctest bubble's clock.
func TestConformanceNobodyAnswers(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		return conformanceResponder(t, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	}, &respondertest.Options{Synctest: true})
}

// TestConformanceAnswering runs the conformance suite with a client whose
// person accepts every form at once with the recommended answers (or the
// first option, or "yes"), so that the responder ends the asks itself. An
// approval's yes/no has no default, and this person answers it no: the kit
// plays no person who could approve, and checks that none is approved.
func TestConformanceAnswering(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		return conformanceResponder(t, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode == "url" {
				return &mcp.ElicitResult{Action: "accept"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: fill(req.Params.RequestedSchema)}, nil
		})
	}, &respondertest.Options{Synctest: true})
}

// fill answers a form: each property's default, else its first option,
// else "yes" (or, for a yes/no, false: the one without a default is an
// approval's).
func fill(schema any) map[string]any {
	data, _ := json.Marshal(schema)
	var s struct {
		Properties map[string]struct {
			Type    string          `json:"type"`
			Default json.RawMessage `json:"default"`
			OneOf   []struct {
				Const string `json:"const"`
			} `json:"oneOf"`
			Enum  []string `json:"enum"`
			Items *struct {
				AnyOf []struct {
					Const string `json:"const"`
				} `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(data, &s)
	out := map[string]any{}
	for name, p := range s.Properties {
		var v any
		switch {
		case p.Default != nil:
			_ = json.Unmarshal(p.Default, &v)
		case len(p.OneOf) > 0:
			v = p.OneOf[0].Const
		case len(p.Enum) > 0:
			v = p.Enum[0]
		case p.Items != nil && len(p.Items.AnyOf) > 0:
			v = []any{p.Items.AnyOf[0].Const}
		case p.Type == "boolean":
			v = false
		default:
			v = "yes"
		}
		out[name] = v
	}
	return out
}
