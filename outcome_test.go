package askuser_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// Two choice questions: a single-select with a marked default and a
// multi-select with none marked (its declared default is its first option).
const choiceCall = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break"},
   {"label":"production","description":"Real users","default":true}]},
 {"id":"region","header":"Region","question":"Which regions?","multi_select":true,"options":[
   {"label":"eu","description":"Europe"},
   {"label":"us","description":"America"},
   {"label":"ap","description":"Asia"}]}],
 "timeout_seconds":300}`

// A choice question and a text question.
const mixedCall = `{"questions":[
 {"id":"env","header":"Env","question":"Which environment?","options":[
   {"label":"staging","description":"Safe to break","default":true},
   {"label":"production","description":"Real users"}]},
 {"id":"branch","kind":"text","header":"Branch","question":"Which branch name?"}]}`

const secretCall = `{"questions":[{"kind":"secret","header":"Token","question":"Paste a GitHub token","secret_name":"GITHUB_TOKEN","purpose":"to open the pull request"}]}`

func pick(id string, values ...string) *askuser.Answer {
	return &askuser.Answer{QuestionID: id, Selected: values}
}

func text(id, s string) *askuser.Answer {
	return &askuser.Answer{QuestionID: id, Other: s}
}

// handle asks call through r and returns the outcome.
func handle(t *testing.T, o *askuser.Orchestrator, call string) (*askuser.Outcome, error) {
	t.Helper()
	return o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "call-1", Arguments: []byte(call)})
}

func mustResult(t *testing.T, out *askuser.Outcome, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	return string(out.Result)
}

// TestOutcomeTable drives every row of the outcome table (docs/ask_user.md).
func TestOutcomeTable(t *testing.T) {
	tests := []struct {
		name   string
		call   string
		script []scripted.Step
		nobody bool // no responder at all
		want   string
		reason askuser.Reason
	}{
		{
			name: "the person submits",
			call: choiceCall,
			script: []scripted.Step{
				{Answer: pick("env", "staging")},
				{Answer: &askuser.Answer{QuestionID: "region", Selected: []string{"us", "eu"}, Note: " only two "}},
				{End: scripted.EndSubmit},
			},
			want:   `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null},{"id":"region","selected":["eu","us"],"other_text":null,"note":"only two"}]}`,
			reason: askuser.ReasonSubmitted,
		},
		{
			name: "a single-select carries one label and free text",
			call: choiceCall,
			script: []scripted.Step{
				{Answer: &askuser.Answer{QuestionID: "env", Selected: []string{"staging"}, Other: "  but only for an hour  "}},
				{Answer: text("region", "antarctica")},
				{End: scripted.EndSubmit},
			},
			want:   `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":"but only for an hour"},{"id":"region","selected":[],"other_text":"antarctica"}]}`,
			reason: askuser.ReasonSubmitted,
		},
		{
			name:   "the person declines the call",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndDecline}},
			want:   `{"status":"declined","answered_by":"user","answers":[]}`,
			reason: askuser.ReasonDeclined,
		},
		{
			name:   "the person dismisses the card",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndCancel}},
			want:   `{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`,
			reason: askuser.ReasonDismissed,
		},
		{
			name:   "the person dismisses the card before answering",
			call:   choiceCall,
			script: []scripted.Step{{End: scripted.EndCancel}},
			want:   `{"status":"cancelled","answered_by":"user","answers":[]}`,
			reason: askuser.ReasonDismissed,
		},
		{
			name:   "the deadline passes; every unanswered question is a choice",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("region", "ap")}},
			want:   `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["ap"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonDeadline,
		},
		{
			name:   "the deadline passes with nothing answered",
			call:   choiceCall,
			script: nil,
			want:   `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`,
			reason: askuser.ReasonDeadline,
		},
		{
			name:   "the deadline passes; an unanswered question is text",
			call:   mixedCall,
			script: []scripted.Step{{Answer: pick("env", "production")}},
			want:   `{"status":"declined","answered_by":"timeout","answers":[{"id":"env","selected":["production"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonDeadline,
		},
		{
			name:   "the deadline passes; the secret is unanswered",
			call:   secretCall,
			want:   `{"status":"declined","answered_by":"timeout","answers":[]}`,
			reason: askuser.ReasonDeadline,
		},
		{
			name:   "nobody can be asked (no responder); every question is a choice",
			call:   choiceCall,
			nobody: true,
			want:   `{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["eu"],"other_text":null}]}`,
			reason: askuser.ReasonUnattended,
		},
		{
			name:   "nobody can be asked (no responder); a question is text",
			call:   mixedCall,
			nobody: true,
			want:   `{"status":"declined","answered_by":"unattended","answers":[]}`,
			reason: askuser.ReasonUnattended,
		},
		{
			name:   "the responder cannot reach anyone after an answer was given",
			call:   mixedCall,
			script: []scripted.Step{{Answer: pick("env", "production")}, {End: scripted.EndUnreachable}},
			want:   `{"status":"declined","answered_by":"unattended","answers":[{"id":"env","selected":["production"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonUnattended,
		},
		{
			name:   "the responder cannot reach anyone; the person's answer stands beside the defaults",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("region", "us")}, {End: scripted.EndUnreachable}},
			want:   `{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"region","selected":["us"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonUnattended,
		},
		{
			name:   "the responder returns an error",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("env", "staging")}, {Err: errors.New("socket closed")}},
			want:   `{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonFault,
		},
		{
			name:   "the responder panics",
			call:   choiceCall,
			script: []scripted.Step{{Panic: "boom"}},
			want:   `{"status":"cancelled","answered_by":"unattended","answers":[]}`,
			reason: askuser.ReasonFault,
		},
		{
			name:   "the responder submits with a question unanswered: a refused ending is a fault",
			call:   choiceCall,
			script: []scripted.Step{{Answer: pick("env", "staging")}, {End: scripted.EndSubmit}},
			want:   `{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`,
			reason: askuser.ReasonFault,
		},
	}
	for _, mode := range storeModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					o := &askuser.Orchestrator{Logger: discard(), Asks: mode.asks()}
					defer o.Close()
					if !tt.nobody {
						o.Responder = scripted.New(tt.script...)
					}
					start := time.Now()
					out, err := handle(t, o, tt.call)
					got := mustResult(t, out, err)
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("result (-want +got):\n%s", diff)
					}
					if out.Reason != tt.reason {
						t.Errorf("reason = %q, want %q", out.Reason, tt.reason)
					}
					waited := time.Since(start)
					if tt.reason == askuser.ReasonDeadline && waited != 300*time.Second {
						t.Errorf("finalized after %v, want exactly the 300s deadline", waited)
					}
					if tt.reason != askuser.ReasonDeadline && waited != 0 {
						t.Errorf("finalized after %v, want at once", waited)
					}
					if (out.Fault != nil) != (tt.reason == askuser.ReasonFault) {
						t.Errorf("Fault = %v with reason %q", out.Fault, out.Reason)
					}
				})
			})
		}
	}
}

// storeModes are the places a test's orchestrator keeps its pending asks:
// its own memory (the default), and a shared PendingStore, where every
// change goes through compare-and-set and the outcome is finalized from
// the stored record.
var storeModes = []struct {
	name string
	asks func() store.Pending
}{
	{"memory", func() store.Pending { return nil }},
	{"shared", func() store.Pending { return store.NewMemory(0) }},
}

func TestSupersede(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Logger: discard()}
		o.Responder = scripted.New(
			scripted.Step{Answer: pick("env", "staging")},
			scripted.Step{Delay: 10 * time.Second, Answer: pick("region", "eu")},
		)
		go func() {
			time.Sleep(5 * time.Second)
			if n := o.Supersede("s1"); n != 1 {
				t.Errorf("Supersede ended %d asks, want 1", n)
			}
		}()
		start := time.Now()
		out, err := handle(t, o, choiceCall)
		got := mustResult(t, out, err)
		want := `{"status":"cancelled","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"}]}`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if out.Reason != askuser.ReasonSuperseded || time.Since(start) != 5*time.Second {
			t.Errorf("reason %q after %v; want superseded after 5s", out.Reason, time.Since(start))
		}
		if n := o.Supersede("s1"); n != 0 {
			t.Errorf("a second Supersede ended %d asks, want 0", n)
		}
	})
}

func TestCallerCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Logger: discard(), Responder: scripted.New(scripted.Step{Answer: pick("env", "staging")})}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(7*time.Second, cancel)
		out, err := o.Handle(ctx, askuser.Request{Session: "s1", ToolCallID: "c", Arguments: []byte(choiceCall)})
		if !errors.Is(err, context.Canceled) || out != nil {
			t.Fatalf("Handle = %v, %v; want no result and context.Canceled", out, err)
		}
		// The tool call was never answered, so it is asked again.
		o.Responder = scripted.New(scripted.Step{End: scripted.EndDecline})
		out, err = o.Handle(context.Background(), askuser.Request{Session: "s1", ToolCallID: "c", Arguments: []byte(choiceCall)})
		if err != nil || out.Replayed || out.Status != askuser.StatusDeclined {
			t.Fatalf("after the caller went away, the same tool call: %+v, %v; want a fresh ask", out, err)
		}
	})
}

func TestCallerContextAlreadyDone(t *testing.T) {
	o := &askuser.Orchestrator{Responder: auto.New()}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Handle(ctx, askuser.Request{Arguments: []byte(choiceCall)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func discard() *slogLogger { return newDiscardLogger() }

// TestIdempotentReplay: an ask that carries a tool-call id already finalized
// returns the same result without asking anyone.
func TestIdempotentReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := scripted.New(scripted.Step{Answer: pick("env", "staging")}, scripted.Step{Answer: pick("region", "eu")}, scripted.Step{End: scripted.EndSubmit})
		o := &askuser.Orchestrator{Responder: r}
		first, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		second, err := handle(t, o, choiceCall)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(first.Result), string(second.Result)); diff != "" {
			t.Errorf("replayed result differs (-first +second):\n%s", diff)
		}
		if !second.Replayed || first.Replayed {
			t.Errorf("Replayed: first %v, second %v; want false, true", first.Replayed, second.Replayed)
		}
		o.WaitResponders()
		if n := len(r.Reports()); n != 3 {
			t.Errorf("the responder ran %d steps, want 3 (asked once)", n)
		}
		// Another session's identical tool-call id is a different ask.
		third, err := o.Handle(context.Background(), askuser.Request{Session: "s2", ToolCallID: "call-1", Arguments: []byte(choiceCall)})
		if err != nil || third.Replayed {
			t.Errorf("another session's call was replayed: %+v, %v", third, err)
		}
	})
}

// TestConcurrentSameToolCall: two callers with one tool-call id share one ask.
func TestConcurrentSameToolCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := scripted.New(scripted.Step{Delay: time.Second, Answer: pick("env", "staging")}, scripted.Step{Answer: pick("region", "eu")}, scripted.Step{End: scripted.EndSubmit})
		o := &askuser.Orchestrator{Responder: r}
		var wg sync.WaitGroup
		results := make([]string, 4)
		for i := range results {
			wg.Go(func() {
				out, err := handle(t, o, choiceCall)
				results[i] = mustResult(t, out, err)
			})
		}
		wg.Wait()
		for _, got := range results[1:] {
			if got != results[0] {
				t.Errorf("results differ: %s vs %s", got, results[0])
			}
		}
		o.WaitResponders()
		if n := len(r.Reports()); n != 3 {
			t.Errorf("the responder ran %d steps, want 3 (asked once)", n)
		}
	})
}

func TestSeveralPendingAsksPerSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: scripted.New(scripted.Step{Delay: 10 * time.Second, End: scripted.EndDecline})}
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				out, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: string(rune('a' + i)), Arguments: []byte(choiceCall)})
				if err != nil || out.Status != askuser.StatusDeclined {
					t.Errorf("ask %d: %v %v", i, out, err)
				}
			})
		}
		time.Sleep(time.Second)
		if n := len(o.Pending("s")); n != 3 {
			t.Errorf("%d pending asks, want 3", n)
		}
		wg.Wait()
		if n := len(o.Pending("s")); n != 0 {
			t.Errorf("%d pending asks after all ended, want 0", n)
		}
	})
}

func TestInvalidCallIsNeverShown(t *testing.T) {
	called := false
	o := &askuser.Orchestrator{Responder: askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
		called = true
		return a.Submit()
	})}
	_, err := o.Handle(context.Background(), askuser.Request{Arguments: []byte(`{"questions":[]}`)})
	var ce *dialect.CallError
	if !errors.As(err, &ce) || ce.Message != "invalid ask_user arguments: questions must contain between 1 and 4 items" {
		t.Fatalf("err = %v, want the rule 1 message", err)
	}
	if called {
		t.Error("the responder was shown an invalid call")
	}
}

func TestCeilingConfigurable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: 30}}
		_, err := o.Handle(context.Background(), askuser.Request{Arguments: []byte(`{"questions":[{"header":"h","question":"q","options":[{"label":"a","description":"d"},{"label":"b","description":"d"}]}],"timeout_seconds":31}`)})
		if err == nil || err.Error() != "invalid ask_user arguments: timeout_seconds must be between 1 and 30" {
			t.Fatalf("err = %v", err)
		}
		calls := make(chan *askuser.Form, 1)
		o.Responder = askuser.ResponderFunc(func(ctx context.Context, a *askuser.Ask) error {
			calls <- a.Form()
			<-ctx.Done()
			return ctx.Err()
		})
		start := time.Now()
		if _, err := o.Handle(context.Background(), askuser.Request{Arguments: []byte(choiceCall[:len(choiceCall)-len(`,
 "timeout_seconds":300}`)] + "}")}); err != nil {
			t.Fatal(err)
		}
		seen := <-calls
		if seen.TimeoutSeconds != 30 || time.Since(start) != 30*time.Second {
			t.Errorf("timeout %d, waited %v; want the 30s ceiling as the default", seen.TimeoutSeconds, time.Since(start))
		}
		if want := seen.ExpiresAt.Add(-6 * time.Second); !seen.NudgeAt.Equal(want) {
			t.Errorf("nudge_at = %v, want %v (expires − ceil(30/5))", seen.NudgeAt, want)
		}
	})
}

func TestSecretAnswerCarriesOnlyItsReference(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const canary = "ghp_CANARYcanaryCANARYcanary0123456789"
		store := newRecordingStore()
		o := &askuser.Orchestrator{Secrets: store, Responder: scripted.New(
			scripted.Step{Answer: &askuser.Answer{QuestionID: "question_1", Secret: secret.FromString(canary)}},
			scripted.Step{End: scripted.EndSubmit},
		)}
		out, err := handle(t, o, secretCall)
		got := mustResult(t, out, err)
		want := `{"status":"answered","answered_by":"user","answers":[{"id":"question_1","selected":[],"other_text":null,"secret_ref":"session:GITHUB_TOKEN"}]}`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if v, ok := store.get("s1", "GITHUB_TOKEN"); !ok || v != canary {
			t.Errorf("the store does not hold the secret under (s1, GITHUB_TOKEN)")
		}
		if strings.Contains(got, canary) {
			t.Error("the result holds the secret")
		}
	})
}

func TestDeclinedCallDeletesItsSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newRecordingStore()
		o := &askuser.Orchestrator{Secrets: store, Responder: scripted.New(
			scripted.Step{Answer: &askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("hunter2-hunter2")}},
			scripted.Step{End: scripted.EndDecline},
		)}
		out, err := handle(t, o, secretCall)
		if err != nil || out.Status != askuser.StatusDeclined {
			t.Fatalf("%v %v", out, err)
		}
		if _, ok := store.get("s1", "GITHUB_TOKEN"); ok {
			t.Error("the declined call's secret is still stored")
		}
	})
}

// askResult asks call and returns the result the model reads.
func askResult(t *testing.T, o *askuser.Orchestrator, call string) string {
	t.Helper()
	out, err := handle(t, o, call)
	return mustResult(t, out, err)
}

// TestDefaultStoreResolves: with no store configured, a secret is sealed
// into the in-memory default (which only a test reaches), and nothing
// else about the ask changes.
func TestDefaultStoreResolves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &askuser.Orchestrator{Responder: scripted.New(
			scripted.Step{Answer: &askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("default-store-canary-value")}},
			scripted.Step{End: scripted.EndSubmit},
		)}
		got := askResult(t, o, secretCall)
		if !strings.Contains(got, `"secret_ref":"session:GITHUB_TOKEN"`) || strings.Contains(got, "canary") {
			t.Errorf("result %s", got)
		}
		store := askuser.SecretsOf(o) // the default, reached only from a test
		v, err := secretstore.ResolveFor(context.Background(), store, "s1", "session:GITHUB_TOKEN")
		if err != nil || string(v.Reveal()) != "default-store-canary-value" {
			t.Errorf("resolving the reference from the default store: %v", err)
		}
		if _, err := secretstore.ResolveFor(context.Background(), store, "another-session", "session:GITHUB_TOKEN"); err == nil {
			t.Error("another session resolved the reference")
		}
	})
}

// TestLaterSecretReplacesTheRecord: a later answer under the same
// name replaces the record.
func TestLaterSecretReplacesTheRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newRecordingStore()
		o := &askuser.Orchestrator{Secrets: store, Responder: scripted.New(
			scripted.Step{Answer: &askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("first-typo-value")}},
			scripted.Step{Answer: &askuser.Answer{QuestionID: "question_1", Secret: secret.FromString("second-right-value")}},
			scripted.Step{End: scripted.EndSubmit},
		)}
		if out, err := handle(t, o, secretCall); err != nil || out.Status != askuser.StatusAnswered {
			t.Fatalf("%v %v", out, err)
		}
		if v, _ := store.get("s1", "GITHUB_TOKEN"); v != "second-right-value" {
			t.Error("the store does not hold the later answer")
		}
	})
}

// TestClearDraft: a draft the person has undone is not kept at the
// deadline, in memory and on a shared store; a draft made again after it
// is; an answer stands whatever becomes of a draft. A draft of nothing
// (which is how a draft is cleared) refuses a question the call does not
// ask, and answers ErrAskEnded after the end.
func TestClearDraft(t *testing.T) {
	form := func() *askuser.Form {
		return &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
			{ID: "env", Header: "Env", Text: "Which environment?", OnDeadline: askuser.FallbackDraft,
				Options: []askuser.Option{{Label: "staging", Default: true}, {Label: "production"}}},
			{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, OnDeadline: askuser.FallbackDraft,
				Options: []askuser.Option{{Label: "eu", Default: true}, {Label: "us"}, {Label: "ap"}}},
		}}
	}
	tests := []struct {
		name   string
		script []scripted.Step
		want   []string // question=selected by/source
	}{
		{"a draft undone", []scripted.Step{
			{Draft: pick("regions", "ap")},
			{Delay: time.Second, ClearDraft: "regions"},
		}, []string{"env=staging timeout", "regions=eu timeout"}},
		{"a draft undone, then made again", []scripted.Step{
			{Draft: pick("regions", "ap")},
			{ClearDraft: "regions"},
			{Draft: pick("regions", "us")},
		}, []string{"env=staging timeout", "regions=us timeout+draft"}},
		{"an answer stands", []scripted.Step{
			{Answer: pick("env", "production")},
			{ClearDraft: "env"},
			{Draft: pick("regions", "ap")},
			{ClearDraft: "env"},
		}, []string{"env=production user", "regions=ap timeout+draft"}},
		{"no draft to clear", []scripted.Step{
			{ClearDraft: "regions"},
		}, []string{"env=staging timeout", "regions=eu timeout"}},
		{"a draft of blank text and a note undoes a draft", []scripted.Step{
			{Draft: pick("regions", "ap")},
			{Draft: &askuser.Answer{QuestionID: "regions", Other: " \t", Note: "not sure"}},
		}, []string{"env=staging timeout", "regions=eu timeout"}},
	}
	for _, mode := range storeModes {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r := scripted.New(tt.script...)
					o := &askuser.Orchestrator{Logger: discard(), Asks: mode.asks(), Responder: r}
					defer o.Close()
					out, err := o.Handle(t.Context(), askuser.Request{Session: "s", ToolCallID: "tc", Form: form()})
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, a := range out.Answers {
						got = append(got, a.QuestionID+"="+strings.Join(a.Selected, ",")+" "+string(a.By)+map[bool]string{true: "+draft"}[a.Draft])
					}
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("at the deadline (-want +got):\n%s", diff)
					}
					if errs := r.Refused(); len(errs) != 0 {
						t.Errorf("steps were refused: %v", errs)
					}
					o.WaitResponders()
				})
			})
		}
	}
	t.Run("refusals", func(t *testing.T) {
		for _, mode := range storeModes {
			synctest.Test(t, func(t *testing.T) {
				var a *askuser.Ask
				o := &askuser.Orchestrator{Logger: discard(), Asks: mode.asks(), Responder: askuser.ResponderFunc(func(ctx context.Context, got *askuser.Ask) error {
					a = got
					err := a.Draft(askuser.Answer{QuestionID: "colour"})
					var ae *askuser.AnswerError
					if !errors.As(err, &ae) || ae.Reason != `this call has no question "colour"; it asks "env", "regions"` {
						t.Errorf("%s: a draft of nothing for a question not asked = %v; want an *AnswerError naming the questions", mode.name, err)
					}
					return a.Decline()
				})}
				defer o.Close()
				if _, err := o.Handle(t.Context(), askuser.Request{Session: "s", Form: form()}); err != nil {
					t.Fatal(err)
				}
				o.WaitResponders()
				if err := a.Draft(askuser.Answer{QuestionID: "env", Note: "only a note"}); !errors.Is(err, askuser.ErrAskEnded) {
					t.Errorf("%s: a draft of nothing after the end = %v; want ErrAskEnded", mode.name, err)
				}
			})
		}
	})
}
