package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/internal/wire"
)

// The differential test judges each contract's calls by its decoder and by
// a JSON Schema validator against every rendering of the contract's
// arguments: the plain JSON Schema (FormatJSON) and the input schema of each
// model API's rendering (Gemini's OpenAPI subset read back as JSON Schema).
// They agree wherever a schema can judge. Every disagreement must be
// explained by a class; any other disagreement fails the test.
//
// The plain JSON Schema's disagreements are rules that per-field keywords
// cannot express (or properties of JSON text a validator never sees). Each
// contract lists its own classes: ask_user in differential_askuser_test.go,
// pi-ask and pi in differential_pi*_test.go.
//
// A rendering's schema is the plain one changed, step by step, as its
// renderer changes it (formatSteps). The test judges the call after each
// step; where a step changes the verdict, the step's class explains the
// change, and the last step's verdict must be the rendering's own:
//   - merged-shapes: pi's two call shapes merged into one object accept
//     what neither shape does (a call of neither shape, {}), or refuse a
//     field of the other shape that the decoder ignores.
//   - no-nulls: a rendering without null on optional fields (Anthropic,
//     Gemini's parametersJsonSchema) refuses the null the decoder reads as
//     absent.
//   - strict-required: OpenAI's strict mode requires every field (a strict
//     client sends null for the ones it leaves out) and refuses a call that
//     leaves one out.
//   - closed-objects: strict modes close the objects of a contract that
//     ignores unknown fields, and refuse those fields.
//   - open-objects: Gemini's subset has no additionalProperties, and
//     accepts the unknown fields ask_user's decoder refuses.
//   - in-words: a limit stated in words, not as a keyword, accepts a call
//     that breaks it.
const (
	classMergedShapes   = "merged-shapes"
	classNoNulls        = "no-nulls"
	classStrictRequired = "strict-required"
	classClosedObjects  = "closed-objects"
	classOpenObjects    = "open-objects"
	classInWords        = "in-words"
)

// A step is one change a renderer makes to the plain JSON Schema, with the
// class of the disagreements it may cause.
type step struct {
	class string
	apply func(c *contract, t *object)
}

var (
	stepMerge = step{classMergedShapes, func(c *contract, t *object) {
		c.mergeShapes(t)
		nullableOptionals(t) // the plain schema's optional fields take null; so do the merged ones
	}}
	stepNoNulls    = step{classNoNulls, func(_ *contract, t *object) { withoutNullOptionals(t) }}
	stepRequireAll = step{classStrictRequired, func(_ *contract, t *object) { requireAll(t) }}
	stepClose      = step{classClosedObjects, func(_ *contract, t *object) { closeObjects(t) }}
	stepOpen       = step{classOpenObjects, func(_ *contract, t *object) {
		walkSchemas(t, "", func(_ string, s *object) { s.del("additionalProperties") })
	}}
	stepInWords = func(drop func(string, json.Number) bool) step {
		return step{classInWords, func(_ *contract, t *object) { toWords(t, drop) }}
	}
	stepLengthsInWords = stepInWords(dropLengths)
)

// formatSteps are the steps from the plain JSON Schema to each rendering's
// input schema, in the renderers' words.
var formatSteps = map[string][]step{
	FormatMCP:              {stepMerge},
	FormatAnthropic:        {stepMerge, stepNoNulls},
	FormatAnthropicStrict:  {stepMerge, stepNoNulls, stepClose, stepInWords(dropAnthropicStrict)},
	FormatOpenAI:           {stepMerge, stepRequireAll, stepClose, stepLengthsInWords},
	FormatGemini:           {stepMerge, stepOpen},
	FormatGeminiJSONSchema: {stepMerge, stepNoNulls, stepLengthsInWords},
}

// withoutNullOptionals undoes nullableOptionals.
func withoutNullOptionals(root *object) {
	walkSchemas(root, "", func(_ string, s *object) {
		props := s.child("properties")
		if props == nil {
			return
		}
		req := stringsOf(s.vals["required"])
		for _, name := range props.keys {
			if slices.Contains(req, name) {
				continue
			}
			p := props.child(name)
			if ty, ok := p.vals["type"].([]any); ok {
				ty = slices.DeleteFunc(slices.Clone(ty), func(x any) bool { return x == "null" })
				if len(ty) == 1 {
					p.set("type", ty[0])
				} else {
					p.set("type", ty)
				}
			}
			if e, ok := p.vals["enum"].([]any); ok {
				p.set("enum", slices.DeleteFunc(slices.Clone(e), func(x any) bool { return x == nil }))
			}
			if alts, ok := p.vals["anyOf"].([]any); ok {
				p.set("anyOf", slices.DeleteFunc(slices.Clone(alts), isNull))
			}
		}
	})
}

// geminiToJSON reads a schema of Gemini's OpenAPI subset as JSON Schema:
// lower-case types, nullable as a null type.
func geminiToJSON(root *object) {
	walkSchemas(root, "", func(_ string, s *object) {
		if ty := s.str("type"); ty != "" {
			s.set("type", strings.ToLower(ty))
		}
		if s.str("format") == "enum" {
			s.del("format")
		}
		if n, _ := s.vals["nullable"].(bool); n {
			s.del("nullable")
			addNull(s)
		}
	})
}

// ---- JSON values with duplicate fields ----

// member is one field of a generated JSON object; a generated object may
// hold a field twice, which a Go map cannot.
type member struct {
	k string
	v any
}

// jobj is a generated JSON object, written in order, duplicates and all.
type jobj []member

func (o jobj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := wire.Marshal(m.k)
		v, err := wire.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (o jobj) get(k string) (any, bool) {
	for i := len(o) - 1; i >= 0; i-- { // the last one wins, as in encoding/json
		if o[i].k == k {
			return o[i].v, true
		}
	}
	return nil, false
}

func (o jobj) without(keep func(member) bool) jobj {
	return slices.DeleteFunc(slices.Clone(o), func(m member) bool { return !keep(m) })
}

// absent marks a field left out.
type absentT struct{}

var absent = absentT{}

// jo builds a jobj, leaving out the fields whose value is absent.
func jo(kv ...any) jobj {
	var o jobj
	for i := 0; i+1 < len(kv); i += 2 {
		if _, skip := kv[i+1].(absentT); !skip {
			o = append(o, member{kv[i].(string), kv[i+1]})
		}
	}
	return o
}

// override sets (or with absent, removes) fields of o.
func override(o jobj, kv ...any) jobj {
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i].(string), kv[i+1]
		o = o.without(func(m member) bool { return m.k != k })
		if _, skip := v.(absentT); !skip {
			o = append(o, member{k, v})
		}
	}
	return o
}

// toJobj reads JSON text into jobjs (the last of a duplicated field wins);
// nil when the text is not a JSON object.
func toJobj(text string) jobj {
	v, err := parse([]byte(text))
	if err != nil {
		return nil
	}
	o, _ := fromTree(v).(jobj)
	return o
}

func fromTree(v any) any {
	switch t := v.(type) {
	case *object:
		o := jobj{}
		for _, k := range t.keys {
			o = append(o, member{k, fromTree(t.vals[k])})
		}
		return o
	case []any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = fromTree(x)
		}
		return a
	}
	return v
}

// strictClient writes a call as a strict-mode client sends it: every field
// the schema s (a strict rendering's, which requires them all) knows and
// the call leaves out, as null; skip names fields to leave out anyway.
func strictClient(v any, s *object, skip ...string) any {
	if s == nil {
		return v
	}
	switch t := v.(type) {
	case jobj:
		props := s.child("properties")
		if props == nil {
			return v
		}
		out := jobj{}
		for _, m := range t {
			out = append(out, member{m.k, strictClient(m.v, props.child(m.k), skip...)})
		}
		for _, k := range props.keys {
			if _, ok := t.get(k); !ok && !slices.Contains(skip, k) {
				out = append(out, member{k, nil})
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = strictClient(x, s.child("items"), skip...)
		}
		return out
	}
	return v
}

// ---- generators ----

// A call is generated at a noise level drawn once per call: each field takes
// an edge value (blank, too long, miscased, of the wrong type, …) one time
// in noise, and a valid value otherwise. Low noise gives mostly valid calls,
// which reach the rules across fields; high noise gives broken ones.
type gen struct {
	t     *rapid.T
	noise int
}

func newGen(t *rapid.T) gen {
	return gen{t, rapid.SampledFrom([]int{3, 8, 30, 200}).Draw(t, "noise")}
}

// field draws from valid, or one time in g.noise from edge.
func (g gen) field(label string, valid, edge []any) any {
	if len(edge) > 0 && g.edge(label) {
		return rapid.SampledFrom(edge).Draw(g.t, label+"Edge")
	}
	return rapid.SampledFrom(valid).Draw(g.t, label)
}

func (g gen) count(label string, valid, edge []int) int {
	if g.edge(label) {
		return rapid.SampledFrom(edge).Draw(g.t, label+"Edge")
	}
	return rapid.SampledFrom(valid).Draw(g.t, label)
}

// edge reports, about one time in g.noise, that a field takes an edge
// value. rapid leans towards the ends of a range, so the edge is a value in
// the middle of one.
func (g gen) edge(label string) bool {
	return rapid.IntRange(0, 2*g.noise).Draw(g.t, label+"Noise") == g.noise
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// shaped builds a value with build, or, one time in g.noise, takes one of
// wrong instead: a value of the wrong shape (absent, null, a string where a
// list belongs, …).
func (g gen) shaped(label string, wrong []any, build func() any) any {
	edges := make([]int, len(wrong))
	for i := range edges {
		edges[i] = i + 1
	}
	if k := g.count(label, []int{0}, edges); k > 0 {
		return wrong[k-1]
	}
	return build()
}

// malformed reports, one time in g.noise, that a question or an option
// (what) is not an object at all, and draws what it is instead from bad.
func (g gen) malformed(what string, bad []any) (any, bool) {
	if g.count(what+"Shape", []int{0}, []int{1}) == 1 {
		return rapid.SampledFrom(bad).Draw(g.t, "bad"+strings.ToUpper(what[:1])+what[1:]), true
	}
	return nil, false
}

// list builds n items (questions, options), handing each the strings the
// items before it hold under key (their ids, values), so that an item can
// repeat one.
func list(n int, key string, item func(i int, prev []string) any) []any {
	items := make([]any, n)
	var prev []string
	for i := range items {
		items[i] = item(i, prev)
		if o, ok := items[i].(jobj); ok {
			if v, ok := o.get(key); ok {
				if s, ok := v.(string); ok {
					prev = append(prev, s)
				}
			}
		}
	}
	return items
}

// ---- judging ----

// A dialectSpec is what the differential test needs of one contract.
type dialectSpec struct {
	name   string
	decode func(data []byte, lim dialect.Limits) (*askuser.Form, error)
	// refusal names the rules behind a call the plain schema accepts and
	// the decoder refuses with msg; acceptance, behind a call the plain
	// schema refuses and the decoder accepts. nil: no class explains it.
	refusal    func(j *judge, c any, msg string) []string
	acceptance func(j *judge, c any) []string
	edges      func() []edgeCase
	gen        *rapid.Generator[jobj]
	// strictSkip: fields a strict client leaves out (see strictClient).
	strictSkip func() []string
	// classes are the plain schema's classes; steps, the steps' classes
	// this contract's renderings can cause. The corpus must reach each.
	classes, steps []string
	// atLeast is how many calls must be valid, and invalid, to both.
	atLeast int
}

type edgeCase struct {
	name string
	call any // a jobj, or a string of JSON text
}

type verdict struct {
	schemaOK, decoderOK bool
	judged              bool   // false when the schema side could not read the text
	decoderMsg          string // the decoder's message, when it refused
	classes             []string
	renderings          map[string]renderingVerdict
}

// renderingVerdict is a rendering's judgement of a call, the classes of its
// disagreement with the decoder, and what is unexplained about it.
type renderingVerdict struct {
	ok          bool
	classes     []string
	unexplained string
}

type rendering struct {
	format string
	steps  []*jsonschema.Schema // the plain schema after each step
	own    *jsonschema.Schema   // the rendering's input schema
}

type judge struct {
	spec       *dialectSpec
	plain      *jsonschema.Schema
	shapes     []*jsonschema.Schema // each call shape alone, for a contract of several
	strict     *object              // the OpenAI rendering's schema, for strictClient
	renderings []rendering
}

func newJudge(t testing.TB, spec *dialectSpec) *judge {
	t.Helper()
	o := Options{Dialect: spec.name}
	c := contracts()[spec.name]
	j := &judge{spec: spec, plain: mustCompile(t, spec.name+".json", o.JSONSchema())}
	plain := parseTree(t, o.JSONSchema())
	if alts, ok := plain.vals["anyOf"].([]any); ok {
		for i, a := range alts {
			j.shapes = append(j.shapes, mustCompile(t, fmt.Sprintf("%s-shape%d.json", spec.name, i), indent(a)))
		}
	}
	j.strict = schemaOf(FormatOpenAI, parseTree(t, o.OpenAI()))
	for _, f := range Formats() {
		steps, ok := formatSteps[f]
		if !ok {
			continue
		}
		r := rendering{format: f}
		tree := clone(plain).(*object)
		for i, s := range steps {
			s.apply(c, tree)
			r.steps = append(r.steps, mustCompile(t, fmt.Sprintf("%s-%s-step%d.json", spec.name, f, i), indent(tree)))
		}
		own := schemaOf(f, parseTree(t, o.must(f)))
		if f == FormatGemini {
			geminiToJSON(own)
		}
		r.own = mustCompile(t, fmt.Sprintf("%s-%s.json", spec.name, f), indent(own))
		j.renderings = append(j.renderings, r)
	}
	return j
}

func parseTree(t testing.TB, data []byte) *object {
	t.Helper()
	v, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return v.(*object)
}

func mustCompile(t testing.TB, name string, data []byte) *jsonschema.Schema {
	t.Helper()
	s, err := compile(name, data)
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, data)
	}
	return s
}

func valid(s *jsonschema.Schema, inst any) bool { return s.Validate(inst) == nil }

// ok reports whether the plain schema accepts a call.
func (j *judge) ok(c any) bool {
	data, err := wire.Marshal(c)
	if err != nil {
		return false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	return err == nil && valid(j.plain, inst)
}

// verdict judges a call every way, and classifies each disagreement.
func (j *judge) verdict(c any) (data []byte, v verdict) {
	switch x := c.(type) {
	case string:
		data = []byte(x)
	default:
		var err error
		if data, err = wire.Marshal(c); err != nil {
			panic(err)
		}
	}
	_, err := j.spec.decode(data, dialect.Limits{})
	v.decoderOK = err == nil
	if err != nil {
		var ce *dialect.CallError
		if !errors.As(err, &ce) {
			panic(err)
		}
		v.decoderMsg = ce.Message
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return data, v
	}
	v.judged = true
	v.schemaOK = valid(j.plain, inst)
	switch {
	case v.schemaOK == v.decoderOK:
	case v.schemaOK:
		v.classes = j.spec.refusal(j, c, v.decoderMsg)
	default:
		v.classes = j.spec.acceptance(j, c)
	}
	v.renderings = map[string]renderingVerdict{}
	for _, r := range j.renderings {
		prev := v.schemaOK
		var flips []string
		for i, s := range r.steps {
			if ok := valid(s, inst); ok != prev {
				flips = append(flips, formatSteps[r.format][i].class)
				prev = ok
			}
		}
		rv := renderingVerdict{ok: valid(r.own, inst)}
		switch {
		case rv.ok != prev:
			rv.unexplained = fmt.Sprintf("the rendering says valid %v, its steps %v", rv.ok, prev)
		case rv.ok == v.decoderOK:
		default:
			rv.classes = flips
			if v.schemaOK != v.decoderOK {
				if len(v.classes) == 0 {
					rv.unexplained = "the plain schema's disagreement has no class"
				}
				rv.classes = append(rv.classes, v.classes...)
			}
		}
		v.renderings[r.format] = rv
	}
	return data, v
}

// corpus is a contract's hand-written cases, each also as a strict-mode
// client sends it.
func (j *judge) corpus() []edgeCase {
	var out []edgeCase
	var skip []string
	if j.spec.strictSkip != nil {
		skip = j.spec.strictSkip()
	}
	for _, ec := range j.spec.edges() {
		out = append(out, ec)
		o, ok := ec.call.(jobj)
		if s, isText := ec.call.(string); isText {
			o, ok = toJobj(s), toJobj(s) != nil
		}
		if ok {
			out = append(out, edgeCase{ec.name + " (strict client)", strictClient(o, j.strict, skip...)})
		}
	}
	return out
}

// ---- the tests ----

type tally struct {
	calls, judged, bothValid, bothInvalid int
	classes                               map[string]int
}

func newTally() *tally { return &tally{classes: map[string]int{}} }

func (s *tally) add(schemaOK bool, v verdict, classes []string) {
	s.calls++
	if !v.judged {
		return
	}
	s.judged++
	switch {
	case schemaOK && v.decoderOK:
		s.bothValid++
	case !schemaOK && !v.decoderOK:
		s.bothInvalid++
	default:
		for _, c := range classes {
			s.classes[c]++
		}
	}
}

func (s *tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d calls, %d judged by both: %d valid to both, %d invalid to both; disagreements by class:",
		s.calls, s.judged, s.bothValid, s.bothInvalid)
	keys := slices.Collect(maps.Keys(s.classes))
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %-20s %d", k, s.classes[k])
	}
	return b.String()
}

// tallies counts verdicts for the plain schema ("" ) and each rendering.
type tallies map[string]*tally

func (ts tallies) add(v verdict) {
	if ts[FormatJSON] == nil {
		ts[FormatJSON] = newTally()
	}
	ts[FormatJSON].add(v.schemaOK, v, v.classes)
	for f, rv := range v.renderings {
		if ts[f] == nil {
			ts[f] = newTally()
		}
		ts[f].add(rv.ok, v, rv.classes)
	}
}

// problemsOf lists what is wrong with a verdict: a disagreement without a
// class, or a rendering whose verdict its steps do not explain.
func problemsOf(v verdict) []string {
	var p []string
	if v.judged && v.schemaOK != v.decoderOK && len(v.classes) == 0 {
		p = append(p, fmt.Sprintf("unclassified disagreement: schema valid %v, decoder valid %v (%s)", v.schemaOK, v.decoderOK, v.decoderMsg))
	}
	for _, f := range slices.Sorted(maps.Keys(v.renderings)) {
		rv := v.renderings[f]
		switch {
		case rv.unexplained != "":
			p = append(p, fmt.Sprintf("%s: %s (decoder valid %v: %s)", f, rv.unexplained, v.decoderOK, v.decoderMsg))
		case rv.ok != v.decoderOK && len(rv.classes) == 0:
			p = append(p, fmt.Sprintf("%s: unclassified disagreement: rendering valid %v, decoder valid %v (%s)", f, rv.ok, v.decoderOK, v.decoderMsg))
		}
	}
	return p
}

func checkVerdict(t testing.TB, name string, data []byte, v verdict) {
	t.Helper()
	for _, p := range problemsOf(v) {
		t.Errorf("%s: %s\n%s", name, p, data)
	}
}

var specs = []*dialectSpec{askUserSpec, piAskSpec, piSpec, approvalSpec}

// TestDifferential judges, for every contract, its hand-written cases (each
// also as a strict client sends it) and 600 generated calls, by its decoder
// and by every rendering of its arguments (see the classes above).
func TestDifferential(t *testing.T) {
	for _, spec := range specs {
		t.Run(spec.name, func(t *testing.T) {
			j := newJudge(t, spec)
			ts := tallies{}
			for _, ec := range j.corpus() {
				data, v := j.verdict(ec.call)
				ts.add(v)
				checkVerdict(t, ec.name, data, v)
			}
			for i := range 600 {
				data, v := j.verdict(spec.gen.Example(i))
				ts.add(v)
				checkVerdict(t, fmt.Sprintf("generated call %d", i), data, v)
			}
			plain := ts[FormatJSON]
			t.Logf("plain JSON Schema: %s", plain)
			for _, f := range Formats() {
				if ts[f] != nil && f != FormatJSON {
					t.Logf("%s: %s", f, ts[f])
				}
			}
			if plain.calls < 500 {
				t.Errorf("judged %d calls; want at least 500", plain.calls)
			}
			// The generator is useful only if it reaches both verdicts and every
			// class often enough to be checked.
			if plain.bothValid < spec.atLeast || plain.bothInvalid < spec.atLeast {
				t.Errorf("too few calls valid (%d) or invalid (%d) to both; want %d", plain.bothValid, plain.bothInvalid, spec.atLeast)
			}
			for _, c := range spec.classes {
				if plain.classes[c] == 0 {
					t.Errorf("no call exercised the class %s", c)
				}
			}
			for _, c := range spec.steps {
				n := 0
				for _, tl := range ts {
					n += tl.classes[c]
				}
				if n == 0 {
					t.Errorf("no call exercised the class %s in any rendering", c)
				}
			}
		})
	}
}

// TestDifferentialRapid explores further with rapid, which shrinks a call
// that disagrees without a class to a small one.
func TestDifferentialRapid(t *testing.T) {
	for _, spec := range specs {
		t.Run(spec.name, func(t *testing.T) {
			j := newJudge(t, spec)
			rapid.Check(t, func(rt *rapid.T) {
				data, v := j.verdict(spec.gen.Draw(rt, "call"))
				if p := problemsOf(v); len(p) > 0 {
					rt.Fatalf("%s\n%s", strings.Join(p, "\n"), data)
				}
			})
		})
	}
}

// edgeWant is what the plain schema and the decoder say of a hand-written
// case, and the class of their disagreement; renderings pins what some
// renderings say, and why.
type edgeWant struct {
	schemaOK, decoderOK bool
	class               string
	renderings          map[string]renderingWant
}

type renderingWant struct {
	ok    bool
	class string
}

// checkEdgeCases pins, for one contract, what the judges say of each
// hand-written case: every case must have an expectation.
func checkEdgeCases(t *testing.T, spec *dialectSpec, want map[string]edgeWant) {
	t.Helper()
	j := newJudge(t, spec)
	seen := map[string]bool{}
	for _, ec := range j.corpus() {
		w, ok := want[ec.name]
		if !ok {
			if !strings.HasSuffix(ec.name, " (strict client)") {
				t.Errorf("%s: no expectation", ec.name)
			}
			continue
		}
		seen[ec.name] = true
		_, v := j.verdict(ec.call)
		got := edgeWant{v.schemaOK, v.decoderOK, strings.Join(v.classes, ","), nil}
		if got.schemaOK != w.schemaOK || got.decoderOK != w.decoderOK || got.class != w.class {
			t.Errorf("%s: (schema valid, decoder valid, class) = (%v, %v, %q); want (%v, %v, %q) (decoder: %s)",
				ec.name, got.schemaOK, got.decoderOK, got.class, w.schemaOK, w.decoderOK, w.class, v.decoderMsg)
		}
		for f, rw := range w.renderings {
			rv := v.renderings[f]
			if g := (renderingWant{rv.ok, strings.Join(rv.classes, ",")}); g != rw {
				t.Errorf("%s: %s (valid, class) = %v; want %v (decoder valid %v: %s)", ec.name, f, g, rw, v.decoderOK, v.decoderMsg)
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: expected, but not a case", name)
		}
	}
}

// ---- results ----

// TestGoldenResults validates every golden tool result of pi-ask and pi
// (their outcomes, and their answers to invalid calls) against the
// contract's ResultSchema and the MCP outputSchema, and shows the schema is
// not vacuous: each result with a field changed to an unknown value fails.
func TestGoldenResults(t *testing.T) {
	for _, tt := range []struct {
		dialect string
		globs   []string
		atLeast int
	}{
		{"pi", []string{"../dialect/pi/testdata/outcome/*/*.golden", "../dialect/pi/testdata/decode/*.golden"}, 50},
		{"pi-ask", []string{"../dialect/piask/testdata/outcome/*.golden", "../dialect/piask/testdata/decode/*.golden"}, 40},
	} {
		t.Run(tt.dialect, func(t *testing.T) {
			o := Options{Dialect: tt.dialect}
			result := mustCompile(t, "result.json", o.ResultSchema())
			out := mustCompile(t, "outputSchema.json", indent(parseTree(t, o.MCP()).child("outputSchema")))
			var files []string
			for _, g := range tt.globs {
				m, err := filepath.Glob(g)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, slices.DeleteFunc(m, func(f string) bool { return strings.HasSuffix(f, ".decisions.golden") })...)
			}
			if len(files) < tt.atLeast {
				t.Fatalf("found %d golden results, want at least %d", len(files), tt.atLeast)
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				for name, s := range map[string]*jsonschema.Schema{"ResultSchema": result, "outputSchema": out} {
					if err := s.Validate(inst); err != nil {
						t.Errorf("%s does not meet the %s: %v", f, name, err)
					}
				}
				var broken map[string]any
				if err := json.Unmarshal(data, &broken); err != nil {
					t.Fatal(err)
				}
				broken["details"].(map[string]any)["unknown"] = true
				if valid(result, broken) {
					t.Errorf("%s with an unknown field in details meets the ResultSchema", f)
				}
			}
		})
	}
}

// TestDifferentialCatches shows the judging is not vacuous: a disagreement
// no class explains, and a rendering that differs from its steps, are
// reported.
func TestDifferentialCatches(t *testing.T) {
	noClass := *piAskSpec
	noClass.refusal = func(*judge, any, string) []string { return nil }
	_, v := newJudge(t, &noClass).verdict(pcall(pq(`"id":"  ","prompt":"P"`)))
	if p := strings.Join(problemsOf(v), "\n"); !strings.Contains(p, "unclassified disagreement: schema valid true, decoder valid false") {
		t.Errorf("a blank id without its class: problems %q", p)
	}

	j := newJudge(t, piSpec)
	broken := schemaOf(FormatOpenAI, parseTree(t, Options{Dialect: pi.Name}.OpenAI()))
	broken.child("properties").child("timeoutMs").del("maximum") // lost, and not in words
	for i, r := range j.renderings {
		if r.format == FormatOpenAI {
			j.renderings[i].own = mustCompile(t, "broken.json", indent(broken))
		}
	}
	c := strictClient(toJobj(`{"question":"Q?","kind":"select","timeoutMs":300001}`), j.strict)
	_, v = j.verdict(c)
	if p := strings.Join(problemsOf(v), "\n"); !strings.Contains(p, "openai: the rendering says valid true, its steps false") {
		t.Errorf("a rendering that lost a limit: problems %q", p)
	}
}
