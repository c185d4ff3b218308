package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/askuser-go/askuser/dialect/pi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden pins every rendering of every contract, in
// testdata/<dialect>/<format>.golden; refresh with go test ./schema -update.
func TestGolden(t *testing.T) {
	for _, d := range Dialects() {
		for _, f := range Formats() {
			t.Run(d+"/"+f, func(t *testing.T) {
				got, err := Options{Dialect: d}.Render(f)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", d, f+".golden")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./schema -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), string(got)); diff != "" {
					t.Errorf("%s (-want +got):\n%s\nRun go test ./schema -update if the change is intended.", path, diff)
				}
			})
		}
	}
}

// TestDefaultDialect: the zero Options is ask_user, and so are the package
// functions.
func TestDefaultDialect(t *testing.T) {
	for _, f := range Formats() {
		if !bytes.Equal(Options{}.must(f), Options{Dialect: "ask_user"}.must(f)) {
			t.Errorf("%s: Options{} and Options{Dialect: \"ask_user\"} differ", f)
		}
	}
	if !bytes.Equal(OpenAI(), Options{Dialect: "ask_user"}.OpenAI()) {
		t.Error("OpenAI() is not ask_user's")
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	if _, err := (Options{}).Render("yaml"); err == nil || !strings.Contains(err.Error(), "openai") {
		t.Errorf("Render(yaml) = %v; want an error listing the formats", err)
	}
}

func TestRenderUnknownDialect(t *testing.T) {
	_, err := Options{Dialect: "mcp"}.Render(FormatJSON)
	if err == nil || !strings.Contains(err.Error(), `unknown dialect "mcp"; known: ask_user, pi-ask, pi, request_approval`) {
		t.Errorf("Render with dialect mcp = %v; want an error listing the dialects", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("JSONSchema with dialect mcp did not panic")
		}
	}()
	Options{Dialect: "mcp"}.JSONSchema()
}

// TestRenderReturnsCopies: a caller that changes the bytes it got does not
// change the next caller's.
func TestRenderReturnsCopies(t *testing.T) {
	a := OpenAI()
	a[0] = 'X'
	if b := OpenAI(); b[0] != '{' {
		t.Errorf("OpenAI() after a caller wrote to its copy starts %q", b[:1])
	}
}

// An API's rules: which keywords a schema may hold, where the schemas sit in
// the tool object, which keys the tool object may hold, and checks beyond
// the keyword names.
type apiRules struct {
	schemaAt []string // keys of the tool object holding schemas; "" for the document itself
	toolKeys []string
	keywords []string
	check    func(path string, s *object) []string
}

// The JSON Schema 2020-12 vocabularies (core, applicator, validation,
// unevaluated, format annotation, content, meta-data).
var draft2020 = []string{
	"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
	"contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
	"unevaluatedItems", "unevaluatedProperties", "type", "enum", "const", "multipleOf", "maximum",
	"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
	"minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
	"dependentRequired", "format", "contentEncoding", "contentMediaType", "contentSchema", "title",
	"description", "default", "deprecated", "readOnly", "writeOnly", "examples",
}

// rules holds, per rendering, what its API accepts. Sources, as of this
// writing:
//
//   - OpenAI, Structured Outputs "Supported schemas": types string, number,
//     boolean, integer, object, array, enum, anyOf; string pattern and
//     format; number multipleOf, maximum, exclusiveMaximum, minimum,
//     exclusiveMinimum; array minItems, maxItems; root an object, not anyOf;
//     every field required (optional as a union with null);
//     additionalProperties false on every object; allOf, not,
//     dependentRequired, dependentSchemas, if/then/else unsupported.
//     minLength and maxLength are not in the supported list. Our own rule
//     adds: no oneOf, $ref or $defs.
//   - Anthropic strict tool use, "JSON Schema limitations": supported are
//     the basic types, enum (primitives), const, anyOf, allOf, $ref/$defs/
//     definitions (internal), default, required, additionalProperties
//     (false only), string formats, array minItems 0 or 1, simple pattern;
//     not supported are numerical constraints (minimum, maximum,
//     multipleOf, …), string constraints (minLength, maxLength) and array
//     constraints beyond minItems 0 or 1. Without strict, input_schema is
//     JSON Schema 2020-12 with a root object.
//   - Gemini FunctionDeclaration.parameters, the Schema object (an OpenAPI
//     3.0 subset): type (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT,
//     NULL), format, title, description, nullable, enum (strings, with
//     format "enum"), maxItems, minItems, properties, required,
//     minProperties, maxProperties, minLength, maxLength, pattern, example,
//     anyOf, propertyOrdering, default, items, minimum, maximum; no
//     additionalProperties.
//   - Gemini parametersJsonSchema: only $id, $defs, $ref, $anchor, type,
//     format, title, description, enum (strings and numbers), items,
//     prefixItems, minItems, maxItems, minimum, maximum, anyOf, oneOf,
//     properties, additionalProperties, required, and propertyOrdering.
//   - MCP Tool: name, title, description, inputSchema and outputSchema
//     (JSON Schema objects with type "object"; 2020-12 when $schema is
//     absent), annotations (title, readOnlyHint, destructiveHint,
//     idempotentHint, openWorldHint), icons, _meta.
//   - Anthropic's Messages API refuses an input_schema with anyOf, oneOf or
//     allOf at the top level ("input_schema does not support oneOf, allOf,
//     or anyOf at the top level", anthropics/claude-code#5319), and MCP
//     clients hand inputSchema on to it. Our own rule extends this to every
//     model API's rendering (OpenAI's strict mode refuses a root anyOf too).
var rules = map[string]apiRules{
	FormatJSON: {
		schemaAt: []string{""},
		keywords: draft2020,
		check:    rootObject,
	},
	FormatResult: {
		schemaAt: []string{""},
		keywords: draft2020,
		check:    rootObject,
	},
	FormatOpenAI: {
		schemaAt: []string{"parameters"},
		toolKeys: []string{"type", "name", "description", "strict", "parameters"},
		keywords: []string{
			"type", "description", "enum", "anyOf", "properties", "required", "additionalProperties",
			"items", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
			"exclusiveMinimum", "minItems", "maxItems",
		},
		check: func(path string, s *object) []string {
			p := append(rootObject(path, s), rootUnion(path, s)...)
			if isObjectSchema(s) {
				p = append(p, closedObject(path, s)...)
				props := s.child("properties")
				if props == nil {
					props = newObject()
				}
				req := stringsOf(s.vals["required"])
				for _, name := range props.keys {
					if !slices.Contains(req, name) {
						p = append(p, fmt.Sprintf("%s: property %q is not in required", path, name))
					}
				}
			}
			return p
		},
	},
	FormatAnthropic: {
		schemaAt: []string{"input_schema"},
		toolKeys: []string{"name", "description", "input_schema"},
		keywords: slices.DeleteFunc(slices.Clone(draft2020), func(k string) bool { return k == "$schema" }),
		check:    rootObjectNoUnion,
	},
	FormatAnthropicStrict: {
		schemaAt: []string{"input_schema"},
		toolKeys: []string{"name", "description", "strict", "input_schema"},
		keywords: []string{
			"type", "description", "enum", "const", "anyOf", "allOf", "$ref", "$defs", "definitions",
			"default", "required", "additionalProperties", "properties", "items", "format", "minItems",
			"pattern",
		},
		check: func(path string, s *object) []string {
			p := rootObjectNoUnion(path, s)
			if n, ok := s.vals["minItems"].(json.Number); ok && n != "0" && n != "1" {
				p = append(p, fmt.Sprintf("%s: minItems %s (only 0 and 1 are supported)", path, n))
			}
			if isObjectSchema(s) {
				p = append(p, closedObject(path, s)...)
			}
			return append(p, primitiveEnum(path, s)...)
		},
	},
	FormatGemini: {
		schemaAt: []string{"parameters"},
		toolKeys: []string{"name", "description", "parameters"},
		keywords: []string{
			"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
			"properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
			"pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
		},
		check: func(path string, s *object) []string {
			p := rootUnion(path, s)
			t, _ := s.vals["type"].(string)
			if !slices.Contains([]string{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}, t) &&
				(s.has("type") || !s.has("anyOf")) { // a union's type is its alternatives'
				p = append(p, fmt.Sprintf("%s: type %v is not a Gemini Type", path, s.vals["type"]))
			}
			if path == "" && t != "OBJECT" {
				p = append(p, "the root is not an OBJECT")
			}
			if e, ok := s.vals["enum"].([]any); ok {
				for _, x := range e {
					if _, ok := x.(string); !ok {
						p = append(p, fmt.Sprintf("%s: enum value %v is not a string", path, x))
					}
				}
				if s.str("format") != "enum" {
					p = append(p, fmt.Sprintf("%s: an enum without format \"enum\"", path))
				}
			}
			return p
		},
	},
	FormatGeminiJSONSchema: {
		schemaAt: []string{"parametersJsonSchema"},
		toolKeys: []string{"name", "description", "parametersJsonSchema"},
		keywords: []string{
			"$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items",
			"prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties",
			"additionalProperties", "required", "propertyOrdering",
		},
		check: func(path string, s *object) []string {
			p := rootObjectNoUnion(path, s)
			if e, ok := s.vals["enum"].([]any); ok {
				for _, x := range e {
					switch x.(type) {
					case string, json.Number:
					default:
						p = append(p, fmt.Sprintf("%s: enum value %v is neither a string nor a number", path, x))
					}
				}
			}
			return p
		},
	},
	FormatMCP: {
		schemaAt: []string{"inputSchema", "outputSchema"},
		toolKeys: []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta"},
		keywords: slices.DeleteFunc(slices.Clone(draft2020), func(k string) bool { return k == "$schema" }),
		check:    rootObjectNoUnion,
	},
}

func rootObject(path string, s *object) []string {
	if path == "" && s.vals["type"] != "object" {
		return []string{fmt.Sprintf("the root's type is %v, not object", s.vals["type"])}
	}
	return nil
}

func rootUnion(path string, s *object) []string {
	var p []string
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if path == "" && s.has(k) {
			p = append(p, fmt.Sprintf("the root is a union (%s)", k))
		}
	}
	return p
}

func rootObjectNoUnion(path string, s *object) []string {
	return append(rootObject(path, s), rootUnion(path, s)...)
}

func isObjectSchema(s *object) bool { return s.vals["type"] == "object" }

func closedObject(path string, s *object) []string {
	if ap, ok := s.vals["additionalProperties"].(bool); !ok || ap {
		return []string{fmt.Sprintf("%s: an object without additionalProperties: false", path)}
	}
	return nil
}

func primitiveEnum(path string, s *object) []string {
	e, _ := s.vals["enum"].([]any)
	for _, x := range e {
		switch x.(type) {
		case *object, []any:
			return []string{fmt.Sprintf("%s: a complex value in enum", path)}
		}
	}
	return nil
}

// problems lists everything in a rendering that its API rejects: a tool
// key or a keyword it does not know, anywhere in the schema tree, and the
// API's own structural rules.
func problems(r apiRules, doc *object) []string {
	var p []string
	if r.toolKeys != nil {
		for _, k := range doc.keys {
			if !slices.Contains(r.toolKeys, k) {
				p = append(p, fmt.Sprintf("tool key %q", k))
			}
		}
	}
	for _, at := range r.schemaAt {
		s := doc
		if at != "" {
			s = doc.child(at)
		}
		if s == nil {
			p = append(p, fmt.Sprintf("no schema at %q", at))
			continue
		}
		walkSchemas(s, "", func(path string, n *object) {
			for _, k := range n.keys {
				if !slices.Contains(r.keywords, k) {
					p = append(p, fmt.Sprintf("%s %s: keyword %q", at, path, k))
				}
			}
			for _, x := range r.check(path, n) {
				p = append(p, at+" "+x)
			}
		})
	}
	return p
}

func parseRendering(t *testing.T, data []byte) *object {
	t.Helper()
	v, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*object)
}

// TestKeywordsEachAPIAccepts walks each rendering's whole schema tree, for
// every contract, and fails on a keyword (or a tool key, or a shape) its API
// rejects.
func TestKeywordsEachAPIAccepts(t *testing.T) {
	for _, d := range Dialects() {
		for _, f := range Formats() {
			t.Run(d+"/"+f, func(t *testing.T) {
				doc := parseRendering(t, Options{Dialect: d}.must(f))
				if p := problems(rules[f], doc); len(p) > 0 {
					t.Errorf("%s holds what its API rejects:\n%s", f, strings.Join(p, "\n"))
				}
			})
		}
	}
}

// TestRootUnionCaught: pi's union, as the contract's own tool.json writes
// it, fails every model API's rules; merged, it passes (above).
func TestRootUnionCaught(t *testing.T) {
	union := contracts()[pi.Name].callTree(300)
	for _, f := range Formats() {
		if f == FormatJSON || f == FormatResult {
			continue
		}
		doc := parseRendering(t, Options{Dialect: pi.Name}.must(f))
		at := schemaAt(f)
		doc.set(at, clone(union))
		if p := strings.Join(problems(rules[f], doc), "\n"); !strings.Contains(p, "the root is a union (anyOf)") {
			t.Errorf("%s with pi's union: problems = %q; want the root union", f, p)
		}
	}
}

// TestKeywordCheckCatches shows the check above is not vacuous: a rendering
// with a keyword its API rejects fails it.
func TestKeywordCheckCatches(t *testing.T) {
	tests := []struct {
		format, at, prop, keyword string
		value                     any
		want                      string
	}{
		{FormatOpenAI, "parameters", "header", "maxLength", json.Number("16"), `keyword "maxLength"`},
		{FormatOpenAI, "parameters", "header", "oneOf", []any{}, `keyword "oneOf"`},
		{FormatAnthropicStrict, "input_schema", "header", "maxLength", json.Number("16"), `keyword "maxLength"`},
		{FormatAnthropicStrict, "input_schema", "options", "minItems", json.Number("2"), "minItems 2"},
		{FormatGemini, "parameters", "options", "additionalProperties", false, `keyword "additionalProperties"`},
		{FormatGeminiJSONSchema, "parametersJsonSchema", "header", "minLength", json.Number("1"), `keyword "minLength"`},
		{FormatMCP, "inputSchema", "header", "nullable", true, `keyword "nullable"`},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.keyword, func(t *testing.T) {
			doc := parseRendering(t, Options{}.must(tt.format))
			props := doc.child(tt.at).child("properties").child("questions").child("items").child("properties")
			props.child(tt.prop).set(tt.keyword, tt.value)
			p := strings.Join(problems(rules[tt.format], doc), "\n")
			if !strings.Contains(p, tt.want) {
				t.Errorf("problems = %q; want one mentioning %q", p, tt.want)
			}
		})
	}
}

// schemaAt is the key of a rendering's tool object that holds the call's
// schema; "" for the document itself.
func schemaAt(f string) string {
	switch f {
	case FormatOpenAI, FormatGemini:
		return "parameters"
	case FormatAnthropic, FormatAnthropicStrict:
		return "input_schema"
	case FormatGeminiJSONSchema:
		return "parametersJsonSchema"
	case FormatMCP:
		return "inputSchema"
	}
	return ""
}

// schemaOf returns the call's schema inside a rendering.
func schemaOf(f string, doc *object) *object {
	if at := schemaAt(f); at != "" {
		return doc.child(at)
	}
	return doc
}

// TestNoLimitLost: every limit keyword of the full schema is, in each
// rendering of each contract, either the same keyword at the same place or
// stated in that place's description. (pi's places are those of its merged
// shape, except in the plain JSON Schema, which keeps the union.)
func TestNoLimitLost(t *testing.T) {
	atLeast := map[string]int{"ask_user": 9, "pi-ask": 2, "pi": 7, "request_approval": 5}
	for _, d := range Dialects() {
		c := contracts()[d]
		for _, f := range Formats() {
			if f == FormatResult {
				continue
			}
			t.Run(d+"/"+f, func(t *testing.T) {
				full := c.callTree(Options{}.ceiling())
				if f != FormatJSON {
					c.mergeShapes(full)
				}
				limits := map[string]map[string]json.Number{} // path → keyword → value
				walkSchemas(full, "", func(path string, s *object) {
					for _, b := range bounds {
						for _, k := range []string{b.min, b.max} {
							if v, ok := s.vals[k].(json.Number); ok {
								if limits[path] == nil {
									limits[path] = map[string]json.Number{}
								}
								limits[path][k] = v
							}
						}
					}
				})
				if len(limits) < atLeast[d] {
					t.Fatalf("found limits at %d places, want %d; the reflection lost its tags?", len(limits), atLeast[d])
				}
				s := schemaOf(f, parseRendering(t, Options{Dialect: d}.must(f)))
				seen := map[string]*object{}
				walkSchemas(s, "", func(path string, n *object) { seen[path] = n })
				for path, kv := range limits {
					n := seen[path]
					if n == nil {
						t.Errorf("%s: missing", path)
						continue
					}
					for k, v := range kv {
						if got, ok := n.vals[k].(json.Number); ok && got == v {
							continue
						}
						if !describes(n.str("description"), k, v) {
							t.Errorf("%s: %s %s is neither a keyword nor in the description %q", path, k, v, n.str("description"))
						}
					}
				}
			})
		}
	}
}

// TestStampsLeftOut: no rendering offers the read-only stamps.
func TestStampsLeftOut(t *testing.T) {
	for _, f := range Formats() {
		for _, stamp := range []string{"asked_at", "nudge_at", "expires_at"} {
			if bytes.Contains(Options{}.must(f), []byte(`"`+stamp+`"`)) {
				t.Errorf("%s offers %s", f, stamp)
			}
		}
	}
}

// TestCeiling: the timeout's maximum is the ceiling the program sets, in
// keywords where the API has them and in words where it has not: ask_user's
// timeout_seconds, and pi's timeoutMs (both shapes) in milliseconds, up to
// the contract's own 300000. pi-ask has no timeout.
func TestCeiling(t *testing.T) {
	tests := []struct {
		dialect    string
		ceiling    int
		format     string
		want, gone string
		count      int // how many times want appears
	}{
		{"ask_user", 120, FormatJSON, `"maximum": 120`, "300", 1},
		{"ask_user", 120, FormatOpenAI, `"maximum": 120`, "300", 1},
		{"ask_user", 120, FormatGemini, `"maximum": 120`, "300", 1},
		{"ask_user", 120, FormatAnthropicStrict, `From 1 to 120.`, "300", 1},
		{"pi", 120, FormatJSON, `"maximum": 120000`, "300000", 2},
		{"pi", 120, FormatOpenAI, `"maximum": 120000`, "300000", 2},
		{"pi", 120, FormatGemini, `"maximum": 120000`, "300000", 2},
		{"pi", 120, FormatAnthropicStrict, `From 1000 to 120000.`, "300000", 2},
		{"pi", 600, FormatJSON, `"maximum": 300000`, "600000", 2},
		{"request_approval", 120, FormatJSON, `"maximum": 120`, "300", 1},
		{"request_approval", 120, FormatOpenAI, `"maximum": 120`, "300", 1},
		{"request_approval", 120, FormatAnthropicStrict, `From 1 to 120.`, "300", 1},
	}
	for _, tt := range tests {
		got := string(Options{Dialect: tt.dialect, MaxTimeoutSeconds: tt.ceiling}.must(tt.format))
		if n := strings.Count(got, tt.want); n != tt.count {
			t.Errorf("%s %s with a %d s ceiling has %s %d times, want %d", tt.dialect, tt.format, tt.ceiling, tt.want, n, tt.count)
		}
		if strings.Contains(got, tt.gone) {
			t.Errorf("%s %s with a %d s ceiling says %s", tt.dialect, tt.format, tt.ceiling, tt.gone)
		}
	}
	for _, f := range Formats() {
		if !bytes.Equal(Options{Dialect: "pi-ask", MaxTimeoutSeconds: 120}.must(f), Options{Dialect: "pi-ask"}.must(f)) {
			t.Errorf("pi-ask %s depends on the ceiling", f)
		}
	}
}

// TestSchemasCompile: the JSON Schema documents of every contract are valid
// 2020-12 schemas (the validator checks them against the meta-schema).
func TestSchemasCompile(t *testing.T) {
	for _, d := range Dialects() {
		o := Options{Dialect: d}
		docs := map[string][]byte{"call.json": o.JSONSchema(), "result.json": o.ResultSchema()}
		mcp := parseRendering(t, o.MCP())
		for _, k := range []string{"inputSchema", "outputSchema"} {
			docs["mcp-"+k+".json"] = indent(mcp.child(k))
		}
		for name, data := range docs {
			if _, err := compile(name, data); err != nil {
				t.Errorf("%s %s: %v", d, name, err)
			}
		}
	}
}

// TestHumanIntent: ask_user's optional human_intent is in every rendering
// of the call, with its limit and its words, and never required.
func TestHumanIntent(t *testing.T) {
	call := contracts()["ask_user"].call
	got := call.child("properties").child("human_intent")
	if got == nil {
		t.Fatal("the call has no human_intent property")
	}
	if got.str("type") != "string" || fmt.Sprint(got.vals["maxLength"]) != "120" {
		t.Errorf("human_intent = %s, want a string of at most 120 characters", indent(got))
	}
	if !strings.Contains(got.str("description"), "shown to the person above the questions") {
		t.Errorf("description = %q", got.str("description"))
	}
	if req := stringsOf(call.vals["required"]); slices.Contains(req, "human_intent") {
		t.Error("human_intent is required")
	}
}

// TestMergedShape: every model API gets pi's two shapes as one object with
// the properties of both, none required, each saying its shape.
func TestMergedShape(t *testing.T) {
	var tool struct {
		Parameters struct {
			AnyOf []struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"anyOf"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(pi.Tool(), &tool); err != nil {
		t.Fatal(err)
	}
	if len(tool.Parameters.AnyOf) != 2 {
		t.Fatalf("pi's tool.json has %d shapes, want 2", len(tool.Parameters.AnyOf))
	}
	for _, f := range Formats() {
		if f == FormatJSON || f == FormatResult {
			continue
		}
		s := schemaOf(f, parseRendering(t, Options{Dialect: pi.Name}.must(f)))
		if !strings.Contains(s.str("description"), "by whether questions is present") {
			t.Errorf("%s: the root's description %q does not say how the shapes are told apart", f, s.str("description"))
		}
		props := s.child("properties")
		var names []string
		for i, shape := range tool.Parameters.AnyOf {
			prefix := []string{"Option questions only", "One rich question only"}[i]
			for name := range shape.Properties {
				names = append(names, name)
				p := props.child(name)
				if p == nil {
					t.Errorf("%s: %s is missing", f, name)
					continue
				}
				if d := p.str("description"); !strings.HasPrefix(d, prefix) ||
					strings.Contains(d, "required there") != slices.Contains(shape.Required, name) {
					t.Errorf("%s: %s's description %q does not say its shape and whether it is required there", f, name, d)
				}
			}
		}
		slices.Sort(names)
		got := slices.Sorted(slices.Values(props.keys))
		if diff := cmp.Diff(names, got); diff != "" {
			t.Errorf("%s: properties (-want +got):\n%s", f, diff)
		}
		if req := stringsOf(s.vals["required"]); f != FormatOpenAI && len(req) > 0 {
			t.Errorf("%s: required %v; the shapes share no field", f, req)
		}
	}
}

func compile(name string, data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(name, doc); err != nil {
		return nil, err
	}
	return c.Compile(name)
}
