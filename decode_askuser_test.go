package askuser

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/askuser-go/askuser/dialect"
	"github.com/google/go-cmp/cmp"
)

// The ask_user contract's decoder, its rules and messages, its defaults and
// its marshalling are tested exhaustively in dialect/askuserwire. The tests
// of the root package cover what AskUser adds on top: the mapping of
// askuserwire's Call onto a Form (an option's value is its label; the form
// read into one formBlock), *dialect.CallError for the dialect's *askuserwire.Error,
// checkForm accepting every form the dialect returns, the compaction, and
// MarshalForm.

// Pieces of ask_user calls for the tables below.
const (
	auOpts2  = `[{"label":"a","description":"da"},{"label":"b","description":"db"}]`
	auChoice = `{"header":"H","question":"Q?","options":` + auOpts2 + `}`
	auText   = `{"kind":"text","header":"H","question":"Q?"}`
	auSecret = `{"kind":"secret","header":"Token","question":"Paste it","secret_name":"TOKEN","purpose":"to deploy"}`
	auPrefix = "invalid ask_user arguments: "
	auQList  = "kind, id, header, question, multi_select, allow_other, options, secret_name, purpose"
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
func decodeAskUser(data []byte, lim dialect.Limits) (*Form, error) {
	o := &Orchestrator{Limits: lim}
	return o.decode(askUserDialect{}, data)
}

func auWant(timeout int, qs ...Question) *Form {
	return &Form{Questions: qs, TimeoutSeconds: timeout, Contract: "ask_user", Unattended: FallbackDefaults}
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

// TestDecodeAskUserNormalize checks the form the orchestrator makes of a
// normalized ask_user call: every field of the dialect's Call in its place,
// an option's value its label, no options on a text or secret question,
// the Limits handed to the dialect, and checkForm accepting the dialect's
// edges (generated ids, labels that differ only in case or space, a
// secret_name of 255 runes, the largest call).
func TestDecodeAskUserNormalize(t *testing.T) {
	ab := []Option{auOpt("a", "da", false), auOpt("b", "db", false)}
	textID := func(id string) string { return `{"kind":"text","id":"` + id + `","header":"H","question":"Q?"}` }
	six := func(i int) Question {
		return auChoiceQ(fmt.Sprintf("question_%d", i), auOpt("a1", "d1", false), auOpt("a2", "d2", false), auOpt("a3", "d3", false),
			auOpt("a4", "d4", false), auOpt("a5", "d5", false), auOpt("a6", "d6", false))
	}
	choice6 := `{"header":"H","question":"Q?","options":` + auOptions(6) + `}`
	tests := []struct {
		name string
		call string
		lim  dialect.Limits
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
			lim:  dialect.Limits{MaxTimeoutSeconds: 90},
			want: auWant(90, auChoiceQ("question_1", ab...)),
		},
		{
			name: "choice fields kept",
			call: `{"questions":[{"kind":"choice","id":" My id ","header":" H ","question":" Q? ","multi_select":true,"allow_other":false,` +
				`"options":[{"label":" a ","description":" da ","default":true},{"label":"b","description":"db","default":true},{"label":"c","description":"dc","default":false}]}],` +
				`"timeout_seconds":45}`,
			want: auWant(45, Question{ID: " My id ", Kind: KindChoice, Header: " H ", Text: " Q? ", MultiSelect: true, AllowOther: false,
				Options: []Option{auOpt(" a ", " da ", true), auOpt("b", "db", true), auOpt("c", "dc", false)}}),
		},
		{
			name: "text without options",
			call: auCall(`{"kind":"text","header":"H","question":"Q?","multi_select":true,"allow_other":false,"options":[]}`),
			want: auWant(300, auTextQ("question_1")),
		},
		{
			name: "secret fields",
			call: auCall(`{"kind":"secret","header":"Token","question":"Paste it","secret_name":"GH_TOKEN","purpose":"to push"}`),
			want: auWant(300, Question{ID: "question_1", Kind: KindSecret, Header: "Token", Text: "Paste it", SecretName: "GH_TOKEN", Purpose: "to push"}),
		},
		{
			name: "secret_name of 255 runes",
			call: auCall(`{"kind":"secret","header":"Token","question":"Paste it","secret_name":"` + strings.Repeat("é", 255) + `","purpose":"p"}`),
			want: auWant(300, Question{ID: "question_1", Kind: KindSecret, Header: "Token", Text: "Paste it", SecretName: strings.Repeat("é", 255), Purpose: "p"}),
		},
		{
			name: "generated ids beside taken ones",
			call: auCall(auText, textID("question_1_2"), textID("question_1"), textID("question_1_3")),
			want: auWant(300, auTextQ("question_1_4"), auTextQ("question_1_2"), auTextQ("question_1"), auTextQ("question_1_3")),
		},
		{
			name: "labels compared exactly",
			call: auCall(`{"header":"H","question":"Q?","options":[{"label":"a","description":"d"},{"label":"A","description":"d"},{"label":"a ","description":"d"}]}`),
			want: auWant(300, auChoiceQ("question_1", auOpt("a", "d", false), auOpt("A", "d", false), auOpt("a ", "d", false))),
		},
		{
			name: "four questions of six options fill the block",
			call: auCall(choice6, choice6, choice6, choice6),
			want: auWant(300, six(1), six(2), six(3), six(4)),
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
			if got := got.Questions[0].declaredDefaults(); got != nil && got[0] == "" {
				t.Errorf("declared defaults %q: an empty value", got)
			}
		})
	}
}

// TestDecodeAskUserCallError checks that the dialect's refusals reach the
// orchestrator's caller as a *dialect.CallError with the dialect's path and
// message, a broken rule without a path, and that the orchestrator's
// Limits are the ones the messages name.
func TestDecodeAskUserCallError(t *testing.T) {
	big := auCall(auChoice)
	for _, tc := range []struct {
		name, call string
		lim        dialect.Limits
		want       dialect.CallError
	}{
		{"a broken rule", `{"questions":[]}`, dialect.Limits{},
			dialect.CallError{Message: auPrefix + "questions must contain between 1 and 4 items"}},
		{"a shape problem", auCall(`{"Header":"H"}`), dialect.Limits{},
			dialect.CallError{Path: "questions[0].Header", Message: auPrefix + "questions[0].Header: unknown field; allowed fields: " + auQList}},
		{"the configured ceiling", `{"questions":[` + auChoice + `],"timeout_seconds":121}`, dialect.Limits{MaxTimeoutSeconds: 120},
			dialect.CallError{Message: auPrefix + "timeout_seconds must be between 1 and 120"}},
		{"the configured size cap", big, dialect.Limits{MaxCallBytes: len(big) - 1},
			dialect.CallError{Message: auPrefix + fmt.Sprintf("the call is %d bytes; at most %d bytes are accepted", len(big), len(big)-1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := decodeAskUser([]byte(tc.call), tc.lim)
			var ce *dialect.CallError
			if !errors.As(err, &ce) || f != nil {
				t.Fatalf("decodeAskUser(%s) = %v, %v; want a *dialect.CallError", tc.call, f, err)
			}
			if diff := cmp.Diff(tc.want, *ce); diff != "" {
				t.Errorf("decodeAskUser(%s) (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}

// TestDecodeAskUserCompacts checks that the orchestrator's decode compacts
// the form: its strings lie one after another in one backing array, so a
// pending ask keeps neither the call's text nor the dialect's block alive,
// and an option's value shares its label's bytes.
func TestDecodeAskUserCompacts(t *testing.T) {
	c, err := decodeAskUser([]byte(`{"questions":[`+auChoice+`,`+auText+`],"human_intent":"Deploying"}`), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var next unsafe.Pointer
	n := 0
	eachString(c, func(s *string) {
		if *s == "" {
			return
		}
		p := unsafe.Pointer(unsafe.StringData(*s))
		if next != nil && p != next {
			t.Errorf("string %d, %q, does not follow the one before it in one array", n, *s)
		}
		next = unsafe.Add(p, len(*s))
		n++
	})
	for _, o := range c.Questions[0].Options {
		if unsafe.StringData(o.Value) != unsafe.StringData(o.Label) {
			t.Errorf("option %q: its value does not share its label's bytes", o.Label)
		}
	}
}

// TestDecodeAskUserOneBackingArray checks that the compacted form's
// options share one backing array, in question order.
func TestDecodeAskUserOneBackingArray(t *testing.T) {
	c, err := decodeAskUser([]byte(auCall(auChoice, auText, `{"header":"H","question":"Q?","options":`+auOptions(3)+`}`)), dialect.Limits{})
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
