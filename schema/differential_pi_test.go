package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/internal/wire"
)

// pi's disagreements between its plain JSON Schema (the union of its two
// call shapes) and its decoder, which reports every problem of a call: each
// must have a class. The schema accepts, the decoder refuses:
//   - blank: an option question's id, question or option label, or the
//     rich question or one of its options, empty or blank: the contract's
//     schema sets no minimum length.
//   - id-unique: two option questions with the same id.
//   - text-timeout: a text or editor question given timeoutMs, which the
//     contract refuses before anything else; its schema allows timeoutMs on
//     every kind.
//   - utf16-length: a rich question, reason or option within its
//     maxLength in code points, the schema's count, but over it in UTF-16
//     code units, the contract's ("🚀" counts 2).
//   - questions-key: a call whose questions is given and not null ([], a
//     broken list) is option questions to the decoder, which then refuses
//     it; the schema's rich shape, which knows no questions, accepts it as
//     one rich question. (A strict-mode client sends "questions": null with
//     every rich question; null counts as absent, so both take that as the
//     rich question.)
//   - int64-range: recommended an integer beyond 64 bits, which the
//     decoder cannot read as one.
//   - size-cap: a call over the embedding program's byte cap (64 KiB).
//
// The decoder accepts nothing the schema refuses: it reads null as absent,
// as the schema's nullable optional fields do, and ignores unknown fields,
// as the schema's open objects do.
const (
	classTextTimeout  = "text-timeout"
	classUTF16Length  = "utf16-length"
	classQuestionsKey = "questions-key"
	classInt64Range   = "int64-range"
)

var piSpec = &dialectSpec{
	name:       pi.Name,
	decode:     pi.Dialect().Decode,
	refusal:    piRefusal,
	acceptance: func(*judge, any) []string { return nil },
	edges:      piEdgeCases,
	gen:        piGen,
	classes: []string{classBlank, classIDUnique, classTextTimeout, classUTF16Length, classQuestionsKey,
		classInt64Range, classSizeCap},
	steps:   []string{classMergedShapes, classNoNulls, classStrictRequired, classClosedObjects, classInWords},
	atLeast: 50,
}

// piRefusal classifies every problem the decoder lists, unless the decoder
// took the call for option questions while the schema took it for a rich
// question.
func piRefusal(j *judge, c any, msg string) []string {
	if msg == pi.TextUnsupported {
		return []string{classTextTimeout}
	}
	data, ok := c.(string)
	if !ok {
		b, _ := wire.Marshal(c)
		data = string(b)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(data)))
	if top, ok := inst.(map[string]any); ok {
		if q, has := top["questions"]; has && q != nil && !valid(j.shapes[0], inst) {
			return []string{classQuestionsKey}
		}
	}
	var classes []string
	for _, line := range strings.Split(msg, "\n")[1:] {
		_, problem, _ := strings.Cut(line, ": ")
		var class string
		switch {
		case problem == "Expected non-blank string":
			class = classBlank
		case strings.HasPrefix(problem, "Expected unique id"):
			class = classIDUnique
		case strings.HasPrefix(problem, "Expected string length less or equal to"):
			class = classUTF16Length
		case problem == "Expected integer":
			class = classInt64Range
		case strings.HasPrefix(problem, "Expected at most") && strings.HasSuffix(problem, "bytes, got "+strconv.Itoa(len(data))):
			class = classSizeCap
		default:
			return nil
		}
		if len(classes) == 0 || classes[len(classes)-1] != class {
			classes = append(classes, class)
		}
	}
	return classes
}

// ---- generator ----

var piGen = rapid.Custom(func(t *rapid.T) jobj {
	g := newGen(t)
	if rapid.IntRange(0, 1).Draw(t, "rich") == 1 {
		return g.piRich()
	}
	questions := g.shaped("questionsShape", []any{nil, "env", []any{}}, func() any {
		return list(g.count("nQuestions", []int{1, 1, 2, 3}, []int{0}), "id", g.piQuestion)
	})
	c := jo("questions", questions)
	switch g.count("topExtra", []int{0}, []int{1, 2, 3}) {
	case 1:
		c = append(c, member{"unknown", 1})
	case 2:
		c = append(c, member{"question", "Also a rich question?"}, member{"kind", "text"})
	case 3:
		c = append(c, member{"question", 5})
	}
	return c
})

func (g gen) piQuestion(i int, ids []string) any {
	if bad, ok := g.malformed("question", []any{3, "q", nil}); ok {
		return bad
	}
	options := g.shaped("optionsShape", []any{absent, nil, jo()}, func() any {
		opts := make([]any, g.count("nOptions", []int{0, 1, 2, 3}, []int{1}))
		for k := range opts {
			opts[k] = jo("label", g.field("optionLabel", []any{"staging", "production", "a", "a"}, []any{absent, nil, "", " ", 2}),
				"extra", g.field("optionExtra", []any{absent}, []any{true}))
			if bad, ok := g.malformed("option", []any{"y", nil}); ok {
				opts[k] = bad
			}
		}
		return opts
	})
	return jo(
		"id", g.field("id", []any{"env", "regions", "Release Notes", "q" + strconv.Itoa(i+1)}, append([]any{absent, nil, "", " ", 1}, anys(ids)...)),
		"question", g.field("question", []any{"Deploy where?", "Which regions?"}, []any{absent, nil, "", " ", 1}),
		"options", options,
		"multi", g.field("multi", []any{absent, nil, true, false}, []any{"yes"}),
		"recommended", g.field("recommended", []any{absent, nil, 0, 1, -1, 7}, []any{1.5, "1", json.Number("1e20")}),
		"timeoutMs", g.field("timeoutMs", []any{absent, absent, nil, 1000, 1500, 300000, json.Number("2e3"), json.Number("1000.0")},
			[]any{999, 300001, "10", 1.5}),
		"extra", g.field("qExtra", []any{absent}, []any{"x"}),
	)
}

func (g gen) piRich() jobj {
	c := jo(
		"question", g.field("question", []any{"Which tier?", "Pick 🚀?", strings.Repeat("é", 500), strings.Repeat("🚀", 250)},
			[]any{absent, nil, "", " ", 5, strings.Repeat("x", 501), strings.Repeat("🚀", 251)}),
		"kind", g.field("kind", []any{"select", "multi-select", "text", "editor"}, []any{absent, nil, "radio", "Select", 3}),
		"options", g.field("options", []any{absent, nil, []any{"free", "pro"}, []any{"a", "b", "a"}, []any{}, []any{strings.Repeat("🚀", 100)}},
			[]any{twentyOne(), []any{"a", 1}, []any{" "}, []any{strings.Repeat("🚀", 101)}, []any{strings.Repeat("x", 201)}, "a,b"}),
		"default", g.field("default", []any{absent, nil, "pro", []any{"pro", "free"}, "zz"}, []any{5, []any{1}, jo()}),
		"timeoutMs", g.field("timeoutMs", []any{absent, absent, absent, nil, 1000, 20000}, []any{999, 300001, 1.5, "10"}),
		"sensitivity", g.field("sensitivity", []any{absent, nil, "public", "internal", "secret"}, []any{"top", 1}),
		"reason", g.field("reason", []any{absent, nil, "why", strings.Repeat("🚀", 250)}, []any{strings.Repeat("x", 501), strings.Repeat("🚀", 251), 5}),
	)
	switch g.count("richExtra", []int{0}, []int{1, 2, 3, 4}) {
	case 1:
		c = append(c, member{"unknown", 1})
	case 2:
		c = append(c, member{"questions", nil})
	case 3:
		c = append(c, member{"questions", []any{}})
	case 4:
		c = append(c, member{"multi", "yes"}) // an option question's field, ignored here
	}
	return c
}

func twentyOne() []any {
	out := make([]any, 21)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

// ---- hand-written edge cases: those of dialect/pi's tests and fuzz seeds,
// and more ----

func piEdgeCases() []edgeCase {
	cases := []edgeCase{
		// dialect/pi's TestDecodeProblems
		{"not-json", `{`},
		{"not-object", `"ask"`},
		{"questions-not-array", `{"questions":{}}`},
		{"questions-empty", `{"questions":[]}`},
		{"option-question-problems", `{"questions":[
			{"id":"a","question":"Q?","options":[{"label":"x"}],"timeoutMs":300001},
			{"id":" ","question":1,"options":[{"label":2},"y"],"multi":"yes","recommended":1.5,"timeoutMs":999},
			{"id":"a","options":{}},
			3]}`},
		{"option-question-missing", `{"questions":[{}]}`},
		{"rich-missing", `{}`},
		{"rich-problems", `{"question":"` + strings.Repeat("é", 501) + `","kind":"radio","options":["a",1,"` + strings.Repeat("🚀", 101) + `"],"default":{},"timeoutMs":"10","sensitivity":"top","reason":"` + strings.Repeat("x", 501) + `"}`},
		{"rich-too-many-options", `{"question":"Q?","kind":"select","options":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"],"default":["a",2]}`},
		{"rich-blank", `{"question":" ","kind":"select"}`},
		{"blank-labels", `{"questions":[{"id":"a","question":" ","options":[{"label":""},{"label":"x"}]}]}`},
		{"rich-blank-option", `{"question":"Q?","kind":"select","options":["a"," "]}`},
		{"text-timeout", `{"question":"Why?","kind":"text","timeoutMs":5000,"sensitivity":"top"}`},
		{"editor-timeout", `{"question":"Why?","kind":"editor","timeoutMs":"x"}`},
		// TestDecodeNormalizes
		{"options", `{"questions":[
			{"id":"env","question":"Where?","options":[{"label":"staging"},{"label":"prod"}],"recommended":1,"timeoutMs":1500,"extra":true},
			{"id":"regions","question":"Which regions?","options":[{"label":"eu"},{"label":"us"}],"multi":true,"recommended":7,"timeoutMs":1000},
			{"id":"note","question":"Anything else?","options":[]}]}`},
		{"options-no-timeout", `{"questions":[{"id":"a","question":"Q?","options":[{"label":"x"}],"multi":null}]}`},
		{"rich-select", `{"question":"Which tier?","kind":"select","options":["free","pro"],"default":["pro","free"],"timeoutMs":90500,"reason":"billing differs"}`},
		{"rich-multi", `{"question":"Which?","kind":"multi-select","options":["a","b","c"],"default":["c","a","zz"],"sensitivity":"public"}`},
		{"rich-default-unknown", `{"question":"Which?","kind":"select","options":["a"],"default":"b"}`},
		{"rich-text", `{"question":"Name?","kind":"text","options":["ignored"],"default":["a","b"],"sensitivity":"secret"}`},
		{"rich-editor", `{"question":"Notes?","kind":"editor","default":"line 1\nline 2"}`},
		// the outcome tests' calls
		{"several", `{"questions":[
	 {"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"}],"recommended":1,"timeoutMs":30000},
	 {"id":"regions","question":"Which regions?","multi":true,"options":[{"label":"eu"},{"label":"us"},{"label":"ap"}]},
	 {"id":"Release Notes","question":"Anything to add?","options":[]}]}`},
		{"repeated labels", `{"questions":[{"id":"x","question":"Which?","options":[{"label":"a"},{"label":"a"},{"label":"b"}],"recommended":1}]}`},
		// more
		{"question of 250 rockets", `{"question":"` + strings.Repeat("🚀", 250) + `","kind":"text"}`},
		{"question of 251 rockets", `{"question":"` + strings.Repeat("🚀", 251) + `","kind":"text"}`},
		{"questions null, rich", `{"questions":null,"question":"Why?","kind":"text"}`},
		{"questions empty, rich", `{"questions":[],"question":"Why?","kind":"text"}`},
		{"option questions with a rich field", `{"questions":[{"id":"a","question":"Q?","options":[]}],"question":5}`},
		{"recommended 1e20", `{"questions":[{"id":"a","question":"Q?","options":[{"label":"x"}],"recommended":1e20}]}`},
		{"timeoutMs 1e3", `{"questions":[{"id":"a","question":"Q?","options":[],"timeoutMs":1e3}]}`},
		{"timeoutMs 300000", `{"question":"Q?","kind":"select","timeoutMs":300000}`},
		{"timeoutMs 300001", `{"question":"Q?","kind":"select","timeoutMs":300001}`},
		{"duplicate ids", `{"questions":[{"id":"a","question":"Q?","options":[]},{"id":"a","question":"R?","options":[]}]}`},
		{"a question only", `{"question":"Why?"}`},
		{"over the size cap", `{"questions":[{"id":"a","question":"` + strings.Repeat("Why? ", 14000) + `","options":[]}]}`},
	}
	// dialect/pi's fuzz seeds
	seeds, _ := filepath.Glob("../dialect/pi/testdata/fuzz/FuzzDecode/*")
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		_, arg, _ := strings.Cut(string(data), "[]byte(")
		text, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(arg), ")")))
		if err != nil {
			panic(f + ": " + err.Error())
		}
		cases = append(cases, edgeCase{"fuzz seed " + filepath.Base(f), text})
	}
	return cases
}

// TestDifferentialEdgeCasesPi pins what the judges say of each of pi's
// hand-written cases.
func TestDifferentialEdgeCasesPi(t *testing.T) {
	refused, accepted := edgeWant{}, edgeWant{schemaOK: true, decoderOK: true}
	want := map[string]edgeWant{
		"not-json":                 refused,
		"not-object":               refused,
		"questions-not-array":      refused,
		"questions-empty":          refused,
		"option-question-problems": refused,
		"option-question-missing":  refused,
		"rich-missing": {renderings: map[string]renderingWant{
			FormatMCP:    {true, classMergedShapes},
			FormatOpenAI: {false, ""},
		}},
		"rich-problems":           refused,
		"rich-too-many-options":   refused,
		"rich-blank":              {schemaOK: true, class: classBlank},
		"blank-labels":            {schemaOK: true, class: classBlank},
		"rich-blank-option":       {schemaOK: true, class: classBlank},
		"text-timeout":            refused,
		"editor-timeout":          refused,
		"options":                 accepted,
		"options-no-timeout":      accepted,
		"rich-select":             accepted,
		"rich-multi":              accepted,
		"rich-default-unknown":    accepted,
		"rich-text":               accepted,
		"rich-editor":             accepted,
		"several":                 accepted,
		"repeated labels":         accepted,
		"question of 250 rockets": accepted,
		"question of 251 rockets": {schemaOK: true, class: classUTF16Length, renderings: map[string]renderingWant{
			FormatAnthropicStrict: {true, classUTF16Length},
		}},
		"questions null, rich": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatAnthropic: {false, classNoNulls},
		}},
		"questions null, rich (strict client)": accepted,
		"questions empty, rich": {schemaOK: true, class: classQuestionsKey, renderings: map[string]renderingWant{
			FormatMCP: {false, ""},
		}},
		"option questions with a rich field": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatMCP: {false, classMergedShapes},
		}},
		"recommended 1e20": {schemaOK: true, class: classInt64Range},
		"timeoutMs 1e3":    accepted,
		"timeoutMs 300000": accepted,
		"timeoutMs 300001": refused,
		"duplicate ids":    {schemaOK: true, class: classIDUnique},
		"a question only": {renderings: map[string]renderingWant{
			FormatMCP:             {true, classMergedShapes},
			FormatAnthropicStrict: {true, classMergedShapes},
		}},
		"over the size cap":             {schemaOK: true, class: classSizeCap},
		"fuzz seed not-object":          refused,
		"fuzz seed options":             accepted,
		"fuzz seed problems":            refused,
		"fuzz seed rich-editor-timeout": {schemaOK: true, class: classTextTimeout},
		"fuzz seed rich-secret":         accepted,
		"fuzz seed rich-select":         accepted,
		"fuzz seed several":             accepted,
	}
	checkEdgeCases(t, piSpec, want)
}
