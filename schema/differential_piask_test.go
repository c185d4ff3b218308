package schema

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/askuser-go/askuser/dialect/piask"
)

// pi-ask's disagreements between its plain JSON Schema and its decoder.
// The schema accepts, the decoder refuses:
//   - blank: a required string (id, prompt, an option's value and label)
//     or a given label, description or preview that is empty or blank
//     after trimming: the contract's schema sets no minimum length.
//   - id-unique: two questions whose ids are equal after trimming.
//   - value-unique: two options of a question whose values are equal after
//     trimming.
//   - preview-text: a preview question with an option without preview.
//   - size-cap: a call over the embedding program's byte cap (64 KiB).
//
// The decoder accepts nothing the schema refuses: it reads null as absent,
// as the schema's nullable optional fields do, and ignores unknown fields,
// as the schema's open objects do.
const (
	classValueUnique = "value-unique"
	classPreviewText = "preview-text"
)

var piAskSpec = &dialectSpec{
	name:   piask.Name,
	decode: piask.Dialect().Decode,
	refusal: func(_ *judge, _ any, msg string) []string {
		has := func(s string) bool { return strings.Contains(msg, s) }
		switch {
		case has("bytes are accepted"):
			return []string{classSizeCap}
		case has("id is required"), has("prompt is required"), has("value is required"), has("label is required"),
			has("must not be empty"):
			return []string{classBlank}
		case has("duplicate question id"):
			return []string{classIDUnique}
		case has("duplicate option value"):
			return []string{classValueUnique}
		case has("preview questions require preview text for every option"):
			return []string{classPreviewText}
		}
		return nil
	},
	acceptance: func(*judge, any) []string { return nil },
	edges:      piAskEdgeCases,
	gen:        piAskGen,
	classes:    []string{classBlank, classIDUnique, classValueUnique, classPreviewText, classSizeCap},
	steps:      []string{classNoNulls, classStrictRequired, classClosedObjects},
	atLeast:    50,
}

// ---- generator ----

var piAskGen = rapid.Custom(func(t *rapid.T) jobj {
	g := newGen(t)
	questions := g.shaped("questionsShape", []any{absent, nil, "db"}, func() any {
		return list(g.count("nQuestions", []int{1, 1, 2, 3}, []int{0}), "id", g.piAskQuestion)
	})
	c := jo("title", g.field("title", []any{absent, absent, nil, "Setup", "  Setup "}, []any{1, ""}), "questions", questions)
	if g.count("topExtra", []int{0}, []int{1}) == 1 {
		c = append(c, member{"unknown", 1})
	}
	return c
})

func (g gen) piAskQuestion(i int, ids []string) any {
	if bad, ok := g.malformed("question", []any{1, "q", nil}); ok {
		return bad
	}
	typ := g.field("type", []any{absent, nil, "single", "multi", "preview"}, []any{"radio", " multi", "Single", 1})
	options := g.shaped("optionsShape", []any{absent, nil, "a"}, func() any {
		return list(g.count("nOptions", []int{1, 2, 3}, []int{0}), "value", func(k int, values []string) any {
			return g.piAskOption(k, typ == "preview", values)
		})
	})
	q := jo(
		"id", g.field("id", []any{fmt.Sprintf("q%d", i+1), "db", "features"}, append([]any{absent, nil, "", " ", 1, " db "}, anys(ids)...)),
		"label", g.field("label", []any{absent, nil, "Database"}, []any{"", " ", 2}),
		"prompt", g.field("prompt", []any{"Which database?"}, []any{absent, nil, "", "\t", 5}),
		"type", typ,
		"required", g.field("required", []any{absent, nil, true, false}, []any{"yes"}),
		"options", options,
	)
	switch g.count("qExtra", []int{0}, []int{1, 2}) {
	case 1:
		q = append(q, member{"extra", true})
	case 2:
		if len(q) > 0 {
			q = append(q, q[rapid.IntRange(0, len(q)-1).Draw(g.t, "dup")]) // a field twice: the last wins, as for a validator
		}
	}
	return q
}

func (g gen) piAskOption(k int, preview bool, values []string) any {
	if bad, ok := g.malformed("option", []any{"a", nil, 1}); ok {
		return bad
	}
	previews := []any{absent, absent, "[x]"}
	if preview {
		previews = []any{"[nav] [content]"}
	}
	return jo(
		"value", g.field("value", []any{fmt.Sprintf("v%d", k+1)}, append([]any{absent, nil, "", " ", 1, " v1"}, anys(values)...)),
		"label", g.field("optionLabel", []any{"PostgreSQL", "SQLite"}, []any{absent, nil, "", 2}),
		"description", g.field("description", []any{absent, nil, "Relational"}, []any{"", " ", 3}),
		"preview", g.field("preview", previews, []any{absent, "", " ", 4}),
		"extra", g.field("optionExtra", []any{absent}, []any{"x"}),
	)
}

// ---- hand-written edge cases: those of dialect/piask's tests, and more ----

// pq builds a question's JSON with one valid option unless opts is given.
func pq(fields string, opts ...string) string {
	o := `{"value":"a","label":"A"}`
	if len(opts) > 0 {
		o = strings.Join(opts, ",")
	}
	if fields != "" {
		fields += ","
	}
	return `{` + fields + `"options":[` + o + `]}`
}

func pcall(qs ...string) string { return `{"questions":[` + strings.Join(qs, ",") + `]}` }

func piAskEdgeCases() []edgeCase {
	ok := pq(`"id":"ok","prompt":"P"`)
	return []edgeCase{
		{"no-questions", `{}`},
		{"empty-questions", `{"title":"Setup","questions":[]}`},
		{"null-questions", `{"questions":null}`},
		{"id-blank", pcall(pq(`"id":"  ","prompt":"P"`))},
		{"id-missing", pcall(ok, pq(`"prompt":"P"`))},
		{"id-repeated", pcall(ok, pq(`"id":" ok ","prompt":"P"`))},
		{"label-blank", pcall(pq(`"id":"a","label":" ","prompt":"P"`))},
		{"prompt-blank", pcall(pq(`"id":"a","prompt":"\t"`))},
		{"prompt-missing", pcall(pq(`"id":"a"`))},
		{"type-unknown", pcall(`{"id":"a","prompt":"P","type":"radio"}`)},
		{"type-untrimmed", pcall(pq(`"id":"a","prompt":"P","type":" multi"`))},
		{"no-options", pcall(`{"id":"a","prompt":"P","options":[]}`)},
		{"options-missing", pcall(`{"id":"a","prompt":"P"}`)},
		{"value-blank", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":" ","label":"B"}`))},
		{"value-repeated", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":"a ","label":"B"}`))},
		{"option-label-blank", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":""}`))},
		{"description-blank", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"A","description":" "}`))},
		{"preview-blank", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"A","preview":""}`))},
		{"preview-missing", pcall(pq(`"id":"a","prompt":"P","type":"preview"`, `{"value":"a","label":"A","preview":"x"}`, `{"value":"b","label":"B"}`))},
		{"first-failure", pcall(ok, pq(`"id":"b","prompt":""`), pq(`"id":""`))},
		{"not-json", `{"questions":`},
		{"not-object", `[]`},
		{"title-number", `{"title":1,"questions":[]}`},
		{"questions-object", `{"title":"T","questions":{}}`},
		{"question-number", `{"questions":[1]}`},
		{"prompt-number", pcall(ok, `{"id":"b","prompt":5}`)},
		{"required-string", pcall(pq(`"id":"a","prompt":"P","required":"yes"`))},
		{"options-string", pcall(`{"id":"a","prompt":"P","options":"a"}`)},
		{"option-label-number", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"A"}`, `{"value":"b","label":2}`))},
		{"shape-before-rules", `{"questions":[{"id":""},{"id":"b","type":1}]}`},
		{"normalized", `{"title":"  Setup ","unknown":1,"questions":[
	 {"id":" db ","prompt":" Which database? ","required":true,"options":[{"value":" pg ","label":" PostgreSQL ","description":" Relational "},{"value":"sqlite","label":"SQLite","extra":true}]},
	 {"id":"features","label":" Features ","prompt":"Which?","type":"multi","options":[{"value":"auth","label":"Auth"}]},
	 {"id":"layout","prompt":"Layout?","type":"preview","options":[{"value":"left","label":"Left","preview":" [nav] [content] "}]}]}`},
		{"setup", `{"title":"Setup","questions":[
 {"id":"db","label":"Database","prompt":"Which database?","options":[
   {"value":"pg","label":"PostgreSQL","description":"Relational"},
   {"value":"sqlite","label":"SQLite"}]},
 {"id":"features","prompt":"Which features?","type":"multi","required":true,"options":[
   {"value":"auth","label":"Auth"},
   {"value":"billing","label":"Billing"},
   {"value":"search","label":"Search"}]},
 {"id":"layout","label":"Layout","prompt":"Pick a layout","type":"preview","options":[
   {"value":"left","label":"Left","preview":"[nav] [content]"},
   {"value":"top","label":"Top","preview":"[nav]\n[content]"}]}]}`},
		{"preview round trip", `{"questions":[{"id":" a ","prompt":" p ","type":"preview","options":[{"value":" v ","label":" l ","preview":" x ","description":" d "}]}]}`},
		{"every optional field null", `{"title":null,"questions":[{"id":"a","label":null,"prompt":"P","type":null,"required":null,
	 "options":[{"value":"a","label":"A","description":null,"preview":null}]}]}`},
		{"labels repeat", pcall(pq(`"id":"a","prompt":"P"`, `{"value":"a","label":"Same"}`, `{"value":"b","label":"Same"}`))},
		{"id given twice", `{"questions":[{"id":" ","id":"a","prompt":"P","options":[{"value":"a","label":"A"}]}]}`},
		{"over the size cap", pcall(pq(`"id":"a","prompt":"` + strings.Repeat("Which one? ", 7000) + `"`))},
	}
}

// TestDifferentialEdgeCasesPiAsk pins what the judges say of each of
// pi-ask's hand-written cases.
func TestDifferentialEdgeCasesPiAsk(t *testing.T) {
	refused := edgeWant{}
	want := map[string]edgeWant{
		"no-questions":        refused,
		"empty-questions":     refused,
		"null-questions":      refused,
		"id-blank":            {schemaOK: true, class: classBlank},
		"id-missing":          refused,
		"id-repeated":         {schemaOK: true, class: classIDUnique},
		"label-blank":         {schemaOK: true, class: classBlank},
		"prompt-blank":        {schemaOK: true, class: classBlank},
		"prompt-missing":      refused,
		"type-unknown":        refused,
		"type-untrimmed":      refused,
		"no-options":          refused,
		"options-missing":     refused,
		"value-blank":         {schemaOK: true, class: classBlank},
		"value-repeated":      {schemaOK: true, class: classValueUnique},
		"option-label-blank":  {schemaOK: true, class: classBlank},
		"description-blank":   {schemaOK: true, class: classBlank},
		"preview-blank":       {schemaOK: true, class: classBlank},
		"preview-missing":     {schemaOK: true, class: classPreviewText},
		"first-failure":       refused,
		"not-json":            refused,
		"not-object":          refused,
		"title-number":        refused,
		"questions-object":    refused,
		"question-number":     refused,
		"prompt-number":       refused,
		"required-string":     refused,
		"options-string":      refused,
		"option-label-number": refused,
		"shape-before-rules":  refused,
		"normalized": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatAnthropic:       {true, ""},
			FormatAnthropicStrict: {false, classClosedObjects},
			FormatOpenAI:          {false, classStrictRequired},
			FormatGemini:          {true, ""},
		}},
		"normalized (strict client)": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatOpenAI: {false, classClosedObjects},
		}},
		"setup": {schemaOK: true, decoderOK: true},
		"setup (strict client)": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatOpenAI:          {true, ""},
			FormatAnthropicStrict: {false, classNoNulls},
		}},
		"preview round trip": {schemaOK: true, decoderOK: true},
		"every optional field null": {schemaOK: true, decoderOK: true, renderings: map[string]renderingWant{
			FormatAnthropic: {false, classNoNulls},
			FormatMCP:       {true, ""},
		}},
		"labels repeat":     {schemaOK: true, decoderOK: true},
		"id given twice":    {schemaOK: true, decoderOK: true},
		"over the size cap": {schemaOK: true, class: classSizeCap},
	}
	checkEdgeCases(t, piAskSpec, want)
}
