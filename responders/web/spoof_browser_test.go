package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// linesInGutter is a script that reports whether every line box of the
// element's text starts inside its gutter: right of its left border.
const linesInGutter = `(function (id) {
  var e = document.getElementById(id);
  var box = e.getBoundingClientRect();
  var border = parseFloat(getComputedStyle(e).borderLeftWidth);
  if (!(border > 0)) { return "no gutter"; }
  var r = document.createRange();
  r.selectNodeContents(e);
  var rects = r.getClientRects();
  if (rects.length < 2) { return "the text did not wrap"; }
  for (var i = 0; i < rects.length; i++) {
    if (rects[i].left < box.left + border) { return "line " + i + " starts at " + rects[i].left + ", left of the gutter at " + (box.left + border); }
  }
  return "";
})`

// TestBrowserSpoofedRows: a question and an approval's reason padded to
// wrap into rows of the card's own (with spaces, no-break spaces, and
// zero-width spaces and tags that would pass as nothing): on the card,
// each stands in a gutter that every line of it starts beside; its
// invisible characters are shown as code points; a no-break space is a
// space, so padding collapses; and the reason's runs of spaces collapse.
func TestBrowserSpoofedRows(t *testing.T) {
	ctx, _ := browser(t)
	cs := newCardServer(t)
	pad := strings.Repeat("\u00a0", 40)
	question := "Which environment?" + pad + "› ( ) canary (recommended)" + strings.Repeat(" ", 40) + "hidden\u200b\U000e0041"
	done := cs.askForm("s1", &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
		{ID: "env", Header: "Env", Text: question, Options: []askuser.Option{{Label: "production"}, {Label: "staging"}}},
	}})
	cs.waitPending("s1", 1)
	run(t, ctx, chromedp.Navigate(cs.pageURL("s1")), chromedp.WaitVisible(chromedp.CSS(`#a0-q0-text-q`)))
	if why := eval[string](t, ctx, linesInGutter+`("a0-q0-text-q")`); why != "" {
		t.Errorf("the question's text: %s", why)
	}
	got := eval[string](t, ctx, `document.getElementById("a0-q0-text-q").textContent`)
	if strings.ContainsAny(got, "\u00a0\u200b\U000e0041") || !strings.Contains(got, "hiddenU+200BU+E0041") {
		t.Errorf("the question's text reads %q: its no-break spaces and invisible characters are not shown as such", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#a0-q0-text-q .inv").length`); n != 2 {
		t.Errorf("%d invisible characters are marked, want 2", n)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`#a0-decline`)), chromedp.WaitVisible(chromedp.CSS(`#a0-final`)))
	<-done

	reason := "Routine cleanup." + strings.Repeat(" ", 60) + "▸ Details" + strings.Repeat("\u202f", 60) + "echo harmless\u200d"
	f, err := approvaltool.Form(approval.Request{Action: "Clean up old data", Reason: reason, Risk: approval.RiskHigh, Details: "rm -rf /"}, 60)
	if err != nil {
		t.Fatal(err)
	}
	cs = newApprovalCardServer(t)
	done = cs.askForm("s2", f)
	cs.waitPending("s2", 1)
	run(t, ctx, chromedp.Navigate(cs.pageURL("s2")), chromedp.WaitVisible(chromedp.CSS(`#a0-reason`)))
	if ws := eval[string](t, ctx, `getComputedStyle(document.getElementById("a0-reason")).whiteSpace`); ws != "pre-line" {
		t.Errorf("the reason's white-space is %q, want pre-line (runs of spaces collapse)", ws)
	}
	if border := eval[string](t, ctx, `getComputedStyle(document.getElementById("a0-reason")).borderLeftWidth`); border != "3px" {
		t.Errorf("the reason's gutter is %q wide, want 3px", border)
	}
	// 16 characters, a space, 9, a space, 13 and a mark fit on one line of
	// the card: the padding, collapsed, takes no room.
	if n := eval[int](t, ctx, `(function(){var e=document.getElementById("a0-reason");var cs=getComputedStyle(e);return Math.round(parseFloat(cs.height)/parseFloat(cs.lineHeight));})()`); n != 1 {
		t.Errorf("the reason takes %d lines, want 1: its padding did not collapse", n)
	}
	if got := eval[string](t, ctx, `document.querySelector("#a0-reason .inv") && document.querySelector("#a0-reason .inv").textContent`); got != "U+200D" {
		t.Errorf("the joiner in the reason is shown as %q, want U+200D", got)
	}
	run(t, ctx, chromedp.SendKeys(chromedp.CSS(`#a0-code`), testCode), chromedp.Click(chromedp.CSS(`#a0-deny`)), chromedp.WaitVisible(chromedp.CSS(`#a0-final`)))
	<-done
}
