package askuser_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// TestBlankOrNULSecretRefused: a secret value that is empty after trimming,
// or holds a NUL byte, is refused on arrival with a reason a person can
// read that does not echo the value; nothing is stored, and a good value
// reported next is accepted.
func TestBlankOrNULSecretRefused(t *testing.T) {
	const blank = "the secret is empty; enter the value, or decline the question"
	const nul = "the secret holds a NUL byte, which no credential has; enter the value again, or decline the question"
	tests := []struct {
		name, value, reason string
	}{
		{"empty", "", blank},
		{"spaces", "   ", blank},
		{"white space of every kind", " \t\r\n\v\f\u00a0\u2003 ", blank},
		{"a NUL alone", "\x00", nul},
		{"a NUL inside", "ghp-canary\x00canary-value", nul},
		{"a NUL at the end", "canary-token-value\x00", nul},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newRecordingStore()
				var refused error
				o := &askuser.Orchestrator{Secrets: store, Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
					refused = a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(tt.value)})
					if _, ok := store.get("s1", "GITHUB_TOKEN"); ok {
						t.Error("the refused value reached the store")
					}
					if err := a.Report(askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("the-right-value")}); err != nil {
						t.Errorf("a good value after the refusal was refused: %v", err)
					}
					return a.Submit()
				})}
				out, err := handle(t, o, secretCall)
				if err != nil || out.Status != askuser.StatusAnswered {
					t.Fatalf("%v %v", out, err)
				}
				var ae *askuser.AnswerError
				if !errors.As(refused, &ae) {
					t.Fatalf("the value was not refused: Report returned %v", refused)
				}
				if diff := cmp.Diff(tt.reason, ae.Reason); diff != "" {
					t.Errorf("reason (-want +got):\n%s", diff)
				}
				if strings.Contains(refused.Error(), "canary") {
					t.Error("the refusal echoes the value")
				}
				if v, _ := store.get("s1", "GITHUB_TOKEN"); v != "the-right-value" {
					t.Error("the store does not hold the good value reported after the refusal")
				}
			})
		})
	}
}

// TestBlankOrNULSecretRefusedByCheckAnswer: the same checks, for a
// responder that checks before it reports, and for a sensitive question.
func TestBlankOrNULSecretRefusedByCheckAnswer(t *testing.T) {
	form, err := askuser.Normalize(&askuser.Form{Questions: []askuser.Question{
		{ID: "note", Kind: askuser.KindText, Header: "Note", Text: "A private note?", Sensitive: true},
	}}, dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"  ", "a\x00b"} {
		if err := responder.CheckAnswer(form, askuser.Answer{QuestionID: "note", Secret: secret.FromString(v)}); err == nil {
			t.Errorf("CheckAnswer accepted the sensitive value %q", v)
		}
	}
	if err := responder.CheckAnswer(form, askuser.Answer{QuestionID: "note", Secret: secret.FromString(" a note with spaces around ")}); err != nil {
		t.Errorf("CheckAnswer refused a good value: %v", err)
	}
}
