package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
)

// approvalForm is an approval as the request_approval contract makes it,
// with the agent's narration.
func approvalForm(t *testing.T, a approval.Request, intent string) *askuser.Form {
	t.Helper()
	f, err := approvaltool.Form(a, 120)
	if err != nil {
		t.Fatal(err)
	}
	f.HumanIntent = intent
	return f
}

var (
	lowApproval = approval.Request{Action: "Read the file config/prod.yaml", Reason: "To see which replicas are set", Risk: approval.RiskLow}
	medApproval = approval.Request{Action: "Restart the login service", Reason: "It holds a stale certificate", Risk: approval.RiskMedium,
		Details: "kubectl rollout restart deploy/login -n prod\nkubectl rollout status deploy/login -n prod\n"}
	highApproval = approval.Request{Action: "Force-push main", Reason: "To drop a commit that leaked a key", Risk: approval.RiskHigh,
		Details: "git push --force origin main"}
	irrApproval = approval.Request{Action: "Delete the bucket logs-2019", Reason: "It is past its retention and costs money", Risk: approval.RiskIrreversible,
		Details: "gsutil rm -r gs://logs-2019\n\n1,204 objects, 88 GiB:\n  2019-01/…\n  2019-02/…\n"}
)

// verdict is what ask i came to, as the contract reports it.
func (h *harness) verdict(i int) approvaltool.Verdict {
	h.t.Helper()
	v, ok := approvaltool.VerdictOf(h.outcome(i))
	if !ok {
		h.t.Fatalf("ask %d is not an approval", i)
	}
	return v
}

// open checks that ask i has not ended and that the orchestrator holds no
// answer for it: nothing the person did on the card has been reported.
func (h *harness) open(i int, after string) {
	h.t.Helper()
	h.settle()
	select {
	case <-h.asks[i].Done():
		h.t.Fatalf("after %s the approval ended: %s", after, h.asks[i].Outcome().Reason)
	default:
	}
	if got := h.asks[i].Accepted(); len(got) != 0 {
		h.t.Errorf("after %s the orchestrator holds %+v; nothing is reported before the person decides", after, got)
	}
}

func checkVerdict(t *testing.T, want, got approvaltool.Verdict) {
	t.Helper()
	got.Digest = ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the verdict (-want +got):\n%s", diff)
	}
}

// cycle reads 0, 1, 2, … 19, 0, 1, …: the codes a harness draws are
// known. The first approval's is firstCode, the next one's secondCode; a
// wrong code typed draws the longer wrongCode.
type cycle struct{ n byte }

func (c *cycle) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = c.n
		c.n = (c.n + 1) % byte(len(challenge.Alphabet))
	}
	return len(b), nil
}

const (
	firstCode  = "ACEFH"
	secondCode = "JKMNP"
)

// TestFramesApprovalLow: an approval comes with nothing chosen; Enter on
// nothing, a number, y and Space decide nothing and say so; Down moves to
// Approve, which shows the code, and Enter opens the field for it; the
// code typed (in either case) and Enter approve it, this once, at once;
// the verdict is shown.
func TestFramesApprovalLow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 20, approvalForm(t, lowApproval, ""))
		h.press()
		h.press("enter")
		h.press("1")
		h.press("y", "space")
		h.open(0, "Enter on nothing, 1, y and Space")
		h.press("down")
		h.open(0, "Down")
		h.press("enter")
		h.open(0, "Enter on Approve")
		h.press("type:acefh", "enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Approved, DecidedBy: askuser.ByUser}, h.verdict(0))
		h.golden("approval-low")
	})
}

// TestFramesApprovalMedium: d shows the details and hides them again;
// with "for this session" ticked, Deny denies for the session.
func TestFramesApprovalMedium(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, medApproval, "Fixing the login outage"))
		h.press()
		h.press("d")
		h.press("d")
		h.press("s")
		h.press("up")
		h.open(0, "s and Up")
		h.press("enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Denied, DecidedBy: askuser.ByUser, Remember: true}, h.verdict(0))
		h.golden("approval-medium")
	})
}

// TestFramesApprovalHighSession: "for this session" is ticked and
// unticked and ticked again, the rows say what Enter will do, and Approve
// approves for the session.
func TestFramesApprovalHighSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, highApproval, ""))
		h.press()
		h.press("s")
		h.press("s")
		h.press("s", "down")
		h.press("enter")
		h.press("type:" + firstCode)
		h.press("enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Approved, DecidedBy: askuser.ByUser, Remember: true}, h.verdict(0))
		h.golden("approval-high-session")
	})
}

// TestFramesApprovalIrreversible: the risk is the loudest line; Enter on
// Approve only opens the confirmation field, which says the action cannot
// be undone; Esc closes it; Enter with nothing typed says what to type;
// "yes" typed there approves nothing and draws a new, longer code, and
// the new code and Enter approve, with the note the person wrote (n).
func TestFramesApprovalIrreversible(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, irrApproval, "Cleaning up old storage"))
		h.press()
		h.press("n", "type:after the backup")
		h.press("enter")
		h.open(0, "a note")
		h.press("down", "enter")
		h.open(0, "Enter on Approve")
		h.press("esc")
		h.press("enter")
		h.press("enter")
		h.open(0, "Enter on the empty field")
		h.press("type:yes")
		h.press("enter")
		h.open(0, "yes in the confirmation field")
		h.press("type:jkm npr")
		h.press("enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Approved, DecidedBy: askuser.ByUser, Note: "after the backup"}, h.verdict(0))
		h.golden("approval-irreversible")
	})
}

// TestFramesApprovalIrreversibleSession: the code in the field approves
// an irreversible action for the session where the box is ticked; the
// next approval has a code of its own; Deny needs no code.
func TestFramesApprovalIrreversibleSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, irrApproval, ""), approvalForm(t, irrApproval, ""))
		h.press("s", "down", "enter", "type:"+firstCode+" ", "enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Approved, DecidedBy: askuser.ByUser, Remember: true}, h.verdict(0))
		h.press("up", "enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Denied, DecidedBy: askuser.ByUser}, h.verdict(1))
		h.golden("approval-irreversible-session")
	})
}

// longDetails is 40 lines of details, the last one longer than a narrow
// terminal.
func longDetails() string {
	var b strings.Builder
	for i := 1; i <= 39; i++ {
		fmt.Fprintf(&b, "rm -r gs://logs-2019/part-%02d\n", i)
	}
	b.WriteString("echo done with every part of the bucket, which is now empty and will be removed next")
	return b.String()
}

// TestApprovalWrongCodes: a wrong code draws a new one; a second wrong
// one denies, this once though the box is ticked, and the first code no
// longer approves. Closing the field does not forget the first wrong
// code. Every wrong code makes the codes after it longer.
func TestApprovalWrongCodes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, highApproval, ""))
		h.press("s", "down", "enter", "type:approve", "enter")
		h.open(0, "a wrong code")
		if got := h.m.asks[0].ap.code; got != "JKMNPR" {
			t.Errorf("the new code is %q, want JKMNPR, one character longer", got)
		}
		h.press("esc", "enter", "type:"+firstCode, "enter")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Denied, DecidedBy: askuser.ByUser}, h.verdict(0))
		if got := h.m.codes.Code(); len(got) != challenge.Base+2 {
			t.Errorf("after two wrong codes the code is %q, want %d characters", got, challenge.Base+2)
		}
	})
}

// TestApprovalSaysProgramsCanType: where the system lets programs type
// into a terminal, the card says so; where it does not, it says nothing
// of it.
func TestApprovalSaysProgramsCanType(t *testing.T) {
	const warning = "This system lets any program on this terminal type into it: only the code shown here approves."
	for _, injectable := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, 120, 24, approvalForm(t, lowApproval, ""))
			h.m.codes = challenge.New(&cycle{}, injectable)
			if got := strings.Contains(h.m.frame().text, warning); got != injectable {
				t.Errorf("injectable %v: the card shows the warning %v:\n%s", injectable, got, h.m.frame().text)
			}
		})
	}
}

// TestFramesApprovalNarrow: on a narrow terminal the action, the reason
// and the details wrap; long details scroll (j/k, Shift+Down/Shift+Up)
// within the card, which says which lines are shown.
func TestFramesApprovalNarrow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := irrApproval
		a.Details = longDetails()
		a.Reason = "It is past its retention, nobody has read it since 2020, and it costs money every month"
		h := newHarness(t, 44, 24, approvalForm(t, a, "Cleaning up old storage"))
		h.press()
		h.press("d")
		h.press("j", "j", "j")
		h.press("shift+down")
		h.press("k", "shift+up")
		for range 60 {
			h.m.Update(keyMsgs(t, "j")[0])
		}
		h.press("j")
		h.press("d")
		h.open(0, "the details")
		h.golden("approval-narrow")
	})
}

// TestFramesApprovalWide: on a wide terminal the card uses the width, and
// details shorter than the box do not scroll.
func TestFramesApprovalWide(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := medApproval
		a.Details = longDetails()
		h := newHarness(t, 120, 30, approvalForm(t, a, "Fixing the login outage"), approvalForm(t, medApproval, ""))
		h.press("d")
		h.press("pgdown", "d", "down")
		h.golden("approval-wide")
	})
}

// TestFramesApprovalSeveralPending: an approval waits with a question like
// any ask; it comes on screen with nothing chosen every time (so a key
// typed for the ask before it decides nothing); Esc dismisses it, which
// decides nothing, and the next ask shows what it came to.
func TestFramesApprovalSeveralPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := &askuser.Form{TimeoutSeconds: 120, Title: "Deploy", Questions: []askuser.Question{
			{ID: "env", Header: "Env", Text: "Which environment?", Options: []askuser.Option{{Label: "staging"}, {Label: "production"}}},
		}}
		h := newHarness(t, 80, 22, q, approvalForm(t, irrApproval, "Cleaning up old storage"))
		h.press()
		h.press("pgdown")
		h.press("down")
		h.press("pgup")
		h.press("pgdown")
		h.press("enter")
		h.open(1, "Enter after the approval came back on screen")
		h.press("esc")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Unresolved, Ended: askuser.ReasonDismissed}, h.verdict(1))
		h.press("2", "enter")
		if out := h.outcome(0); out.Status != askuser.StatusAnswered {
			t.Errorf("the question: %s", out.Status)
		}
		h.golden("approval-several-pending")
	})
}

// TestApprovalCtrlC: Ctrl+C dismisses an approval at once, even with the
// confirmation field holding the code: nothing is approved, and the note
// being written is not passed on.
func TestApprovalCtrlC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, irrApproval, ""), approvalForm(t, lowApproval, ""))
		h.press("down", "enter", "type:"+firstCode, "ctrl+c")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Unresolved, Ended: askuser.ReasonDismissed}, h.verdict(0))
		h.press("down", "n", "type:do it", "ctrl+c")
		checkVerdict(t, approvaltool.Verdict{Status: approval.Unresolved, Ended: askuser.ReasonDismissed}, h.verdict(1))
		if got := h.m.frame().text; !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(got, "\n│ ", "\n")), " "), "Dismissed: nothing was decided, and your agent has no permission for: Read the file config/prod.yaml") {
			t.Errorf("the last frame does not say what the approval came to:\n%s", got)
		}
	})
}

// TestApprovalDeadline: what the person chose and did not decide counts
// for nothing: at the deadline the approval is unresolved, with no answer
// and no note, Approve under the cursor, the box ticked and the code
// typed in the field notwithstanding. From the nudge, the countdown says
// so.
func TestApprovalDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := approvalForm(t, irrApproval, "")
		f.TimeoutSeconds = 60
		h := newHarness(t, 80, 24, f)
		h.press("s", "n", "type:fine by me", "enter", "down")
		h.wait(49 * time.Second)
		h.press("enter", "type:"+firstCode)
		h.open(0, "the code typed, without Enter")
		h.wait(12 * time.Second)
		out := h.outcome(0)
		if len(out.Answers) != 0 {
			t.Errorf("the outcome holds answers: %+v", out.Answers)
		}
		checkVerdict(t, approvaltool.Verdict{Status: approval.Unresolved, Ended: askuser.ReasonDeadline}, h.verdict(0))
		h.golden("approval-deadline")
	})
}

// TestFramesApprovalInert: whatever the call writes — action, reason,
// details, narration — is shown with its control characters and escape
// sequences as visible escapes (checkFrame holds every frame to that),
// and so is what the person types in the note.
func TestFramesApprovalInert(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := approval.Request{Action: "Delete\x1b[2K logs\rApproved", Reason: "evil\u202eoof\u009b1m", Risk: approval.RiskHigh,
			Details: "rm -rf /\x1b]52;c;aGk=\a\n\tnext\x1b[1A line\u2066"}
		h := newHarness(t, 80, 20, approvalForm(t, a, "Clean\x1b[H up"))
		h.press("d")
		h.pressAs("n, and a paste of escapes", "n", "paste:a\x1b[31mb\u202ec\r\nd")
		h.golden("approval-inert")
	})
}

// TestApprovalRiskStyles: with colour, an irreversible risk is drawn on a
// red background and a high one in red; without (NO_COLOR) in reverse
// video and underlined, with no colour at all.
func TestApprovalRiskStyles(t *testing.T) {
	bg := regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:4[0-7]|48|10[0-7])(?:;[0-9]+)*m`)
	reverse := regexp.MustCompile(`\x1b\[(?:[0-9]+;)*7(?:;[0-9]+)*m`)
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, approvalForm(t, irrApproval, ""), approvalForm(t, highApproval, ""))
		frames := map[string]string{}
		for _, i := range []int{0, 1} {
			h.m.cur = i
			for name, th := range map[string]theme{"colour": colorTheme(), "mono": monoTheme()} {
				h.m.th = th
				frames[fmt.Sprint(name, i)] = h.m.frame().text
			}
		}
		if !bg.MatchString(frames["colour0"]) {
			t.Error("with colour, the irreversible risk has no background colour")
		}
		if bg.MatchString(frames["colour1"]) || !colourSGR.MatchString(frames["colour1"]) {
			t.Error("with colour, the high risk should be coloured, on no background")
		}
		if !reverse.MatchString(frames["mono0"]) || reverse.MatchString(frames["mono1"]) {
			t.Error("without colour, only the irreversible risk is in reverse video")
		}
		for _, k := range []string{"mono0", "mono1"} {
			if c := colourSGR.FindString(frames[k]); c != "" {
				t.Errorf("the NO_COLOR theme sets a colour: %q", c)
			}
		}
	})
}

// TestApprovalSummaries: what each way an approval can end is shown as,
// from its verdict.
func TestApprovalSummaries(t *testing.T) {
	f, err := approvaltool.Form(lowApproval, 60)
	if err != nil {
		t.Fatal(err)
	}
	ans := func(v, note string) []askuser.FinalAnswer {
		return []askuser.FinalAnswer{{QuestionID: approval.QuestionID, Selected: []string{v}, Note: note}}
	}
	const act = "Read the file config/prod.yaml"
	for _, c := range []struct {
		o    askuser.Outcome
		want string
	}{
		{askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: ans(approval.ApproveOnce, "")}, "Approved, this once: " + act},
		{askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: ans(approval.ApproveSession, "ok\x1b[2J")}, "Approved for the rest of this session: " + act + ` — your note: "ok\x1b[2J"`},
		{askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: ans(approval.DenyOnce, "")}, "Denied: " + act},
		{askuser.Outcome{Reason: askuser.ReasonSubmitted, Answers: ans(approval.DenySession, "")}, "Denied for the rest of this session: " + act},
		{askuser.Outcome{Reason: askuser.ReasonDeclined}, "Denied: " + act},
		{askuser.Outcome{Reason: askuser.ReasonRemembered, Answers: ans(approval.ApproveOnce, "")}, "Approved, as you decided earlier in this session: " + act},
		{askuser.Outcome{Reason: askuser.ReasonPolicy, Answers: ans(approval.DenyOnce, "")}, "Denied by the program's policy: " + act},
		{askuser.Outcome{Reason: askuser.ReasonDeadline, Answers: ans(approval.ApproveOnce, "")}, "Time is up: nothing was decided, and your agent has no permission for: " + act},
		{askuser.Outcome{Reason: askuser.ReasonDismissed}, "Dismissed: nothing was decided, and your agent has no permission for: " + act},
		{askuser.Outcome{Reason: askuser.ReasonSuperseded}, "Withdrawn by the program: nothing was decided, and your agent has no permission for: " + act},
		{askuser.Outcome{Reason: askuser.ReasonUnattended}, "Nobody could be asked: nothing was decided, and your agent has no permission for: " + act},
		{askuser.Outcome{Reason: askuser.ReasonCaller}, "The agent stopped waiting: nothing was decided, and your agent has no permission for: " + act},
		{askuser.Outcome{Reason: askuser.ReasonFault}, "The ask failed: nothing was decided, and your agent has no permission for: " + act},
	} {
		o := c.o
		o.Form = f
		if got := summary(&o); got != c.want {
			t.Errorf("%s %v: %q, want %q", o.Reason, o.Answers, got, c.want)
		}
	}
}
