package slack

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/slack/slacktest"
	"github.com/askuser-go/askuser/responders/web"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newResponder(t *testing.T, f *slacktest.Fake, opts Options) *Responder {
	t.Helper()
	opts.BotToken, opts.SigningSecret, opts.APIURL = "xoxb-test", signingSecret, "http://slack.test/api/"
	if opts.Channel == "" {
		opts.Channel = "C1"
	}
	if opts.AllowedUsers == nil && opts.AllowedUserGroup == "" {
		opts.AllowedUsers = []string{"U1"}
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Transport: roundTrip{f}}
	}
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

type roundTrip struct{ h http.Handler }

func (rt roundTrip) RoundTrip(req *http.Request) (*http.Response, error) { return inproc(rt).Do(req) }

const deployCall = `{"questions":[{"id":"env","header":"Env","question":"Which environment first?","options":[
	{"label":"staging","description":"Smoke tests first","default":true},
	{"label":"production","description":"Straight to users"}]}],"timeout_seconds":120}`

// TestNewChecksAtStart: a token auth.test refuses, an unknown channel and
// missing options are reported by New, saying what to fix.
func TestNewChecksAtStart(t *testing.T) {
	f := slacktest.NewHandler()
	base := Options{BotToken: "xoxb-test", SigningSecret: "s", Channel: "C1", AllowedUsers: []string{"U1"}, APIURL: "http://slack.test/api/", HTTPClient: &http.Client{Transport: roundTrip{f}}}
	for _, tt := range []struct {
		name string
		edit func(*Options)
		fail string
		want string
	}{
		{"no token", func(o *Options) { o.BotToken = "" }, "", "a bot token (xoxb-…) is required"},
		{"no secret", func(o *Options) { o.SigningSecret = "" }, "", "signing secret is required"},
		{"no channel", func(o *Options) { o.Channel = "" }, "", "a channel id (C…) is required"},
		{"nobody allowed", func(o *Options) { o.AllowedUsers = nil }, "", "say who may answer"},
		{"bad token", func(o *Options) { o.BotToken = "xoxb-wrong" }, "", "auth.test refused the bot token: invalid_auth"},
		{"unknown channel", func(*Options) {}, "conversations.info=channel_not_found", "channel C1: channel_not_found (give the channel's id, C…, and invite the bot to it)"},
		{"unknown group", func(o *Options) { o.AllowedUserGroup = "S1" }, "usergroups.users.list=no_such_subteam", "user group S1: no_such_subteam"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []string{"conversations.info", "usergroups.users.list"} {
				f.Fail(m, "")
			}
			if m, e, ok := strings.Cut(tt.fail, "="); ok {
				f.Fail(m, e)
			}
			o := base
			tt.edit(&o)
			_, err := New(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v; want an error saying %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "xoxb") && tt.name != "no token" {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
}

func form(t *testing.T, call string) *askuser.Form {
	t.Helper()
	f, err := askuser.Decode(askusertool.Dialect(), []byte(call), dialect.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	f.AskedAt, f.NudgeAt, f.ExpiresAt = at, at.Add(90*time.Second), at.Add(120*time.Second)
	return f
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if d := cmp.Diff(strings.TrimSpace(string(want)), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// TestGolden: the Block Kit of a question, a multi-select with free text,
// an approval, and an ended ask.
func TestGolden(t *testing.T) {
	f := form(t, deployCall)
	blocks, text := render("a1", f, renderOptions{})
	golden(t, "choice.json", map[string]any{"text": text, "blocks": blocks})

	multi := form(t, `{"human_intent":"Planning the release","questions":[{"id":"checks","header":"Checks","question":"Which checks?","multi_select":true,"allow_other":true,"options":[
		{"label":"unit","description":"2 minutes","default":true},{"label":"load","description":"10 minutes"}]},
		{"id":"why","header":"Why","kind":"text","question":"Anything to add?"}]}`)
	blocks, text = render("a2", multi, renderOptions{})
	golden(t, "multi.json", map[string]any{"text": text, "blocks": blocks})
	golden(t, "multi_modal.json", answerModal("a2", multi, nil))

	ap, err := approvaltool.Form(approval.Request{Action: "Delete the prod-eu database", Reason: "It was replaced", Risk: approval.RiskIrreversible, Details: "DROP DATABASE prod_eu;"}, 300)
	if err != nil {
		t.Fatal(err)
	}
	ap.ExpiresAt = time.Date(2026, 12, 1, 9, 5, 0, 0, time.UTC)
	blocks, text = render("a3", ap, renderOptions{challenge: "K7QX"})
	golden(t, "approval.json", map[string]any{"text": text, "blocks": blocks})

	out := &askuser.Outcome{Form: f, Status: askuser.StatusAnswered, AnsweredBy: askuser.ByUser, Reason: askuser.ReasonSubmitted, Principal: "slack:T1/U1",
		Answers: []askuser.FinalAnswer{{QuestionID: "env", Selected: []string{"production"}, By: askuser.ByUser}}}
	blocks, text = renderEnded(f, out, who(out))
	golden(t, "ended.json", map[string]any{"text": text, "blocks": blocks})
}

// TestModelTextIsInert: mentions, links, formatting, escapes and invisible
// characters a model wrote reach Slack as plain text, never as mrkdwn.
func TestModelTextIsInert(t *testing.T) {
	evil := `Ping <!channel> and <@U999>, see <https://evil.example|the docs> *now* & \u001b[2J\u200b`
	f := form(t, `{"human_intent":"`+evil+`","questions":[{"id":"q","header":"H","question":"`+evil+`","options":[{"label":"<!here>","description":"`+evil+`"},{"label":"b","description":"d"}]}]}`)
	blocks, text := render("a1", f, renderOptions{})
	js, _ := json.Marshal(blocks)
	for _, s := range []string{string(js), text} {
		for _, live := range []string{"<!channel>", "<@U999>", "<https://", "<!here>", "\x1b", "\u200b"} {
			if strings.Contains(s, live) {
				t.Errorf("%q reaches Slack as it is in %s", live, s)
			}
		}
	}
	if !strings.Contains(text, "&lt;!channel&gt;") || !strings.Contains(string(js), `\\x1b[2J`) {
		t.Errorf("the fallback or the blocks do not show the text escaped: %s %s", text, js)
	}
	// Every text object that holds the model's words is plain_text.
	var all []map[string]any
	_ = json.Unmarshal(js, &all)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["type"] == "mrkdwn" && strings.Contains(v["text"].(string), "evil") {
				t.Errorf("model text in mrkdwn: %v", v["text"])
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, b := range all {
		walk(b)
	}
}

// asking runs one ask through an orchestrator with the responder, and
// returns once its message is posted.
func asking(t *testing.T, f *slacktest.Fake, r *Responder, call string) (<-chan *askuser.Outcome, slacktest.Call) {
	t.Helper()
	o := &askuser.Orchestrator{Responder: r}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan *askuser.Outcome, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err := o.Handle(ctx, askuser.Request{Session: "s", ToolCallID: "c", Arguments: []byte(call)})
		if err != nil && ctx.Err() == nil {
			t.Errorf("Handle: %v", err)
		}
		out <- res
	}()
	// Registered after the responder's Close, so run before it: the
	// caller goes away, and the orchestrator closes.
	t.Cleanup(func() {
		cancel()
		<-done
		_ = o.Close()
	})
	return out, <-f.Posted
}

func askIDOf(t *testing.T, posted slacktest.Call) string {
	t.Helper()
	var blocks []map[string]any
	_ = json.Unmarshal([]byte(posted.Form.Get("blocks")), &blocks)
	for _, b := range blocks {
		if b["type"] == "actions" {
			v := b["elements"].([]any)[0].(map[string]any)["value"].(string)
			id, _, _ := strings.Cut(v, sep)
			return id
		}
	}
	t.Fatalf("the message has no buttons: %s", posted.Form.Get("blocks"))
	return ""
}

func serve(r *Responder, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec
}

// TestClicks: bad and stale signatures are refused; a stranger's click
// changes nothing; a click by an allowed user answers the ask, with their
// verified identity as principal; a replay and a double click change
// nothing more; the message is edited to say who decided, with no buttons.
func TestClicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{})
		out, posted := asking(t, f, r, deployCall)
		id := askIDOf(t, posted)
		if posted.Form.Get("channel") != "C1" || posted.Form.Get("mrkdwn") != "false" {
			t.Errorf("posted %v; want channel C1 and mrkdwn off", posted.Form)
		}
		pick := click("T1", "U1", actionPick, id+"|0|1") // production

		if rec := serve(r, signed(pick, time.Now(), "not the secret")); rec.Code != 401 {
			t.Errorf("a bad signature: %d; want 401", rec.Code)
		}
		if rec := serve(r, signed(pick, time.Now().Add(-6*time.Minute), signingSecret)); rec.Code != 401 {
			t.Errorf("a stale timestamp: %d; want 401", rec.Code)
		}
		if rec := serve(r, signed(click("T1", "U666", actionPick, id+"|0|1"), time.Now(), signingSecret)); rec.Code != 200 {
			t.Errorf("a stranger's click: %d", rec.Code)
		}
		if rec := serve(r, signed(click("T2", "U1", actionPick, id+"|0|1"), time.Now(), signingSecret)); rec.Code != 200 {
			t.Errorf("a click from another workspace: %d", rec.Code)
		}
		synctest.Wait()
		select {
		case o := <-out:
			t.Fatalf("a stranger's click ended the ask: %+v", o)
		default:
		}
		got := f.Ephemerals()
		slices.Sort(got)
		if want := []string{"U1: This ask isn't yours: only the people the program names can answer it.", "U666: This ask isn't yours: only the people the program names can answer it."}; !slices.Equal(got, want) {
			t.Errorf("ephemerals %q; want both strangers (U1 of another workspace, U666) told the ask isn't theirs", got)
		}

		raw := signed(pick, time.Now(), signingSecret)
		if rec := serve(r, raw); rec.Code != 200 {
			t.Fatalf("the click: %d %s", rec.Code, rec.Body)
		}
		o := <-out
		if o.Status != askuser.StatusAnswered || o.AnsweredBy != askuser.ByUser || o.Principal != "slack:T1/U1" || o.Answers[0].Selected[0] != "production" {
			t.Fatalf("outcome %+v; want production answered by user, principal slack:T1/U1", o)
		}
		up := <-f.Updated
		if up.Form.Get("ts") != "1700000000.000003" || !strings.Contains(up.Form.Get("blocks"), "Answered by \\u003c@U1\\u003e in Slack") || strings.Contains(up.Form.Get("blocks"), `"actions"`) {
			t.Errorf("the edited message %v; want the original, who decided, and no buttons", up.Form)
		}
		n := len(f.Methods())
		// A second click of the same button, a second later: nothing
		// more is claimed.
		time.Sleep(time.Second)
		if rec := serve(r, signed(pick, time.Now(), signingSecret)); rec.Code != 200 {
			t.Errorf("a second click: %d", rec.Code)
		}
		synctest.Wait()
		if got := f.Ephemerals(); !strings.Contains(got[len(got)-1], "U1: This ask has already ended.") {
			t.Errorf("a second click was told %q; want that the ask has ended", got)
		}
		if got := f.Methods()[n:]; len(got) != 1 || got[0] != "chat.postEphemeral" {
			t.Errorf("after the ask ended, a click made %v; want one ephemeral reply", got)
		}
	})
}

// TestReplay: one signed request taken twice is acted on once.
func TestReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{})
		_, posted := asking(t, f, r, `{"questions":[{"id":"a","header":"A","question":"A?","options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]},{"id":"b","header":"B","question":"B?","options":[{"label":"x","description":"x"},{"label":"y","description":"y"}]}]}`)
		id := askIDOf(t, posted)
		now := time.Now()
		first := serve(r, signed(click("T1", "U1", actionPick, id+"|0|0"), now, signingSecret))
		again := serve(r, signed(click("T1", "U1", actionPick, id+"|0|0"), now, signingSecret))
		synctest.Wait()
		if first.Code != 200 || again.Code != 200 {
			t.Fatalf("codes %d %d", first.Code, again.Code)
		}
		if got := f.Ephemerals(); len(got) != 1 || !strings.Contains(got[0], "Still to answer: B") {
			t.Errorf("ephemerals %q; want one (the replay is not acted on)", got)
		}
	})
}

// TestDeadlineEditsMessage: an ask nobody answers ends at its deadline
// with the recommended option, and its message says so.
func TestDeadlineEditsMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{})
		out, _ := asking(t, f, r, deployCall)
		o := <-out
		if o.AnsweredBy != askuser.ByTimeout {
			t.Fatalf("outcome %+v; want decided by the deadline", o)
		}
		up := <-f.Updated
		if !strings.Contains(up.Form.Get("blocks"), "Decided by the deadline") {
			t.Errorf("the edited message %s; want it to say the deadline decided", up.Form.Get("blocks"))
		}
		// The nudge was a reply in the ask's thread, before the deadline.
		var nudged bool
		for p := range len(f.Posted) {
			_ = p
			c := <-f.Posted
			nudged = nudged || c.Form.Get("thread_ts") != "" && strings.Contains(c.Form.Get("text"), "Time is running out")
		}
		if !nudged {
			t.Error("no nudge was posted in the ask's thread")
		}
	})
}

// TestModal: a multi-select is answered through the modal the "Answer…"
// button opens; a submission by a stranger is refused in the modal.
func TestModal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{})
		out, posted := asking(t, f, r, `{"questions":[{"id":"checks","header":"Checks","question":"Which?","multi_select":true,"options":[{"label":"unit","description":"u","default":true},{"label":"load","description":"l"}]}]}`)
		id := askIDOf(t, posted)
		serve(r, signed(click("T1", "U1", actionModal, id), time.Now(), signingSecret))
		op := <-f.Opened
		if op.JSON["trigger_id"] != "trig-U1" {
			t.Errorf("views.open %v; want the click's trigger id", op.JSON)
		}
		state := map[string]map[string]any{"q0": {"v": map[string]any{"type": "checkboxes", "selected_options": []any{map[string]any{"value": "0"}, map[string]any{"value": "1"}}}}}
		rec := serve(r, signed(submission("T1", "U9", viewAnswer, id, state), time.Now(), signingSecret))
		if !strings.Contains(rec.Body.String(), `"response_action":"errors"`) || !strings.Contains(rec.Body.String(), "isn't yours") {
			t.Errorf("a stranger's submission: %s; want the modal to say it isn't theirs", rec.Body)
		}
		rec = serve(r, signed(submission("T1", "U1", viewAnswer, id, state), time.Now(), signingSecret))
		if rec.Code != 200 || rec.Body.Len() != 0 {
			t.Errorf("the submission: %d %s; want 200 and the modal closed", rec.Code, rec.Body)
		}
		o := <-out
		if d := cmp.Diff([]string{"unit", "load"}, o.Answers[0].Selected); d != "" || o.AnsweredBy != askuser.ByUser {
			t.Errorf("outcome %+v: %s", o, d)
		}
	})
}

// TestIrreversibleApproval: approving an irreversible action asks for the
// code the message shows; a wrong code approves nothing.
func TestIrreversibleApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := slacktest.NewHandler()
		r := newResponder(t, f, Options{Rand: strings.NewReader("\x00\x01\x02\x03")})
		o := &askuser.Orchestrator{Responder: r}
		defer o.Close()
		got := make(chan approvaltool.Verdict, 1)
		go func() {
			out, err := o.Handle(context.Background(), askuser.Request{Session: "s", ToolCallID: "c", Dialect: approvaltool.Dialect(),
				Arguments: []byte(`{"action":"Drop the table","reason":"cleanup","risk":"irreversible"}`)})
			if err != nil {
				t.Errorf("Handle: %v", err)
				return
			}
			v, _ := approvaltool.VerdictOf(out)
			got <- v
		}()
		posted := <-f.Posted
		if !strings.Contains(posted.Form.Get("blocks"), "type the code *ACDE*") {
			t.Fatalf("the message does not show the code: %s", posted.Form.Get("blocks"))
		}
		id := askIDOf(t, posted)
		serve(r, signed(click("T1", "U1", actionApprove, id+"|"+approval.ApproveOnce), time.Now(), signingSecret))
		<-f.Opened
		code := func(c string) map[string]map[string]any {
			return map[string]map[string]any{"code": {"v": map[string]any{"type": "plain_text_input", "value": c}}}
		}
		rec := serve(r, signed(submission("T1", "U1", viewConfirm, id+"|"+approval.ApproveOnce, code("AAAA")), time.Now(), signingSecret))
		if !strings.Contains(rec.Body.String(), "not the code") {
			t.Errorf("a wrong code: %s; want the modal to refuse it", rec.Body)
		}
		synctest.Wait()
		select {
		case v := <-got:
			t.Fatalf("a wrong code decided: %+v", v)
		default:
		}
		rec = serve(r, signed(submission("T1", "U1", viewConfirm, id+"|"+approval.ApproveOnce, code("acde")), time.Now(), signingSecret))
		if rec.Body.Len() != 0 {
			t.Errorf("the right code: %s", rec.Body)
		}
		if v := <-got; v.Status != approval.Approved || v.DecidedBy != askuser.ByUser {
			t.Errorf("verdict %+v; want approved by the user", v)
		}
	})
}

// TestConformance runs the conformance suite with its person clicking
// signed buttons as the allowed user, and answering secrets on the web
// card through the one-time link the card button sends them: every case
// runs but approval-not-taken, which is for a responder that takes no
// approvals.
func TestConformance(t *testing.T) {
	var mu sync.Mutex
	people := map[*Responder]clicker{}
	skipped := respondertest.Run(t, func(t *testing.T) askuser.Responder {
		f := slacktest.NewHandler()
		card := newCard(t)
		r := newResponder(t, f, Options{SecretLink: card.OneTimeLinks(cardBase, 0)})
		mu.Lock()
		people[r] = clicker{r: r, f: f, card: card}
		mu.Unlock()
		return r
	}, &respondertest.Options{Synctest: true, Person: func(r askuser.Responder) respondertest.Person {
		mu.Lock()
		defer mu.Unlock()
		return people[r.(*Responder)]
	}})
	delete(skipped, "approval-not-taken")
	if len(skipped) != 0 {
		t.Errorf("cases skipped: %v; want every case to run but approval-not-taken", skipped)
	}
	t.Logf("%d of %d cases ran", len(respondertest.Cases())-len(skipped)-1, len(respondertest.Cases()))
}

// clicker is the conformance suite's person: signed clicks, by the allowed
// user, posted to the responder's endpoint, and a browser on the web card
// for secrets.
type clicker struct {
	r    *Responder
	f    *slacktest.Fake
	card *web.Responder
}

// Fill answers a form with a sealed question on the card, through the
// one-time link the message's card button sends.
func (c clicker) Fill(a *askuser.Ask, answers []askuser.Answer) error {
	sealed := false
	for _, q := range a.Form().Questions {
		sealed = sealed || responder.Sealed(&q)
	}
	if !sealed {
		return errors.New("the clicker answers on the card only a form with a secret, which is what the message's card button is for")
	}
	link, err := oneTimeLink(c.f, c.r, "U1", a)
	if err != nil {
		return err
	}
	b := &browser{card: c.card}
	if err := b.open(link); err != nil {
		return err
	}
	return b.answer(a, answers)
}

func (c clicker) click(actionID, value string) error {
	rec := serve(c.r, signed(click("T1", "U1", actionID, value), time.Now(), signingSecret))
	if rec.Code != http.StatusOK {
		return fmt.Errorf("the endpoint answered %d %s", rec.Code, rec.Body)
	}
	return nil
}

func (c clicker) Choose(a *askuser.Ask, question, option int) error {
	return c.click(actionPick, a.ID()+sep+strconv.Itoa(question)+sep+strconv.Itoa(option))
}

func (c clicker) Decide(a *askuser.Ask, choice string) error {
	return c.click(actionApprove, a.ID()+sep+choice)
}

func FuzzParseInteraction(f *testing.F) {
	p, _ := json.Marshal(click("T1", "U1", actionPick, "a|0|1"))
	f.Add([]byte("payload=" + string(p)))
	s, _ := json.Marshal(submission("T1", "U1", viewAnswer, "a", map[string]map[string]any{"q0": {"v": map[string]any{"value": "x"}}}))
	f.Add([]byte("payload=" + string(s)))
	f.Add([]byte("payload=%7B%7D&payload=x"))
	f.Fuzz(func(t *testing.T, body []byte) {
		cb, err := parseInteraction(body)
		if err == nil && cb.Type == "" {
			t.Fatal("an interaction without a type was taken")
		}
	})
}
