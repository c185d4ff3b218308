package askuser

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAskUserHumanIntent checks that the ask_user call's human_intent
// becomes the form's HumanIntent, exactly as sent (docs/ask_user.md), also
// through the orchestrator's checks and compaction, and that a long or
// mistyped one is refused with the contract's messages.
func TestAskUserHumanIntent(t *testing.T) {
	with := func(member string) string { return `{"questions":[` + auChoice + `]` + member + `}` }
	for _, tc := range []struct {
		name, call, want string
	}{
		{"absent", with(``), ""},
		{"null", with(`,"human_intent":null`), ""},
		{"narration", with(`,"human_intent":"Deploying the login fix"`), "Deploying the login fix"},
		{"kept verbatim", with(`,"human_intent":"  Deploying\u00e9 \n"`), "  Deployingé \n"},
		{"blank", with(`,"human_intent":" "`), " "},
		{"120 runes", with(`,"human_intent":"` + strings.Repeat("é", 120) + `"`), strings.Repeat("é", 120)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := AskUser().Decode([]byte(tc.call), Limits{})
			if err != nil {
				t.Fatalf("Decode(%s): %v", tc.call, err)
			}
			if f.HumanIntent != tc.want {
				t.Errorf("Decode: HumanIntent %q, want %q", f.HumanIntent, tc.want)
			}
			f, err = decodeAskUser([]byte(tc.call), Limits{})
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
		{"after rule 2", with(`,"timeout_seconds":0,"human_intent":"` + strings.Repeat("x", 121) + `"`), "", "timeout_seconds must be between 1 and 300"},
		{"before the questions' rules", `{"questions":[{}],"human_intent":"` + strings.Repeat("x", 121) + `"}`, "", "human_intent must not exceed 120 characters"},
		{"not a string", with(`,"human_intent":1`), "human_intent", "human_intent: expected a string, got a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeAskUser([]byte(tc.call), Limits{})
			var ce *CallError
			if !errors.As(err, &ce) {
				t.Fatalf("Decode(%s) = %v, want a *CallError", tc.call, err)
			}
			want := CallError{Path: tc.path, Message: auPrefix + tc.msg}
			if diff := cmp.Diff(want, *ce); diff != "" {
				t.Errorf("Decode(%s) (-want +got):\n%s", tc.call, diff)
			}
		})
	}
}

// TestAskUserHumanIntentRoundTrip checks that MarshalForm writes HumanIntent
// as human_intent, after timeout_seconds and before the stamps, and that
// decoding it gives the form again; an empty one is not written.
func TestAskUserHumanIntentRoundTrip(t *testing.T) {
	for _, intent := range []string{"Deploying the login fix", "", "  ", "é\"<&>\u2028", strings.Repeat("🚀", 120)} {
		in := &Form{TimeoutSeconds: 60, HumanIntent: intent, Questions: []Question{
			{Kind: KindText, Header: "Branch", Text: "Which branch?"},
		}}
		data, err := marshalForm(in)
		if err != nil {
			t.Fatal(err)
		}
		f, err := decodeAskUser(data, Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", data, err)
		}
		if f.HumanIntent != intent {
			t.Errorf("HumanIntent %q reads back as %q from %s", intent, f.HumanIntent, data)
		}
		stamp(f, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
		out, err := marshalForm(f)
		if err != nil {
			t.Fatal(err)
		}
		i, j := bytes.Index(out, []byte(`"timeout_seconds"`)), bytes.Index(out, []byte(`"asked_at"`))
		k := bytes.Index(out, []byte(`"human_intent"`))
		switch {
		case intent == "" && k >= 0:
			t.Errorf("an empty HumanIntent is written: %s", out)
		case intent != "" && !(0 <= i && i < k && k < j):
			t.Errorf("human_intent is not written between timeout_seconds and asked_at: %s", out)
		}
		again, err := decodeAskUser(out, Limits{})
		if err != nil {
			t.Fatalf("Decode(%s): %v", out, err)
		}
		f.AskedAt, f.NudgeAt, f.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
		if diff := cmp.Diff(f, again); diff != "" {
			t.Errorf("decoding the marshalled form changes it (-first +second):\n%s", diff)
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
