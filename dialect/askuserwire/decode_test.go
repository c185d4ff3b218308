package askuserwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/askuser-go/askuser/dialect"
	"github.com/google/go-cmp/cmp"
)

// Pieces of ask_user calls for the tables below.
const (
	auOpts2   = `[{"label":"a","description":"da"},{"label":"b","description":"db"}]`
	auChoice  = `{"header":"H","question":"Q?","options":` + auOpts2 + `}`
	auText    = `{"kind":"text","header":"H","question":"Q?"}`
	auSecret  = `{"kind":"secret","header":"Token","question":"Paste it","secret_name":"TOKEN","purpose":"to deploy"}`
	auPrefix  = "invalid ask_user arguments: "
	auTopList = "questions, timeout_seconds, asked_at, nudge_at, expires_at, human_intent"
	auQList   = "kind, id, header, question, multi_select, allow_other, options, secret_name, purpose"
	auOList   = "label, description, default"
)

// auCall wraps questions (JSON objects) into a call.
func auCall(qs ...string) string { return `{"questions":[` + strings.Join(qs, ",") + `]}` }

// auQuestion builds a question object from fields given as JSON members.
func auQuestion(members ...string) string { return "{" + strings.Join(members, ",") + "}" }

// auOptions builds an options array of n options a1, a2, … with descriptions.
func auOptions(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"label":"a%d","description":"d%d"}`, i+1, i+1)
	}
	b.WriteByte(']')
	return b.String()
}

// jsonLiteral is s as encoding/json writes it without HTML escaping: what
// the contract means by "written as a JSON string literal".
func jsonLiteral(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// callErr decodes call and returns its *Error, failing the test when
// the call is accepted or fails otherwise.
func callErr(t *testing.T, call string, lim dialect.Limits) Error {
	t.Helper()
	c, err := Decode([]byte(call), lim)
	if err == nil {
		t.Fatalf("Decode(%s) accepted the call: %+v", call, c)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Decode(%s) = %T %v, want a *Error", call, err, err)
	}
	if c != nil {
		t.Errorf("Decode(%s) returned a call with its error", call)
	}
	return *ce
}

type auErrorCase struct {
	name string
	call string
	lim  dialect.Limits
	path string // "" for a broken rule
	msg  string // without the prefix
}

func runErrorCases(t *testing.T, cases []auErrorCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := callErr(t, tc.call, tc.lim)
			want := Error{Path: tc.path, Message: auPrefix + tc.msg}
			if tc.path != "" {
				want.Message = auPrefix + tc.path + ": " + tc.msg
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("call %s (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}

// TestDecodeRuleMessages checks every rule message of docs/ask_user.md, exactly.
func TestDecodeRuleMessages(t *testing.T) {
	five := auCall(auChoice, auChoice, auChoice, auChoice, auChoice)
	q := func(members ...string) string { return auCall(auQuestion(members...)) }
	const hq = `"header":"H","question":"Q?"`
	opts := `"options":` + auOpts2
	runErrorCases(t, []auErrorCase{
		{name: "1/no questions", call: `{"questions":[]}`, msg: "questions must contain between 1 and 4 items"},
		{name: "1/questions absent", call: `{}`, msg: "questions must contain between 1 and 4 items"},
		{name: "1/questions null", call: `{"questions":null}`, msg: "questions must contain between 1 and 4 items"},
		{name: "1/five questions", call: five, msg: "questions must contain between 1 and 4 items"},

		{name: "2/zero", call: `{"questions":[` + auChoice + `],"timeout_seconds":0}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/negative", call: `{"questions":[` + auChoice + `],"timeout_seconds":-5}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/negative zero", call: `{"questions":[` + auChoice + `],"timeout_seconds":-0}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/over", call: `{"questions":[` + auChoice + `],"timeout_seconds":301}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/huge", call: `{"questions":[` + auChoice + `],"timeout_seconds":1e400}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/huge integer", call: `{"questions":[` + auChoice + `],"timeout_seconds":123456789012345678901234567890}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/huge negative", call: `{"questions":[` + auChoice + `],"timeout_seconds":-1e400}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "2/configured ceiling", call: `{"questions":[` + auChoice + `],"timeout_seconds":121}`, lim: dialect.Limits{MaxTimeoutSeconds: 120}, msg: "timeout_seconds must be between 1 and 120"},

		{name: "2a/human_intent 121 runes", call: `{"questions":[` + auChoice + `],"human_intent":"` + strings.Repeat("é", 121) + `"}`, msg: "human_intent must not exceed 120 characters"},
		{name: "2a/human_intent 121 runes untrimmed", call: `{"questions":[` + auChoice + `],"human_intent":" ` + strings.Repeat("x", 120) + `"}`, msg: "human_intent must not exceed 120 characters"},
		{name: "2a/human_intent escapes counted decoded", call: `{"questions":[` + auChoice + `],"human_intent":"` + strings.Repeat(`\ud83d\ude80`, 121) + `"}`, msg: "human_intent must not exceed 120 characters"},

		{name: "3.1/id empty", call: q(`"id":""`, hq, opts), msg: "question 1 id must not be empty"},
		{name: "3.1/id blank", call: q(`"id":" \t\n"`, hq, opts), msg: "question 1 id must not be empty"},
		{name: "3.1/id blank on question 2", call: auCall(auChoice, auQuestion(`"id":" "`, hq, opts)), msg: "question 2 id must not be empty"},
		{name: "3.1/id duplicate", call: auCall(auQuestion(`"id":"env"`, hq, opts), auQuestion(`"id":"env"`, hq, opts)), msg: `question ids must be unique; duplicate "env"`},
		{name: "3.1/id duplicate quoted", call: auCall(auQuestion(`"id":"a\"b\\c\u00e9\n"`, hq, opts), auQuestion(`"id":"a\"b\\c\u00e9\n"`, hq, opts)), msg: `question ids must be unique; duplicate "a\"b\\cé\n"`},

		{name: "3.2/header absent", call: q(`"question":"Q?"`, opts), msg: "question 1 header must not be empty"},
		{name: "3.2/header null", call: q(`"header":null,"question":"Q?"`, opts), msg: "question 1 header must not be empty"},
		{name: "3.2/header empty", call: q(`"header":"","question":"Q?"`, opts), msg: "question 1 header must not be empty"},
		{name: "3.2/header blank", call: q(`"header":"  ","question":"Q?"`, opts), msg: "question 1 header must not be empty"},

		{name: "3.3/header 17 runes", call: q(`"header":"ééééééééééééééééé","question":"Q?"`, opts), msg: "question 1 header must not exceed 16 characters"},
		{name: "3.3/header untrimmed", call: q(`"header":" abcdefghijklmnop","question":"Q?"`, opts), msg: "question 1 header must not exceed 16 characters"},

		{name: "3.4/text absent", call: q(`"header":"H"`, opts), msg: "question 1 text must not be empty"},
		{name: "3.4/text blank", call: q(`"header":"H","question":" "`, opts), msg: "question 1 text must not be empty"},

		{name: "3.5/secret not alone", call: auCall(auChoice, auSecret), msg: "a secret question must be the only question in the call"},
		{name: "3.5/secret first not alone", call: auCall(auSecret, auText), msg: "a secret question must be the only question in the call"},
		{name: "3.5/secret with options", call: q(`"kind":"secret"`, hq, `"secret_name":"T","purpose":"p"`, opts), msg: "question 1 is a secret and must not offer options"},
		{name: "3.5/secret_name absent", call: q(`"kind":"secret"`, hq, `"purpose":"p"`), msg: "question 1 secret_name is required"},
		{name: "3.5/secret_name null", call: q(`"kind":"secret"`, hq, `"secret_name":null,"purpose":"p"`), msg: "question 1 secret_name is required"},
		{name: "3.5/secret_name empty", call: q(`"kind":"secret"`, hq, `"secret_name":"","purpose":"p"`), msg: "question 1 secret_name must be between 1 and 255 non-whitespace characters"},
		{name: "3.5/secret_name blank", call: q(`"kind":"secret"`, hq, `"secret_name":" \t","purpose":"p"`), msg: "question 1 secret_name must be between 1 and 255 non-whitespace characters"},
		{name: "3.5/secret_name 256 runes", call: q(`"kind":"secret"`, hq, `"secret_name":"`+strings.Repeat("é", 256)+`","purpose":"p"`), msg: "question 1 secret_name must be between 1 and 255 non-whitespace characters"},
		{name: "3.5/purpose absent", call: q(`"kind":"secret"`, hq, `"secret_name":"T"`), msg: "question 1 purpose must not be empty"},
		{name: "3.5/purpose blank", call: q(`"kind":"secret"`, hq, `"secret_name":"T","purpose":"  "`), msg: "question 1 purpose must not be empty"},

		{name: "3.6/choice with purpose", call: q(hq, opts, `"purpose":"p"`), msg: "question 1 is not a secret and must not carry secret_name or purpose"},
		{name: "3.6/choice with secret_name", call: q(hq, opts, `"secret_name":"T"`), msg: "question 1 is not a secret and must not carry secret_name or purpose"},
		{name: "3.6/text with secret_name", call: q(`"kind":"text"`, hq, `"secret_name":" "`), msg: "question 1 is not a secret and must not carry secret_name or purpose"},

		{name: "3.7/text with options", call: q(`"kind":"text"`, hq, opts), msg: "question 1 is text and must not offer options"},

		{name: "3.8/no options", call: q(hq), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.8/options null", call: q(hq, `"options":null`), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.8/empty options", call: q(hq, `"options":[]`), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.8/one option", call: q(hq, `"options":`+auOptions(1)), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.8/seven options", call: q(hq, `"options":`+auOptions(7)), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.8/on question 4", call: auCall(auChoice, auText, auChoice, auQuestion(`"kind":"choice"`, hq, `"options":`+auOptions(1))), msg: "question 4 options must contain between 2 and 6 items"},

		{name: "3.9/label absent", call: q(hq, `"options":[{"label":"a","description":"d"},{"description":"d"}]`), msg: "question 1 option labels must not be empty"},
		{name: "3.9/label blank", call: q(hq, `"options":[{"label":" ","description":"d"},{"label":"b","description":"d"}]`), msg: "question 1 option labels must not be empty"},
		{name: "3.9/description absent", call: q(hq, `"options":[{"label":"a","description":"d"},{"label":"b"}]`), msg: "question 1 option descriptions must not be empty"},
		{name: "3.9/description null", call: q(hq, `"options":[{"label":"a","description":null},{"label":"b","description":"d"}]`), msg: "question 1 option descriptions must not be empty"},
		{name: "3.9/label duplicate", call: q(hq, `"options":[{"label":"a","description":"d"},{"label":"b","description":"d"},{"label":"a","description":"d"}]`), msg: `question 1 option labels must be unique; duplicate "a"`},
		{name: "3.9/label duplicate quoted", call: q(hq, `"options":[{"label":"<\"\\\u2028\u0001&>","description":"d"},{"label":"<\"\\\u2028\u0001&>","description":"d"}]`), msg: `question 1 option labels must be unique; duplicate "<\"\\\u2028\u0001&>"`},

		{name: "3.10/two defaults", call: q(hq, `"options":[{"label":"a","description":"d","default":true},{"label":"b","description":"d","default":true}]`), msg: "question 1 single-select options may mark at most one default"},
		{name: "3.10/multi_select false", call: q(hq, `"multi_select":false,"options":[{"label":"a","description":"d","default":true},{"label":"b","description":"d","default":true}]`), msg: "question 1 single-select options may mark at most one default"},
	})
}

// TestDecodeQuotedValues checks that "{x}" in a message is the value
// as encoding/json writes a string without HTML escaping.
func TestDecodeQuotedValues(t *testing.T) {
	for _, v := range []string{`plain`, `qu"ote`, `back\slash`, "tab\tnew\nline", "\x01\x1f\x7f", "é😀", "<a&b>", "a\u2028\u2029", "\ufffd"} {
		lit := jsonLiteral(v)
		call := auCall(`{"id":`+lit+`,"header":"H","question":"Q?","options":`+auOpts2+`}`, `{"id":`+lit+`,"header":"H","question":"Q?","options":`+auOpts2+`}`)
		got := callErr(t, call, dialect.Limits{}).Message
		want := auPrefix + "question ids must be unique; duplicate " + lit
		if got != want {
			t.Errorf("id %q:\n got %s\nwant %s", v, got, want)
		}
	}
}

// TestDecodeRuleOrder checks, for each pair of adjacent rules, that a
// call breaking both reports the earlier one.
func TestDecodeRuleOrder(t *testing.T) {
	const hq = `"header":"H","question":"Q?"`
	opts := `"options":` + auOpts2
	runErrorCases(t, []auErrorCase{
		{name: "1 before 2", call: `{"questions":[],"timeout_seconds":0}`, msg: "questions must contain between 1 and 4 items"},
		{name: "1 before 3", call: auCall(`{}`, `{}`, `{}`, `{}`, `{}`), msg: "questions must contain between 1 and 4 items"},
		{name: "2 before 3.1", call: `{"questions":[{"id":""}],"timeout_seconds":0}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "1 before human_intent", call: `{"questions":[],"human_intent":"` + strings.Repeat("x", 121) + `"}`, msg: "questions must contain between 1 and 4 items"},
		{name: "2 before human_intent", call: `{"human_intent":"` + strings.Repeat("x", 121) + `","questions":[` + auChoice + `],"timeout_seconds":0}`, msg: "timeout_seconds must be between 1 and 300"},
		{name: "human_intent before 3.1", call: `{"questions":[{"id":""}],"human_intent":"` + strings.Repeat("x", 121) + `"}`, msg: "human_intent must not exceed 120 characters"},
		{name: "human_intent before 3.2", call: `{"questions":[{}],"human_intent":"` + strings.Repeat("x", 121) + `"}`, msg: "human_intent must not exceed 120 characters"},
		{name: "3.1 blank before 3.2", call: auCall(auQuestion(`"id":""`, `"question":"Q?"`, opts)), msg: "question 1 id must not be empty"},
		{name: "3.1 duplicate before 3.2", call: auCall(auQuestion(`"id":"x"`, hq, opts), auQuestion(`"id":"x"`, `"question":"Q?"`, opts)), msg: `question ids must be unique; duplicate "x"`},
		{name: "3.1 blank before duplicate", call: auCall(auQuestion(`"id":" "`, hq, opts), auQuestion(`"id":" "`, hq, opts)), msg: "question 1 id must not be empty"},
		{name: "3.2 before 3.3", call: auCall(auQuestion(`"header":"`+strings.Repeat(" ", 17)+`","question":"Q?"`, opts)), msg: "question 1 header must not be empty"},
		{name: "3.3 before 3.4", call: auCall(auQuestion(`"header":"`+strings.Repeat("x", 17)+`","question":""`, opts)), msg: "question 1 header must not exceed 16 characters"},
		{name: "3.4 before 3.5", call: auCall(auText, auQuestion(`"kind":"secret","header":"H","question":" "`)), msg: "question 2 text must not be empty"},
		{name: "3.5 alone before options", call: auCall(auText, auQuestion(`"kind":"secret"`, hq, opts)), msg: "a secret question must be the only question in the call"},
		{name: "3.5 options before secret_name", call: auCall(auQuestion(`"kind":"secret"`, hq, opts)), msg: "question 1 is a secret and must not offer options"},
		{name: "3.5 secret_name required before purpose", call: auCall(auQuestion(`"kind":"secret"`, hq)), msg: "question 1 secret_name is required"},
		{name: "3.5 secret_name invalid before purpose", call: auCall(auQuestion(`"kind":"secret"`, hq, `"secret_name":""`)), msg: "question 1 secret_name must be between 1 and 255 non-whitespace characters"},
		{name: "3.6 before 3.7", call: auCall(auQuestion(`"kind":"text"`, hq, opts, `"purpose":"p"`)), msg: "question 1 is not a secret and must not carry secret_name or purpose"},
		{name: "3.6 before 3.8", call: auCall(auQuestion(hq, `"purpose":"p"`)), msg: "question 1 is not a secret and must not carry secret_name or purpose"},
		{name: "3.8 before 3.9", call: auCall(auQuestion(hq, `"options":[{"label":"","description":""}]`)), msg: "question 1 options must contain between 2 and 6 items"},
		{name: "3.9 before 3.10", call: auCall(auQuestion(hq, `"options":[{"label":"a","description":"d","default":true},{"label":"b","description":"","default":true}]`)), msg: "question 1 option descriptions must not be empty"},
		{name: "3.10 of question 1 before 3.1 of question 2", call: auCall(auQuestion(`"id":"x"`, hq, `"options":[{"label":"a","description":"d","default":true},{"label":"b","description":"d","default":true}]`), auQuestion(`"id":"x"`, hq, opts)), msg: "question 1 single-select options may mark at most one default"},
		{name: "3.7 of question 1 before 3.2 of question 2", call: auCall(auQuestion(`"kind":"text"`, hq, opts), `{}`), msg: "question 1 is text and must not offer options"},

		// Option by option: each option's three checks before the next option.
		{name: "option 1 label before option 1 description", call: auCall(auQuestion(hq, `"options":[{"label":""},{"label":"b","description":"d"}]`)), msg: "question 1 option labels must not be empty"},
		{name: "option 1 description before option 2 label", call: auCall(auQuestion(hq, `"options":[{"label":"a"},{"label":"","description":"d"}]`)), msg: "question 1 option descriptions must not be empty"},
		{name: "option 2 description before option 2 duplicate", call: auCall(auQuestion(hq, `"options":[{"label":"a","description":"d"},{"label":"a"}]`)), msg: "question 1 option descriptions must not be empty"},
		{name: "option 2 duplicate before option 3 label", call: auCall(auQuestion(hq, `"options":[{"label":"a","description":"d"},{"label":"a","description":"d"},{"label":"","description":"d"}]`)), msg: `question 1 option labels must be unique; duplicate "a"`},
		{name: "option 2 label before option 3 duplicate", call: auCall(auQuestion(hq, `"options":[{"label":"a","description":"d"},{"label":" ","description":"d"},{"label":"a","description":"d"}]`)), msg: "question 1 option labels must not be empty"},

		// The shape comes first, wherever it breaks.
		{name: "shape after a broken rule", call: `{"questions":[],"timeout_seconds":0,"extra":1}`, path: "extra", msg: "unknown field; allowed fields: " + auTopList},
		{name: "first shape problem in document order", call: `{"questions":[{"kind":"pick","Header":"H"}],"timeout_seconds":"10"}`, path: "questions[0].kind", msg: `"pick" is not a kind; allowed: "choice", "text", "secret"`},
		{name: "shape before syntax later", call: `{"questions":[{"Header":"H"}]`, path: "questions[0].Header", msg: "unknown field; allowed fields: " + auQList},
		{name: "shape after a long human_intent", call: `{"human_intent":"` + strings.Repeat("x", 121) + `","questions":[],"HumanIntent":1}`, path: "HumanIntent", msg: "unknown field; allowed fields: " + auTopList},
	})
}

// TestDecodeShape checks the shape messages and their paths.
func TestDecodeShape(t *testing.T) {
	q := func(members ...string) string { return auCall(auQuestion(members...)) }
	const hq = `"header":"H","question":"Q?"`
	o := func(members ...string) string {
		return q(hq, `"options":[{"label":"a","description":"d"},`+auQuestion(members...)+`]`)
	}
	runErrorCases(t, []auErrorCase{
		// The top-level value.
		{name: "root array", call: `[]`, path: "(root)", msg: "expected an object, got an array"},
		{name: "root string", call: `"questions"`, path: "(root)", msg: "expected an object, got a string"},
		{name: "root null", call: `null`, path: "(root)", msg: "expected an object, got null"},
		{name: "root number", call: ` 12 `, path: "(root)", msg: "expected an object, got a number"},
		{name: "empty", call: ``, path: "(root)", msg: "invalid JSON at byte offset 0: unexpected end of input; expected a value"},
		{name: "whitespace", call: " \n\t", path: "(root)", msg: "invalid JSON at byte offset 3: unexpected end of input; expected a value"},
		{name: "not JSON", call: `questions`, path: "(root)", msg: "invalid JSON at byte offset 0: unexpected 'q'; expected a value"},
		{name: "byte order mark", call: "\ufeff{}", path: "(root)", msg: "invalid JSON at byte offset 0: unexpected '\\ufeff'; expected a value"},
		{name: "trailing data", call: `{"questions":[]} {}`, path: "(root)", msg: "invalid JSON at byte offset 17: unexpected data after the top-level value"},
		{name: "truncated", call: `{"questions":[`, path: "questions[0]", msg: "invalid JSON at byte offset 14: unexpected end of input; expected a value"},
		{name: "truncated object", call: `{"questions":[]`, path: "(root)", msg: "invalid JSON at byte offset 15: unexpected end of input; expected ',' or '}'"},
		{name: "trailing comma in object", call: `{"questions":[],}`, path: "(root)", msg: "invalid JSON at byte offset 16: unexpected '}'; expected a field name"},
		{name: "trailing comma in array", call: `{"questions":[` + auChoice + `,]}`, path: "questions[1]", msg: "invalid JSON at byte offset 123: unexpected ']'; expected a value"},
		{name: "missing colon", call: `{"questions" []}`, path: "(root)", msg: "invalid JSON at byte offset 13: unexpected '['; expected ':' after the field name"},
		{name: "single quotes", call: `{'questions':[]}`, path: "(root)", msg: "invalid JSON at byte offset 1: unexpected '\\''; expected a field name or '}'"},

		// Unknown and miscased fields, at every level.
		{name: "unknown top field", call: `{"questions":[],"title":"x"}`, path: "title", msg: "unknown field; allowed fields: " + auTopList},
		{name: "miscased top field", call: `{"Questions":[]}`, path: "Questions", msg: "unknown field; allowed fields: " + auTopList},
		{name: "odd top field", call: `{"a b":1}`, path: `["a b"]`, msg: "unknown field; allowed fields: " + auTopList},
		{name: "empty field name", call: `{"":1}`, path: `[""]`, msg: "unknown field; allowed fields: " + auTopList},
		{name: "unknown question field", call: q(hq, `"label":"x"`), path: "questions[0].label", msg: "unknown field; allowed fields: " + auQList},
		{name: "miscased question field", call: q(`"Header":"H"`), path: "questions[0].Header", msg: "unknown field; allowed fields: " + auQList},
		{name: "miscased question field on question 2", call: auCall(auChoice, `{"ID":"x"}`), path: "questions[1].ID", msg: "unknown field; allowed fields: " + auQList},
		{name: "odd question field", call: q(`"a.b":1`), path: `questions[0]["a.b"]`, msg: "unknown field; allowed fields: " + auQList},
		{name: "unknown option field", call: o(`"label":"b","value":"b"`), path: "questions[0].options[1].value", msg: "unknown field; allowed fields: " + auOList},
		{name: "miscased option field", call: o(`"Label":"b"`), path: "questions[0].options[1].Label", msg: "unknown field; allowed fields: " + auOList},
		{name: "escaped field name is its value", call: q(`"\u0048eader":"H"`), path: "questions[0].Header", msg: "unknown field; allowed fields: " + auQList},

		// Duplicate fields, at every level.
		{name: "duplicate top field", call: `{"questions":[],"questions":[]}`, path: "questions", msg: "duplicate field; a field may appear only once"},
		{name: "duplicate top field with null", call: `{"timeout_seconds":null,"timeout_seconds":5}`, path: "timeout_seconds", msg: "duplicate field; a field may appear only once"},
		{name: "duplicate human_intent", call: `{"human_intent":"a","questions":[],"human_intent":null}`, path: "human_intent", msg: "duplicate field; a field may appear only once"},
		{name: "duplicate question field", call: q(hq, `"header":"H"`), path: "questions[0].header", msg: "duplicate field; a field may appear only once"},
		{name: "duplicate option field", call: o(`"default":true,"label":"b","default":false`), path: "questions[0].options[1].default", msg: "duplicate field; a field may appear only once"},

		// Wrong types, everywhere.
		{name: "questions object", call: `{"questions":{}}`, path: "questions", msg: "expected an array of questions, got an object"},
		{name: "questions string", call: `{"questions":"x"}`, path: "questions", msg: "expected an array of questions, got a string"},
		{name: "question string", call: auCall(auChoice, `"x"`), path: "questions[1]", msg: "expected a question object, got a string"},
		{name: "question null", call: auCall(`null`), path: "questions[0]", msg: "expected a question object, got null"},
		{name: "question array", call: auCall(`[]`), path: "questions[0]", msg: "expected a question object, got an array"},
		{name: "timeout string", call: `{"timeout_seconds":"10"}`, path: "timeout_seconds", msg: "expected an integer, got a string"},
		{name: "timeout bool", call: `{"timeout_seconds":true}`, path: "timeout_seconds", msg: "expected an integer, got true"},
		{name: "timeout fraction", call: `{"timeout_seconds":1.5}`, path: "timeout_seconds", msg: "expected an integer, got 1.5"},
		{name: "timeout small exponent", call: `{"timeout_seconds":1e-1}`, path: "timeout_seconds", msg: "expected an integer, got 1e-1"},
		{name: "timeout tiny", call: `{"timeout_seconds":1e-400}`, path: "timeout_seconds", msg: "expected an integer, got 1e-400"},
		{name: "timeout long fraction", call: `{"timeout_seconds":10.00000000000000000000000000000000000000000001}`, path: "timeout_seconds", msg: "expected an integer, got 10.0000000000000000000000000000000000000…"},
		{name: "asked_at number", call: `{"asked_at":5}`, path: "asked_at", msg: "expected a string, got a number"},
		{name: "nudge_at object", call: `{"nudge_at":{}}`, path: "nudge_at", msg: "expected a string, got an object"},
		{name: "expires_at bool", call: `{"expires_at":false}`, path: "expires_at", msg: "expected a string, got false"},
		{name: "human_intent number", call: `{"questions":[],"human_intent":42}`, path: "human_intent", msg: "expected a string, got a number"},
		{name: "human_intent bool", call: `{"human_intent":true}`, path: "human_intent", msg: "expected a string, got true"},
		{name: "human_intent array", call: `{"human_intent":["Deploying"]}`, path: "human_intent", msg: "expected a string, got an array"},
		{name: "human_intent object", call: `{"human_intent":{"text":"Deploying"}}`, path: "human_intent", msg: "expected a string, got an object"},
		{name: "human_intent miscased", call: `{"Human_intent":"Deploying"}`, path: "Human_intent", msg: "unknown field; allowed fields: " + auTopList},
		{name: "human_intent on a question", call: q(hq, `"human_intent":"x"`), path: "questions[0].human_intent", msg: "unknown field; allowed fields: " + auQList},
		{name: "human_intent broken string", call: `{"human_intent":"a\x"}`, path: "human_intent", msg: `invalid JSON at byte offset 18: invalid escape "\\x" in a string; allowed: \" \\ \/ \b \f \n \r \t \uXXXX`},
		{name: "kind number", call: q(`"kind":1`), path: "questions[0].kind", msg: `expected one of "choice", "text", "secret", got a number`},
		{name: "kind unknown", call: auCall(auChoice, `{"kind":"pick"}`), path: "questions[1].kind", msg: `"pick" is not a kind; allowed: "choice", "text", "secret"`},
		{name: "kind miscased", call: q(`"kind":"Choice"`), path: "questions[0].kind", msg: `"Choice" is not a kind; allowed: "choice", "text", "secret"`},
		{name: "kind quoted", call: q(`"kind":"a\"b"`), path: "questions[0].kind", msg: `"a\"b" is not a kind; allowed: "choice", "text", "secret"`},
		{name: "id number", call: q(`"id":7`), path: "questions[0].id", msg: "expected a string, got a number"},
		{name: "header bool", call: q(`"header":true`), path: "questions[0].header", msg: "expected a string, got true"},
		{name: "question array", call: q(`"question":["Q?"]`), path: "questions[0].question", msg: "expected a string, got an array"},
		{name: "multi_select string", call: q(`"multi_select":"true"`), path: "questions[0].multi_select", msg: "expected a boolean, got a string"},
		{name: "allow_other number", call: q(`"allow_other":1`), path: "questions[0].allow_other", msg: "expected a boolean, got a number"},
		{name: "options object", call: q(`"options":{}`), path: "questions[0].options", msg: "expected an array of options, got an object"},
		{name: "option string", call: q(`"options":[{"label":"a","description":"d"},"b"]`), path: "questions[0].options[1]", msg: "expected an option object, got a string"},
		{name: "option null", call: q(`"options":[null]`), path: "questions[0].options[0]", msg: "expected an option object, got null"},
		{name: "secret_name number", call: q(`"secret_name":1`), path: "questions[0].secret_name", msg: "expected a string, got a number"},
		{name: "purpose bool", call: q(`"purpose":false`), path: "questions[0].purpose", msg: "expected a string, got false"},
		{name: "label number", call: o(`"label":2`), path: "questions[0].options[1].label", msg: "expected a string, got a number"},
		{name: "description object", call: o(`"description":{}`), path: "questions[0].options[1].description", msg: "expected a string, got an object"},
		{name: "default string", call: o(`"default":"true"`), path: "questions[0].options[1].default", msg: "expected a boolean, got a string"},
		{name: "default string on question 3", call: auCall(auChoice, auText, auQuestion(hq, `"options":[{"label":"a","description":"d"},{"default":"yes"}]`)), path: "questions[2].options[1].default", msg: "expected a boolean, got a string"},
		{name: "fifth question still checked", call: auCall(auChoice, auChoice, auChoice, auChoice, `{"options":[{"a":1}]}`), path: "questions[4].options[0].a", msg: "unknown field; allowed fields: " + auOList},
		{name: "seventh option still checked", call: q(hq, `"options":[`+strings.Repeat(`{"label":"a","description":"d"},`, 6)+`{"label":1}]`), path: "questions[0].options[6].label", msg: "expected a string, got a number"},

		// Syntax inside values, at the value's path.
		{name: "bad escape", call: q(`"header":"\x"`), path: "questions[0].header", msg: `invalid JSON at byte offset 25: invalid escape "\\x" in a string; allowed: \" \\ \/ \b \f \n \r \t \uXXXX`},
		{name: "bad unicode escape", call: q(`"header":"\u12G4"`), path: "questions[0].header", msg: `invalid JSON at byte offset 29: unexpected 'G'; expected four hexadecimal digits after \u`},
		{name: "control character", call: q("\"header\":\"a\nb\""), path: "questions[0].header", msg: "invalid JSON at byte offset 26: control character U+000A in a string; it must be escaped"},
		{name: "unterminated string", call: q(`"header":"abc`), path: "questions[0].header", msg: "invalid JSON at byte offset 31: unexpected end of input; expected '\"' to end the string"},
		{name: "broken literal", call: q(`"multi_select":tru}`), path: "questions[0].multi_select", msg: `invalid JSON at byte offset 33: unexpected '}'; expected "e" to complete true`},
		{name: "broken null", call: q(`"header":nul`), path: "questions[0].header", msg: `invalid JSON at byte offset 27: unexpected '}'; expected "l" to complete null`},
		{name: "broken wrong-typed literal", call: q(`"header":trux`), path: "questions[0].header", msg: `invalid JSON at byte offset 27: unexpected 'x'; expected "e" to complete true`},
		{name: "leading zero", call: `{"timeout_seconds":010}`, path: "(root)", msg: "invalid JSON at byte offset 20: unexpected '1'; expected ',' or '}'"},
		{name: "bare minus", call: `{"timeout_seconds":-}`, path: "timeout_seconds", msg: "invalid JSON at byte offset 20: unexpected '}'; expected a digit in a number"},
		{name: "dot without digits", call: `{"timeout_seconds":1.}`, path: "timeout_seconds", msg: "invalid JSON at byte offset 21: unexpected '}'; expected a digit after the decimal point"},
		{name: "missing comma", call: q(`"header":"H" "question":"Q"`), path: "questions[0]", msg: `invalid JSON at byte offset 28: unexpected '"'; expected ',' or '}'`},
		{name: "missing comma in options", call: q(`"options":[{} {}]`), path: "questions[0].options", msg: `invalid JSON at byte offset 29: unexpected '{'; expected ',' or ']'`},
		{name: "invalid UTF-8 outside strings", call: "{\xff}", path: "(root)", msg: "invalid JSON at byte offset 1: unexpected byte 0xff; expected a field name or '}'"},
	})
}

// TestDecodeSizeCap checks the size cap and its message.
func TestDecodeSizeCap(t *testing.T) {
	pad := func(n int) string {
		base := `{"questions":[` + auChoice + `]}`
		return base[:len(base)-1] + strings.Repeat(" ", n-len(base)) + "}"
	}
	runErrorCases(t, []auErrorCase{
		{name: "default cap", call: pad(64<<10 + 1), msg: "the call is 65537 bytes; at most 65536 bytes are accepted"},
		{name: "configured cap", call: pad(1001), lim: dialect.Limits{MaxCallBytes: 1000}, msg: "the call is 1001 bytes; at most 1000 bytes are accepted"},
		{name: "cap before syntax", call: strings.Repeat("x", 1001), lim: dialect.Limits{MaxCallBytes: 1000}, msg: "the call is 1001 bytes; at most 1000 bytes are accepted"},
	})
	for _, tc := range []struct {
		n   int
		lim dialect.Limits
	}{{64 << 10, dialect.Limits{}}, {1000, dialect.Limits{MaxCallBytes: 1000}}} {
		if _, err := Decode([]byte(pad(tc.n)), tc.lim); err != nil {
			t.Errorf("a call of exactly %d bytes: %v", tc.n, err)
		}
	}
}

// auWant builds the expected normalized call.
func auWant(timeout int, qs ...Question) *Call {
	return &Call{Questions: qs, TimeoutSeconds: timeout}
}

func auOpt(label, desc string, def bool) Option {
	return Option{Label: label, Description: desc, Default: def}
}

func auChoiceQ(id string, opts ...Option) Question {
	return Question{ID: id, Kind: "choice", Header: "H", Question: "Q?", AllowOther: true, Options: opts}
}

func auTextQ(id string) Question {
	return Question{ID: id, Kind: "text", Header: "H", Question: "Q?", AllowOther: true, Options: []Option{}}
}

// TestDecodeNormalize checks the normalization (docs/ask_user.md) without the stamps.
func TestDecodeNormalize(t *testing.T) {
	ab := []Option{auOpt("a", "da", false), auOpt("b", "db", false)}
	withID := func(id string) string {
		return `{"id":"` + id + `","header":"H","question":"Q?","options":` + auOpts2 + `}`
	}
	textID := func(id string) string { return `{"kind":"text","id":"` + id + `","header":"H","question":"Q?"}` }
	tests := []struct {
		name string
		call string
		lim  dialect.Limits
		want *Call
	}{
		{
			name: "defaults written out",
			call: auCall(auChoice),
			want: auWant(300, auChoiceQ("question_1", ab...)),
		},
		{
			name: "configured ceiling is the default timeout",
			call: auCall(auChoice),
			lim:  dialect.Limits{MaxTimeoutSeconds: 90},
			want: auWant(90, auChoiceQ("question_1", ab...)),
		},
		{
			name: "given timeout kept",
			call: `{"questions":[` + auChoice + `],"timeout_seconds":45}`,
			want: auWant(45, auChoiceQ("question_1", ab...)),
		},
		{
			name: "integral numbers are integers",
			call: `{"questions":[` + auChoice + `],"timeout_seconds":1.0e1}`,
			want: auWant(10, auChoiceQ("question_1", ab...)),
		},
		{
			name: "every optional field null",
			call: `{"questions":[{"kind":null,"id":null,"header":"H","question":"Q?","multi_select":null,"allow_other":null,` +
				`"options":[{"label":"a","description":"da","default":null},{"label":"b","description":"db","default":null}],` +
				`"secret_name":null,"purpose":null}],"timeout_seconds":null,"asked_at":null,"nudge_at":null,"expires_at":null}`,
			want: auWant(300, auChoiceQ("question_1", ab...)),
		},
		{
			name: "stamps overwritten, not read",
			call: `{"questions":[` + auChoice + `],"asked_at":"yesterday","nudge_at":"","expires_at":"2099-01-01T00:00:00Z"}`,
			want: auWant(300, auChoiceQ("question_1", ab...)),
		},
		{
			name: "choice fields kept",
			call: auCall(`{"kind":"choice","id":" My id ","header":" H ","question":" Q? ","multi_select":true,"allow_other":false,` +
				`"options":[{"label":" a ","description":" da ","default":true},{"label":"b","description":"db","default":true},{"label":"c","description":"dc","default":false}]}`),
			want: auWant(300, Question{ID: " My id ", Kind: "choice", Header: " H ", Question: " Q? ", MultiSelect: true, AllowOther: false,
				Options: []Option{auOpt(" a ", " da ", true), auOpt("b", "db", true), auOpt("c", "dc", false)}}),
		},
		{
			name: "text normalized",
			call: auCall(`{"kind":"text","header":"H","question":"Q?","multi_select":true,"allow_other":false,"options":[]}`),
			want: auWant(300, auTextQ("question_1")),
		},
		{
			name: "text with options null",
			call: auCall(`{"kind":"text","header":"H","question":"Q?","options":null}`),
			want: auWant(300, auTextQ("question_1")),
		},
		{
			name: "secret normalized",
			call: auCall(`{"kind":"secret","header":"Token","question":"Paste it","multi_select":true,"allow_other":true,"options":[],"secret_name":"GH_TOKEN","purpose":"to push"}`),
			want: auWant(300, Question{ID: "question_1", Kind: "secret", Header: "Token", Question: "Paste it", SecretName: "GH_TOKEN", Purpose: "to push", Options: []Option{}}),
		},
		{
			name: "secret_name of 255 runes",
			call: auCall(`{"kind":"secret","header":"Token","question":"Paste it","secret_name":"` + strings.Repeat("é", 255) + `","purpose":"p"}`),
			want: auWant(300, Question{ID: "question_1", Kind: "secret", Header: "Token", Question: "Paste it", SecretName: strings.Repeat("é", 255), Purpose: "p", Options: []Option{}}),
		},
		{
			name: "header of 16 runes",
			call: auCall(`{"kind":"text","header":"` + strings.Repeat("é", 16) + `","question":"Q?"}`),
			want: auWant(300, Question{ID: "question_1", Kind: "text", Header: strings.Repeat("é", 16), Question: "Q?", AllowOther: true, Options: []Option{}}),
		},
		{
			name: "generated ids by position",
			call: auCall(auText, withID("env"), auText, auChoice),
			want: auWant(300, auTextQ("question_1"), auChoiceQ("env", ab...), auTextQ("question_3"), auChoiceQ("question_4", ab...)),
		},
		{
			name: "generated id taken by a later model id",
			call: auCall(auText, auText, withID("question_2")),
			want: auWant(300, auTextQ("question_1"), auTextQ("question_2_2"), auChoiceQ("question_2", ab...)),
		},
		{
			name: "generated id taken by an earlier model id",
			call: auCall(withID("question_2"), auText),
			want: auWant(300, auChoiceQ("question_2", ab...), auTextQ("question_2_2")),
		},
		{
			name: "suffixes taken too",
			call: auCall(auText, textID("question_1_2"), textID("question_1"), textID("question_1_3")),
			want: auWant(300, auTextQ("question_1_4"), auTextQ("question_1_2"), auTextQ("question_1"), auTextQ("question_1_3")),
		},
		{
			name: "generated id taken by an earlier generated one",
			call: auCall(textID("question_2_2"), auText, textID("question_2")),
			want: auWant(300, auTextQ("question_2_2"), auTextQ("question_2_3"), auTextQ("question_2")),
		},
		{
			name: "ids compared exactly",
			call: auCall(textID("Question_1"), auText),
			want: auWant(300, auTextQ("Question_1"), auTextQ("question_2")),
		},
		{
			name: "labels compared exactly",
			call: auCall(`{"header":"H","question":"Q?","options":[{"label":"a","description":"d"},{"label":"A","description":"d"},{"label":"a ","description":"d"}]}`),
			want: auWant(300, auChoiceQ("question_1", auOpt("a", "d", false), auOpt("A", "d", false), auOpt("a ", "d", false))),
		},
		{
			name: "six options, four questions",
			call: auCall(auChoice, auChoice, auText, `{"header":"H","question":"Q?","multi_select":true,"options":`+auOptions(6)+`}`),
			want: auWant(300, auChoiceQ("question_1", ab...), auChoiceQ("question_2", ab...), auTextQ("question_3"),
				Question{ID: "question_4", Kind: "choice", Header: "H", Question: "Q?", MultiSelect: true, AllowOther: true, Options: []Option{
					auOpt("a1", "d1", false), auOpt("a2", "d2", false), auOpt("a3", "d3", false),
					auOpt("a4", "d4", false), auOpt("a5", "d5", false), auOpt("a6", "d6", false)}}),
		},
		{
			name: "empty secret fields on a choice carry nothing",
			call: auCall(`{"header":"H","question":"Q?","options":` + auOpts2 + `,"secret_name":"","purpose":""}`),
			want: auWant(300, auChoiceQ("question_1", ab...)),
		},
		{
			name: "string escapes decoded as encoding/json does",
			call: auCall(`{"kind":"text","header":"\u00e9\ud83d\ude00\/\t","question":"\ud800x\udc00\ud800\ud800\udc00 \"q\""}`),
			want: auWant(300, Question{ID: "question_1", Kind: "text", Header: "é😀/\t", Question: "\ufffdx\ufffd\ufffd\U00010000 \"q\"", AllowOther: true, Options: []Option{}}),
		},
		{
			name: "invalid UTF-8 becomes U+FFFD",
			call: auCall("{\"kind\":\"text\",\"header\":\"a\xffb\xed\xa0\x80\",\"question\":\"Q?\"}"),
			want: auWant(300, Question{ID: "question_1", Kind: "text", Header: "a\ufffdb\ufffd\ufffd\ufffd", Question: "Q?", AllowOther: true, Options: []Option{}}),
		},
		{
			name: "whitespace anywhere",
			call: " \r\n\t{ \"questions\" :\n[ { \"kind\" : \"text\" , \"header\" : \"H\" , \"question\" : \"Q?\" } ] , \"timeout_seconds\" : 7 }\n",
			want: auWant(7, auTextQ("question_1")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.call), tc.lim)
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.call, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decode(%s) (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}

// TestDecodeTimeoutIntegers checks which numbers count as integers.
func TestDecodeTimeoutIntegers(t *testing.T) {
	for num, want := range map[string]int{
		"10": 10, "10.0": 10, "1e1": 10, "1E+1": 10, "100e-1": 10, "1000.000e-2": 10, "0.1e2": 10,
		"1": 1, "300": 300, "3e2": 300, "0.3e3": 300, "300.000000000000000000000000": 300,
	} {
		c, err := Decode([]byte(`{"questions":[`+auText+`],"timeout_seconds":`+num+`}`), dialect.Limits{})
		if err != nil {
			t.Errorf("timeout_seconds %s: %v", num, err)
			continue
		}
		if c.TimeoutSeconds != want {
			t.Errorf("timeout_seconds %s: got %d, want %d", num, c.TimeoutSeconds, want)
		}
	}
	for num, want := range map[string]int{"0": 0, "-0.0e5": 0, "12e11": 1 << 40, "1e12": 1 << 40, "99999999999": 99999999999, "-7e0": -7, "1e99999999999999999999": 1 << 40} {
		got, ok := integral(num)
		if !ok || got != want {
			t.Errorf("integral(%s) = %d, %v; want %d, true", num, got, ok, want)
		}
	}
	for _, num := range []string{"0.5", "1.01e1", "1e-99999999999999999999", "100000e-6"} {
		if got, ok := integral(num); ok {
			t.Errorf("integral(%s) = %d, true; want not an integer", num, got)
		}
	}
}

// TestDecodeOneBackingArray checks that the options of a call share
// one backing array, in question order.
func TestDecodeOneBackingArray(t *testing.T) {
	c, err := Decode([]byte(auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(3)+`}`)), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o1, o3 := c.Questions[0].Options, c.Questions[2].Options
	if cap(o1) != len(o1) {
		t.Errorf("question 1's options may be appended to in place: cap %d, len %d", cap(o1), len(o1))
	}
	if next := unsafe.Add(unsafe.Pointer(&o1[len(o1)-1]), unsafe.Sizeof(Option{})); next != unsafe.Pointer(&o3[0]) {
		t.Errorf("question 3's options do not follow question 1's in one array")
	}
}

// TestDecodeHumanIntent checks the call's human_intent (docs/ask_user.md):
// optional, null for absent, at most 120 runes, and otherwise kept exactly
// as sent, blank or not.
func TestDecodeHumanIntent(t *testing.T) {
	ab := []Option{auOpt("a", "da", false), auOpt("b", "db", false)}
	with := func(member string) string { return `{"questions":[` + auChoice + `]` + member + `}` }
	for _, tc := range []struct {
		name, call, want string
	}{
		{"absent", with(``), ""},
		{"null", with(`,"human_intent":null`), ""},
		{"empty", with(`,"human_intent":""`), ""},
		{"narration", with(`,"human_intent":"Deploying the login fix"`), "Deploying the login fix"},
		{"blank kept", with(`,"human_intent":"  \t "`), "  \t "},
		{"untrimmed", with(`,"human_intent":"  Deploying the login fix\n"`), "  Deploying the login fix\n"},
		{"120 runes", with(`,"human_intent":"` + strings.Repeat("é", 120) + `"`), strings.Repeat("é", 120)},
		{"120 runes of surrogate pairs", with(`,"human_intent":"` + strings.Repeat(`\ud83d\ude80`, 120) + `"`), strings.Repeat("🚀", 120)},
		{"escapes decoded", with(`,"human_intent":"\u00e9\"q\"\u2028"`), "é\"q\"\u2028"},
		{"invalid UTF-8 becomes U+FFFD", with(",\"human_intent\":\"a\xffb\""), "a\ufffdb"},
		{"first in the call", `{"human_intent":"Deploying","questions":[` + auChoice + `]}`, "Deploying"},
		{"beside every other field", `{"questions":[` + auChoice + `],"timeout_seconds":300,"human_intent":"Deploying","asked_at":null}`, "Deploying"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.call), dialect.Limits{})
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.call, err)
			}
			want := auWant(300, auChoiceQ("question_1", ab...))
			want.HumanIntent = tc.want
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Decode(%s) (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}
