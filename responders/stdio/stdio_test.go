package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/askusertool"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/responders/stdio"
	"github.com/askuser-go/askuser/secret"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// buffer is an io.Writer whose content a test reads while the responder
// writes.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// rig is a responder over an io.Pipe, and an orchestrator asking through
// it. Use it inside synctest.Test, and defer close.
type rig struct {
	t   *testing.T
	in  *io.PipeWriter
	out *buffer
	r   *stdio.Responder
	o   *askuser.Orchestrator
}

func newRig(t *testing.T) *rig {
	pr, pw := io.Pipe()
	out := &buffer{}
	r := stdio.New(pr, out, nil)
	o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return &rig{t: t, in: pw, out: out, r: r, o: o}
}

// close stops the responder and ends the input, so that no goroutine is
// left.
func (g *rig) close() {
	g.r.Close()
	g.in.Close()
}

type result struct {
	out *askuser.Outcome
	err error
}

// ask starts asking call; tweak, when set, changes the decoded call (for
// what the ask_user JSON cannot say: multi-line text, prefills, previews).
func (g *rig) ask(call string, tweak func(*askuser.Form)) <-chan result {
	ch := make(chan result, 1)
	req := askuser.Request{Session: "s", Arguments: []byte(call)}
	if tweak != nil {
		req.Dialect = tweaked{tweak}
	}
	go func() {
		out, err := g.o.Handle(context.Background(), req)
		ch <- result{out, err}
	}()
	return ch
}

// typeLines types lines, each followed by Enter.
func (g *rig) typeLines(lines ...string) {
	g.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(g.in, l+"\n"); err != nil {
			g.t.Fatalf("typing %q: %v", l, err)
		}
	}
}

// resultOf waits for the ask and returns the result the model reads.
func (g *rig) resultOf(ch <-chan result) string {
	g.t.Helper()
	res := <-ch
	if res.err != nil {
		g.t.Fatalf("Handle: %v", res.err)
	}
	if res.out.Fault != nil {
		g.t.Fatalf("responder fault: %v", res.out.Fault)
	}
	synctest.Wait() // the responder prints what was applied
	return string(res.out.Result)
}

// askIn starts asking call in dialect d (nil: ask_user).
func (g *rig) askIn(d askuser.Dialect, call string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		out, err := g.o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(call), Dialect: d})
		ch <- result{out, err}
	}()
	return ch
}

type tweaked struct{ f func(*askuser.Form) }

func (tweaked) Name() string { return "ask_user" }
func (d tweaked) Decode(data []byte, lim dialect.Limits) (*askuser.Form, error) {
	c, err := askusertool.Dialect().Decode(data, lim)
	if err == nil {
		d.f(c)
	}
	return c, err
}
func (tweaked) Encode(o *askuser.Outcome, j bool) ([]byte, json.RawMessage, error) {
	return askusertool.Dialect().Encode(o, j)
}

const (
	envCall = `{"questions":[{"id":"env","header":"Env","question":"Which environment?","options":[` +
		`{"label":"staging","description":"Safe","default":true},` +
		`{"label":"production","description":"Real users"}]}],"timeout_seconds":100}`
	regionsCall = `{"questions":[{"id":"regions","header":"Regions","question":"Which regions?","multi_select":true,"options":[` +
		`{"label":"eu","description":"Europe","default":true},` +
		`{"label":"us","description":"America","default":true},` +
		`{"label":"ap","description":"Asia"}]}],"timeout_seconds":100}`
	branchCall = `{"questions":[{"id":"branch","kind":"text","header":"Branch","question":"Which branch name?"}],"timeout_seconds":100}`
	secretCall = `{"questions":[{"kind":"secret","header":"Token","question":"Paste a token","secret_name":"TOKEN","purpose":"to call the API"}],"timeout_seconds":100}`
	threeCall  = `{"questions":[` +
		`{"id":"env","header":"env","question":"Which environment?","options":[{"label":"staging","description":"Safe"},{"label":"production","description":"Real users","default":true}]},` +
		`{"id":"region","header":"region","question":"Which region?","options":[{"label":"us","description":"America","default":true},{"label":"eu","description":"Europe"}]},` +
		`{"id":"size","header":"size","question":"Which size?","options":[{"label":"small","description":"1 CPU","default":true},{"label":"large","description":"8 CPUs"}]}` +
		`],"timeout_seconds":120}`
)

// A GitHub-shaped token, assembled so that no whole token sits in the
// source.
var fakeToken = "ghp" + "_" + "A1b2C3d4E5f6G7h8I9j0" + "0123456789abcdef"

func TestKinds(t *testing.T) {
	tests := []struct {
		name  string
		call  string
		tweak func(*askuser.Form)
		input []string
		want  string
		shows []string // lines the output must hold
	}{
		{
			name:  "single-select",
			call:  envCall,
			input: []string{"2"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`,
			shows: []string{"  1) staging (recommended)", "  2) production", "  3) Something else", "Submitted: Env → production"},
		},
		{
			name:  "single-select, the default on empty input",
			call:  envCall,
			input: []string{""},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`,
			shows: []string{"Pick 1-3 (Enter for 1): "},
		},
		{
			name:  "single-select, something else",
			call:  envCall,
			input: []string{"3", "  canary  "},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":[],"other_text":"canary"}]}`,
			shows: []string{"Something else: ", `Submitted: Env → "canary"`},
		},
		{
			name:  "single-select, the other label the call names",
			call:  envCall,
			tweak: func(c *askuser.Form) { c.Questions[0].OtherLabel = "Another place" },
			input: []string{"3", "canary"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":[],"other_text":"canary"}]}`,
			shows: []string{"  3) Another place", "Another place: "},
		},
		{
			name:  "closed choice offers no something else",
			call:  `{"questions":[{"id":"size","header":"Size","question":"Which size?","allow_other":false,"options":[{"label":"small","description":"1 CPU"},{"label":"large","description":"8 CPUs"}]}],"timeout_seconds":100}`,
			input: []string{"3", "2"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"size","selected":["large"],"other_text":null}]}`,
			shows: []string{"Pick 1-2 (Enter for 1): ", "  Not accepted: type one number from 1 to 2, or press Enter for 1."},
		},
		{
			name:  "multi-select",
			call:  regionsCall,
			input: []string{"3, 1"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":["eu","ap"],"other_text":null}]}`,
			shows: []string{"  1) eu (recommended)", "  2) us (recommended)", "  3) ap\n", "Pick one or more of 1-4, separated by commas (Enter for 1,2): ", "Submitted: Regions → eu + ap"},
		},
		{
			name:  "multi-select, the defaults on empty input",
			call:  regionsCall,
			input: []string{""},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":["eu","us"],"other_text":null}]}`,
		},
		{
			name:  "multi-select with something else",
			call:  regionsCall,
			input: []string{"2,4", "mars"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":["us"],"other_text":"mars"}]}`,
			shows: []string{`Submitted: Regions → us + "mars"`},
		},
		{
			name:  "text",
			call:  branchCall,
			input: []string{"feature/login"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"feature/login"}]}`,
			shows: []string{"Which branch name?\nAnswer: "},
		},
		{
			name:  "text, the prefill on empty input",
			call:  branchCall,
			tweak: func(c *askuser.Form) { c.Questions[0].Prefill = "main" },
			input: []string{""},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"main"}]}`,
			shows: []string{`Answer (Enter for "main"): `},
		},
		{
			name:  "multi-line text",
			call:  branchCall,
			tweak: func(c *askuser.Form) { c.Questions[0].Multiline = true },
			input: []string{"first line", "", "third line", "."},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"first line\n\nthird line"}]}`,
			shows: []string{`end it with a line holding only "." (or the end of input)`},
		},
		{
			name:  "multi-line text, the prefill on a lone dot",
			call:  branchCall,
			tweak: func(c *askuser.Form) { c.Questions[0].Multiline, c.Questions[0].Prefill = true, "one\ntwo" },
			input: []string{"."},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"one\ntwo"}]}`,
			shows: []string{"  | one\n  | two\n"},
		},
		{
			name:  "previews under their options",
			call:  envCall,
			tweak: func(c *askuser.Form) { c.Questions[0].Options[1].Preview = "+ replicas: 3\n- replicas: 1" },
			input: []string{"2"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`,
			shows: []string{"  2) production\n     Real users\n     | + replicas: 3\n     | - replicas: 1\n"},
		},
		{
			name:  "no recommendation: nothing marked",
			call:  envCall,
			tweak: func(c *askuser.Form) { c.Questions[0].NoDefault = true },
			input: []string{"", "1"},
			want:  `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`,
			shows: []string{"  1) staging\n", "Pick 1-3: ", "  Not accepted: type one number from 1 to 3."},
		},
		{
			name:  "an optional question skipped",
			call:  branchCall,
			tweak: func(c *askuser.Form) { c.Questions[0].Optional = true },
			input: []string{""},
			want:  `{"status":"answered","answered_by":"user","answers":[]}`,
			shows: []string{"Answer (Enter to skip): ", "Submitted, with no answers."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				res := g.ask(tt.call, tt.tweak)
				g.typeLines(tt.input...)
				if diff := cmp.Diff(tt.want, g.resultOf(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				out := g.out.String()
				for _, s := range tt.shows {
					if !strings.Contains(out, s) {
						t.Errorf("the output does not show %q; it is:\n%s", s, out)
					}
				}
			})
		})
	}
}

// TestTranscript shows a whole exchange as the person sees it on a pipe.
func TestTranscript(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		res := g.ask(`{"questions":[`+
			`{"id":"env","header":"Env","question":"Which environment?","options":[{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]},`+
			`{"id":"checks","header":"Checks","question":"Which checks?","multi_select":true,"allow_other":false,"options":[{"label":"unit","description":"Fast","default":true},{"label":"load","description":"Slow"}]}`+
			`],"timeout_seconds":100}`, nil)
		g.typeLines("x", "2", "2,1")
		g.resultOf(res)
		want := `
[1/2] Env
Which environment?
  1) staging (recommended)
     Safe
  2) production
     Real users
  3) Something else
  (a line "note: ..." adds a note to your answer; "note N: ..." a note on option N)
Pick 1-3 (Enter for 1): 
  Not accepted: type one number from 1 to 3, or press Enter for 1.
Pick 1-3 (Enter for 1): 

[2/2] Checks
Which checks?
  1) unit (recommended)
     Fast
  2) load
     Slow
  (a line "note: ..." adds a note to your answer; "note N: ..." a note on option N)
Pick one or more of 1-2, separated by commas (Enter for 1): 
Submitted: Env → production, Checks → unit + load
`
		if diff := cmp.Diff(want, g.out.String()); diff != "" {
			t.Errorf("transcript (-want +got):\n%s", diff)
		}
	})
}

func TestInvalidInputReprompts(t *testing.T) {
	tests := []struct {
		name   string
		call   string
		input  []string
		want   string
		saying string
	}{
		{"out of range", envCall, []string{"7", "0", "2"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`,
			"  Not accepted: type one number from 1 to 3, or press Enter for 1.\n"},
		{"not a number", envCall, []string{"prod", "2"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`,
			"  Not accepted: type one number from 1 to 3, or press Enter for 1.\n"},
		{"two picks on a single-select", envCall, []string{"1,2", "1"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`,
			"  Not accepted: type one number from 1 to 3, or press Enter for 1.\n"},
		{"a pick twice", regionsCall, []string{"1,1", "1"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":["eu"],"other_text":null}]}`,
			"  Not accepted: type one or more numbers from 1 to 4, separated by commas, each at most once, or press Enter for 1,2.\n"},
		{"empty something else", envCall, []string{"3", " ", "1"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`,
			"  Not accepted: the answer is empty; type it, or pick another number.\n"},
		{"empty text", branchCall, []string{"", "main"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"main"}]}`,
			"  Not accepted: the answer is empty; type an answer.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				res := g.ask(tt.call, nil)
				g.typeLines(tt.input...)
				if diff := cmp.Diff(tt.want, g.resultOf(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				if out := g.out.String(); !strings.Contains(out, tt.saying) {
					t.Errorf("the output does not say %q; it is:\n%s", tt.saying, out)
				}
			})
		})
	}
}

// TestRefusedAnswerReprompts: what the orchestrator refuses (here a
// credential-shaped answer) is asked again with its reason, and the output
// never shows the value.
func TestRefusedAnswerReprompts(t *testing.T) {
	if _, found := secret.Detect(fakeToken); !found {
		t.Fatal("the test's fake token is not credential-shaped")
	}
	tests := []struct {
		name  string
		call  string
		input []string
		want  string
	}{
		{"text", branchCall, []string{"use " + fakeToken, "main"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"main"}]}`},
		{"something else", envCall, []string{"3", fakeToken, "3", "canary"},
			`{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":[],"other_text":"canary"}]}`},
	}
	const reason = "  Not accepted: the answer looks like a GitHub token; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question).\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				res := g.ask(tt.call, nil)
				g.typeLines(tt.input...)
				got := g.resultOf(res)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				out := g.out.String()
				if !strings.Contains(out, reason) {
					t.Errorf("the output does not give the reason %q; it is:\n%s", reason, out)
				}
				if strings.Contains(out, "ghp_") || strings.Contains(got, "ghp_") {
					t.Errorf("the token leaked:\noutput:\n%s\nresult: %s", out, got)
				}
			})
		})
	}
}

// TestDeadlineInQuestion3 answers questions 1 and 2, then lets the deadline
// pass while question 3 is open: the answers stand, the default fills in.
func TestDeadlineInQuestion3(t *testing.T) {
	tests := []struct {
		name  string
		tweak func(*askuser.Form)
		want  string
		says  string
	}{
		{
			name: "choice",
			want: `{"status":"timed_out","answered_by":"timeout","answers":[` +
				`{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"},` +
				`{"id":"region","selected":["eu"],"other_text":null,"answered_by":"user"},` +
				`{"id":"size","selected":["small"],"other_text":null}]}`,
			says: "Time is up: env → staging (your answer), region → eu (your answer), size → small (recommended, applied at the deadline)\n",
		},
		{
			name: "text",
			tweak: func(c *askuser.Form) {
				q := &c.Questions[2]
				q.Kind, q.Options, q.AllowOther = askuser.KindText, nil, true
			},
			want: `{"status":"declined","answered_by":"timeout","answers":[` +
				`{"id":"env","selected":["staging"],"other_text":null,"answered_by":"user"},` +
				`{"id":"region","selected":["eu"],"other_text":null,"answered_by":"user"}]}`,
			says: "Time is up: nothing more was applied; the ask ends with your answers: env → staging (your answer), region → eu (your answer)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				res := g.ask(threeCall, tt.tweak)
				g.typeLines("1", "2")
				synctest.Wait()
				if out := g.out.String(); !strings.Contains(out, "[3/3] size\nWhich size?\n") {
					t.Fatalf("question 3 is not shown:\n%s", out)
				}
				time.Sleep(121 * time.Second)
				if diff := cmp.Diff(tt.want, g.resultOf(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				synctest.Wait()
				if out := g.out.String(); !strings.HasSuffix(out, tt.says) {
					t.Errorf("the output does not end with %q; it is:\n%s", tt.says, out)
				}
			})
		})
	}
}

// TestCountdown: one line at NudgeAt exactly (100 s: 20 s before the
// deadline), saying what the deadline will apply.
func TestCountdown(t *testing.T) {
	tests := []struct {
		name, call string
		tweak      func(*askuser.Form)
		input      []string
		want       string
	}{
		{"single choice", envCall, nil, nil,
			"⏳ 20 s left: at the deadline, staging will be applied"},
		{"several choices", threeCall, func(c *askuser.Form) { c.TimeoutSeconds = 100 }, []string{"2"},
			"⏳ 20 s left: at the deadline, the defaults will be applied: region → us, size → small"},
		{"multi-select", regionsCall, nil, nil,
			"⏳ 20 s left: at the deadline, eu + us will be applied"},
		{"text", branchCall, nil, nil,
			"⏳ 20 s left: at the deadline, nothing will be applied; the question will be declined"},
		{"text after an answer", threeCall, func(c *askuser.Form) {
			c.TimeoutSeconds = 100
			q := &c.Questions[2]
			q.Kind, q.Options, q.AllowOther = askuser.KindText, nil, true
		}, []string{"1"},
			"⏳ 20 s left: at the deadline, nothing will be applied; the questions will be declined (your answers so far are kept)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				start := time.Now()
				res := g.ask(tt.call, tt.tweak)
				g.typeLines(tt.input...)
				time.Sleep(80*time.Second - time.Since(start) - time.Nanosecond)
				synctest.Wait()
				if out := g.out.String(); strings.Contains(out, "⏳") {
					t.Fatalf("the countdown came before NudgeAt:\n%s", out)
				}
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				out := g.out.String()
				if got := strings.Count(out, "⏳"); got != 1 {
					t.Fatalf("at NudgeAt the output holds %d countdown lines, want 1:\n%s", got, out)
				}
				lines := strings.Split(out, "\n")
				got := lines[len(lines)-2] // the countdown, then the prompt again
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("countdown (-want +got):\n%s", diff)
				}
				time.Sleep(time.Minute)
				g.resultOf(res)
				if n := strings.Count(g.out.String(), "⏳"); n != 1 {
					t.Errorf("the countdown was printed %d times, want once", n)
				}
			})
		})
	}
}

// TestEndOfInputDismisses: the end of input cancels the ask on the question
// shown, keeping the answers given.
func TestEndOfInputDismisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		res := g.ask(threeCall, nil)
		g.typeLines("1")
		g.in.Close()
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		want := `{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`
		if diff := cmp.Diff(want, string(r.out.Result)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff("region", r.out.CancelledOn); diff != "" {
			t.Errorf("cancelled on (-want +got):\n%s", diff)
		}
		synctest.Wait()
		if out := g.out.String(); !strings.HasSuffix(out, "Pick 1-3 (Enter for 1): \nDismissed; kept: env → staging (your answer)\n") {
			t.Errorf("the output does not end with the dismissal:\n%s", out)
		}

		// A later ask sees the end of input before anything is typed for
		// it: nobody can be asked.
		want = `{"status":"answered","answered_by":"unattended","answers":[{"id":"env","selected":["staging"],"other_text":null}]}`
		if diff := cmp.Diff(want, g.resultOf(g.ask(envCall, nil))); diff != "" {
			t.Errorf("a later ask (-want +got):\n%s", diff)
		}
	})
}

// TestEndOfInputBeforeTyping: an input that ends before the person typed
// anything for the ask (a call piped in on standard input used it up) is
// not a person: nobody can be asked, and the contract's unattended rules
// apply. Once a line is typed, the end of input is a dismissal.
func TestEndOfInputBeforeTyping(t *testing.T) {
	tests := []struct {
		name    string
		dialect askuser.Dialect
		call    string
		typed   []string
		want    string
	}{
		{"ask_user, choices: the defaults", nil, threeCall, nil,
			`{"status":"answered","answered_by":"unattended","answers":[` +
				`{"id":"env","selected":["production"],"other_text":null},` +
				`{"id":"region","selected":["us"],"other_text":null},` +
				`{"id":"size","selected":["small"],"other_text":null}]}`},
		{"ask_user, text: declined", nil, branchCall, nil,
			`{"status":"declined","answered_by":"unattended","answers":[]}`},
		{"pi: no UI", pi.Dialect(), `{"questions":[{"id":"env","question":"Deploy where?","options":[{"label":"staging"},{"label":"production"}],"recommended":1}]}`, nil,
			`{"content":[{"type":"text","text":"` + pi.TextUnavailable + `"}],"details":{"status":"unavailable","reason":"no-ui","source":"ask"},"isError":true}`},
		{"a line typed, refused: a dismissal", nil, envCall, []string{"7"},
			`{"status":"cancelled","answered_by":"user","answers":[]}`},
		{"an empty line typed on a text: a dismissal", nil, branchCall, []string{""},
			`{"status":"cancelled","answered_by":"user","answers":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				res := g.askIn(tt.dialect, tt.call)
				g.typeLines(tt.typed...)
				g.in.Close()
				if diff := cmp.Diff(tt.want, g.resultOf(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				out := g.out.String()
				says := "The input ended before anything was typed; nobody can be asked here.\n"
				if got := strings.Contains(out, says); got != (tt.typed == nil) {
					t.Errorf("the output says %q: %v, want %v; it is:\n%s", says, got, tt.typed == nil, out)
				}
			})
		})
	}
}

// TestInterrupt: Interrupt dismisses the ask shown, on its current
// question.
func TestInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		if g.r.Interrupt() {
			t.Error("Interrupt reported an ask while none was shown")
		}
		res := g.ask(threeCall, nil)
		g.typeLines("2")
		synctest.Wait()
		if !g.r.Interrupt() {
			t.Fatal("Interrupt found no ask to dismiss")
		}
		r := <-res
		if r.err != nil {
			t.Fatal(r.err)
		}
		want := `{"status":"cancelled","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`
		if diff := cmp.Diff(want, string(r.out.Result)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff("region", r.out.CancelledOn); diff != "" {
			t.Errorf("cancelled on (-want +got):\n%s", diff)
		}
		synctest.Wait()
		if out := g.out.String(); !strings.HasSuffix(out, "\nDismissed; kept: env → production (your answer)\n") {
			t.Errorf("the output does not end with the dismissal:\n%s", out)
		}
		if g.r.Interrupt() {
			t.Error("Interrupt reported an ask after it ended")
		}
	})
}

// TestQueued: asks that arrive while one is shown wait their turn; one
// whose deadline passes while it waits is dropped without being shown.
func TestQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		first := g.ask(envCall, nil)
		synctest.Wait()
		second := g.ask(branchCall, nil)
		short := g.ask(`{"questions":[{"id":"size","header":"Size","question":"Which size?","options":[{"label":"small","description":"1 CPU"},{"label":"large","description":"8 CPUs"}]}],"timeout_seconds":5}`, nil)
		synctest.Wait()
		if out := g.out.String(); strings.Contains(out, "Branch") || strings.Contains(out, "Size") {
			t.Fatalf("a queued ask is shown while the first is open:\n%s", out)
		}

		time.Sleep(6 * time.Second)
		want := `{"status":"timed_out","answered_by":"timeout","answers":[{"id":"size","selected":["small"],"other_text":null}]}`
		if diff := cmp.Diff(want, g.resultOf(short)); diff != "" {
			t.Errorf("the queued ask with a short deadline (-want +got):\n%s", diff)
		}

		g.typeLines("2")
		want = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null}]}`
		if diff := cmp.Diff(want, g.resultOf(first)); diff != "" {
			t.Errorf("the first ask (-want +got):\n%s", diff)
		}
		synctest.Wait()
		out := g.out.String()
		if i, j := strings.Index(out, "Submitted: Env → production"), strings.Index(out, "[1/1] Branch"); i < 0 || j < i {
			t.Fatalf("the second ask is not shown after the first ended:\n%s", out)
		}
		g.typeLines("main")
		want = `{"status":"answered","answered_by":"user","answers":[{"id":"branch","selected":[],"other_text":"main"}]}`
		if diff := cmp.Diff(want, g.resultOf(second)); diff != "" {
			t.Errorf("the second ask (-want +got):\n%s", diff)
		}
		if out := g.out.String(); strings.Contains(out, "Size") {
			t.Errorf("the dropped ask was shown:\n%s", out)
		}
	})
}

// TestSecretWithoutTerminal: over a pipe, a secret call reaches nobody and
// nothing is read.
func TestSecretWithoutTerminal(t *testing.T) {
	want := `{"status":"declined","answered_by":"unattended","answers":[]}`
	t.Run("the orchestrator asks first", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := newRig(t)
			defer g.close()
			if g.r.CanCollectSecrets() {
				t.Fatal("CanCollectSecrets reports true over a pipe")
			}
			if diff := cmp.Diff(want, g.resultOf(g.ask(secretCall, nil))); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	})
	t.Run("a wrapper hides it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			g := newRig(t)
			defer g.close()
			g.o.Responder = askuser.ResponderFunc(g.r.Respond)
			if diff := cmp.Diff(want, g.resultOf(g.ask(secretCall, nil))); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if out := g.out.String(); !strings.Contains(out, "read only from a terminal, without echo; nobody can be asked for it here") {
				t.Errorf("the output does not say why nobody is asked:\n%s", out)
			}
		})
	})
}

// TestCloseDismisses: Close ends the reader; an ask still shown is
// dismissed.
func TestCloseDismisses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.in.Close()
		res := g.ask(envCall, nil)
		synctest.Wait()
		g.r.Close()
		want := `{"status":"cancelled","answered_by":"user","answers":[]}`
		if diff := cmp.Diff(want, g.resultOf(res)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	})
}

func TestName(t *testing.T) {
	if diff := cmp.Diff("stdio", stdio.New(nil, nil, nil).ResponderName()); diff != "" {
		t.Errorf("name (-want +got):\n%s", diff)
	}
}

// TestNotes checks that the person can add a note to an answer and to a
// picked option, that a note on an option not picked is dropped, and that
// an optional question takes a note alone.
func TestNotes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		res := g.ask(regionsCall, nil)
		g.typeLines("note: only for the launch", "note 3: cheapest", "note 2: never mind", "3,1")
		got := g.resultOf(res)
		if want := `{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":["eu","ap"],"other_text":null,"note":"only for the launch"}]}`; got != want {
			t.Errorf("result %s\nwant %s", got, want)
		}
		if out := g.out.String(); !strings.Contains(out, "  Noted.\n") || !strings.Contains(out, "  The note on us is dropped: it is not picked.\n") {
			t.Errorf("transcript:\n%s", out)
		}
	})
}

func TestNoteAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		res := g.ask(regionsCall, func(c *askuser.Form) {
			c.Questions[0].Optional, c.Questions[0].NoDefault = true, true
		})
		g.typeLines("note: ask me later", "")
		got := g.resultOf(res)
		if want := `{"status":"answered","answered_by":"user","answers":[{"id":"regions","selected":[],"other_text":null,"note":"ask me later"}]}`; got != want {
			t.Errorf("result %s\nwant %s", got, want)
		}
	})
}
