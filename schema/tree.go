package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/askuser-go/askuser/internal/wire"
)

// object is a JSON object that keeps its keys in order, so that every
// rendering prints the same bytes each time (golden files, prompt caches).
// Values are nil, bool, json.Number, string, []any or *object.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

// obj builds an object from alternating keys and values.
func obj(kv ...any) *object {
	o := newObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) has(k string) bool { _, ok := o.vals[k]; return ok }

func (o *object) str(k string) string { s, _ := o.vals[k].(string); return s }

func (o *object) child(k string) *object { c, _ := o.vals[k].(*object); return c }

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

// sortKeys orders o's keys: those in order first, as listed, then the
// others as they were.
func (o *object) sortKeys(order []string) {
	rank := func(k string) int {
		if i := slices.Index(order, k); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(o.keys, func(a, b string) int { return rank(a) - rank(b) })
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := wire.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := wire.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indent renders v as indented JSON with a final newline.
func indent(v any) []byte {
	data, err := wire.Marshal(v)
	if err != nil {
		panic("schema: " + err.Error()) // the trees are built here; they always encode
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		panic("schema: " + err.Error())
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// parse reads a JSON document into ordered objects.
func parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("schema: data after the top-level value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("schema: unexpected %v", t)
	default:
		return t, nil
	}
}

// clone copies a tree deeply.
func clone(v any) any {
	switch t := v.(type) {
	case *object:
		c := &object{keys: slices.Clone(t.keys), vals: make(map[string]any, len(t.vals))}
		for k, x := range t.vals {
			c.vals[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = clone(x)
		}
		return c
	default:
		return v
	}
}

// walkSchemas calls fn for every schema in the tree rooted at s, parents
// before children, with the schema's path ("" for the root,
// "properties.questions.items" and so on). It knows which keywords hold
// subschemas, so property names are never taken for keywords.
func walkSchemas(s *object, path string, fn func(path string, s *object)) {
	if s == nil {
		return
	}
	fn(path, s)
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for _, k := range slices.Clone(s.keys) {
		switch k {
		case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
			if m := s.child(k); m != nil {
				for _, name := range slices.Clone(m.keys) {
					walkSchemas(m.child(name), join(k+"."+name), fn)
				}
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains",
			"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
			walkSchemas(s.child(k), join(k), fn)
		case "anyOf", "oneOf", "allOf", "prefixItems":
			a, _ := s.vals[k].([]any)
			for i, x := range a {
				if c, ok := x.(*object); ok {
					walkSchemas(c, join(fmt.Sprintf("%s.%d", k, i)), fn)
				}
			}
		}
	}
}

// keyOrder is the order keywords are printed in: what a reader (or a model)
// needs first comes first.
var keyOrder = []string{
	"$schema", "$id", "type", "title", "description", "nullable", "format", "enum",
	"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
	"items", "properties", "required", "additionalProperties", "propertyOrdering",
}
