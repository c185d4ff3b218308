package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// apiServer is an orchestrator with a web responder served (unprefixed)
// by a test server.
type apiServer struct {
	*cardServer
	puts atomic.Int32 // secrets the store was given
}

// countingStore counts the secrets that reach the store, whichever way in:
// the orchestrator stages a typed secret (Stage) and commits it when the ask
// ends; Put is the way in for a Store that cannot stage.
type countingStore struct {
	*secretstore.Memory
	n *atomic.Int32
}

func (s countingStore) Put(ctx context.Context, session, name string, v secret.Value) error {
	s.n.Add(1)
	return s.Memory.Put(ctx, session, name, v)
}

func (s countingStore) Stage(ctx context.Context, session, name string, v secret.Value) (string, error) {
	s.n.Add(1)
	return s.Memory.Stage(ctx, session, name, v)
}

func newAPIServer(t *testing.T, opts *web.Options) *apiServer {
	t.Helper()
	if opts == nil {
		opts = &web.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	as := &apiServer{cardServer: &cardServer{t: t, r: web.New(opts), rec: &recorder{}}}
	as.store = secretstore.NewMemory(nil)
	as.o = &askuser.Orchestrator{Responder: as.r, Logger: quiet, Secrets: countingStore{as.store, &as.puts}}
	as.srv = httptest.NewServer(as.rec.wrap(as.r))
	t.Cleanup(func() {
		as.r.Close()
		as.srv.Close()
	})
	return as
}

type response struct {
	code int
	body string
	err  struct {
		Error      string   `json:"error"`
		QuestionID string   `json:"question_id"`
		Unanswered []string `json:"unanswered"`
		Ask        *struct {
			Final *struct {
				State string `json:"state"`
			} `json:"final"`
		} `json:"ask"`
	}
}

// do sends a request; a state-changing one carries the session's CSRF
// token unless hdr says otherwise.
func (as *apiServer) do(method, path, session, body string, hdr map[string]string) response {
	as.t.Helper()
	req, err := http.NewRequest(method, as.srv.URL+path, strings.NewReader(body))
	if err != nil {
		as.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", as.r.CSRFToken(session))
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		as.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := response{code: res.StatusCode, body: string(b)}
	_ = json.Unmarshal(b, &r.err)
	return r
}

const twoQuestions = `{"questions":[
	{"id":"env","header":"Env","question":"Where first?","options":[{"label":"staging","description":"s","default":true},{"label":"production","description":"p"}]},
	{"id":"note","kind":"text","header":"Note","question":"Anything else?"}],"timeout_seconds":60}`

const otherAsk = `{"questions":[{"id":"size","header":"Size","question":"How big?","options":[{"label":"small","description":"1 CPU"},{"label":"large","description":"8 CPUs"}]}],"timeout_seconds":60}`

func TestAPIRefusals(t *testing.T) {
	as := newAPIServer(t, &web.Options{MaxBodyBytes: 1024})
	done := as.ask("s", twoQuestions, nil)
	a := as.waitPending("s", 1)[0]
	other := as.ask("s", otherAsk, nil)
	b := as.waitPending("s", 2)[1]
	secretDone := as.ask("t", tokenCall, nil)
	sec := as.waitPending("t", 1)[0]
	ask := "/api/asks/" + a.AskID
	put := ask + "/answers/env"

	tests := []struct {
		name           string
		method, path   string
		session, body  string
		hdr            map[string]string
		code           int
		errContains    string
		questionID     string
		wantUnanswered []string
	}{
		{name: "unknown ask, get", method: "GET", path: "/api/asks/0123456789abcdef0123456789abcdef", code: 404},
		{name: "unknown ask, answer", method: "PUT", path: "/api/asks/nope/answers/env", body: `{"selected":["staging"]}`, code: 404},
		{name: "unknown ask, submit", method: "POST", path: "/api/asks/nope/submit", code: 404},
		{name: "unknown ask, decline", method: "POST", path: "/api/asks/nope/decline", code: 404},
		{name: "unknown ask, dismiss", method: "POST", path: "/api/asks/nope/dismiss", code: 404},
		{name: "unknown ask, page", method: "GET", path: "/asks/nope", code: 404},
		{name: "unknown question", method: "PUT", path: ask + "/answers/nope", body: `{"selected":["staging"]}`, code: 404, questionID: "nope"},
		{name: "another ask's question", method: "PUT", path: ask + "/answers/size", body: `{"selected":["small"]}`, code: 404, questionID: "size"},
		{name: "an earlier ask's question on a later ask", method: "PUT", path: "/api/asks/" + b.AskID + "/answers/env", body: `{"selected":["staging"]}`, code: 404, questionID: "env"},
		{name: "submit with another ask's question", method: "POST", path: ask + "/submit", body: `{"answers":{"size":{"selected":["small"]}}}`, code: 404, questionID: "size"},
		{name: "dismiss on another ask's question", method: "POST", path: ask + "/dismiss", body: `{"on_question":"size"}`, code: 404, questionID: "size"},
		{name: "not JSON", method: "PUT", path: put, body: `{"selected":`, code: 400, errContains: "not an answer"},
		{name: "not an object", method: "PUT", path: put, body: `["staging"]`, code: 400, errContains: "JSON object"},
		{name: "answered_by", method: "PUT", path: put, body: `{"selected":["staging"],"answered_by":"user"}`, code: 400, errContains: "answered_by"},
		{name: "unknown field", method: "PUT", path: put, body: `{"selected":["staging"],"label":"x"}`, code: 400, errContains: `no field "label"`},
		{name: "wrong type", method: "PUT", path: put, body: `{"selected":"staging"}`, code: 400, errContains: "selected has the wrong type"},
		{name: "two values", method: "PUT", path: put, body: `{"selected":["staging"]} {}`, code: 400},
		{name: "not offered", method: "PUT", path: put, body: `{"selected":["qa"]}`, code: 400, errContains: `"qa" is not one of the options`, questionID: "env"},
		{name: "two on a single-select", method: "PUT", path: put, body: `{"selected":["staging","production"]}`, code: 400, errContains: "takes one option", questionID: "env"},
		{name: "empty answer", method: "PUT", path: put, body: `{}`, code: 400, errContains: "the answer is empty", questionID: "env"},
		{name: "credential as free text", method: "PUT", path: ask + "/answers/note", body: `{"other_text":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`, code: 400, errContains: "will not be passed on", questionID: "note"},
		{name: "secret on a choice", method: "PUT", path: put, body: `{"secret":"hunter2"}`, code: 400, errContains: "only a secret question", questionID: "env"},
		{name: "secret not a string", method: "PUT", path: "/api/asks/" + sec.AskID + "/answers/question_1", session: "t", body: `{"secret":12}`, code: 400, errContains: "must be a string"},
		{name: "empty secret", method: "PUT", path: "/api/asks/" + sec.AskID + "/answers/question_1", session: "t", body: `{"secret":""}`, code: 400, errContains: "the secret is empty", questionID: "question_1"},
		{name: "text with a secret question's answer", method: "PUT", path: "/api/asks/" + sec.AskID + "/answers/question_1", session: "t", body: `{"other_text":"x"}`, code: 400, errContains: "only the secret value", questionID: "question_1"},
		{name: "submit unanswered", method: "POST", path: ask + "/submit", code: 400, errContains: "still needs an answer", wantUnanswered: []string{"env", "note"}},
		{name: "submit with a refused answer", method: "POST", path: ask + "/submit", body: `{"answers":{"env":{"selected":["qa"]}}}`, code: 400, errContains: "not one of the options", questionID: "env"},
		{name: "submit with a malformed answer", method: "POST", path: ask + "/submit", body: `{"answers":{"env":{"selected":"qa"}}}`, code: 400, questionID: "env"},
		{name: "submit with a stray field", method: "POST", path: ask + "/submit", body: `{"answer":{}}`, code: 400, errContains: `no field "answer"`},
		{name: "decline with a body", method: "POST", path: ask + "/decline", body: `{"reason":"x"}`, code: 400},
		{name: "too large", method: "PUT", path: ask + "/answers/note", body: `{"other_text":"` + strings.Repeat("x", 2000) + `"}`, code: 413},
		{name: "no CSRF token", method: "PUT", path: put, body: `{"selected":["staging"]}`, hdr: map[string]string{"X-CSRF-Token": ""}, code: 403, errContains: "X-CSRF-Token"},
		{name: "another session's CSRF token", method: "PUT", path: put, session: "t", body: `{"selected":["staging"]}`, code: 403, errContains: "X-CSRF-Token"},
		{name: "cross-site", method: "PUT", path: put, body: `{"selected":["staging"]}`, hdr: map[string]string{"Sec-Fetch-Site": "cross-site"}, code: 403, errContains: "cross-origin"},
		{name: "foreign origin", method: "POST", path: ask + "/decline", hdr: map[string]string{"Origin": "https://evil.example"}, code: 403, errContains: "cross-origin"},
		{name: "wrong method", method: "POST", path: put, body: `{"selected":["staging"]}`, code: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := tt.session
			if sess == "" {
				sess = "s"
			}
			r := as.do(tt.method, tt.path, sess, tt.body, tt.hdr)
			if r.code != tt.code {
				t.Fatalf("%s %s: %d %s; want %d", tt.method, tt.path, r.code, r.body, tt.code)
			}
			if !strings.Contains(r.err.Error, tt.errContains) {
				t.Errorf("error %q does not say %q", r.err.Error, tt.errContains)
			}
			if r.err.QuestionID != tt.questionID {
				t.Errorf("question_id %q, want %q", r.err.QuestionID, tt.questionID)
			}
			if diff := cmp.Diff(tt.wantUnanswered, r.err.Unanswered); diff != "" {
				t.Errorf("unanswered (-want +got):\n%s", diff)
			}
			if strings.Contains(r.body, "hunter2") || strings.Contains(r.body, "ghp_") {
				t.Errorf("the response echoes what was sent: %s", r.body)
			}
		})
	}
	if n := as.puts.Load(); n != 0 {
		t.Errorf("the store was given %d secrets by refused answers", n)
	}
	// Nothing refused was kept: the ask has no answer yet.
	if got := as.waitPending("s", 1)[0].Answered; len(got) != 0 {
		t.Errorf("refused answers were kept: %+v", got)
	}
	as.o.Supersede("s")
	as.o.Supersede("t")
	wait(t, done)
	wait(t, other)
	wait(t, secretDone)
}

// TestAPIAfterTheEnd: every report on an ended ask is 409 and carries the
// final state; a secret posted then never reaches the store; an ask long
// gone is 404.
func TestAPIAfterTheEnd(t *testing.T) {
	as := newAPIServer(t, &web.Options{KeepEnded: 2})
	done := as.ask("s", twoQuestions, nil)
	a := as.waitPending("s", 1)[0]
	ask := "/api/asks/" + a.AskID
	if r := as.do("POST", ask+"/decline", "s", "", nil); r.code != 200 || !strings.Contains(r.body, `"state":"declined"`) {
		t.Fatalf("decline: %d %s", r.code, r.body)
	}
	wait(t, done)
	for _, c := range []struct{ method, path, body string }{
		{"PUT", ask + "/answers/env", `{"selected":["staging"]}`},
		{"POST", ask + "/submit", `{"answers":{"env":{"selected":["staging"]},"note":{"other_text":"x"}}}`},
		{"POST", ask + "/decline", ``},
		{"POST", ask + "/dismiss", `{"on_question":"env"}`},
	} {
		r := as.do(c.method, c.path, "s", c.body, nil)
		if r.code != 409 || r.err.Ask == nil || r.err.Ask.Final == nil || r.err.Ask.Final.State != "declined" {
			t.Errorf("%s %s after the end: %d %s; want 409 with the final state", c.method, c.path, r.code, r.body)
		}
	}
	if r := as.do("GET", ask, "s", "", nil); r.code != 200 || !strings.Contains(r.body, `"state":"declined"`) {
		t.Errorf("GET after the end: %d %s", r.code, r.body)
	}

	// A secret that loses never reaches the store.
	sdone := as.ask("t", tokenCall, nil)
	sec := as.waitPending("t", 1)[0]
	if r := as.do("POST", "/api/asks/"+sec.AskID+"/dismiss", "t", "", nil); r.code != 200 {
		t.Fatalf("dismiss: %d %s", r.code, r.body)
	}
	wait(t, sdone)
	if r := as.do("PUT", "/api/asks/"+sec.AskID+"/answers/question_1", "t", `{"secret":"late-secret-value"}`, nil); r.code != 409 {
		t.Errorf("a late secret: %d %s, want 409", r.code, r.body)
	}
	if n := as.puts.Load(); n != 0 {
		t.Errorf("a late secret reached the store (%d puts)", n)
	}
	// The count sees a secret that does go in: one typed in time.
	vdone := as.ask("v", tokenCall, nil)
	v := as.waitPending("v", 1)[0]
	if r := as.do("PUT", "/api/asks/"+v.AskID+"/answers/question_1", "v", `{"secret":"in-time-value"}`, nil); r.code != 200 {
		t.Fatalf("a secret in time: %d %s", r.code, r.body)
	}
	if r := as.do("POST", "/api/asks/"+v.AskID+"/submit", "v", "", nil); r.code != 200 {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	wait(t, vdone)
	if n := as.puts.Load(); n != 1 {
		t.Errorf("the store was given %d secrets, want the 1 typed in time", n)
	}

	// The deadline ends an ask too.
	tdone := as.ask("u", `{"questions":[{"id":"q","header":"Q","question":"Which?","options":[{"label":"a","description":"a"},{"label":"b","description":"b"}]}],"timeout_seconds":1}`, nil)
	u := as.waitPending("u", 1)[0]
	wait(t, tdone)
	if r := as.do("PUT", "/api/asks/"+u.AskID+"/answers/q", "u", `{"selected":["a"]}`, nil); r.code != 409 || r.err.Ask.Final.State != "auto_selected" {
		t.Errorf("an answer after the deadline: %d %s; want 409, auto_selected", r.code, r.body)
	}
	// KeepEnded is 2: the first ask is gone.
	if r := as.do("PUT", ask+"/answers/env", "s", `{"selected":["staging"]}`, nil); r.code != 404 {
		t.Errorf("an ask long gone: %d %s; want 404", r.code, r.body)
	}
}

// TestAPIAnswersCountAtTheDeadline: an answer is kept when it is accepted,
// and the deadline's outcome carries it as the person's. It runs in fake
// time, the handler served directly, so the deadline comes exactly when it
// should and not when a loaded machine gets round to it.
func TestAPIAnswersCountAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := web.New(&web.Options{Logger: quiet})
		defer r.Close()
		o := &askuser.Orchestrator{Responder: r, Logger: quiet}
		done := make(chan *askuser.Outcome, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(twoQuestions)})
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
		synctest.Wait()
		a := o.Pending("s")[0]
		req := httptest.NewRequest("PUT", "http://localhost/api/asks/"+a.AskID+"/answers/env", strings.NewReader(`{"selected":["production"],"note":"checked with ops"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", r.CSRFToken("s"))
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("answer: %d %s", rec.Code, rec.Body)
		}
		out := <-done
		// The text question has no default: declined / timeout, the answer kept.
		if out.Status != askuser.StatusDeclined || out.AnsweredBy != askuser.ByTimeout {
			t.Errorf("outcome %s / %s, want declined / timeout", out.Status, out.AnsweredBy)
		}
		want := []askuser.FinalAnswer{{QuestionID: "env", Selected: []string{"production"}, Note: "checked with ops", By: askuser.ByUser}}
		if diff := cmp.Diff(want, out.Answers); diff != "" {
			t.Errorf("answers (-want +got):\n%s", diff)
		}
	})
}

// TestAPISecret: a secret posted through the API is sealed, and no
// response carries it.
func TestAPISecret(t *testing.T) {
	const canary = "canary-api-5be0-secret"
	as := newAPIServer(t, nil)
	done := as.ask("t", tokenCall, nil)
	sec := as.waitPending("t", 1)[0]
	// A JSON escape in the value is decoded.
	if r := as.do("POST", "/api/asks/"+sec.AskID+"/submit", "t", `{"answers":{"question_1":{"secret":"canary-api-5be0-\u0073ecret"}}}`, nil); r.code != 200 || !strings.Contains(r.body, `"sealed":true`) {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	out := wait(t, done)
	v, err := secretstore.ResolveFor(context.Background(), as.store, "t", out.Answer("question_1").SecretRef)
	if err != nil || string(v.Reveal()) != canary {
		t.Fatalf("the store does not hold the secret: %v", err)
	}
	if strings.Contains(as.rec.String(), canary) || strings.Contains(string(out.Result), canary) {
		t.Error("a response or the result carries the secret")
	}
}

// TestAPIAuthorize: the hook decides who may answer, and its principal
// reaches the outcome.
func TestAPIAuthorize(t *testing.T) {
	as := newAPIServer(t, &web.Options{Authorize: func(r *http.Request, session string) (string, error) {
		if r.Header.Get("Authorization") == "Bearer alice" && session == "s" {
			return "alice", nil
		}
		return "", errors.New("no")
	}})
	done := as.ask("s", otherAsk, nil)
	a := as.waitPending("s", 1)[0]
	for _, path := range []string{"/api/sessions/s/asks", "/api/sessions/s/events", "/api/asks/" + a.AskID, "/sessions/s", "/asks/" + a.AskID} {
		if r := as.do("GET", path, "s", "", nil); r.code != 403 {
			t.Errorf("GET %s without credentials: %d, want 403", path, r.code)
		}
	}
	if r := as.do("PUT", "/api/asks/"+a.AskID+"/answers/size", "s", `{"selected":["large"]}`, nil); r.code != 403 {
		t.Errorf("an answer without credentials: %d, want 403", r.code)
	}
	alice := map[string]string{"Authorization": "Bearer alice"}
	if r := as.do("GET", "/api/sessions/s/asks", "s", "", alice); r.code != 200 || !strings.Contains(r.body, a.AskID) || !strings.Contains(r.body, as.r.CSRFToken("s")) {
		t.Errorf("the listing: %d %s", r.code, r.body)
	}
	if r := as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", `{"answers":{"size":{"selected":["large"]}}}`, alice); r.code != 200 {
		t.Errorf("submit: %d %s", r.code, r.body)
	}
	if out := wait(t, done); out.Principal != "alice" {
		t.Errorf("principal %q, want alice", out.Principal)
	}
}

// TestAPIConcurrentSubmitters: 100 submitters on one ask give exactly one
// ending.
func TestAPIConcurrentSubmitters(t *testing.T) {
	as := newAPIServer(t, nil)
	done := as.ask("s", otherAsk, nil)
	a := as.waitPending("s", 1)[0]
	var wg sync.WaitGroup
	codes := make([]int, 100)
	start := make(chan struct{})
	for i := range codes {
		wg.Go(func() {
			<-start
			body := `{"answers":{"size":{"selected":["small"]}}}`
			if i%2 == 1 {
				body = `{"answers":{"size":{"selected":["large"]}}}`
			}
			codes[i] = as.do("POST", "/api/asks/"+a.AskID+"/submit", "s", body, nil).code
		})
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[200] != 1 || count[200]+count[409] != len(codes) {
		t.Errorf("status codes %v; want one 200 and the rest 409", count)
	}
	out := wait(t, done)
	if out.Status != askuser.StatusAnswered || len(out.Answers) != 1 {
		t.Errorf("outcome %s with %d answers", out.Status, len(out.Answers))
	}
}

// TestAPIEvents: a page learns of new asks, the nudge and the outcome
// from the event stream.
func TestAPIEvents(t *testing.T) {
	as := newAPIServer(t, nil)
	res, err := http.Get(as.srv.URL + "/api/sessions/s/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readEventNames(res.Body)
	next := func() string {
		select {
		case e := <-events:
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return ""
	}
	if e := next(); e != "snapshot" {
		t.Fatalf("first event %q, want snapshot", e)
	}
	// timeout 2 s: nudge_at is 1 s before the deadline.
	done := as.ask("s", strings.Replace(otherAsk, `"timeout_seconds":60`, `"timeout_seconds":2`, 1), nil)
	var got []string
	for _, want := range []string{"ask", "nudge", "outcome"} {
		e := next()
		got = append(got, e)
		if e != want {
			t.Fatalf("events %q, want ask, nudge, outcome", got)
		}
	}
	wait(t, done)
}

// TestPageHeaders: the card page carries a Content-Security-Policy whose
// nonce is the one on its only script and style, and the session is
// escaped into it.
func TestPageHeaders(t *testing.T) {
	as := newAPIServer(t, nil)
	done := as.ask(`s"><b>`, otherAsk, nil)
	a := as.waitPending(`s"><b>`, 1)[0]
	for _, path := range []string{"/" + web.SessionPath(`s"><b>`), "/" + web.AskPath(a.AskID)} {
		res, err := http.Get(as.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body := string(b)
		csp := res.Header.Get("Content-Security-Policy")
		m := regexp.MustCompile(`script-src 'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
		if res.StatusCode != 200 || m == nil || !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors") {
			t.Fatalf("GET %s: %d, CSP %q", path, res.StatusCode, csp)
		}
		if strings.Count(body, "<script") != 1 || !strings.Contains(body, `<script nonce="`+m[1]+`">`) || !strings.Contains(body, `<style nonce="`+m[1]+`">`) {
			t.Errorf("GET %s: the script and style do not carry the nonce %s", path, m[1])
		}
		if strings.Contains(body, `s"><b>`) || !strings.Contains(body, `data-session="s&#34;&gt;&lt;b&gt;"`) {
			t.Errorf("GET %s: the session is not escaped", path)
		}
		if strings.HasPrefix(path, "/asks/") && !strings.Contains(body, `data-ask="`+a.AskID+`"`) {
			t.Errorf("GET %s: the page does not name its ask", path)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: headers %v", path, res.Header)
		}
	}
	as.o.Supersede(`s"><b>`)
	wait(t, done)
}
