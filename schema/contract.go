package schema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askuserwire"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/internal/wire"
)

// Dialects returns the names of the contracts Options.Dialect takes: the
// Name of each askuser.Dialect askuser speaks.
func Dialects() []string {
	return []string{askuserwire.ToolName, piask.Name, pi.Name, approvalwire.ToolName}
}

// A contract is what the renderings need of one tool contract. Its trees
// are never changed: a rendering works on a clone.
type contract struct {
	tool, description string
	// title is the tool's human-readable title, where an API has a place
	// for one (MCP); empty means Title.
	title string
	// call is the schema of the arguments: every limit one field carries
	// as a keyword, optional fields not nullable, objects closed only where
	// the decoder refuses unknown fields. Several call shapes are the
	// root's anyOf.
	call *object
	// timeout writes the ceiling into a clone of call; nil where the
	// contract has no timeout.
	timeout func(call *object, ceiling int)
	// shapes names the call shapes, in the order of call's anyOf, and
	// merged describes the one object mergeShapes makes of them.
	shapes []string
	merged string
	result *object // the schema of the result, without $schema
}

func (c *contract) callTree(ceiling int) *object {
	t := clone(c.call).(*object)
	if c.timeout != nil {
		c.timeout(t, ceiling)
	}
	return t
}

var (
	//go:embed result_pi.json
	piResultJSON []byte
	//go:embed result_piask.json
	piAskResultJSON []byte
)

var contracts = sync.OnceValue(func() map[string]*contract {
	return map[string]*contract{
		askuserwire.ToolName: {
			tool:        askuserwire.ToolName,
			description: askuserwire.Description,
			call:        reflectTree(&wire.Call{}),
			timeout: func(t *object, ceiling int) {
				ts := t.child("properties").child("timeout_seconds")
				ts.set("minimum", json.Number("1"))
				ts.set("maximum", json.Number(strconv.Itoa(ceiling)))
			},
			result: reflectTree(&wire.Result{}),
		},
		approvalwire.ToolName: {
			tool:        approvalwire.ToolName,
			title:       ApprovalTitle,
			description: approvalwire.Description,
			call:        reflectTree(&wire.ApprovalCall{}),
			timeout: func(t *object, ceiling int) {
				ts := t.child("properties").child("timeout_seconds")
				ts.set("minimum", json.Number("1"))
				ts.set("maximum", json.Number(strconv.Itoa(ceiling)))
			},
			result: reflectTree(&wire.ApprovalResult{}),
		},
		piask.Name: fromTool(piask.Tool(), piAskResultJSON),
		pi.Name: func() *contract {
			c := fromTool(pi.Tool(), piResultJSON)
			c.timeout = piTimeout
			c.shapes = []string{"Option questions", "One rich question"}
			c.merged = "Either option questions or one rich question: the two call shapes of pi's ask, " +
				"merged into one object. For option questions give questions and nothing else; for one rich " +
				"question give question and kind, with options, default, timeoutMs, sensitivity and reason as " +
				"needed, and no questions. The decoder tells the shapes apart by whether questions is present."
			return c
		}(),
	}
})

// fromTool reads a contract's own tool definition, {name, description,
// parameters}, and the JSON Schema of its result.
func fromTool(tool, result []byte) *contract {
	t, err := parse(tool)
	if err != nil {
		panic("schema: a contract's tool.json: " + err.Error())
	}
	r, err := parse(result)
	if err != nil {
		panic("schema: a result schema: " + err.Error())
	}
	def := t.(*object)
	call := obj("type", "object")
	params := def.child("parameters")
	for _, k := range params.keys {
		call.set(k, params.vals[k])
	}
	return &contract{tool: def.str("name"), description: def.str("description"), call: call, result: r.(*object)}
}

// piTimeout bounds every timeoutMs by the ceiling, in milliseconds, and by
// the contract's own bound.
func piTimeout(t *object, ceiling int) {
	maxMs := json.Number(strconv.Itoa(min(ceiling, pi.MaxTimeoutMs/1000) * 1000))
	walkSchemas(t, "", func(_ string, s *object) {
		if p := s.child("properties"); p != nil && p.child("timeoutMs") != nil {
			p.child("timeoutMs").set("maximum", maxMs)
		}
	})
}

// mergeShapes turns a call of several shapes (the root's anyOf) into one
// object, for the APIs that take no union at the top of a tool's
// parameters: the properties of every shape, each description saying which
// shape the property belongs to and whether it is required there; the
// contract's own words on the root; nothing required, since the shapes
// share no property. The decoder tells the shapes apart as before. A call of
// one shape is left as it is.
func (c *contract) mergeShapes(root *object) {
	alts, _ := root.vals["anyOf"].([]any)
	if len(alts) == 0 {
		return
	}
	props := newObject()
	for i, a := range alts {
		shape := a.(*object)
		req := stringsOf(shape.vals["required"])
		sp := shape.child("properties")
		for _, name := range sp.keys {
			if props.has(name) {
				panic(fmt.Sprintf("schema: the call shapes share the property %q", name)) // not so in any contract
			}
			p := sp.child(name)
			where := c.shapes[i] + " only"
			if slices.Contains(req, name) {
				where += ", and required there"
			}
			p.set("description", strings.TrimSpace(where+". "+p.str("description")))
			props.set(name, p)
		}
	}
	root.del("anyOf")
	root.set("type", "object")
	root.set("description", c.merged)
	root.set("properties", props)
}
