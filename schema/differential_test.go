package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/internal/wire"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/askuser-go/askuser"
)

// The differential test judges calls twice: by a JSON Schema validator
// against JSONSchema(), and by askuser's decoder. They agree wherever the
// schema can judge. Where they disagree, the disagreement is one of the
// classes below, each a rule that per-field keywords cannot express (or a
// property of JSON text a validator never sees); any other disagreement
// fails the test.
//
// The schema accepts, the decoder refuses:
//   - blank: a non-blank field (id, header, question, label, description,
//     secret_name, purpose) holding only whitespace: minLength 1 counts it
//     as present; the decoder trims first.
//   - id-unique: two questions with the same id.
//   - label-unique: two options of a question with the same label.
//   - secret-alone: a secret question among others.
//   - options-by-kind: a choice with fewer than 2 options, or a text or
//     secret question with options (the schema allows 0–6 to every kind).
//   - secret-fields: secret_name or purpose missing on a secret, or carried
//     by another kind.
//   - one-default: a single-select question marking several defaults.
//   - duplicate-field: a field written twice in the JSON text; a validator
//     sees only the decoded object, where the last one won.
//   - size-cap: a call over the embedding program's byte cap (64 KiB).
//
// The decoder accepts, the schema refuses:
//   - stamps: asked_at, nudge_at or expires_at given; the decoder accepts
//     and overwrites them, the schema leaves the read-only stamps out.
//   - empty-means-absent: secret_name or purpose "" on a non-secret, which
//     the decoder reads as absent and minLength 1 refuses.
const (
	classBlank            = "blank"
	classIDUnique         = "id-unique"
	classLabelUnique      = "label-unique"
	classSecretAlone      = "secret-alone"
	classOptionsByKind    = "options-by-kind"
	classSecretFields     = "secret-fields"
	classOneDefault       = "one-default"
	classDuplicateField   = "duplicate-field"
	classSizeCap          = "size-cap"
	classStamps           = "stamps"
	classEmptyMeansAbsent = "empty-means-absent"
)

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

// ---- generators ----

// A call is generated at a noise level drawn once per call: each field takes
// an edge value (blank, too long, miscased, of the wrong type, …) one time
// in noise, and a valid value otherwise. Low noise gives mostly valid calls,
// which reach the rules across fields; high noise gives broken ones.
type gen struct {
	t     *rapid.T
	noise int
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

var (
	headersValid = []any{"Env", "Database", strings.Repeat("é", 16), strings.Repeat("🙂", 16), "Sixteen chars ok"}
	headersEdge  = []any{
		absent, nil, "", "   ", "\u00a0\u2003", strings.Repeat("é", 17), strings.Repeat("🙂", 17),
		strings.Repeat("日", 17), "Seventeen chars!!", 16,
	}
	blankish      = []any{"", " ", "\t", "\u00a0"}
	timeoutsValid = []any{absent, absent, nil, json.Number("1"), json.Number("60"), json.Number("300"),
		json.Number("10.0"), json.Number("1e1"), json.Number("2e2")}
	timeoutsEdge = []any{json.Number("0"), json.Number("301"), json.Number("-5"), json.Number("1.5"), "10",
		json.Number("1e400")}
)

func (g gen) option(i int, prev []string) any {
	if g.count("optionShape", []int{0}, []int{1}) == 1 {
		return rapid.SampledFrom([]any{"not an option", nil}).Draw(g.t, "badOption")
	}
	label := any(string(rune('A' + i)))
	edge := append([]any{"", " ", "A ", absent, nil, 1}, anys(prev)...)
	label = g.field("label", []any{label}, edge)
	o := jo(
		"label", label,
		"description", g.field("description", []any{"d", "What it means"}, append([]any{absent, nil}, blankish...)),
		"default", g.field("default", []any{absent, absent, nil, false, false, true}, []any{"yes"}),
	)
	switch g.count("optionExtra", []int{0}, []int{1, 2}) {
	case 1:
		o = append(o, member{"Label", "x"}) // miscased
	case 2:
		o = append(o, member{"value", "x"})
	}
	return o
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func (g gen) question() any {
	if g.count("questionShape", []int{0}, []int{0, 1}) == 1 {
		return rapid.SampledFrom([]any{nil, "Which one?"}).Draw(g.t, "badQuestion")
	}
	kind := g.field("kind", []any{absent, absent, nil, "choice", "choice", "text", "secret"}, []any{"Choice", "select", 3})
	var options any
	if kind == "text" || kind == "secret" {
		options = g.field("options", []any{absent, absent, nil, []any{}}, []any{"A,B", g.options(2)})
	} else {
		n := g.count("nOptions", []int{2, 2, 3, 4, 6}, []int{0, 1, 7})
		options = g.field("options", []any{g.options(n)}, []any{absent, nil, "A,B"})
	}
	var sn, pu any = absent, absent
	if kind == "secret" {
		sn = g.field("secret_name", []any{"API_KEY", strings.Repeat("k", 255)},
			append([]any{absent, nil, strings.Repeat("ķ", 256), 7}, blankish...))
		pu = g.field("purpose", []any{"deploys the site"}, append([]any{absent, nil}, blankish...))
	} else {
		sn = g.field("secret_name", []any{absent, absent, nil}, []any{"", " ", "X"})
		pu = g.field("purpose", []any{absent, absent, nil}, []any{"", " ", "for"})
	}
	q := jo(
		"kind", kind,
		"id", g.field("id", []any{absent, absent, nil, "env", "db", "question_1", "question_2"}, append([]any{1}, blankish...)),
		"header", g.field("header", headersValid, headersEdge),
		"question", g.field("question", []any{"Which one?"}, append([]any{absent, nil, false}, blankish...)),
		"multi_select", g.field("multi_select", []any{absent, nil, true, false}, []any{"true"}),
		"allow_other", g.field("allow_other", []any{absent, nil, true, false}, []any{"false"}),
		"options", options,
		"secret_name", sn,
		"purpose", pu,
	)
	switch g.count("qExtra", []int{0}, []int{1, 2, 3}) {
	case 1:
		q = append(q, member{"Header", "Env"}) // miscased
	case 2:
		q = append(q, member{"prompt", "x"})
	case 3:
		if len(q) > 0 {
			q = append(q, q[rapid.IntRange(0, len(q)-1).Draw(g.t, "dup")]) // a field twice
		}
	}
	return q
}

func (g gen) options(n int) []any {
	opts := make([]any, n)
	var labels []string
	for i := range opts {
		opts[i] = g.option(i, labels)
		if o, ok := opts[i].(jobj); ok {
			if l, ok := o.get("label"); ok {
				if s, ok := l.(string); ok {
					labels = append(labels, s)
				}
			}
		}
	}
	return opts
}

var callGen = rapid.Custom(func(t *rapid.T) jobj {
	g := gen{t, rapid.SampledFrom([]int{3, 8, 30, 200}).Draw(t, "noise")}
	var questions any
	switch g.count("questionsShape", []int{0}, []int{0, 1, 2}) {
	case 1:
		questions = absent
	case 2:
		questions = nil
	default:
		n := g.count("nQuestions", []int{1, 1, 1, 2, 2, 3, 4}, []int{0, 5})
		qs := make([]any, n)
		for i := range qs {
			qs[i] = g.question()
		}
		questions = qs
	}
	c := jo("questions", questions, "timeout_seconds", g.field("timeout", timeoutsValid, timeoutsEdge))
	switch g.count("topExtra", []int{0}, []int{1, 2, 3, 4}) {
	case 1:
		c = append(c, member{"asked_at", "2026-11-30T09:00:00Z"})
	case 2:
		c = append(c, member{"expires_at", nil})
	case 3:
		c = append(c, member{"Questions", []any{}})
	case 4:
		c = append(c, member{"nudge_at", 5})
	}
	return c
})

// ---- hand-written edge cases ----

func choiceQ(kv ...any) jobj {
	base := []any{"header", "Env", "question", "Which environment?", "options", []any{
		jo("label", "staging", "description", "Safe to break", "default", true),
		jo("label", "production", "description", "Real users"),
	}}
	return override(jo(base...), kv...)
}

func secretQ(kv ...any) jobj {
	base := []any{"kind", "secret", "header", "Token", "question", "Paste the deploy token",
		"secret_name", "DEPLOY_TOKEN", "purpose", "deploys the site"}
	return override(jo(base...), kv...)
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

func call(qs ...any) jobj {
	if qs == nil {
		qs = []any{}
	}
	return jo("questions", qs)
}

func opt(label, desc string, def ...bool) jobj {
	o := jo("label", label, "description", desc)
	if len(def) > 0 {
		o = append(o, member{"default", def[0]})
	}
	return o
}

type edgeCase struct {
	name string
	call any // a jobj, or a string of JSON text
}

func edgeCases() []edgeCase {
	return []edgeCase{
		{"valid choice", call(choiceQ())},
		{"valid text", call(jo("kind", "text", "header", "Branch", "question", "Which branch?"))},
		{"valid secret alone", call(secretQ())},
		{"every optional field null", call(choiceQ("kind", nil, "id", nil, "multi_select", nil, "allow_other", nil,
			"secret_name", nil, "purpose", nil, "options", []any{
				jo("label", "a", "description", "x", "default", nil), jo("label", "b", "description", "y", "default", nil)}))},
		{"timeout null", override(call(choiceQ()), "timeout_seconds", nil)},
		{"miscased header", call(override(choiceQ(), "header", absent, "Header", "Env"))},
		{"miscased top field", jo("Questions", []any{choiceQ()})},
		{"unknown option field", call(choiceQ("options", []any{opt("a", "x"), jo("label", "b", "description", "y", "Default", true)}))},
		{"header 16 runes, 2 bytes each", call(choiceQ("header", strings.Repeat("é", 16)))},
		{"header 17 runes, 2 bytes each", call(choiceQ("header", strings.Repeat("é", 17)))},
		{"header 16 runes, 4 bytes each", call(choiceQ("header", strings.Repeat("🙂", 16)))},
		{"header 17 runes, 4 bytes each", call(choiceQ("header", strings.Repeat("🙂", 17)))},
		{"header 17 runes, 3 bytes each", call(choiceQ("header", strings.Repeat("日", 17)))},
		{"header blank", call(choiceQ("header", "   "))},
		{"header no-break spaces", call(choiceQ("header", "\u00a0\u00a0"))},
		{"header empty", call(choiceQ("header", ""))},
		{"header missing", call(choiceQ("header", absent))},
		{"question blank", call(choiceQ("question", "\n"))},
		{"duplicate labels", call(choiceQ("options", []any{opt("a", "x"), opt("a", "y")}))},
		{"labels differing in case", call(choiceQ("options", []any{opt("a", "x"), opt("A", "y")}))},
		{"blank label", call(choiceQ("options", []any{opt(" ", "x"), opt("b", "y")}))},
		{"blank description", call(choiceQ("options", []any{opt("a", "\t"), opt("b", "y")}))},
		{"one option", call(choiceQ("options", []any{opt("a", "x")}))},
		{"no options on a choice", call(choiceQ("options", absent))},
		{"seven options", call(choiceQ("options", []any{opt("a", "x"), opt("b", "x"), opt("c", "x"), opt("d", "x"), opt("e", "x"), opt("f", "x"), opt("g", "x")}))},
		{"two defaults, single-select", call(choiceQ("options", []any{opt("a", "x", true), opt("b", "y", true)}))},
		{"two defaults, multi-select", call(choiceQ("multi_select", true, "options", []any{opt("a", "x", true), opt("b", "y", true)}))},
		{"secret not alone", call(secretQ(), choiceQ())},
		{"secret second", call(choiceQ("id", "env"), secretQ())},
		{"secret with options", call(secretQ("options", []any{opt("a", "x"), opt("b", "y")}))},
		{"secret with empty options", call(secretQ("options", []any{}))},
		{"secret without secret_name", call(secretQ("secret_name", absent))},
		{"secret with blank secret_name", call(secretQ("secret_name", "  "))},
		{"secret_name 255 runes", call(secretQ("secret_name", strings.Repeat("ķ", 255)))},
		{"secret_name 256 runes", call(secretQ("secret_name", strings.Repeat("ķ", 256)))},
		{"secret without purpose", call(secretQ("purpose", absent))},
		{"secret with null purpose", call(secretQ("purpose", nil))},
		{"choice with secret_name", call(choiceQ("secret_name", "X"))},
		{"choice with blank purpose", call(choiceQ("purpose", " "))},
		{"choice with empty secret_name", call(choiceQ("secret_name", ""))},
		{"text with options", call(jo("kind", "text", "header", "B", "question", "Which?", "options", []any{opt("a", "x"), opt("b", "y")}))},
		{"text with null options", call(jo("kind", "text", "header", "B", "question", "Which?", "options", nil))},
		{"kind miscased", call(choiceQ("kind", "Choice"))},
		{"kind unknown", call(choiceQ("kind", "select"))},
		{"duplicate ids", call(choiceQ("id", "env"), choiceQ("id", "env"))},
		{"ids differing in space", call(choiceQ("id", "env"), choiceQ("id", "env "))},
		{"blank id", call(choiceQ("id", " "))},
		{"empty id", call(choiceQ("id", ""))},
		{"generated id taken", call(choiceQ(), choiceQ("id", "question_1"))},
		{"no questions", call()},
		{"five questions", call(choiceQ(), choiceQ(), choiceQ(), choiceQ(), choiceQ())},
		{"questions null", jo("questions", nil)},
		{"timeout 0", override(call(choiceQ()), "timeout_seconds", 0)},
		{"timeout 1", override(call(choiceQ()), "timeout_seconds", 1)},
		{"timeout 300", override(call(choiceQ()), "timeout_seconds", 300)},
		{"timeout 301", override(call(choiceQ()), "timeout_seconds", 301)},
		{"timeout 10.0", override(call(choiceQ()), "timeout_seconds", json.Number("10.0"))},
		{"timeout 1e1", override(call(choiceQ()), "timeout_seconds", json.Number("1e1"))},
		{"timeout 1.5", override(call(choiceQ()), "timeout_seconds", json.Number("1.5"))},
		{"timeout string", override(call(choiceQ()), "timeout_seconds", "10")},
		{"timeout 1e400", override(call(choiceQ()), "timeout_seconds", json.Number("1e400"))},
		{"stamps given", override(call(choiceQ()), "asked_at", "2026-11-30T09:00:00Z", "nudge_at", nil)},
		{"stamp of the wrong type", override(call(choiceQ()), "expires_at", 5)},
		{"duplicate header field", `{"questions":[{"header":"Env","header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`},
		{"duplicate field, one null", `{"questions":[{"kind":null,"kind":"text","header":"B","question":"Which?"}]}`},
		{"over the size cap", call(choiceQ("question", strings.Repeat("Which one? ", 7000)))},
		{"not an object", `[1,2]`},
		{"question not an object", jo("questions", []any{"Which?"})},
		{"option null", call(choiceQ("options", []any{nil, opt("b", "y")}))},
	}
}

// ---- judging ----

type verdict struct {
	schemaOK, decoderOK bool
	judged              bool   // false when the schema side could not read the text
	decoderMsg          string // the decoder's message, when it refused
	classes             []string
}

type judge struct{ sch *jsonschema.Schema }

func newJudge(t testing.TB) judge {
	t.Helper()
	sch, err := compile("ask_user.json", JSONSchema())
	if err != nil {
		t.Fatal(err)
	}
	return judge{sch}
}

func (j judge) valid(data []byte) (ok, judged bool) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return false, false
	}
	return j.sch.Validate(inst) == nil, true
}

// verdict judges a call both ways, and classifies a disagreement.
func (j judge) verdict(c any) (data []byte, v verdict) {
	switch x := c.(type) {
	case string:
		data = []byte(x)
	default:
		var err error
		if data, err = wire.Marshal(c); err != nil {
			panic(err)
		}
	}
	v.schemaOK, v.judged = j.valid(data)
	_, err := askuser.AskUser().Decode(data, askuser.Limits{})
	v.decoderOK = err == nil
	if err != nil {
		var ce *askuser.CallError
		if !errors.As(err, &ce) {
			panic(err)
		}
		v.decoderMsg = ce.Message
	}
	switch {
	case !v.judged || v.schemaOK == v.decoderOK:
	case v.schemaOK:
		v.classes = classifyRefusal(c, v.decoderMsg)
	default:
		v.classes = j.classifyAcceptance(c)
	}
	return data, v
}

// classifyRefusal names the rule the decoder applied to a call the schema
// accepts. A schema-valid call breaks no keyword, so the decoder's first
// failure is a rule the keywords cannot express.
func classifyRefusal(c any, msg string) []string {
	has := func(s string) bool { return strings.Contains(msg, s) }
	switch {
	case has("duplicate field"):
		return []string{classDuplicateField}
	case has("bytes are accepted"):
		return []string{classSizeCap}
	case has("id must not be empty"), has("header must not be empty"), has("text must not be empty"),
		has("option labels must not be empty"), has("option descriptions must not be empty"),
		has("non-whitespace characters"):
		return []string{classBlank}
	case has("ids must be unique"):
		return []string{classIDUnique}
	case has("labels must be unique"):
		return []string{classLabelUnique}
	case has("must be the only question"):
		return []string{classSecretAlone}
	case has("must not offer options"), has("options must contain between 2 and 6"):
		return []string{classOptionsByKind}
	case has("secret_name is required"), has("must not carry secret_name or purpose"):
		return []string{classSecretFields}
	case has("purpose must not be empty"):
		// blank if given as a non-empty string; otherwise missing
		if purposeGiven(c, msg) {
			return []string{classBlank}
		}
		return []string{classSecretFields}
	case has("may mark at most one default"):
		return []string{classOneDefault}
	}
	return nil
}

func purposeGiven(c any, msg string) bool {
	o, ok := c.(jobj)
	if !ok {
		return false
	}
	qs, _ := o.get("questions")
	list, _ := qs.([]any)
	var p int
	if _, err := fmt.Sscanf(msg[strings.Index(msg, "question "):], "question %d", &p); err != nil || p < 1 || p > len(list) {
		return false
	}
	q, _ := list[p-1].(jobj)
	v, _ := q.get("purpose")
	s, ok := v.(string)
	return ok && s != ""
}

// classifyAcceptance names why the schema refuses a call the decoder
// accepts: it takes away what the decoder ignores, one class at a time,
// until the schema accepts.
func (j judge) classifyAcceptance(c any) []string {
	o, ok := c.(jobj)
	if !ok {
		return nil
	}
	var classes []string
	if s := o.without(func(m member) bool { return !isStamp(m.k) }); len(s) < len(o) {
		o, classes = s, append(classes, classStamps)
		if j.ok(o) {
			return classes
		}
	}
	if s, changed := withoutEmptySecretFields(o); changed {
		o, classes = s, append(classes, classEmptyMeansAbsent)
		if j.ok(o) {
			return classes
		}
	}
	return nil
}

func (j judge) ok(o jobj) bool {
	data, err := wire.Marshal(o)
	if err != nil {
		return false
	}
	ok, _ := j.valid(data)
	return ok
}

func isStamp(k string) bool { return k == "asked_at" || k == "nudge_at" || k == "expires_at" }

func withoutEmptySecretFields(o jobj) (jobj, bool) {
	qs, _ := o.get("questions")
	list, ok := qs.([]any)
	if !ok {
		return o, false
	}
	changed := false
	out := make([]any, len(list))
	for i, x := range list {
		out[i] = x
		q, ok := x.(jobj)
		if !ok {
			continue
		}
		if k, _ := q.get("kind"); k == "secret" {
			continue
		}
		nq := q.without(func(m member) bool {
			return !((m.k == "secret_name" || m.k == "purpose") && m.v == "")
		})
		if len(nq) < len(q) {
			out[i], changed = nq, true
		}
	}
	return override(o, "questions", out), changed
}

// ---- the tests ----

type tally struct {
	calls, judged, bothValid, bothInvalid int
	classes                               map[string]int
}

func (s *tally) add(v verdict) {
	s.calls++
	if !v.judged {
		return
	}
	s.judged++
	switch {
	case v.schemaOK && v.decoderOK:
		s.bothValid++
	case !v.schemaOK && !v.decoderOK:
		s.bothInvalid++
	default:
		for _, c := range v.classes {
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

func checkVerdict(t testing.TB, name string, data []byte, v verdict) {
	t.Helper()
	if v.judged && v.schemaOK != v.decoderOK && len(v.classes) == 0 {
		t.Errorf("%s: unclassified disagreement: schema valid %v, decoder valid %v (%s)\n%s",
			name, v.schemaOK, v.decoderOK, v.decoderMsg, data)
	}
}

// TestDifferential judges 600 generated calls and the hand-written edge
// cases both ways (see the classes above).
func TestDifferential(t *testing.T) {
	j := newJudge(t)
	s := &tally{classes: map[string]int{}}
	for _, ec := range edgeCases() {
		data, v := j.verdict(ec.call)
		s.add(v)
		checkVerdict(t, ec.name, data, v)
	}
	for i := range 600 {
		data, v := j.verdict(callGen.Example(i))
		s.add(v)
		checkVerdict(t, fmt.Sprintf("generated call %d", i), data, v)
	}
	t.Log(s)
	if s.calls < 500 {
		t.Errorf("judged %d calls; want at least 500", s.calls)
	}
	// The generator is useful only if it reaches both verdicts and every
	// class often enough to be checked.
	if s.bothValid < 50 || s.bothInvalid < 50 {
		t.Errorf("too few calls valid (%d) or invalid (%d) to both", s.bothValid, s.bothInvalid)
	}
	for _, c := range []string{classBlank, classIDUnique, classLabelUnique, classSecretAlone, classOptionsByKind,
		classSecretFields, classOneDefault, classDuplicateField, classSizeCap, classStamps, classEmptyMeansAbsent} {
		if s.classes[c] == 0 {
			t.Errorf("no call exercised the class %s", c)
		}
	}
}

// TestDifferentialEdgeCases pins what both judges say of each hand-written
// case.
func TestDifferentialEdgeCases(t *testing.T) {
	j := newJudge(t)
	want := map[string]struct {
		schemaOK, decoderOK bool
		class               string
	}{
		"valid choice":                  {true, true, ""},
		"every optional field null":     {true, true, ""},
		"miscased header":               {false, false, ""},
		"header 16 runes, 4 bytes each": {true, true, ""},
		"header 17 runes, 2 bytes each": {false, false, ""},
		"header 17 runes, 4 bytes each": {false, false, ""},
		"header blank":                  {true, false, classBlank},
		"duplicate labels":              {true, false, classLabelUnique},
		"secret not alone":              {true, false, classSecretAlone},
		"two defaults, single-select":   {true, false, classOneDefault},
		"two defaults, multi-select":    {true, true, ""},
		"duplicate ids":                 {true, false, classIDUnique},
		"one option":                    {true, false, classOptionsByKind},
		"seven options":                 {false, false, ""},
		"timeout 10.0":                  {true, true, ""},
		"timeout 1.5":                   {false, false, ""},
		"timeout 301":                   {false, false, ""},
		"stamps given":                  {false, true, classStamps},
		"choice with empty secret_name": {false, true, classEmptyMeansAbsent},
		"duplicate header field":        {true, false, classDuplicateField},
		"over the size cap":             {true, false, classSizeCap},
		"secret without purpose":        {true, false, classSecretFields},
		"secret with blank secret_name": {true, false, classBlank},
		"secret_name 256 runes":         {false, false, ""},
		"text with null options":        {true, true, ""},
		"choice with blank purpose":     {true, false, classSecretFields},
		"kind miscased":                 {false, false, ""},
		"header no-break spaces":        {true, false, classBlank},
		"ids differing in space":        {true, true, ""},
		"generated id taken":            {true, true, ""},
		"duplicate field, one null":     {true, false, classDuplicateField},
		"question not an object":        {false, false, ""},
		"secret with empty options":     {true, true, ""},
		"labels differing in case":      {true, true, ""},
		"unknown option field":          {false, false, ""},
		"timeout 1e400":                 {false, false, ""},
		"stamp of the wrong type":       {false, false, ""},
		"header 17 runes, 3 bytes each": {false, false, ""},
		"secret_name 255 runes":         {true, true, ""},
		"valid secret alone":            {true, true, ""},
		"no options on a choice":        {true, false, classOptionsByKind},
		"secret with options":           {true, false, classOptionsByKind},
		"text with options":             {true, false, classOptionsByKind},
		"blank description":             {true, false, classBlank},
		"questions null":                {false, false, ""},
		"choice with secret_name":       {true, false, classSecretFields},
		"secret without secret_name":    {true, false, classSecretFields},
		"five questions":                {false, false, ""},
		"header missing":                {false, false, ""},
		"timeout string":                {false, false, ""},
		"timeout 1e1":                   {true, true, ""},
		"blank id":                      {true, false, classBlank},
		"empty id":                      {false, false, ""},
		"secret with null purpose":      {true, false, classSecretFields},
		"option null":                   {false, false, ""},
		"timeout null":                  {true, true, ""},
		"miscased top field":            {false, false, ""},
		"header 16 runes, 2 bytes each": {true, true, ""},
		"timeout 0":                     {false, false, ""},
		"timeout 300":                   {true, true, ""},
		"question blank":                {true, false, classBlank},
		"header empty":                  {false, false, ""},
		"blank label":                   {true, false, classBlank},
		"no questions":                  {false, false, ""},
		"kind unknown":                  {false, false, ""},
		"secret second":                 {true, false, classSecretAlone},
		"valid text":                    {true, true, ""},
		"timeout 1":                     {true, true, ""},
		"not an object":                 {false, false, ""},
	}
	for _, ec := range edgeCases() {
		w, ok := want[ec.name]
		if !ok {
			t.Errorf("%s: no expectation", ec.name)
			continue
		}
		_, v := j.verdict(ec.call)
		class := strings.Join(v.classes, ",")
		got := struct {
			schemaOK, decoderOK bool
			class               string
		}{v.schemaOK, v.decoderOK, class}
		if got != w {
			t.Errorf("%s: (schema valid, decoder valid, class) = %v; want %v (decoder: %s)", ec.name, got, w, v.decoderMsg)
		}
	}
}

// TestDifferentialRapid explores further with rapid, which shrinks a call
// that disagrees without a class to a small one.
func TestDifferentialRapid(t *testing.T) {
	j := newJudge(t)
	rapid.Check(t, func(rt *rapid.T) {
		data, v := j.verdict(callGen.Draw(rt, "call"))
		if v.judged && v.schemaOK != v.decoderOK && len(v.classes) == 0 {
			rt.Fatalf("unclassified disagreement: schema valid %v, decoder valid %v (%s)\n%s",
				v.schemaOK, v.decoderOK, v.decoderMsg, data)
		}
	})
}
