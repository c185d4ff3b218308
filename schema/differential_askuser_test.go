package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect/askusertool"
	"pgregory.net/rapid"
)

// ask_user's disagreements between its plain JSON Schema and its decoder,
// each a rule that per-field keywords cannot express (or a property of JSON
// text a validator never sees).
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

var askUserSpec = &dialectSpec{
	name:   "ask_user",
	decode: askusertool.Dialect().Decode,
	refusal: func(_ *judge, c any, msg string) []string {
		return classifyRefusal(c, msg)
	},
	acceptance: (*judge).classifyAcceptance,
	edges:      edgeCases,
	gen:        callGen,
	classes: []string{classBlank, classIDUnique, classLabelUnique, classSecretAlone, classOptionsByKind,
		classSecretFields, classOneDefault, classDuplicateField, classSizeCap, classStamps, classEmptyMeansAbsent},
	steps:   []string{classNoNulls, classStrictRequired, classOpenObjects, classInWords},
	atLeast: 50,
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
	intentsValid = []any{absent, absent, nil, "Deploying the login fix", strings.Repeat("é", 120), strings.Repeat("🙂", 120)}
	intentsEdge  = []any{strings.Repeat("é", 121), strings.Repeat("🙂", 121), 5, false}
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
	g := newGen(t)
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
	c = append(c, jo("human_intent", g.field("humanIntent", intentsValid, intentsEdge))...)
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

func edgeCases() []edgeCase {
	cases := []edgeCase{
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
	cases = append(cases, intentCases()...)
	return cases
}

// intentCases are the cases of human_intent, judged once the decoder takes
// it.
func intentCases() []edgeCase {
	return []edgeCase{
		{"human_intent 120 runes", override(call(choiceQ()), "human_intent", strings.Repeat("é", 120))},
		{"human_intent 121 runes", override(call(choiceQ()), "human_intent", strings.Repeat("é", 121))},
		{"human_intent null", override(call(choiceQ()), "human_intent", nil)},
		{"human_intent not a string", override(call(choiceQ()), "human_intent", 5)},
	}
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
func (j *judge) classifyAcceptance(c any) []string {
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

// TestDifferentialEdgeCases pins what the judges say of each of ask_user's
// hand-written cases.
func TestDifferentialEdgeCases(t *testing.T) {
	plain := map[string]struct {
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
	plain["human_intent 120 runes"] = plain["valid choice"]
	plain["human_intent 121 runes"] = plain["header 17 runes, 2 bytes each"]
	plain["human_intent null"] = plain["valid choice"]
	plain["human_intent not a string"] = plain["timeout string"]
	plain["valid text (strict client)"] = plain["valid text"]
	want := map[string]edgeWant{}
	for name, w := range plain {
		want[name] = edgeWant{schemaOK: w.schemaOK, decoderOK: w.decoderOK, class: w.class}
	}
	setRenderings(want, "every optional field null", map[string]renderingWant{
		FormatAnthropic:        {false, classNoNulls},
		FormatGeminiJSONSchema: {false, classNoNulls},
		FormatMCP:              {true, ""},
	})
	setRenderings(want, "header 17 runes, 2 bytes each", map[string]renderingWant{
		FormatOpenAI:           {false, ""}, // strict-required refuses it too
		FormatAnthropicStrict:  {true, classInWords},
		FormatGeminiJSONSchema: {true, classInWords},
		FormatGemini:           {false, ""},
	})
	setRenderings(want, "unknown option field", map[string]renderingWant{
		FormatGemini: {true, classOpenObjects},
	})
	setRenderings(want, "valid text", map[string]renderingWant{
		FormatOpenAI: {false, classStrictRequired},
	})
	setRenderings(want, "valid text (strict client)", map[string]renderingWant{
		FormatOpenAI:    {true, ""},
		FormatAnthropic: {false, classNoNulls},
	})
	checkEdgeCases(t, askUserSpec, want)
}

// setRenderings pins what some renderings say of a case.
func setRenderings(want map[string]edgeWant, name string, r map[string]renderingWant) {
	w := want[name]
	w.renderings = r
	want[name] = w
}
