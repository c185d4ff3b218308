package pi_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/internal/dialecttest"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/google/go-cmp/cmp"
)

func TestQuestionID(t *testing.T) {
	for in, want := range map[string]string{
		"Secret?":               "q_b4826f0a",
		"Déployer maintenant ?": "q_f07c8127",
		"Pick 🚀?":               "q_148ee186",
	} {
		if got := pi.QuestionID(in); got != want {
			t.Errorf("QuestionID(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDecisionID(t *testing.T) {
	for in, want := range map[string]string{
		"q_b4826f0a":                    "ask-q-b4826f0a",
		"Deploy Target!":                "ask-deploy-target",
		"--x--":                         "ask-x",
		"été/2026":                      "ask-t-2026",
		strings.Repeat("a", 90):         "ask-" + strings.Repeat("a", 76),
		strings.Repeat("a", 75) + "--b": "ask-" + strings.Repeat("a", 75),
	} {
		if got := pi.DecisionID(in); got != want {
			t.Errorf("DecisionID(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDecodeProblems checks the invalid-call results of docs/pi.md:
// every schema problem with its JSON pointer, and the timeoutMs refusal
// of a text/editor question before any of them.
func TestDecodeProblems(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not-json", `{`, "Validation failed:\n- /: Expected object"},
		{"not-object", `"ask"`, "Validation failed:\n- /: Expected object"},
		{"questions-not-array", `{"questions":{}}`, "Validation failed:\n- /questions: Expected array"},
		{"questions-empty", `{"questions":[]}`, "Validation failed:\n- /questions: Expected array length to be greater or equal to 1"},
		{"option-question-problems", `{"questions":[
			{"id":"a","question":"Q?","options":[{"label":"x"}],"timeoutMs":300001},
			{"id":" ","question":1,"options":[{"label":2},"y"],"multi":"yes","recommended":1.5,"timeoutMs":999},
			{"id":"a","options":{}},
			3]}`, "Validation failed:\n" +
			"- /questions/0/timeoutMs: Expected integer to be less or equal to 300000\n" +
			"- /questions/1/id: Expected non-blank string\n" +
			"- /questions/1/question: Expected string\n" +
			"- /questions/1/options/0/label: Expected string\n" +
			"- /questions/1/options/1: Expected object\n" +
			"- /questions/1/multi: Expected boolean\n" +
			"- /questions/1/recommended: Expected integer\n" +
			"- /questions/1/timeoutMs: Expected integer to be greater or equal to 1000\n" +
			"- /questions/2/id: Expected unique id; \"a\" is given twice\n" +
			"- /questions/2/question: Expected required property\n" +
			"- /questions/2/options: Expected array\n" +
			"- /questions/3: Expected object"},
		{"option-question-missing", `{"questions":[{}]}`, "Validation failed:\n" +
			"- /questions/0/id: Expected required property\n" +
			"- /questions/0/question: Expected required property\n" +
			"- /questions/0/options: Expected required property"},
		{"rich-missing", `{}`, "Validation failed:\n- /question: Expected required property\n- /kind: Expected required property"},
		{"rich-problems", `{"question":"` + strings.Repeat("é", 501) + `","kind":"radio","options":["a",1,"` + strings.Repeat("🚀", 101) + `"],"default":{},"timeoutMs":"10","sensitivity":"top","reason":"` + strings.Repeat("x", 501) + `"}`, "Validation failed:\n" +
			"- /question: Expected string length less or equal to 500\n" +
			"- /kind: Expected \"select\", \"multi-select\", \"text\" or \"editor\"\n" +
			"- /options/1: Expected string\n" +
			"- /options/2: Expected string length less or equal to 200\n" +
			"- /default: Expected string or array of strings\n" +
			"- /timeoutMs: Expected integer\n" +
			"- /sensitivity: Expected \"public\", \"internal\" or \"secret\"\n" +
			"- /reason: Expected string length less or equal to 500"},
		{"rich-too-many-options", `{"question":"Q?","kind":"select","options":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18","19","20","21"],"default":["a",2]}`, "Validation failed:\n" +
			"- /options: Expected array length to be less or equal to 20\n" +
			"- /default/1: Expected string"},
		{"rich-blank", `{"question":" ","kind":"select"}`, "Validation failed:\n- /question: Expected non-blank string"},
		{"blank-labels", `{"questions":[{"id":"a","question":" ","options":[{"label":""},{"label":"x"}]}]}`, "Validation failed:\n" +
			"- /questions/0/question: Expected non-blank string\n" +
			"- /questions/0/options/0/label: Expected non-blank string"},
		{"rich-blank-option", `{"question":"Q?","kind":"select","options":["a"," "]}`, "Validation failed:\n- /options/1: Expected non-blank string"},
		{"text-timeout", `{"question":"Why?","kind":"text","timeoutMs":5000,"sensitivity":"top"}`, pi.TextUnsupported},
		{"editor-timeout", `{"question":"Why?","kind":"editor","timeoutMs":"x"}`, pi.TextUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pi.Dialect().Decode([]byte(tt.in), dialect.Limits{})
			var ce *dialect.CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Decode = %v, want a *dialect.CallError", err)
			}
			if ce.Message != tt.want {
				t.Errorf("message:\n%s\nwant:\n%s", ce.Message, tt.want)
			}
			dialecttest.Golden(t, "decode/"+tt.name, ce.Result)
		})
	}
}

func TestDecodeNormalizes(t *testing.T) {
	tests := []struct{ name, in string }{
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pi.Dialect().Decode([]byte(tt.in), dialect.Limits{MaxTimeoutSeconds: 120})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(c, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			dialecttest.Golden(t, "normalized/"+tt.name, got)
		})
	}
}

// TestNullQuestionsIsTheRichShape: null counts as an absent field, so a
// call with "questions": null is one rich question, not a broken call of
// option questions.
func TestNullQuestionsIsTheRichShape(t *testing.T) {
	f, err := pi.Dialect().Decode([]byte(`{"questions":null,"question":"Which tier?","kind":"select","options":["free","pro"]}`), dialect.Limits{MaxTimeoutSeconds: 120})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if len(f.Questions) != 1 || f.Questions[0].Text != "Which tier?" || len(f.Questions[0].Options) != 2 {
		t.Fatalf("decoded %+v, want the one rich question with two options", f.Questions)
	}
	_, err = pi.Dialect().Decode([]byte(`{"questions":null}`), dialect.Limits{MaxTimeoutSeconds: 120})
	var ce *dialect.CallError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "/question") {
		t.Fatalf("a call with neither shape: got %v, want the rich shape's missing /question", err)
	}
}

// TestRepeatedLabelsStayDistinct: two options may carry the same label in
// this contract; they stay two options, told apart by position, and the
// result names what the person picked by label.
func TestRepeatedLabelsStayDistinct(t *testing.T) {
	const call = `{"questions":[{"id":"x","question":"Which?","options":[{"label":"a"},{"label":"a"},{"label":"b"}],"recommended":1}]}`
	f, err := askuser.Decode(pi.Dialect(), []byte(call), dialect.Limits{})
	if err != nil {
		t.Fatalf("the orchestrator refuses the call: %v", err)
	}
	var got []askuser.Option
	got = append(got, f.Questions[0].Options...)
	want := []askuser.Option{{Value: "1", Label: "a"}, {Value: "2", Label: "a", Default: true}, {Value: "3", Label: "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	out, err := dialecttest.Run{Call: call, Steps: []scripted.Step{ans("x", "2"), end(scripted.EndSubmit)}}.Do(t, pi.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out.Result), `"selectedOptions":["a"]`) || !strings.Contains(string(out.Result), `User selected: a`) {
		t.Errorf("result %s, want the second a selected", out.Result)
	}
	// A rich question's default names the first option with its label.
	f, err = askuser.Decode(pi.Dialect(), []byte(`{"question":"Q?","kind":"select","options":["a","b","a"],"default":"a"}`), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if o := f.Questions[0].Options; o[0].Value != "1" || !o[0].Default || o[2].Default {
		t.Errorf("rich options %+v, want positions as values and the first a recommended", o)
	}
}
