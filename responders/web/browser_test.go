package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// chromium is Debian's browser, which .ci/run installs.
const chromium = "/usr/bin/chromium"

// browser starts a headless chromium with a fresh profile and returns a
// context for one tab, and the JavaScript dialogs the page opened. Without
// chromium the test is skipped, except in CI, where it fails.
func browser(t *testing.T) (context.Context, *dialogs) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; .ci/run installs it (apt-get install -y chromium)", chromium)
		}
		t.Skipf("%s is missing; install it with apt-get install -y chromium", chromium)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		// Chromium on a loaded CI machine can take longer than
		// chromedp's 20 s to say where it listens.
		chromedp.WSURLReadTimeout(2 * time.Minute),
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(480, 900),
	}
	d := &dialogs{}
	var ctx context.Context
	// Listen starts the browser; a timeout on this first context would
	// stop it, so each action gets its own (see run). A Chromium that
	// exits before it listens (it happens on a loaded machine) is started
	// again, twice at most, with a fresh profile.
	for try := 1; ; try++ {
		if try > 1 {
			opts = append(opts, chromedp.UserDataDir(t.TempDir()))
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		tab, cancelTab := chromedp.NewContext(alloc)
		err := chromedp.Listen(tab, func(ev any) {
			if ev, ok := ev.(*page.EventJavascriptDialogOpening); ok {
				d.add(ev.Message)
				go chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}
		})
		if err == nil {
			ctx = tab
			t.Cleanup(func() {
				cancelTab()
				cancelAlloc()
			})
			break
		}
		cancelTab()
		cancelAlloc()
		if try == 3 || !strings.Contains(err.Error(), "failed to start") {
			t.Fatalf("starting chromium (try %d): %v", try, err)
		}
		t.Logf("chromium exited before it listened (try %d), starting it again: %v", try, err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			d.console(m.String())
		}
	}()
	t.Cleanup(func() {
		// The card writes nothing to the console: an exception or a
		// Content-Security-Policy violation shows here.
		for _, l := range d.consoleLines() {
			if !d.expected(l) {
				t.Errorf("the page's console: %s", l)
			}
		}
	})
	return ctx, d
}

// dialogs records the JavaScript dialogs a page opened, and what it wrote
// to the console.
type dialogs struct {
	mu   sync.Mutex
	msgs []string
	cons []string
	// allowed are console lines a test expects (the browser's own note on
	// a refusal the test provokes), by a part of them.
	allowed []string
}

// allowConsole says the page may write a console line holding part.
func (d *dialogs) allowConsole(part string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.allowed = append(d.allowed, part)
}

func (d *dialogs) expected(line string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.allowed {
		if strings.Contains(line, a) {
			return true
		}
	}
	return false
}

func (d *dialogs) console(m string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cons = append(d.cons, m)
}

// consoleLines returns what the page wrote to the console.
func (d *dialogs) consoleLines() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.cons...)
}

func (d *dialogs) add(m string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.msgs = append(d.msgs, m)
}

func (d *dialogs) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.msgs...)
}

// recorder keeps every response body the server wrote, event streams
// included.
type recorder struct {
	mu   sync.Mutex
	body bytes.Buffer
}

func (rec *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&recWriter{ResponseWriter: w, rec: rec}, r)
	})
}

func (rec *recorder) String() string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.body.String()
}

type recWriter struct {
	http.ResponseWriter
	rec *recorder
}

func (w *recWriter) Write(b []byte) (int, error) {
	w.rec.mu.Lock()
	w.rec.body.Write(b)
	w.rec.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *recWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cardServer is an orchestrator with a web responder mounted under
// /askuser/ of a test server.
type cardServer struct {
	t     *testing.T
	r     *web.Responder
	o     *askuser.Orchestrator
	srv   *httptest.Server
	rec   *recorder
	store *secretstore.Memory
}

func newCardServer(t *testing.T) *cardServer {
	t.Helper()
	return newCardServerWith(t, &web.Options{Logger: quiet})
}

// newCardServerWith is newCardServer with the responder's options.
func newCardServerWith(t *testing.T, opts *web.Options) *cardServer {
	t.Helper()
	cs := &cardServer{t: t, r: web.New(opts), rec: &recorder{}}
	cs.store = secretstore.NewMemory(nil)
	cs.o = &askuser.Orchestrator{Responder: cs.r, Logger: quiet, Secrets: cs.store}
	mux := http.NewServeMux()
	mux.Handle("/askuser/", http.StripPrefix("/askuser", cs.r))
	cs.srv = httptest.NewServer(cs.rec.wrap(mux))
	t.Cleanup(func() {
		cs.r.Close()
		cs.srv.Close()
	})
	return cs
}

type result struct {
	out *askuser.Outcome
	err error
}

// ask asks a call in the session in the background, through dialect d
// (nil: ask_user), and returns where its outcome will arrive.
func (cs *cardServer) ask(session, call string, d askuser.Dialect) <-chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := cs.o.Handle(context.Background(), askuser.Request{Session: session, Arguments: []byte(call), Dialect: d})
		ch <- result{out, err}
	}()
	return ch
}

// waitPending waits until the session has n pending asks on the card:
// pending in the orchestrator, and, without a shared store, told to the
// card (which the orchestrator does on a goroutine of its own, after it
// lists the ask).
func (cs *cardServer) waitPending(session string, n int) []askuser.PendingAsk {
	cs.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		as := cs.o.Pending(session)
		shown := 0
		for _, a := range as {
			if cs.r.Shows(a.AskID) {
				shown++
			}
		}
		// On a shared store the card of this process may not be the one
		// that holds the ask: pending is enough there.
		if len(as) >= n && (shown == len(as) || cs.o.Asks != nil) {
			return as
		}
		if time.Now().After(deadline) {
			cs.t.Fatalf("the session has %d pending asks, want %d", len(as), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (cs *cardServer) pageURL(session string) string {
	return cs.srv.URL + "/askuser/" + web.SessionPath(session)
}

func wait(t *testing.T, ch <-chan result) *askuser.Outcome {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("the ask failed: %v", r.err)
		}
		if r.out.Fault != nil {
			t.Fatalf("responder fault: %v", r.out.Fault)
		}
		return r.out
	case <-time.After(30 * time.Second):
		t.Fatal("the ask did not end")
	}
	return nil
}

// run runs the actions in the tab, each step bounded.
func run(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the tab.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// text returns the visible text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const (
	envCall = `{"human_intent":"Shipping the login fix","questions":[{"id":"env","header":"Env","question":"Where should the release go first?","options":[
		{"label":"staging","description":"Run the smoke tests there","default":true},
		{"label":"production","description":"Behind the feature flag"}]}],"timeout_seconds":60}`
	regionsCall = `{"questions":[{"id":"regions","header":"Regions","question":"Which regions get it?","multi_select":true,"options":[
		{"label":"eu","description":"Europe","default":true},
		{"label":"us","description":"Americas"},
		{"label":"ap","description":"Asia-Pacific"}]}],"timeout_seconds":60}`
	tokenCall = `{"questions":[{"kind":"secret","header":"Token","question":"Paste the deploy token","secret_name":"DEPLOY_TOKEN","purpose":"to push the release"}],"timeout_seconds":60}`
)

func TestBrowserChoice(t *testing.T) {
	ctx, dl := browser(t)
	cs := newCardServer(t)
	done := cs.ask("s1", envCall, nil)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-o1`)),
	)
	if got := text(t, ctx, `#a0-intent`); got != "Shipping the login fix" {
		t.Errorf("the agent's intent reads %q", got)
	}
	if got := text(t, ctx, `#a0-q0 .badge`); got != "Recommended" {
		t.Errorf("the recommended option's badge reads %q", got)
	}
	if got := text(t, ctx, `label[for=a0-q0-o0] .label`); got != "staging" {
		t.Errorf("the first option reads %q", got)
	}
	run(t, ctx,
		chromedp.Click(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	out := wait(t, done)
	if out.Status != askuser.StatusAnswered || out.AnsweredBy != askuser.ByUser {
		t.Errorf("outcome %s / %s, want answered / user", out.Status, out.AnsweredBy)
	}
	if a := out.Answer("env"); a == nil || strings.Join(a.Selected, ",") != "production" {
		t.Errorf("env answered %+v, want production", a)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Answered") || !strings.Contains(got, "production") {
		t.Errorf("the final state reads %q", got)
	}
	if d := dl.list(); len(d) > 0 {
		t.Errorf("dialogs opened: %q", d)
	}
}

func TestBrowserMultiSelectWithOtherText(t *testing.T) {
	ctx, _ := browser(t)
	cs := newCardServer(t)
	call := strings.Replace(regionsCall, `"multi_select":true`, `"multi_select":true,"allow_other":true`, 1)
	done := cs.ask("s1", call, nil)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o2`)),
		chromedp.SendKeys(chromedp.CSS(`#a0-q0-other-text`), "  the edge nodes "),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	out := wait(t, done)
	a := out.Answer("regions")
	if out.Status != askuser.StatusAnswered || a == nil || strings.Join(a.Selected, ",") != "eu,ap" || strings.TrimSpace(a.Other) != "the edge nodes" {
		t.Errorf("outcome %s, answer %+v; want answered with eu,ap and \"the edge nodes\"", out.Status, a)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "eu + ap + ") || !strings.Contains(got, "the edge nodes") {
		t.Errorf("the final state reads %q", got)
	}
}

func TestBrowserSecret(t *testing.T) {
	const canary = "canary-9d2e41-WEB-secret-value"
	ctx, _ := browser(t)
	cs := newCardServer(t)
	done := cs.ask("s1", tokenCall, nil)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-secret`)),
	)
	inputType := eval[string](t, ctx, `document.getElementById("a0-q0-secret").type`)
	note := text(t, ctx, `#a0-q0-note`)
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#a0-q0-secret`), canary),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	if inputType != "password" {
		t.Errorf("the secret is typed into a %q field, want password", inputType)
	}
	if !strings.Contains(note, "Nothing is answered on your behalf") {
		t.Errorf("the secret's note reads %q", note)
	}
	out := wait(t, done)
	if a := out.Answer("question_1"); out.Status != askuser.StatusAnswered || a == nil || a.SecretRef != "session:DEPLOY_TOKEN" {
		t.Fatalf("outcome %s, answer %+v; want answered with secret_ref session:DEPLOY_TOKEN", out.Status, a)
	}
	v, err := secretstore.ResolveFor(context.Background(), cs.store, "s1", "session:DEPLOY_TOKEN")
	if err != nil || string(v.Reveal()) != canary {
		t.Fatalf("the store does not hold the secret: %v", err)
	}
	// In no DOM: not in the markup, not in any field's value, not in the
	// page's text.
	dom := eval[string](t, ctx, `document.documentElement.outerHTML + "\n" +
		Array.from(document.querySelectorAll("input,textarea")).map(function (e) { return e.value; }).join("\n") + "\n" +
		document.body.innerText`)
	if strings.Contains(dom, canary) {
		t.Error("the secret is in the DOM after submit")
	}
	if !strings.Contains(dom, "saved securely") {
		t.Errorf("the final state does not say the secret was saved:\n%s", dom)
	}
	if strings.Contains(cs.rec.String(), canary) {
		t.Error("a response body carries the secret")
	}
	if strings.Contains(string(out.Result), canary) {
		t.Error("the result carries the secret")
	}
}

func TestBrowserDecline(t *testing.T) {
	ctx, _ := browser(t)
	cs := newCardServer(t)
	done := cs.ask("s1", envCall, nil)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-decline`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	out := wait(t, done)
	if out.Status != askuser.StatusDeclined || out.AnsweredBy != askuser.ByUser || len(out.Answers) != 0 {
		t.Errorf("outcome %s / %s with %d answers, want declined / user with none", out.Status, out.AnsweredBy, len(out.Answers))
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Declined") {
		t.Errorf("the final state reads %q", got)
	}
	if forms := eval[int](t, ctx, `document.querySelectorAll("form").length`); forms != 0 {
		t.Error("the form is still there after the ask ended")
	}
}

// pageClock is run in the page before its own script: the page's clock
// (Date.now, which is all the card reads of time) stands still where the
// page loaded, and moves only when the test moves it, so that what the
// card shows of its countdown depends on the test's steps, not on how
// fast a loaded machine gets through them.
const pageClock = `(function () {
  var now = Date.now();
  Date.now = function () { return now; };
  window.advanceClock = function (ms) { now += ms; return now; };
})();`

// TestBrowserCountdownAndTimeout: the countdown is hidden until nudge_at
// and then says what will be applied; at the deadline the card shows what
// was applied, and the answer given before it is kept.
//
// It once failed under load: it read the countdown on the wall clock, so a
// page that took more than the 4 seconds to nudge_at to load and take a
// click saw the countdown already shown. Now the countdown is read on the
// page's own clock, which the test moves (pageClock), on an ask whose
// server-side nudge and deadline are minutes away (240 and 300 seconds);
// the deadline is met on a second ask, whose page is open on the session
// before it begins, so that its outcome reaches a stream already there
// however slowly the browser goes, and whose answer is one loopback PUT
// made at once against its 3 seconds. Each step waits for the state it
// needs (an answer held, a stream open), never for a time.
func TestBrowserCountdownAndTimeout(t *testing.T) {
	ctx, _ := browser(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageClock}); err != nil {
		t.Fatal(err)
	}
	cs := newCardServer(t)
	questions := `"questions":[
		{"id":"env","header":"Env","question":"Where first?","options":[{"label":"staging","description":"s","default":true},{"label":"production","description":"p"}]},
		{"id":"size","header":"Size","question":"How big?","options":[{"label":"small","description":"1 CPU","default":true},{"label":"large","description":"8 CPUs"}]}]`

	// The countdown, on the page's clock.
	long := cs.ask("s1", `{`+questions+`,"timeout_seconds":300}`, nil)
	a := cs.waitPending("s1", 1)[0]
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o1`)),
	)
	cs.waitAnswered("s1", "env")
	if !eval[bool](t, ctx, `document.getElementById("a0-countdown").hidden`) {
		t.Fatal("the countdown is shown before nudge_at on the page's clock")
	}
	// Past nudge_at on the page's clock (the server's is minutes off).
	eval[float64](t, ctx, fmt.Sprintf("advanceClock(%d)", a.Form.NudgeAt.Sub(a.Form.AskedAt).Milliseconds()))
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#a0-countdown`)))
	cd := text(t, ctx, `#a0-countdown`)
	if !strings.Contains(cd, "Closes in ") || !strings.Contains(cd, "Size → small") || strings.Contains(cd, "Env →") {
		t.Errorf("the countdown reads %q; want the time left and the default applied to the unanswered Size only", cd)
	}
	cs.o.Supersede("s1")
	if out := wait(t, long); out.Status != askuser.StatusCancelled {
		t.Errorf("the hour-long ask, superseded: %s; want cancelled", out.Status)
	}

	// The deadline, met with the page open on the session before the ask
	// begins.
	streams := cs.emptySnapshots()
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s2")),
		chromedp.WaitReady(chromedp.CSS(`body`)),
	)
	cs.waitStream("s2", streams)
	done := cs.ask("s2", `{`+questions+`,"timeout_seconds":3}`, nil)
	b := cs.waitPending("s2", 1)[0]
	if code, body := cs.put(b.AskID, "s2", "env", `{"selected":["production"]}`); code != http.StatusOK {
		t.Fatalf("answering env before the 3-second deadline: %d %s", code, body)
	}
	out := wait(t, done)
	if out.Status != askuser.StatusTimedOut || out.AnsweredBy != askuser.ByTimeout {
		t.Errorf("outcome %s / %s, want timed_out / timeout", out.Status, out.AnsweredBy)
	}
	if a := out.Answer("env"); a == nil || strings.Join(a.Selected, ",") != "production" || a.By != askuser.ByUser {
		t.Errorf("env is %+v; want the person's production, by user", a)
	}
	if a := out.Answer("size"); a == nil || strings.Join(a.Selected, ",") != "small" || a.By != askuser.ByTimeout {
		t.Errorf("size is %+v; want the default small, by timeout", a)
	}
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#a0-final`)))
	final := text(t, ctx, `#a0-final`)
	for _, want := range []string{"Time ran out", "Env: production (your answer)", "Size: small (recommended, applied)"} {
		if !strings.Contains(final, want) {
			t.Errorf("the final state %q does not say %q", final, want)
		}
	}
}

// waitAnswered waits until the session's one pending ask holds an answer
// to the question id.
func (cs *cardServer) waitAnswered(session, id string) {
	cs.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if as := cs.o.Pending(session); len(as) == 1 && slices.Contains(as[0].Answered, id) {
			return
		}
		if time.Now().After(deadline) {
			cs.t.Fatalf("the session's ask has no answer to %s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// emptySnapshots counts the event streams that began on a session with
// no ask pending: the snapshots of no ask the server wrote.
func (cs *cardServer) emptySnapshots() int {
	return strings.Count(cs.rec.String(), "event: snapshot\ndata: {\"asks\":[]}")
}

// waitStream waits until a page follows the session's event stream, which
// has no ask yet: the server has written more empty snapshots than before.
func (cs *cardServer) waitStream(session string, before int) {
	cs.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for cs.emptySnapshots() <= before {
		if time.Now().After(deadline) {
			cs.t.Fatalf("no page follows session %s", session)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// put answers a question of an ask as the page does, and returns the
// status and body.
func (cs *cardServer) put(askID, session, question, body string) (int, string) {
	cs.t.Helper()
	req, err := http.NewRequest("PUT", cs.srv.URL+"/askuser/api/asks/"+askID+"/answers/"+question, strings.NewReader(body))
	if err != nil {
		cs.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", cs.r.CSRFToken(session))
	res, err := cs.srv.Client().Do(req)
	if err != nil {
		cs.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// injecting is ask_user with a script-injection payload in every string a
// model can write, including those ask_user does not carry (title, the
// free-text label, previews, prefill).
type injecting struct{}

var payloads = []string{
	`<img src=x onerror=alert(1)>`,
	`</script><script>alert(1)</script>`,
	`"><svg onload=alert(1)>`,
	`<img src=x onerror="window.pwned=1">`,
	`</script><script>window.pwned=1</script>`,
	`'><svg onload=window.pwned=1>`,
}

func (injecting) Name() string { return "injecting" }

func (injecting) Decode(data []byte, lim dialect.Limits) (*askuser.Form, error) {
	c, err := askusertool.Dialect().Decode(data, lim)
	if err != nil {
		return nil, err
	}
	p := strings.Join(payloads, " ")
	c.Title, c.HumanIntent = p, p
	for i := range c.Questions {
		q := &c.Questions[i]
		q.Header, q.Text, q.OtherLabel, q.Purpose, q.Prefill = p, p, p, p, p
		if q.Kind == askuser.KindSecret {
			q.SecretName = p
		}
		for j := range q.Options {
			o := &q.Options[j]
			o.Label, o.Description, o.Preview = p+fmt.Sprint(j), p, p
			o.Value = o.Label
		}
	}
	return c, nil
}

func (injecting) Encode(o *askuser.Outcome, j bool) ([]byte, json.RawMessage, error) {
	return askusertool.Dialect().Encode(o, j)
}

// checkInert checks that no payload on the page ran: no script ran
// (window.pwned), no element a payload would bring in exists, the page's
// one script is its own, and no dialog opened. It returns the page's text.
func checkInert(t *testing.T, ctx context.Context, dl *dialogs) (state struct{ Text string }) {
	t.Helper()
	type pageState struct {
		Pwned   bool   `json:"pwned"`
		Strange int    `json:"strange"`
		Scripts int    `json:"scripts"`
		Text    string `json:"text"`
	}
	got := eval[pageState](t, ctx, `({
		pwned: typeof window.pwned !== "undefined",
		strange: document.querySelectorAll("img,svg,iframe,object").length,
		scripts: document.scripts.length,
		text: document.body.innerText})`)
	if got.Pwned {
		t.Error("a payload ran: window.pwned is set")
	}
	if got.Strange != 0 || got.Scripts != 1 {
		t.Errorf("the page has %d img/svg/iframe/object elements and %d scripts; want none and 1", got.Strange, got.Scripts)
	}
	if d := dl.list(); len(d) > 0 {
		t.Errorf("dialogs opened: %q", d)
	}
	state.Text = got.Text
	return state
}

func TestBrowserInjectionIsInert(t *testing.T) {
	ctx, dl := browser(t)
	cs := newCardServer(t)
	session := strings.Join(payloads, "")
	choiceCall := `{"questions":[
		{"id":"a","header":"A","question":"Q","allow_other":true,"options":[{"label":"x","description":"x","default":true},{"label":"y","description":"y"}]},
		{"id":"b","header":"B","question":"Q","multi_select":true,"allow_other":true,"options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]},
		{"id":"c","kind":"text","header":"C","question":"Q"}],"timeout_seconds":60}`
	first := cs.ask(session, choiceCall, injecting{})
	cs.waitPending(session, 1)
	second := cs.ask(session, tokenCall, injecting{})
	cs.waitPending(session, 2)

	run(t, ctx,
		chromedp.Navigate(cs.pageURL(session)),
		chromedp.WaitVisible(chromedp.CSS(`#a1-q0-secret`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-q1-o0`)),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
		chromedp.Click(chromedp.CSS(`#a1-decline`)),
		chromedp.WaitVisible(chromedp.CSS(`#a1-final`)),
	)
	state := checkInert(t, ctx, dl)
	// The payloads show as text.
	if !strings.Contains(state.Text, payloads[0]) {
		t.Errorf("the payload is not shown as text:\n%s", state.Text)
	}
	out := wait(t, first)
	if out.Status != askuser.StatusAnswered {
		t.Errorf("the first ask ended %s, want answered", out.Status)
	}
	if out := wait(t, second); out.Status != askuser.StatusDeclined {
		t.Errorf("the second ask ended %s, want declined", out.Status)
	}
	// And the escaped session made it through the URL and the template.
	u, _ := url.Parse(cs.pageURL(session))
	if !strings.Contains(u.EscapedPath(), "%3C") {
		t.Errorf("the session is not escaped in the page URL %s", u)
	}
}

// TestBrowserFleet: a page on a fleet, whose requests land on whichever
// replica a balancer picks. The ask begins on replica A; B serves the page
// and its event stream; every request for the ask goes to C, which never
// showed the session and finds the ask by the session the page names.
func TestBrowserFleet(t *testing.T) {
	ctx, _ := browser(t)
	st := store.NewMemory(0)
	key := []byte("the fleet's CSRF key, derived from its key ring")
	a := newReplica(t, st, &web.Options{CSRFKey: key})
	b := newReplica(t, st, &web.Options{CSRFKey: key})
	c := newReplica(t, st, &web.Options{CSRFKey: key})
	var onC atomic.Int32
	mux := http.NewServeMux()
	mux.Handle("/askuser/", http.StripPrefix("/askuser", b.r))
	mux.Handle("/askuser/api/asks/", http.StripPrefix("/askuser", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		onC.Add(1)
		c.r.ServeHTTP(w, req)
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		b.r.Close() // ends the page's event stream
		srv.Close()
	})
	done := a.ask("s1", envCall, nil)
	a.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(srv.URL+"/askuser/"+web.SessionPath("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-q0-o1`)),
		chromedp.Click(chromedp.CSS(`#a0-submit`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	out := wait(t, done)
	if a := out.Answer("env"); out.Status != askuser.StatusAnswered || a == nil || strings.Join(a.Selected, ",") != "production" {
		t.Errorf("outcome %s, env %+v; want answered with production", out.Status, a)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Answered") || !strings.Contains(got, "production") {
		t.Errorf("the final state reads %q", got)
	}
	if onC.Load() == 0 {
		t.Error("no request for the ask reached C")
	}
}
