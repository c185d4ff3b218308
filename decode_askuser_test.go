package askuser

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// Pieces of ask_user calls for the tables below.
const (
	auOpts2  = `[{"label":"a","description":"da"},{"label":"b","description":"db"}]`
	auChoice = `{"header":"H","question":"Q?","options":` + auOpts2 + `}`
	auText   = `{"kind":"text","header":"H","question":"Q?"}`
	auSecret = `{"kind":"secret","header":"Token","question":"Paste it","secret_name":"TOKEN","purpose":"to deploy"}`
	auPrefix = "invalid ask_user arguments: "
	auQList  = "kind, id, header, question, multi_select, allow_other, options, secret_name, purpose"
	auOList  = "label, description, default"
)

// auCall wraps questions (JSON objects) into a call.
func auCall(qs ...string) string { return `{"questions":[` + strings.Join(qs, ",") + `]}` }

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

// decodeAskUser decodes an ask_user call as the orchestrator does: the
// dialect's decoder, the model's rules, and the compaction.
func decodeAskUser(data []byte, lim Limits) (*Form, error) {
	o := &Orchestrator{MaxTimeoutSeconds: lim.MaxTimeoutSeconds, MaxCallBytes: lim.MaxCallBytes}
	return o.decode(AskUser(), data)
}

func auWant(timeout int, qs ...Question) *Form {
	return &Form{Questions: qs, TimeoutSeconds: timeout, Contract: "ask_user", Unattended: UnattendedDefaults}
}

func auOpt(label, desc string, def bool) Option {
	return Option{Value: label, Label: label, Description: desc, Default: def}
}

func auChoiceQ(id string, opts ...Option) Question {
	return Question{ID: id, Kind: KindChoice, Header: "H", Text: "Q?", AllowOther: true, Options: opts}
}

func auTextQ(id string) Question {
	return Question{ID: id, Kind: KindText, Header: "H", Text: "Q?", AllowOther: true}
}

// TestDecodeAskUserNormalize checks the normalization (docs/ask_user.md) without the stamps.
func TestDecodeAskUserNormalize(t *testing.T) {
	ab := []Option{auOpt("a", "da", false), auOpt("b", "db", false)}
	withID := func(id string) string {
		return `{"id":"` + id + `","header":"H","question":"Q?","options":` + auOpts2 + `}`
	}
	textID := func(id string) string { return `{"kind":"text","id":"` + id + `","header":"H","question":"Q?"}` }
	tests := []struct {
		name string
		call string
		lim  Limits
		want *Form
	}{
		{
			name: "defaults written out",
			call: auCall(auChoice),
			want: auWant(300, auChoiceQ("question_1", ab...)),
		},
		{
			name: "configured ceiling is the default timeout",
			call: auCall(auChoice),
			lim:  Limits{MaxTimeoutSeconds: 90},
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
			want: auWant(300, Question{ID: " My id ", Kind: KindChoice, Header: " H ", Text: " Q? ", MultiSelect: true, AllowOther: false,
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
			want: auWant(300, Question{ID: "question_1", Kind: KindSecret, Header: "Token", Text: "Paste it", SecretName: "GH_TOKEN", Purpose: "to push"}),
		},
		{
			name: "secret_name of 255 runes",
			call: auCall(`{"kind":"secret","header":"Token","question":"Paste it","secret_name":"` + strings.Repeat("é", 255) + `","purpose":"p"}`),
			want: auWant(300, Question{ID: "question_1", Kind: KindSecret, Header: "Token", Text: "Paste it", SecretName: strings.Repeat("é", 255), Purpose: "p"}),
		},
		{
			name: "header of 16 runes",
			call: auCall(`{"kind":"text","header":"` + strings.Repeat("é", 16) + `","question":"Q?"}`),
			want: auWant(300, Question{ID: "question_1", Kind: KindText, Header: strings.Repeat("é", 16), Text: "Q?", AllowOther: true}),
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
				Question{ID: "question_4", Kind: KindChoice, Header: "H", Text: "Q?", MultiSelect: true, AllowOther: true, Options: []Option{
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
			want: auWant(300, Question{ID: "question_1", Kind: KindText, Header: "é😀/\t", Text: "\ufffdx\ufffd\ufffd\U00010000 \"q\"", AllowOther: true}),
		},
		{
			name: "invalid UTF-8 becomes U+FFFD",
			call: auCall("{\"kind\":\"text\",\"header\":\"a\xffb\xed\xa0\x80\",\"question\":\"Q?\"}"),
			want: auWant(300, Question{ID: "question_1", Kind: KindText, Header: "a\ufffdb\ufffd\ufffd\ufffd", Text: "Q?", AllowOther: true}),
		},
		{
			name: "whitespace anywhere",
			call: " \r\n\t{ \"questions\" :\n[ { \"kind\" : \"text\" , \"header\" : \"H\" , \"question\" : \"Q?\" } ] , \"timeout_seconds\" : 7 }\n",
			want: auWant(7, auTextQ("question_1")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeAskUser([]byte(tc.call), tc.lim)
			if err != nil {
				t.Fatalf("decodeAskUser(%s): %v", tc.call, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decodeAskUser(%s) (-want +got):\n%s", tc.call, diff)
			}
			if got := got.Questions[0].DeclaredDefaults(); got != nil && got[0] == "" {
				t.Errorf("declared defaults %q: an empty value", got)
			}
		})
	}
}

// TestDecodeAskUserOneBackingArray checks that the options of a call share
// one backing array, in question order.
func TestDecodeAskUserOneBackingArray(t *testing.T) {
	c, err := decodeAskUser([]byte(auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(3)+`}`)), Limits{})
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
