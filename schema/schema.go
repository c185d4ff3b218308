package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askuserwire"
)

// Draft is the JSON Schema dialect of JSONSchema and ResultSchema.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Title is the tool's human-readable title, where an API has a place for
// one (MCP).
const Title = "Ask the user"

// ApprovalTitle is request_approval's human-readable title, where an API
// has a place for one (MCP).
const ApprovalTitle = "Request approval"

// Options set which contract the renderings are of and what they say about
// the limits the embedding program configures. The zero Options renders
// ask_user with the defaults; the package functions (JSONSchema, OpenAI, …)
// use it.
type Options struct {
	// Dialect names the tool contract, as the Name of its askuser.Dialect
	// (one of Dialects()): "ask_user" (or empty), "pi-ask" (piask.Name),
	// "pi" (pi.Name) or "request_approval" (approvalwire.ToolName, the
	// consent gate offered beside a question tool). Give it the Dialect the
	// orchestrator decodes the calls with.
	Dialect string

	// MaxTimeoutSeconds is the ceiling on a call's wait (zero:
	// dialect.DefaultMaxTimeoutSeconds): the maximum of ask_user's and
	// request_approval's timeout_seconds, and of pi's timeoutMs in milliseconds (at most the
	// contract's own 300000). pi-ask has no timeout field. Give it the
	// Orchestrator's value, so the schema and the decoder agree.
	MaxTimeoutSeconds int
}

func (o Options) dialect() string {
	if o.Dialect == "" {
		return askuserwire.ToolName
	}
	return o.Dialect
}

func (o Options) ceiling() int {
	if o.MaxTimeoutSeconds <= 0 {
		return dialect.DefaultMaxTimeoutSeconds
	}
	return o.MaxTimeoutSeconds
}

// The formats Render knows, in the order the command line lists them.
const (
	FormatJSON             = "json"
	FormatOpenAI           = "openai"
	FormatAnthropic        = "anthropic"
	FormatAnthropicStrict  = "anthropic-strict"
	FormatGemini           = "gemini"
	FormatGeminiJSONSchema = "gemini-json-schema"
	FormatMCP              = "mcp"
	FormatResult           = "result"
)

// Formats returns the formats Render knows, in the order the command line
// lists them.
func Formats() []string {
	return []string{
		FormatJSON, FormatOpenAI, FormatAnthropic, FormatAnthropicStrict,
		FormatGemini, FormatGeminiJSONSchema, FormatMCP, FormatResult,
	}
}

// A renderer makes one format of a contract from a clone of its call's
// schema, t.
var renderers = map[string]func(c *contract, t *object) *object{
	FormatJSON:             renderJSON,
	FormatOpenAI:           renderOpenAI,
	FormatAnthropic:        renderAnthropic,
	FormatAnthropicStrict:  renderAnthropicStrict,
	FormatGemini:           renderGemini,
	FormatGeminiJSONSchema: renderGeminiJSONSchema,
	FormatMCP:              renderMCP,
	FormatResult:           func(c *contract, _ *object) *object { return renderResult(c) },
}

type cacheKey struct {
	dialect string
	ceiling int
	format  string
}

var rendered sync.Map // cacheKey → []byte

// Render returns the rendering named by format (one of Formats()) of the
// contract o.Dialect names, as indented JSON, computed once per contract,
// format and ceiling.
func (o Options) Render(format string) ([]byte, error) {
	c, ok := contracts()[o.dialect()]
	if !ok {
		return nil, fmt.Errorf("schema: unknown dialect %q; known: %s", o.Dialect, strings.Join(Dialects(), ", "))
	}
	r, ok := renderers[format]
	if !ok {
		return nil, fmt.Errorf("schema: unknown format %q; known: %s", format, strings.Join(Formats(), ", "))
	}
	key := cacheKey{o.dialect(), o.ceiling(), format}
	if b, ok := rendered.Load(key); ok {
		return slices.Clone(b.([]byte)), nil
	}
	b := indent(r(c, c.callTree(key.ceiling)))
	rendered.Store(key, b)
	return slices.Clone(b), nil
}

// must is Render for the methods that return bytes alone: they panic on a
// Dialect that is not one of Dialects(), where Render returns the error.
func (o Options) must(format string) []byte {
	b, err := o.Render(format)
	if err != nil {
		panic(err)
	}
	return b
}

// JSONSchema returns the contract's arguments as a plain JSON Schema
// 2020-12 document: every limit that one field can carry is a keyword
// (minItems/maxItems, minLength/maxLength counted in code points, enum,
// integer minimum/maximum), and an optional field also accepts null, which
// every decoder reads as absent.
//
// For ask_user, additionalProperties is false on every object (the decoder
// refuses unknown fields); lengths are counted in code points as the
// decoder counts runes; rules across fields (unique ids and labels,
// non-blank after trimming, what each kind allows, a secret alone, one
// default on a single-select) are stated in the descriptions, and the
// decoder enforces them; the read-only stamps are left out. For pi-ask and
// pi it is the schema of the contract's own tool.json, with objects left
// open as the contract ignores unknown fields; pi's two call shapes stay
// a union (anyOf), which every other rendering merges into one object, and
// pi's decoder counts lengths in UTF-16 code units, so it refuses a string
// of astral characters that maxLength lets through.
//
// It panics if o.Dialect is not one of Dialects(), as do the other methods
// returning bytes; Render returns the error instead.
func (o Options) JSONSchema() []byte { return o.must(FormatJSON) }

// OpenAI returns the tool for OpenAI function calling with strict mode, in
// the shape of the Responses API's tools list: {type: "function", name,
// description, strict: true, parameters}. Every property is required (an
// optional one as a union with null), every object has additionalProperties
// false, and only keywords strict mode supports are used; string lengths
// are stated in words.
//
// The Chat Completions API nests the same fields one level down:
// {type: "function", function: {name, description, strict, parameters}}.
// Move them there (see the example); the schema itself is the same.
func (o Options) OpenAI() []byte { return o.must(FormatOpenAI) }

// Anthropic returns the tool for Anthropic's Messages API: {name,
// description, input_schema}, with every limit as a keyword.
func (o Options) Anthropic() []byte { return o.must(FormatAnthropic) }

// AnthropicStrict returns the tool for Anthropic's strict tool use: {name,
// description, strict: true, input_schema}. What strict mode rejects (item
// counts above 1, string lengths, numeric bounds) is stated in words.
func (o Options) AnthropicStrict() []byte { return o.must(FormatAnthropicStrict) }

// Gemini returns a Gemini function declaration whose parameters use the
// API's OpenAPI 3.0 subset: upper-case types, nullable instead of a null
// type, no additionalProperties (the decoder refuses unknown fields anyway).
func (o Options) Gemini() []byte { return o.must(FormatGemini) }

// GeminiJSONSchema returns a Gemini function declaration with
// parametersJsonSchema instead of parameters (the API takes one or the
// other, never both). String lengths, which that subset lacks, are stated
// in words.
func (o Options) GeminiJSONSchema() []byte { return o.must(FormatGeminiJSONSchema) }

// MCP returns the MCP tool definition: name, title, description,
// inputSchema (JSONSchema without $schema: MCP's default dialect is 2020-12;
// pi's shapes merged, since clients hand inputSchema on to model APIs),
// outputSchema (ResultSchema, likewise) and annotations (read-only, not
// destructive, not open-world).
func (o Options) MCP() []byte { return o.must(FormatMCP) }

// ResultSchema returns the JSON Schema 2020-12 of the result the model
// reads: for pi-ask and pi, the tool result {content: [{type, text}],
// details, isError?} with the details of every ending the contract has.
func (o Options) ResultSchema() []byte { return o.must(FormatResult) }

// JSONSchema is Options{}.JSONSchema.
func JSONSchema() []byte { return Options{}.JSONSchema() }

// OpenAI is Options{}.OpenAI.
func OpenAI() []byte { return Options{}.OpenAI() }

// Anthropic is Options{}.Anthropic.
func Anthropic() []byte { return Options{}.Anthropic() }

// AnthropicStrict is Options{}.AnthropicStrict.
func AnthropicStrict() []byte { return Options{}.AnthropicStrict() }

// Gemini is Options{}.Gemini.
func Gemini() []byte { return Options{}.Gemini() }

// GeminiJSONSchema is Options{}.GeminiJSONSchema.
func GeminiJSONSchema() []byte { return Options{}.GeminiJSONSchema() }

// MCP is Options{}.MCP.
func MCP() []byte { return Options{}.MCP() }

// ResultSchema is Options{}.ResultSchema.
func ResultSchema() []byte { return Options{}.ResultSchema() }

// ---- reflection ----

// reflectTree reflects a wire type with invopop/jsonschema into an ordered
// tree: the whole structure inline, additionalProperties false on every
// struct, required from the json tags (no omitempty), the jsonschema tags'
// keywords and descriptions.
func reflectTree(v any) *object {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	s := r.Reflect(v)
	s.Version = ""
	data, err := json.Marshal(s)
	if err != nil {
		panic("schema: " + err.Error())
	}
	t, err := parse(data)
	if err != nil {
		panic("schema: " + err.Error())
	}
	root := t.(*object)
	walkSchemas(root, "", func(_ string, s *object) { collapseNullable(s) })
	return root
}

// collapseNullable turns invopop's {"oneOf": [X, {"type": "null"}]} into X
// with type [T, "null"].
func collapseNullable(s *object) {
	alts, _ := s.vals["oneOf"].([]any)
	if len(alts) != 2 {
		return
	}
	x, _ := alts[0].(*object)
	n, _ := alts[1].(*object)
	if x == nil || n == nil || n.str("type") != "null" || len(n.keys) != 1 {
		return
	}
	s.del("oneOf")
	for _, k := range x.keys {
		s.set(k, x.vals[k])
	}
	addNull(s)
}

// addNull lets s also be null: in its type, its enum, or as one more
// alternative of a typeless anyOf.
func addNull(s *object) {
	switch t := s.vals["type"].(type) {
	case string:
		s.set("type", []any{t, "null"})
	case []any:
		if !slices.Contains(t, any("null")) {
			s.set("type", append(t, "null"))
		}
	case nil:
		if alts, ok := s.vals["anyOf"].([]any); ok && !slices.ContainsFunc(alts, isNull) {
			s.set("anyOf", append(alts, obj("type", "null")))
		}
	}
	if e, ok := s.vals["enum"].([]any); ok && !slices.Contains(e, nil) {
		s.set("enum", append(e, nil))
	}
}

// isNull reports whether a schema is {"type": "null"}.
func isNull(v any) bool {
	s, ok := v.(*object)
	return ok && len(s.keys) == 1 && s.str("type") == "null"
}

// ---- transformations ----

// nullableOptionals lets every optional property also be null (the decoder
// reads null as absent; strict-mode clients send it).
func nullableOptionals(root *object) {
	walkSchemas(root, "", func(_ string, s *object) {
		props := s.child("properties")
		if props == nil {
			return
		}
		req := stringsOf(s.vals["required"])
		for _, name := range props.keys {
			if !slices.Contains(req, name) {
				addNull(props.child(name))
			}
		}
	})
}

// closeObjects sets additionalProperties false on every object that has
// none, as strict modes require; the decoder of an open contract ignores
// the fields a model can then no longer send.
func closeObjects(root *object) {
	walkSchemas(root, "", func(_ string, s *object) {
		if s.has("properties") && !s.has("additionalProperties") {
			s.set("additionalProperties", false)
		}
	})
}

// requireAll lists every property in required.
func requireAll(root *object) {
	walkSchemas(root, "", func(_ string, s *object) {
		if props := s.child("properties"); props != nil {
			req := make([]any, len(props.keys))
			for i, k := range props.keys {
				req[i] = k
			}
			s.set("required", req)
		}
	})
}

func stringsOf(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// A bound is a pair of limit keywords and what they count.
type bound struct{ min, max, unit string }

var bounds = []bound{
	{"minLength", "maxLength", "characters"},
	{"minItems", "maxItems", "items"},
	{"minimum", "maximum", ""},
}

// toWords removes the limit keywords drop reports true for and states each
// in the schema's description instead, unless the description already says
// it.
func toWords(root *object, drop func(keyword string, value json.Number) bool) {
	walkSchemas(root, "", func(_ string, s *object) {
		for _, b := range bounds {
			lo, hasLo := s.vals[b.min].(json.Number)
			hi, hasHi := s.vals[b.max].(json.Number)
			dropLo := hasLo && drop(b.min, lo)
			dropHi := hasHi && drop(b.max, hi)
			if dropLo {
				s.del(b.min)
			}
			if dropHi {
				s.del(b.max)
			}
			desc := s.str("description")
			needLo := dropLo && !describes(desc, b.min, lo)
			needHi := dropHi && !describes(desc, b.max, hi)
			var words string
			switch {
			case needLo && needHi:
				words = fmt.Sprintf("From %s to %s%s.", lo, hi, suffix(b.unit))
			case needLo && b.min == "minLength" && lo == "1":
				words = "Non-blank."
			case needLo:
				words = fmt.Sprintf("At least %s%s.", lo, suffix(b.unit))
			case needHi:
				words = fmt.Sprintf("At most %s%s.", hi, suffix(b.unit))
			default:
				continue
			}
			if desc != "" {
				desc += " "
			}
			s.set("description", desc+words)
		}
	})
}

func suffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " " + unit
}

// describes reports whether a description states the limit keyword=value in
// words, as the renderings that drop a keyword write it ("At most 16
// characters.", "From 1 to 4 items.", "Non-blank.", …). The tests use it to
// check that no limit is lost.
func describes(description, keyword string, value json.Number) bool {
	d := strings.ToLower(description)
	v := string(value)
	switch keyword {
	case "minLength", "minItems", "minimum":
		if keyword == "minLength" && v == "1" &&
			(strings.Contains(d, "non-blank") || strings.Contains(d, "not all whitespace")) {
			return true
		}
		return strings.Contains(d, "at least "+v) || strings.Contains(d, "from "+v+" to ") ||
			strings.Contains(d, v+" to ")
	case "maxLength", "maxItems", "maximum":
		return strings.Contains(d, "at most "+v) || strings.Contains(d, " to "+v)
	}
	return false
}

// sortAll puts every object's keywords in keyOrder.
func sortAll(root *object) {
	walkSchemas(root, "", func(_ string, s *object) { s.sortKeys(keyOrder) })
}

// ---- renderings ----

// The limits each rendering states in words instead of keywords.
var (
	// dropLengths: OpenAI's strict mode and Gemini's parametersJsonSchema
	// support pattern and format on strings, not lengths.
	dropLengths = func(k string, _ json.Number) bool { return k == "minLength" || k == "maxLength" }
	// dropAnthropicStrict: Anthropic's strict mode keeps only minItems 0
	// and 1.
	dropAnthropicStrict = func(k string, v json.Number) bool {
		if k == "minItems" {
			return v != "0" && v != "1"
		}
		return true // lengths, maxItems, numeric bounds
	}
)

func renderJSON(_ *contract, t *object) *object {
	nullableOptionals(t)
	sortAll(t)
	t.set("$schema", Draft)
	t.sortKeys(keyOrder)
	return t
}

func renderOpenAI(c *contract, t *object) *object {
	c.mergeShapes(t)
	nullableOptionals(t)
	requireAll(t)
	closeObjects(t)
	toWords(t, dropLengths)
	sortAll(t)
	return obj("type", "function", "name", c.tool, "description", c.description, "strict", true, "parameters", t)
}

func renderAnthropic(c *contract, t *object) *object {
	c.mergeShapes(t)
	sortAll(t)
	return obj("name", c.tool, "description", c.description, "input_schema", t)
}

func renderAnthropicStrict(c *contract, t *object) *object {
	c.mergeShapes(t)
	closeObjects(t)
	toWords(t, dropAnthropicStrict)
	sortAll(t)
	return obj("name", c.tool, "description", c.description, "strict", true, "input_schema", t)
}

func renderGemini(c *contract, t *object) *object {
	c.mergeShapes(t)
	nullableOptionals(t)
	walkSchemas(t, "", func(_ string, s *object) {
		s.del("additionalProperties")
		if ty, ok := s.vals["type"].([]any); ok {
			s.set("type", ty[0])
			s.set("nullable", true)
		}
		if alts, ok := s.vals["anyOf"].([]any); ok && slices.ContainsFunc(alts, isNull) {
			s.set("anyOf", slices.DeleteFunc(alts, isNull))
			s.set("nullable", true)
		}
		if ty := s.str("type"); ty != "" {
			s.set("type", strings.ToUpper(ty))
		}
		if e, ok := s.vals["enum"].([]any); ok {
			s.set("enum", slices.DeleteFunc(e, func(x any) bool { return x == nil }))
			s.set("format", "enum")
		}
	})
	sortAll(t)
	return obj("name", c.tool, "description", c.description, "parameters", t)
}

func renderGeminiJSONSchema(c *contract, t *object) *object {
	c.mergeShapes(t)
	toWords(t, dropLengths)
	sortAll(t)
	return obj("name", c.tool, "description", c.description, "parametersJsonSchema", t)
}

func renderMCP(c *contract, t *object) *object {
	c.mergeShapes(t)
	in := renderJSON(c, t)
	in.del("$schema")
	out := renderResult(c)
	out.del("$schema")
	title := c.title
	if title == "" {
		title = Title
	}
	return obj("name", c.tool, "title", title, "description", c.description,
		"inputSchema", in, "outputSchema", out,
		"annotations", obj("title", title, "readOnlyHint", true, "destructiveHint", false,
			"idempotentHint", false, "openWorldHint", false))
}

func renderResult(c *contract) *object {
	t := clone(c.result).(*object)
	sortAll(t)
	t.set("$schema", Draft)
	t.sortKeys(keyOrder)
	return t
}
