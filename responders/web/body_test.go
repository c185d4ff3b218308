package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// TestBodyDuplicateFields: a body that names a member twice, at any depth,
// is refused with a 400 naming the member (and the object it is in), and
// nothing of it is kept; malformed JSON is still reported as such first.
func TestBodyDuplicateFields(t *testing.T) {
	const canary = "canary-dup-7f3e"
	as := newAPIServer(t, nil)
	done := as.ask("s", twoQuestions, nil)
	a := as.waitPending("s", 1)[0]
	secretDone := as.ask("t", tokenCall, nil)
	sec := as.waitPending("t", 1)[0]
	ask := "/api/asks/" + a.AskID
	put := ask + "/answers/env"
	secPut := "/api/asks/" + sec.AskID + "/answers/question_1"

	tests := []struct {
		name          string
		method, path  string
		session, body string
		errContains   string
	}{
		{"answer", "PUT", put, "s", `{"selected":["staging"],"selected":["production"]}`, `the body is not an answer: duplicate field "selected"`},
		{"answer, the same value twice", "PUT", put, "s", `{"selected":["staging"],"selected":["staging"]}`, `duplicate field "selected"`},
		{"answer, a null and a value", "PUT", put, "s", `{"note":null,"note":"n","selected":["staging"]}`, `duplicate field "note"`},
		{"answer, an escaped name", "PUT", put, "s", `{"selected":["staging"],"s\u0065lected":["production"]}`, `duplicate field "selected"`},
		{"answer, in option_notes", "PUT", put, "s", `{"selected":["staging"],"option_notes":{"staging":"a","staging":"b"}}`, `duplicate field "staging" in /option_notes`},
		{"answered_by twice", "PUT", put, "s", `{"selected":["staging"],"answered_by":"u","answered_by":"v"}`, `duplicate field "answered_by"`},
		{"secret", "PUT", secPut, "t", `{"secret":"` + canary + `","secret":"` + canary + `2"}`, `duplicate field "secret"`},
		{"secret, a null and a value", "PUT", secPut, "t", `{"secret":null,"secret":"` + canary + `"}`, `duplicate field "secret"`},
		{"submit", "POST", ask + "/submit", "s", `{"answers":{},"answers":{"env":{"selected":["staging"]}}}`, `the body is not a submit: duplicate field "answers"`},
		{"submit, a question twice", "POST", ask + "/submit", "s", `{"answers":{"env":{"selected":["staging"]},"env":{"selected":["production"]}}}`, `duplicate field "env" in /answers`},
		{"submit, within an answer", "POST", ask + "/submit", "s", `{"answers":{"env":{"selected":["staging"],"selected":["production"]}}}`, `duplicate field "selected" in /answers/env`},
		{"submit, a secret twice", "POST", "/api/asks/" + sec.AskID + "/submit", "t", `{"answers":{"question_1":{"secret":"` + canary + `","secret":"x"}}}`, `duplicate field "secret" in /answers/question_1`},
		{"dismiss", "POST", ask + "/dismiss", "s", `{"on_question":"env","on_question":"note"}`, `the body is not a dismissal: duplicate field "on_question"`},
		{"decline", "POST", ask + "/decline", "s", `{"x":1,"x":2}`, `the body is not a decline: duplicate field "x"`},
		{"malformed after the duplicate", "PUT", put, "s", `{"selected":["staging"],"selected":["production"],`, `the body is not an answer: it must be a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := as.do(tt.method, tt.path, tt.session, tt.body, nil)
			if r.code != 400 || !strings.Contains(r.err.Error, tt.errContains) {
				t.Errorf("%s %s %s: %d %s; want 400 saying %q", tt.method, tt.path, tt.body, r.code, r.body, tt.errContains)
			}
			if r.err.QuestionID != "" {
				t.Errorf("question_id %q; a duplicate is the body's fault, not a question's", r.err.QuestionID)
			}
		})
	}
	if strings.Contains(as.rec.String(), canary) {
		t.Error("a response echoes a secret")
	}
	if n := as.puts.Load(); n != 0 {
		t.Errorf("the store was given %d secrets by refused bodies", n)
	}
	if got := as.waitPending("s", 1)[0].Answered; len(got) != 0 {
		t.Errorf("refused answers were kept: %+v", got)
	}
	if got := as.waitPending("t", 1)[0].Answered; len(got) != 0 {
		t.Errorf("refused secrets were kept: %+v", got)
	}
	as.o.Supersede("s")
	wait(t, done)

	// The secret ask still takes a well-formed answer.
	if r := as.do("PUT", secPut, "t", `{"secret":"`+canary+`-ok"}`, nil); r.code != 200 {
		t.Fatalf("a well-formed secret: %d %s", r.code, r.body)
	}
	if r := as.do("POST", "/api/asks/"+sec.AskID+"/submit", "t", ``, nil); r.code != 200 {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	out := wait(t, secretDone)
	v, err := secretstore.ResolveFor(context.Background(), as.store, "t", out.Answer("question_1").SecretRef)
	if err != nil || string(v.Reveal()) != canary+"-ok" {
		t.Fatalf("the store does not hold the secret: %v", err)
	}
}

// TestBodySecretNeverEchoed: however a body carrying a secret is refused,
// neither the response nor the store sees the secret.
func TestBodySecretNeverEchoed(t *testing.T) {
	const canary = "canary-echo-41d2"
	as := newAPIServer(t, &web.Options{MaxBodyBytes: 1024})
	done := as.ask("t", tokenCall, nil)
	sec := as.waitPending("t", 1)[0]
	put := "/api/asks/" + sec.AskID + "/answers/question_1"
	submit := "/api/asks/" + sec.AskID + "/submit"
	for _, c := range []struct{ path, body, errContains string }{
		{put, `{"secret":"` + canary + `","label":1}`, `no field "label"`},
		{put, `{"secret":"` + canary + `","answered_by":"u"}`, "answered_by"},
		{put, `{"secret":"` + canary + `","selected":"x"}`, "selected has the wrong type"},
		{put, `{"secret":"` + canary + `","note":1}`, "note has the wrong type"},
		{put, `{"secret":"` + canary + `",`, "must be a JSON object"},
		{put, `{"secret":"` + canary + `"} {}`, "must be a JSON object"},
		{put, `{"secret":"` + canary + "\x01" + `"}`, "must be a JSON object"},
		{put, `{"secret":"` + canary + `\x"}`, "must be a JSON object"},
		{put, `{"secret":["` + canary + `"]}`, "must be a string"},
		{put, `{"secret":{"v":"` + canary + `"}}`, "must be a string"},
		{put, `{"secret":"` + canary + `","other_text":"x"}`, "only the secret value"},
		{submit, `{"answers":{"question_1":{"secret":"` + canary + `","x":1}}}`, `no field "x"`},
		{submit, `{"answers":{"question_1":{"secret":"` + canary + `"}},"x":1}`, `no field "x"`},
		{submit, `{"answers":{"question_1":{"secret":"` + canary + `"}}`, "must be a JSON object"},
	} {
		r := as.do("PUT", c.path, "t", c.body, nil)
		if c.path == submit {
			r = as.do("POST", c.path, "t", c.body, nil)
		}
		if r.code != 400 || !strings.Contains(r.err.Error, c.errContains) {
			t.Errorf("%s: %d %s; want 400 saying %q", c.body, r.code, r.body, c.errContains)
		}
	}
	if strings.Contains(as.rec.String(), canary) {
		t.Error("a response echoes the secret")
	}
	if n := as.puts.Load(); n != 0 {
		t.Errorf("the store was given %d secrets by refused bodies", n)
	}
	as.o.Supersede("t")
	wait(t, done)
}
