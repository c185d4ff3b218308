package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// request_approval's disagreements between its plain JSON Schema and its
// decoder, each a rule that per-field keywords cannot express (or a
// property of JSON text a validator never sees). The schema accepts, the
// decoder refuses:
//   - blank: action or reason holding only white space: minLength 1
//     counts it as present; the decoder trims first.
//   - details-bytes: details within 8192 characters, the schema's
//     maxLength, but over 8192 bytes of UTF-8, the decoder's count.
//   - duplicate-field: a field written twice in the JSON text; a validator
//     sees only the decoded object, where the last one won.
//   - size-cap: a call over the embedding program's byte cap (64 KiB).
//
// The decoder accepts nothing the schema refuses: it reads null as absent,
// as the schema's nullable optional fields do, and refuses unknown fields,
// as the schema's closed object does.
const classDetailsBytes = "details-bytes"

var approvalSpec = &dialectSpec{
	name:   approvalwire.ToolName,
	decode: approvaltool.Dialect().Decode,
	refusal: func(_ *judge, _ any, msg string) []string {
		has := func(s string) bool { return strings.Contains(msg, s) }
		switch {
		case has("duplicate field"):
			return []string{classDuplicateField}
		case has("bytes are accepted"):
			return []string{classSizeCap}
		case has("action must not be empty"), has("reason must not be empty"):
			return []string{classBlank}
		case has("details must not exceed 8192 bytes"):
			return []string{classDetailsBytes}
		}
		return nil
	},
	acceptance: func(*judge, any) []string { return nil },
	edges:      approvalEdgeCases,
	gen:        approvalGen,
	classes:    []string{classBlank, classDetailsBytes, classDuplicateField, classSizeCap},
	steps:      []string{classNoNulls, classStrictRequired, classOpenObjects, classInWords},
	atLeast:    50,
}

var (
	actionsValid = []any{"Delete the S3 bucket logs-2023", strings.Repeat("é", 200), strings.Repeat("🙂", 200), " a "}
	actionsEdge  = []any{absent, nil, "", " ", "\u00a0\u2003", strings.Repeat("é", 201), strings.Repeat("🙂", 201), 5, []any{"rm"}}
	reasonsValid = []any{"Archived last week", strings.Repeat("日", 500)}
	reasonsEdge  = []any{absent, nil, "", "\t\n", strings.Repeat("日", 501), false}
	risksValid   = []any{"low", "medium", "high", "irreversible"}
	risksEdge    = []any{absent, nil, "", "High", "extreme", 3}
	detailsValid = []any{absent, absent, nil, "", "  ", "aws s3 rb s3://logs-2023 --force", strings.Repeat("x", 8192), strings.Repeat("é", 4096)}
	detailsEdge  = []any{strings.Repeat("x", 8193), strings.Repeat("é", 4097), strings.Repeat("é", 8192), strings.Repeat("🙂", 2049), strings.Repeat("é", 8193), 7, []any{}}
)

var approvalGen = rapid.Custom(func(t *rapid.T) jobj {
	g := newGen(t)
	c := jo(
		"action", g.field("action", actionsValid, actionsEdge),
		"reason", g.field("reason", reasonsValid, reasonsEdge),
		"risk", g.field("risk", risksValid, risksEdge),
		"details", g.field("details", detailsValid, detailsEdge),
		"timeout_seconds", g.field("timeout", timeoutsValid, timeoutsEdge),
		"human_intent", g.field("humanIntent", intentsValid, intentsEdge),
	)
	switch g.count("topExtra", []int{0}, []int{1, 2, 3, 4}) {
	case 1:
		c = append(c, member{"command", "rm -rf /"})
	case 2:
		c = append(c, member{"Action", "x"}) // miscased
	case 3:
		c = append(c, member{"expires_at", "2026-11-30T09:00:00Z"}) // not a field of this contract
	case 4:
		if len(c) > 0 {
			c = append(c, c[rapid.IntRange(0, len(c)-1).Draw(g.t, "dup")]) // a field twice
		}
	}
	return c
})

// approvalQ builds a call from the valid one, with fields set or (absent)
// removed.
func approvalQ(kv ...any) jobj {
	base := []any{"action", "Delete the S3 bucket logs-2023", "reason", "Archived last week", "risk", "irreversible",
		"details", "aws s3 rb s3://logs-2023 --force"}
	return override(jo(base...), kv...)
}

func approvalEdgeCases() []edgeCase {
	return []edgeCase{
		{"valid", approvalQ()},
		{"required fields only", approvalQ("details", absent)},
		{"every optional field null", approvalQ("details", nil, "timeout_seconds", nil, "human_intent", nil)},
		{"every field", approvalQ("timeout_seconds", 60, "human_intent", "Cleaning up")},
		{"action missing", approvalQ("action", absent)},
		{"action null", approvalQ("action", nil)},
		{"action empty", approvalQ("action", "")},
		{"action blank", approvalQ("action", "   ")},
		{"action 200 runes", approvalQ("action", strings.Repeat("🙂", 200))},
		{"action 201 runes", approvalQ("action", strings.Repeat("é", 201))},
		{"reason blank", approvalQ("reason", "\u00a0")},
		{"reason 501 runes", approvalQ("reason", strings.Repeat("日", 501))},
		{"risk missing", approvalQ("risk", absent)},
		{"risk miscased", approvalQ("risk", "High")},
		{"risk unknown", approvalQ("risk", "catastrophic")},
		{"details empty", approvalQ("details", "")},
		{"details 8192 bytes", approvalQ("details", strings.Repeat("x", 8192))},
		{"details 8193 bytes", approvalQ("details", strings.Repeat("x", 8193))},
		{"details 4096 two-byte runes", approvalQ("details", strings.Repeat("é", 4096))},
		{"details 4097 two-byte runes", approvalQ("details", strings.Repeat("é", 4097))},
		{"details 8192 two-byte runes", approvalQ("details", strings.Repeat("é", 8192))},
		{"details 8193 runes", approvalQ("details", strings.Repeat("é", 8193))},
		{"details not a string", approvalQ("details", []any{"rm"})},
		{"timeout 0", approvalQ("timeout_seconds", 0)},
		{"timeout 301", approvalQ("timeout_seconds", 301)},
		{"timeout 10.0", approvalQ("timeout_seconds", json.Number("10.0"))},
		{"timeout 1.5", approvalQ("timeout_seconds", json.Number("1.5"))},
		{"timeout string", approvalQ("timeout_seconds", "10")},
		{"human_intent 120 runes", approvalQ("human_intent", strings.Repeat("é", 120))},
		{"human_intent 121 runes", approvalQ("human_intent", strings.Repeat("é", 121))},
		{"unknown field", approvalQ("command", "rm -rf /")},
		{"a stamp is unknown here", approvalQ("asked_at", "2026-11-30T09:00:00Z")},
		{"duplicate field", `{"action":"a","action":"b","reason":"r","risk":"low"}`},
		{"duplicate field, one null", `{"details":null,"action":"a","reason":"r","risk":"low","details":"x"}`},
		{"not an object", `["approve"]`},
		{"over the size cap", `{"action":"a","reason":"r","risk":"low","details":"` + strings.Repeat(`\ud83d\ude00`, 6000) + `"}`},
		{"over the size cap in white space", `{"action":"a",` + strings.Repeat(" ", 64<<10) + `"reason":"r","risk":"low"}`},
	}
}

// TestDifferentialEdgeCasesApproval pins what the judges say of each of
// request_approval's hand-written cases.
func TestDifferentialEdgeCasesApproval(t *testing.T) {
	both := edgeWant{schemaOK: true, decoderOK: true}
	refused := edgeWant{}
	want := map[string]edgeWant{
		"valid":                            both,
		"required fields only":             both,
		"every optional field null":        both,
		"every field":                      both,
		"action missing":                   refused,
		"action null":                      refused,
		"action empty":                     refused,
		"action blank":                     {schemaOK: true, class: classBlank},
		"action 200 runes":                 both,
		"action 201 runes":                 refused,
		"reason blank":                     {schemaOK: true, class: classBlank},
		"reason 501 runes":                 refused,
		"risk missing":                     refused,
		"risk miscased":                    refused,
		"risk unknown":                     refused,
		"details empty":                    both,
		"details 8192 bytes":               both,
		"details 8193 bytes":               refused,
		"details 4096 two-byte runes":      both,
		"details 4097 two-byte runes":      {schemaOK: true, class: classDetailsBytes},
		"details 8192 two-byte runes":      {schemaOK: true, class: classDetailsBytes},
		"details 8193 runes":               refused,
		"details not a string":             refused,
		"timeout 0":                        refused,
		"timeout 301":                      refused,
		"timeout 10.0":                     both,
		"timeout 1.5":                      refused,
		"timeout string":                   refused,
		"human_intent 120 runes":           both,
		"human_intent 121 runes":           refused,
		"unknown field":                    refused,
		"a stamp is unknown here":          refused,
		"duplicate field":                  {schemaOK: true, class: classDuplicateField},
		"duplicate field, one null":        {schemaOK: true, class: classDuplicateField},
		"not an object":                    refused,
		"over the size cap":                {schemaOK: true, class: classSizeCap},
		"over the size cap in white space": {schemaOK: true, class: classSizeCap},
	}
	setRenderings(want, "every optional field null", map[string]renderingWant{
		FormatAnthropic:        {false, classNoNulls},
		FormatAnthropicStrict:  {false, classNoNulls},
		FormatGeminiJSONSchema: {false, classNoNulls},
		FormatMCP:              {true, ""},
		FormatOpenAI:           {true, ""},
		FormatGemini:           {true, ""},
	})
	setRenderings(want, "valid", map[string]renderingWant{
		FormatOpenAI: {false, classStrictRequired},
	})
	setRenderings(want, "action 201 runes", map[string]renderingWant{
		FormatAnthropicStrict:  {true, classInWords},
		FormatGeminiJSONSchema: {true, classInWords},
		FormatGemini:           {false, ""},
		FormatMCP:              {false, ""},
	})
	setRenderings(want, "unknown field", map[string]renderingWant{
		FormatGemini: {true, classOpenObjects},
	})
	setRenderings(want, "timeout 301", map[string]renderingWant{
		FormatAnthropicStrict: {true, classInWords},
		FormatGemini:          {false, ""},
	})
	checkEdgeCases(t, approvalSpec, want)
}

// TestApprovalResults validates every kind of request_approval result, as
// the contract's encoder writes it, against the ResultSchema and the MCP
// outputSchema, and shows the schema is not vacuous: each with an unknown
// field, a status or reason not in the contract, or a digest of another
// form fails.
func TestApprovalResults(t *testing.T) {
	o := Options{Dialect: approvalwire.ToolName}
	result := mustCompile(t, "result.json", o.ResultSchema())
	out := mustCompile(t, "outputSchema.json", indent(parseTree(t, o.MCP()).child("outputSchema")))
	digest := approval.Digest("a", "")
	var rs []approvalwire.Result
	for _, by := range []string{"user", "remembered", "policy"} {
		for _, st := range []string{"approved", "denied"} {
			r := approvalwire.Result{Status: st, DecidedBy: by, ActionDigest: digest}
			switch by {
			case "user":
				r.Note = "only today"
				rs = append(rs, r)
				r.RememberSession = true
			case "remembered":
				r.RememberedFrom = "4f2a"
			}
			rs = append(rs, r)
		}
	}
	for _, e := range []string{"deadline", "unattended", "dismissed", "superseded", "fault"} {
		rs = append(rs, approvalwire.Result{Status: "unresolved", Ended: e, ActionDigest: digest})
	}
	for _, r := range rs {
		data, err := approvalwire.EncodeResult(&r)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range map[string]*jsonschema.Schema{"ResultSchema": result, "outputSchema": out} {
			if err := s.Validate(inst); err != nil {
				t.Errorf("%s does not meet the %s: %v", data, name, err)
			}
		}
		for _, broken := range []func(m map[string]any){
			func(m map[string]any) { m["unknown"] = true },
			func(m map[string]any) { m["status"] = "maybe" },
			func(m map[string]any) { m["ended"] = "timeout" },
			func(m map[string]any) { m["decided_by"] = "timeout" },
			func(m map[string]any) { m["action_digest"] = "sha1:abc" },
			func(m map[string]any) { delete(m, "message") },
		} {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			broken(m)
			if valid(result, m) {
				t.Errorf("%s, broken to %v, meets the ResultSchema", data, m)
			}
		}
	}
}
