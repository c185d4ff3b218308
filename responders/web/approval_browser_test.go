package web_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responders/web"
)

// These tests decide approvals on the card in Chromium, as a person does:
// reading the risk, opening the details, typing the approval code (and for
// an irreversible action the word approve), and pressing Approve or Deny.

func newApprovalCardServer(t *testing.T) *cardServer {
	t.Helper()
	return newCardServerWith(t, &web.Options{Logger: quiet, ApprovalCode: testCode})
}

func TestBrowserApproveOnce(t *testing.T) {
	ctx, dl := browser(t)
	cs := newApprovalCardServer(t)
	const details = "kubectl rollout restart deploy/login -n prod\nkubectl rollout status deploy/login -n prod"
	f := approvalForm(t, approval.RiskMedium, "Restart the login service", details)
	f.HumanIntent = "Fixing the login outage"
	done := cs.askForm("s1", f)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-approve`)),
	)
	for sel, want := range map[string]string{
		`#a0-title`:  "Your agent asks your permission",
		`#a0-intent`: "Fixing the login outage",
		`#a0-action`: "Restart the login service",
		`#a0-reason`: "It is past its retention",
	} {
		if got := text(t, ctx, sel); got != want {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}
	// The details are behind a disclosure, closed until opened.
	if open := eval[bool](t, ctx, `document.getElementById("a0-details").open || document.getElementById("a0-details-text").checkVisibility()`); open {
		t.Error("the details are open before the person opens them")
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`#a0-details summary`)), chromedp.WaitVisible(chromedp.CSS(`#a0-details-text`)))
	if got := eval[string](t, ctx, `document.getElementById("a0-details-text").textContent`); got != details {
		t.Errorf("the details read %q, want %q", got, details)
	}
	if got := eval[string](t, ctx, `document.getElementById("a0-risk").textContent`); got != "Medium risk" {
		t.Errorf("the risk reads %q", got)
	}
	if got := text(t, ctx, `#a0-approve`); got != "Approve" {
		t.Errorf("the button reads %q", got)
	}
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode),
		chromedp.SendKeys(chromedp.CSS(`#a0-note`), "go ahead"),
		chromedp.Click(chromedp.CSS(`#a0-approve`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	v, out := verdictOf(t, done)
	if v.Status != approval.Approved || v.Remember || v.Note != "go ahead" || out.Principal != "web approval code" {
		t.Errorf("verdict %+v by %q; want approved once, with the note, by the code", v, out.Principal)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Approved, this once.") || !strings.Contains(got, "Your note: go ahead") {
		t.Errorf("the final state reads %q", got)
	}
	if state := eval[string](t, ctx, `document.querySelector("[data-card='0']").getAttribute("data-state")`); state != "approved" {
		t.Errorf("the card's state is %q", state)
	}
	if d := dl.list(); len(d) > 0 {
		t.Errorf("dialogs opened: %q", d)
	}
}

// TestBrowserDenyForSession: the session checkbox makes Deny a denial for
// the session, which the orchestrator remembers.
func TestBrowserDenyForSession(t *testing.T) {
	ctx, _ := browser(t)
	cs := newApprovalCardServer(t)
	f := approvalForm(t, approval.RiskHigh, "Force-push main", "git push --force origin main")
	done := cs.askForm("s1", f)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-deny`)),
		chromedp.Click(chromedp.CSS(`#a0-session`)),
	)
	if a, d := text(t, ctx, `#a0-approve`), text(t, ctx, `#a0-deny`); a != "Approve for this session" || d != "Deny for this session" {
		t.Errorf("with the session box checked the buttons read %q and %q", a, d)
	}
	if got := eval[string](t, ctx, `document.getElementById("a0-risk").textContent`); got != "High risk — Look closely before you approve." {
		t.Errorf("the risk reads %q", got)
	}
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode),
		chromedp.Click(chromedp.CSS(`#a0-deny`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	v, first := verdictOf(t, done)
	if v.Status != approval.Denied || !v.Remember || v.DecidedBy != askuser.ByUser {
		t.Errorf("verdict %+v; want denied for the session by the user", v)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Denied for the rest of this session.") {
		t.Errorf("the final state reads %q", got)
	}
	// The same action again in the session: denied without the card.
	again, err := cs.o.Handle(context.Background(), askuser.Request{Session: "s1", Form: f})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := approvaltool.VerdictOf(again); v.Status != approval.Denied || v.DecidedBy != askuser.ByRemembered || v.RememberedFrom != first.AskID {
		t.Errorf("asked again: %+v; want denied, remembered", v)
	}
}

// TestBrowserIrreversible: the risk is loudest, Approve stays disabled
// until the person types approve, and a wrong code is refused on the card
// before the right one decides.
func TestBrowserIrreversible(t *testing.T) {
	ctx, dl := browser(t)
	dl.allowConsole("the server responded with a status of 403") // the wrong code
	cs := newApprovalCardServer(t)
	done := cs.askForm("s1", approvalForm(t, approval.RiskIrreversible, "Delete the bucket logs-2019", "gsutil rm -r gs://logs-2019"))
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-approve`)),
	)
	if got := eval[string](t, ctx, `document.getElementById("a0-risk").textContent`); got != "Irreversible — This cannot be undone." {
		t.Errorf("the risk reads %q", got)
	}
	if bg := eval[string](t, ctx, `getComputedStyle(document.getElementById("a0-risk")).backgroundColor`); bg == "rgba(0, 0, 0, 0)" || bg == "transparent" {
		t.Errorf("the irreversible risk has no background of its own (%s)", bg)
	}
	disabled := func() bool { return eval[bool](t, ctx, `document.getElementById("a0-approve").disabled`) }
	if !disabled() {
		t.Error("Approve is enabled before the person typed approve")
	}
	run(t, ctx, chromedp.SendKeys(chromedp.CSS(`#a0-confirm`), "appro"))
	if !disabled() {
		t.Error("Approve is enabled with half the word typed")
	}
	if eval[bool](t, ctx, `document.getElementById("a0-deny").disabled`) {
		t.Error("Deny is disabled: a denial needs no confirmation")
	}
	run(t, ctx, chromedp.SendKeys(chromedp.CSS(`#a0-confirm`), "ve"))
	if disabled() {
		t.Error("Approve is still disabled with approve typed")
	}
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), "1111-1111"),
		chromedp.Click(chromedp.CSS(`#a0-approve`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-err`)),
	)
	if got := text(t, ctx, `#a0-err`); !strings.Contains(got, "the approval code is wrong; 4 attempts left") {
		t.Errorf("the card says %q after a wrong code", got)
	}
	if v := eval[string](t, ctx, `document.getElementById("a0-code").value`); v != "" {
		t.Errorf("the wrong code stays in its field: %q", v)
	}
	if len(cs.o.Pending("s1")) != 1 {
		t.Fatal("a wrong code ended the approval")
	}
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode),
		chromedp.Click(chromedp.CSS(`#a0-approve`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	if v, _ := verdictOf(t, done); v.Status != approval.Approved || v.Remember {
		t.Errorf("verdict %+v; want approved once", v)
	}
	if got := text(t, ctx, `#a0-final`); !strings.Contains(got, "Approved, this once.") {
		t.Errorf("the final state reads %q", got)
	}
}

// TestBrowserApprovalTimeout: the countdown says nothing will be decided,
// and at the deadline the card says nothing was.
func TestBrowserApprovalTimeout(t *testing.T) {
	ctx, _ := browser(t)
	cs := newApprovalCardServer(t)
	f, err := approvaltool.Form(approval.Request{Action: "Restart the database", Reason: "To apply the patch", Risk: approval.RiskHigh}, 2)
	if err != nil {
		t.Fatal(err)
	}
	done := cs.askForm("s1", f)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-countdown`)),
	)
	if got := text(t, ctx, `#a0-countdown`); !strings.Contains(got, "Then nothing is decided, and your agent has no permission.") {
		t.Errorf("the countdown reads %q", got)
	}
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS(`#a0-final`)))
	if v, _ := verdictOf(t, done); v.Status != approval.Unresolved || v.Ended != askuser.ReasonDeadline {
		t.Errorf("verdict %+v; want unresolved at the deadline", v)
	}
	if got := text(t, ctx, `#a0-final`); got != "Time ran out: nothing was decided, and your agent has no permission." {
		t.Errorf("the final state reads %q", got)
	}
}

// TestBrowserApprovalInjectionIsInert: script-injection payloads in every
// string of an approval show as text and run nothing.
func TestBrowserApprovalInjectionIsInert(t *testing.T) {
	ctx, dl := browser(t)
	cs := newApprovalCardServer(t)
	p := strings.Join(payloads, " ")
	f, err := approvaltool.Form(approval.Request{Action: strings.Join(payloads[:4], " "), Reason: p, Risk: approval.RiskIrreversible, Details: p + "\n" + p}, 60)
	if err != nil {
		t.Fatal(err)
	}
	f.Title, f.HumanIntent = p, p
	done := cs.askForm("s1", f)
	cs.waitPending("s1", 1)
	run(t, ctx,
		chromedp.Navigate(cs.pageURL("s1")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-deny`)),
		chromedp.Click(chromedp.CSS(`#a0-details summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-details-text`)),
		chromedp.SendKeys(chromedp.CSS(`#a0-note`), payloads[1]),
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode),
		chromedp.Click(chromedp.CSS(`#a0-deny`)),
		chromedp.WaitVisible(chromedp.CSS(`#a0-final`)),
	)
	state := checkInert(t, ctx, dl)
	for _, pl := range payloads {
		if !strings.Contains(state.Text, pl) {
			t.Errorf("the payload %q is not shown as text:\n%s", pl, state.Text)
		}
	}
	if v, _ := verdictOf(t, done); v.Status != approval.Denied || v.Note != payloads[1] {
		t.Errorf("verdict %+v; want denied, with the note as typed", v)
	}
}

// TestScreenshotApproval writes a screenshot of an irreversible approval's
// card to the PNG file named by $ASKUSER_WEB_APPROVAL_SCREENSHOT
// (docs/web-card-approval.png in the repository):
//
//	ASKUSER_WEB_APPROVAL_SCREENSHOT=$PWD/docs/web-card-approval.png go test -run TestScreenshotApproval ./responders/web/
func TestScreenshotApproval(t *testing.T) {
	file := os.Getenv("ASKUSER_WEB_APPROVAL_SCREENSHOT")
	if file == "" {
		t.Skip("set ASKUSER_WEB_APPROVAL_SCREENSHOT to the PNG file to write")
	}
	ctx, _ := browser(t)
	cs := newApprovalCardServer(t)
	f, err := approvaltool.Form(approval.Request{
		Action:  "Delete the bucket gs://logs-2019",
		Reason:  "It is past its two-year retention and costs $40 a month",
		Risk:    approval.RiskIrreversible,
		Details: "gsutil rm -r gs://logs-2019\n\n1,204 objects, 88 GiB\n  2019-01/  2019-02/  …  2019-12/",
	}, 30)
	if err != nil {
		t.Fatal(err)
	}
	f.HumanIntent = "Cleaning up old storage"
	cs.askForm("demo", f)
	cs.waitPending("demo", 1)
	run(t, ctx,
		chromedp.EmulateViewport(440, 1000, chromedp.EmulateScale(2)),
		chromedp.Navigate(cs.pageURL("demo")),
		chromedp.WaitVisible(chromedp.CSS(`#a0-approve`)),
		chromedp.Click(chromedp.CSS(`#a0-details summary`)),
		chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode),
		chromedp.SendKeys(chromedp.CSS(`#a0-confirm`), "appro"),
		chromedp.Blur(chromedp.CSS(`#a0-confirm`)),
		chromedp.Sleep(300*time.Millisecond),
	)
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
