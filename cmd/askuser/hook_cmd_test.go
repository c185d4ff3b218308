package main

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// The hook inputs and replies of testdata/claude: Claude Code's documented
// PreToolUse payloads, and the replies askuser gives them.
const (
	hookTwoQuestions      = "testdata/claude/ask_two_questions.json"
	hookTwoQuestionsReply = "testdata/claude/ask_two_questions.reply.json"
	hookBash              = "testdata/claude/bash.json"
	hookBashDeadlineReply = "testdata/claude/bash_deadline.reply.json"
	// hookTwoAnswers answers the two questions on the card: Summary, and
	// Introduction and Conclusion.
	hookTwoAnswers = `{"answers":{"q1":{"selected":["Summary"]},"q2":{"selected":["Introduction","Conclusion"]}}}`
)

// hookRun is one `askuser hook claude` run in the background, its
// standard input a file of testdata/claude.
type hookRun struct {
	code        chan int
	out, stderr *syncBuffer
}

func startHook(t *testing.T, input string, args ...string) *hookRun {
	t.Helper()
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	h := &hookRun{code: make(chan int, 1), out: &syncBuffer{}, stderr: &syncBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		h.code <- run(ctx, append([]string{"hook", "claude"}, args...), f, h.out, h.stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-returned
	})
	return h
}

// wantReply waits for the run to end, and checks that it exits 0 and
// prints exactly the reply in the file want.
func (h *hookRun) wantReply(t *testing.T, want string) {
	t.Helper()
	var code int
	select {
	case code = <-h.code:
	case <-time.After(serveWait):
		t.Fatalf("askuser hook claude did not return; stderr:\n%s", h.stderr.String())
	}
	wb, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(wb), h.out.String()); code != 0 || diff != "" {
		t.Fatalf("exit %d, stdout (-want +got):\n%s\nstderr:\n%s", code, diff, h.stderr.String())
	}
}

// TestHookClaudeServer is the round trip of a two-question
// AskUserQuestion through `askuser hook claude --server`, answered on the
// card of a real askuser serve (in process, on an embedded NATS server):
// the questions reach the card of Claude Code's session, the card's URL is
// on standard error, and the reply echoes the questions with the answers
// keyed by question text, the multi-select's labels joined with ", ".
func TestHookClaudeServer(t *testing.T) {
	// Checked once every cleanup has run: the serve, the NATS server.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	f := newServeFixture(t)
	base := f.srv.base
	a := newAgentClient(t, f.token)
	h := startHook(t, hookTwoQuestions, "--server", base, "--token-file", f.tokenFile)
	p := a.waitPending(base, "abc123", "toolu_01ABC123")
	a.answerOn(base, p.CardURL, "abc123", "toolu_01ABC123", hookTwoAnswers)
	h.wantReply(t, hookTwoQuestionsReply)
	if !strings.Contains(h.stderr.String(), "askuser: answer on "+base+"/sessions/abc123?token=") {
		t.Errorf("stderr %q; want the card's URL", h.stderr.String())
	}
	// Claude Code asking again with the same tool call is told the same.
	h = startHook(t, hookTwoQuestions, "--server", base, "--token-file", f.tokenFile)
	h.wantReply(t, hookTwoQuestionsReply)
}

var hookCardURL = regexp.MustCompile(`answer on (http://127\.0\.0\.1:\d+)/sessions/(\S+)\?token=[0-9a-f]{32}\n`)

// TestHookClaudeWeb is the same round trip through the command's own web
// card (--responder web), under a fixed --session.
func TestHookClaudeWeb(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	h := startHook(t, hookTwoQuestions, "--responder", "web", "--session", "shop")
	var m []string
	for deadline := time.Now().Add(serveWait); m == nil; time.Sleep(10 * time.Millisecond) {
		if m = hookCardURL.FindStringSubmatch(h.stderr.String()); m == nil && time.Now().After(deadline) {
			t.Fatalf("no card URL on standard error:\n%s", h.stderr.String())
		}
	}
	if m[2] != "shop" {
		t.Errorf("the card is for session %q; want shop", m[2])
	}
	a := newAgentClient(t, "")
	a.openCard(strings.TrimSuffix(m[0][len("answer on "):], "\n"))
	l := a.cardList(m[1], "shop", 1)
	if r := a.submit(m[1], l.Asks[0].ID, l.CSRFToken, hookTwoAnswers); r.code != 200 {
		t.Fatalf("submit: %d %s", r.code, r.body)
	}
	h.wantReply(t, hookTwoQuestionsReply)
}

// TestHookClaudeApprovalDeadline: a Bash call named in --approve-tools is
// asked as a request_approval; the person picks approve but never submits,
// the two-minute deadline passes (at once and exactly, in a synctest
// bubble), and the reply denies, with the message that says nobody
// approved, and the journal records the deadline.
func TestHookClaudeApprovalDeadline(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`{"approval":"approve","delay_ms":86400000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "journal.jsonl")
	synctest.Test(t, func(t *testing.T) {
		in, err := os.ReadFile(hookBash)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		code, out, errs := cli(t, string(in), "hook", "claude", "--responder", "script="+script, "--approve-tools", "Write, Bash", "--max-timeout-seconds", "120", "--journal", journal)
		want, _ := os.ReadFile(hookBashDeadlineReply)
		if diff := cmp.Diff(string(want), out); code != 0 || diff != "" {
			t.Fatalf("exit %d, stdout (-want +got):\n%s\nstderr:\n%s", code, diff, errs)
		}
		if waited := time.Since(start); waited != 120*time.Second {
			t.Errorf("the hook returned after %v; want exactly the deadline, 2m0s", waited)
		}
	})
	rec, err := os.ReadFile(journal)
	if err != nil || !strings.Contains(string(rec), `"reason":"deadline"`) || !strings.Contains(string(rec), `"contract":"request_approval"`) {
		t.Errorf("the journal: %v\n%s\nwant a request_approval record ended by the deadline", err, rec)
	}
}

// TestHookClaudeOutcomes: what the hook prints for each way an ask ends
// and for each failure. A failure is ask, never allow; a tool it is not
// configured for gets no reply at all.
func TestHookClaudeOutcomes(t *testing.T) {
	two, err := os.ReadFile(hookTwoQuestions)
	if err != nil {
		t.Fatal(err)
	}
	bash, err := os.ReadFile(hookBash)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := func(s string) string { return "script=" + writeFile(t, "script.json", s) }
	token := writeSecretFile(t, dir, "token", "agent-token-0123456789abcdef")
	saved := controllingTerminal
	controllingTerminal = filepath.Join(dir, "no-tty")
	defer func() { controllingTerminal = saved }()
	const ask = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"`
	for _, tt := range []struct {
		name, input string
		args        []string
		code        int
		out, errs   string // out: a prefix of standard output
	}{
		{"declined on the card", string(two), []string{"--responder", script(`{"end":"decline"}`)}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"The user declined to answer these questions (on askuser).`, ""},
		{"nobody there", string(two), []string{"--responder", "auto"}, 0, ask + `Nobody could be asked through askuser: answer here."}}`, ""},
		{"approved", string(bash), []string{"--responder", script(`{"approval":"approve"}`), "--approve-tools", "Bash"}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Approved by the user on askuser."}}`, ""},
		{"a tool not configured", string(bash), []string{"--responder", "auto", "--approve-tools", "Write"}, 0, "", ""},
		{"another event", strings.Replace(string(bash), `"PreToolUse"`, `"PostToolUse"`, 1), nil, 1, "", `hook_event_name is "PostToolUse"`},
		{"the server cannot be reached", string(two), []string{"--server", "http://127.0.0.1:1", "--token-file", token}, 0,
			ask + `askuser could not ask: --server http://127.0.0.1:1: Post \"http://127.0.0.1:1/v1/calls\"`, "connection refused"},
		{"the card for an approval, without a terminal", string(bash), []string{"--approve-tools", "Bash"}, 0,
			ask + `askuser could not ask: approvals over the web card need a terminal to show the approval code on`, "approvals over the web card need a terminal"},
		{"an input that is not JSON", "{", nil, 0, ask + `askuser could not ask: claudehook: the hook input is not the JSON object`, "askuser hook claude: claudehook: the hook input"},
		{"questions that do not fit", strings.Replace(string(two), `{"label":"Detailed","description":"Full explanation"}`, `{"label":"Summary","description":"Again"}`, 1), nil, 0,
			ask + `askuser could not ask: the questions cannot be asked as ask_user: invalid ask_user arguments: `, ""},
		{"a flag it does not take", string(two), []string{"--nope"}, 0, ask + `askuser could not ask: askuser hook claude was given flags it does not take`, "flag provided but not defined: -nope"},
		{"approvals with --server", string(bash), []string{"--server", "http://127.0.0.1:1", "--approve-tools", "Bash"}, 0, ask + `askuser could not ask: --approve-tools cannot go with --server`, ""},
		{"a responder with --server", string(two), []string{"--server", "http://127.0.0.1:1", "--responder", "auto"}, 0, ask + `askuser could not ask: --responder, --listen, --journal and --consents cannot go with --server`, ""},
		{"no responder of that name", string(two), []string{"--responder", "carrier-pigeon"}, 0, ask + `askuser could not ask: --responder \"carrier-pigeon\" is not a responder`, ""},
		{"a negative wait", string(two), []string{"--max-timeout-seconds", "-1"}, 0, ask + `askuser could not ask: --max-timeout-seconds -1 is negative`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := cli(t, tt.input, append([]string{"hook", "claude"}, tt.args...)...)
			if code != tt.code || !strings.HasPrefix(out, tt.out) || tt.out == "" && out != "" || !strings.Contains(errs, tt.errs) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout starting %q, stderr with %q", code, out, errs, tt.code, tt.out, tt.errs)
			}
			if strings.Contains(out, `"allow"`) && tt.name != "approved" {
				t.Errorf("allowed: %s", out)
			}
		})
	}
	if code, _, errs := cli(t, "", "hook"); code != 2 || !strings.Contains(errs, "askuser hook: name the agent whose hook this is") {
		t.Errorf("hook without an agent: exit %d, stderr %q", code, errs)
	}
}

// TestHookClaudeApprovalOnCard: the permission request of a Bash call,
// decided on the command's web card by the person who reads the approval
// code on the terminal (a pseudo-terminal here): the reply allows, with
// the person's note, and the code appears on neither standard output nor
// standard error, which Claude Code reads.
func TestHookClaudeApprovalOnCard(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // after the terminal's cleanup
	tty := withTerminal(t)
	h := startHook(t, hookBash, "--approve-tools", "Bash", "--session", "cli")
	m := waitMatch(t, decideURL, h.stderr.String, "standard error")
	code := waitMatch(t, codeOnTTY, tty.String, "the terminal")[1]
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Jar: jar, Transport: tr, Timeout: 10 * time.Second}
	res, err := client.Get(m[1] + m[2] + "?token=" + m[3])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if st, body := decideOn(t, client, m[1], `{"answers":{"approval":{"selected":["approve"],"note":"backed up"}},"code":"`+code+`"}`); st != 200 {
		t.Fatalf("the decision: %d %s", st, body)
	}
	want := writeFile(t, "reply.json", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Approved by the user on askuser. The user's note: backed up"}}`+"\n")
	h.wantReply(t, want)
	for where, s := range map[string]string{"standard output": h.out.String(), "standard error": h.stderr.String()} {
		if strings.Contains(s, code) || anyCodeLike.MatchString(s) {
			t.Errorf("%s shows the approval code:\n%s", where, s)
		}
	}
}

// TestHookClaudeReplayFromJournal: each hook run is a new process; with
// --journal, Claude Code running the hook again for the same tool call is
// given the first decision, without anyone asked again.
func TestHookClaudeReplayFromJournal(t *testing.T) {
	bash, err := os.ReadFile(hookBash)
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	approve := "script=" + writeFile(t, "script.json", `{"approval":"approve"}`)
	const want = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"Approved by the user on askuser."}}` + "\n"
	for i, responder := range []string{approve, "auto"} {
		code, out, errs := cli(t, string(bash), "hook", "claude", "--responder", responder, "--approve-tools", "Bash", "--journal", journal)
		if code != 0 || out != want {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q; want %s", i+1, code, out, errs, want)
		}
	}
}
