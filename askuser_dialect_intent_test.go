package askuser

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/google/go-cmp/cmp"
)

// TestAskUserHumanIntent checks that the ask_user call's human_intent
// becomes the form's HumanIntent, exactly as sent (docs/ask_user.md), also
// through the orchestrator's checks and compaction, and that a long or
// mistyped one reaches the caller as a *dialect.CallError with the contract's
// message. The field's rules and their order are askuserwire's, tested
// there.
func TestAskUserHumanIntent(t *testing.T) {
	with := func(member string) string { return `{"questions":[` + auChoice + `]` + member + `}` }
	for _, tc := range []struct {
		name, call, want string
	}{
		{"absent", with(``), ""},
		{"narration", with(`,"human_intent":"Deploying the login fix"`), "Deploying the login fix"},
		{"kept verbatim", with(`,"human_intent":"  Deploying\u00e9 \n"`), "  Deployingé \n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := askUserDialect{}.Decode([]byte(tc.call), dialect.Limits{})
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.call, err)
			}
			if f.HumanIntent != tc.want {
				t.Errorf("Decode: HumanIntent %q, want %q", f.HumanIntent, tc.want)
			}
			f, err = decodeAskUser([]byte(tc.call), dialect.Limits{})
			if err != nil {
				t.Fatalf("the orchestrator's decode of %s: %v", tc.call, err)
			}
			want := auWant(300, auChoiceQ("question_1", auOpt("a", "da", false), auOpt("b", "db", false)))
			want.HumanIntent = tc.want
			if diff := cmp.Diff(want, f); diff != "" {
				t.Errorf("the orchestrator's decode of %s (-want +got):\n%s", tc.call, diff)
			}
		})
	}

	for _, tc := range []struct {
		name, call, path, msg string
	}{
		{"121 runes", with(`,"human_intent":"` + strings.Repeat("é", 121) + `"`), "", "human_intent must not exceed 120 characters"},
		{"not a string", with(`,"human_intent":1`), "human_intent", "human_intent: expected a string, got a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAskUser([]byte(tc.call), dialect.Limits{})
			var ce *dialect.CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Decode(%s) = %v, want a *dialect.CallError", tc.call, err)
			}
			want := dialect.CallError{Path: tc.path, Message: auPrefix + tc.msg}
			if diff := cmp.Diff(want, *ce); diff != "" {
				t.Errorf("Decode(%s) (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}

// TestAskUserHumanIntentRoundTrip checks that MarshalForm writes
// HumanIntent, and only when it is not empty, and that decoding the call
// gives the form again.
func TestAskUserHumanIntentRoundTrip(t *testing.T) {
	for _, intent := range []string{"Deploying the login fix", ""} {
		in := &Form{TimeoutSeconds: 60, HumanIntent: intent, Questions: []Question{
			{Kind: KindText, Header: "Branch", Text: "Which branch?"},
		}}
		data, err := marshalForm(in)
		if err != nil {
			t.Fatal(err)
		}
		if written := strings.Contains(string(data), `"human_intent"`); written != (intent != "") {
			t.Errorf("HumanIntent %q: human_intent written %v: %s", intent, written, data)
		}
		f, err := decodeAskUser(data, dialect.Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		want := auWant(60, Question{ID: "question_1", Kind: KindText, Header: "Branch", Text: "Which branch?", AllowOther: true})
		want.HumanIntent = intent
		if diff := cmp.Diff(want, f); diff != "" {
			t.Errorf("decoding %s (-want +got):\n%s", data, diff)
		}
	}
}

// TestAskUserHumanIntentReachesResponder checks that the responder is handed
// the call's human_intent on the form it shows.
func TestAskUserHumanIntentReachesResponder(t *testing.T) {
	var got string
	o := &Orchestrator{Responder: ResponderFunc(func(_ context.Context, a *Ask) error {
		got = a.Form().HumanIntent
		return a.Unreachable()
	})}
	_, err := o.Handle(context.Background(), Request{Session: "s", ToolCallID: "t",
		Arguments: []byte(`{"questions":[` + auChoice + `],"human_intent":"Deploying the login fix"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got != "Deploying the login fix" {
		t.Errorf("the responder saw HumanIntent %q", got)
	}
}
