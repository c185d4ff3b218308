package tui

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/askuser-go/askuser"
)

// deployForm has a question of each kind a person types or picks: a
// single choice with free text, a multi-select whose deadline keeps a
// draft, a text question with a prefill, and an optional multi-line one.
func deployForm() *askuser.Form {
	return &askuser.Form{TimeoutSeconds: 120, Title: "Deploy", HumanIntent: "Deploying the login fix", Questions: []askuser.Question{
		{ID: "env", Header: "Env", Text: "Which environment?", AllowOther: true, Options: []askuser.Option{
			{Label: "staging", Description: "Safe to break"},
			{Label: "production", Description: "Real users", Default: true},
		}},
		{ID: "regions", Header: "Regions", Text: "Which regions?", MultiSelect: true, AllowOther: true, OnDeadline: askuser.FallbackDraft, Options: []askuser.Option{
			{Label: "eu", Description: "Europe"},
			{Label: "us", Description: "America"},
			{Label: "ap", Description: "Asia"},
		}},
		{ID: "branch", Kind: askuser.KindText, Header: "Branch", Text: "Which branch name?", Prefill: "fix/login"},
		{ID: "notes", Kind: askuser.KindText, Header: "Notes", Text: "Release notes?", Multiline: true, Optional: true},
	}}
}

// noSecret leaves the secret value out of comparisons of answers.
var noSecret = cmpopts.IgnoreFields(askuser.Answer{}, "Secret")

// accepted returns what the orchestrator holds for ask i, by question.
func (h *harness) accepted(i int) map[string]askuser.Answer {
	got := map[string]askuser.Answer{}
	for _, a := range h.asks[i].Accepted() {
		got[a.QuestionID] = a
	}
	return got
}

// TestFramesSingleChoice: Up and Down move the cursor (round the free-text
// row), Space selects without confirming (the tab is marked •), a number
// picks and confirms and moves on (✓), and Tab, Shift+Tab, Left and Right
// move between the tabs, round the review tab.
func TestFramesSingleChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press()
		h.press("down")
		h.press("down")
		h.press("down")
		h.press("space")
		if got := h.accepted(0); len(got) != 0 {
			t.Errorf("Space confirmed an answer: %v", got)
		}
		h.press("1")
		h.press("shift+tab")
		h.press("left")
		h.press("left")
		h.press("right", "right", "tab")
		want := askuser.Answer{QuestionID: "env", Selected: []string{"staging"}}
		if diff := cmp.Diff(want, h.accepted(0)["env"], noSecret); diff != "" {
			t.Errorf("the confirmed answer (-want +got):\n%s", diff)
		}
		h.golden("single-choice")
	})
}

// TestFramesMultiSelect: Space and the numbers toggle, the free-text row's
// number opens the editor, Enter there saves the text and selects it
// without leaving the tab, and Enter confirms the picks in pick order.
func TestFramesMultiSelect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press("tab")
		h.press("space")
		h.press("3")
		h.press("2")
		h.press("2")
		h.press("4")
		h.press("type:south asia")
		h.press("enter")
		h.press("space")
		h.press("space")
		h.press("up", "enter")
		want := askuser.Answer{QuestionID: "regions", Selected: []string{"eu", "ap"}, Other: "south asia"}
		if diff := cmp.Diff(want, h.accepted(0)["regions"], noSecret); diff != "" {
			t.Errorf("the confirmed answer (-want +got):\n%s", diff)
		}
		h.golden("multi-select")
	})
}

// TestFramesEditor: the free-text editor's rules. With text in it, the
// arrows move the cursor and Tab stays in it; Esc keeps the text as a
// draft (shown, reported with Ask.Draft, not saved into the answer); with
// the editor empty, Down and Tab navigate; Ctrl+C dismisses the ask at
// once without saving what the editor holds.
func TestFramesEditor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press("3")
		h.press("type:canary")
		h.press("left", "left")
		h.press("tab")
		h.press("esc")
		h.press("enter")
		h.press("ctrl+u")
		h.press("down")
		h.press("up", "enter")
		h.press("tab")
		h.press("4", "type:unsaved")
		h.press("ctrl+c")
		out := h.outcome(0)
		if out.Reason != askuser.ReasonDismissed || out.CancelledOn != "regions" {
			t.Errorf("Ctrl+C ended the ask as %s on %q, want dismissed on regions", out.Reason, out.CancelledOn)
		}
		for _, a := range out.Answers {
			if strings.Contains(a.Other, "unsaved") {
				t.Errorf("Ctrl+C saved the editor's text: %+v", a)
			}
		}
		h.golden("editor")
	})
}

// TestFramesText: a text question is the editor alone, open with the
// prefill; Enter saves and confirms; in a multi-line one Alt+Enter and
// Ctrl+J start a new line.
func TestFramesText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press("left", "left", "left")
		h.press("type:-2")
		h.press("enter")
		h.press("type:line one", "alt+enter", "type:line two", "ctrl+j", "type:three")
		h.press("enter")
		got := h.accepted(0)
		want := map[string]askuser.Answer{
			"branch": {QuestionID: "branch", Other: "fix/login-2"},
			"notes":  {QuestionID: "notes", Other: "line one\nline two\nthree"},
		}
		if diff := cmp.Diff(want, got, noSecret); diff != "" {
			t.Errorf("the confirmed answers (-want +got):\n%s", diff)
		}
		h.golden("text")
	})
}

// TestFramesNotes: n edits the note on the option under the cursor, and
// Shift+N the question's note; both go with the answer (the option's only
// while it is picked), and a note changed on a confirmed tab is reported
// again.
func TestFramesNotes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press("n")
		h.press("type:after 5pm")
		h.press("enter")
		h.press("N", "type:ship it")
		h.press("esc")
		h.press("1")
		h.press("shift+tab", "N", "type: today")
		h.press("enter")
		want := askuser.Answer{QuestionID: "env", Selected: []string{"staging"}, Note: "ship it today", OptionNotes: map[string]string{"staging": "after 5pm"}}
		if diff := cmp.Diff(want, h.accepted(0)["env"], noSecret); diff != "" {
			t.Errorf("the confirmed answer (-want +got):\n%s", diff)
		}
		h.golden("notes")
	})
}

// TestFramesReview: the review tab lists every answer and what is still
// open; Submit with a required question open shows that tab and says so;
// Submit then sends what the tabs show, confirmed or not, and the outcome
// is shown.
func TestFramesReview(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		h.press("tab", "space", "2")
		h.press("left", "left")
		h.press("enter")
		h.press("down", "enter")
		h.press("shift+tab", "shift+tab")
		h.press("down")
		h.press("down")
		h.press("up", "up")
		h.press("enter")
		out := h.outcome(0)
		var got []string
		for _, a := range out.Answers {
			got = append(got, a.QuestionID+"="+strings.Join(a.Selected, ",")+a.Other)
		}
		if diff := cmp.Diff([]string{"env=production", "regions=eu,us", "branch=fix/login"}, got); diff != "" {
			t.Errorf("the submitted answers (-want +got):\n%s", diff)
		}
		if out.Status != askuser.StatusAnswered {
			t.Errorf("status %s, want answered", out.Status)
		}
		h.golden("review")
	})
}

// TestFramesDecline: Decline on the review tab declines the call; Esc on
// a question cancels it, naming that question.
func TestFramesDecline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 16, deployForm(), deployForm())
		h.press("left", "down", "enter")
		if out := h.outcome(0); out.Status != askuser.StatusDeclined || out.AnsweredBy != askuser.ByUser {
			t.Errorf("Decline: %s / %s, want declined / user", out.Status, out.AnsweredBy)
		}
		h.press("tab", "esc")
		if out := h.outcome(1); out.Reason != askuser.ReasonDismissed || out.CancelledOn != "regions" {
			t.Errorf("Esc: %s on %q, want dismissed on regions", out.Reason, out.CancelledOn)
		}
		h.golden("decline-and-esc")
	})
}

// previewForm is a pi-ask preview question: every option has a preview.
func previewForm() *askuser.Form {
	return &askuser.Form{TimeoutSeconds: 120, Contract: "pi-ask", Questions: []askuser.Question{
		{ID: "layout", Header: "Layout", Text: "Which layout for the settings page?", NoDefault: true, Options: []askuser.Option{
			{Value: "tabs", Label: "Tabs", Description: "One tab per section", Preview: "┌ General │ Security │ Billing ┐\n│ Name: [ Ada           ]     │\n│ Mail: [ ada@example.org ]   │\n└─────────────────────────────┘"},
			{Value: "list", Label: "Single list", Preview: "General\n  Name  Ada\n  Mail  ada@example.org\nSecurity\n  2FA   on"},
		}},
	}}
}

// TestFramesPreviewNarrow: under 90 columns the preview of the option
// under the cursor goes under the options.
func TestFramesPreviewNarrow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 70, 24, previewForm())
		h.press()
		h.press("down")
		h.golden("preview-narrow")
	})
}

// TestFramesPreviewWide: from 90 columns it goes beside them.
func TestFramesPreviewWide(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 100, 20, previewForm())
		h.press()
		h.press("down")
		h.press("n", "type:denser")
		h.golden("preview-wide")
	})
}

// TestFramesCountdown: from NudgeAt the countdown says how long is left
// and what the deadline will apply, following what the person confirms;
// at the deadline the outcome says what was applied and by whom.
func TestFramesCountdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := deployForm()
		f.Questions = f.Questions[:2]
		f.TimeoutSeconds = 60
		h := newHarness(t, 80, 24, f)
		h.press()
		h.wait(47 * time.Second) // NudgeAt is 12 s before the deadline
		h.wait(2 * time.Second)
		h.press("tab", "space")
		h.press("shift+tab", "1")
		h.wait(11 * time.Second)
		out := h.outcome(0)
		var got []string
		for _, a := range out.Answers {
			got = append(got, a.QuestionID+" "+string(a.By)+map[bool]string{true: "+draft"}[a.Draft])
		}
		if diff := cmp.Diff([]string{"env user", "regions timeout+draft"}, got); diff != "" {
			t.Errorf("at the deadline (-want +got):\n%s", diff)
		}
		h.golden("countdown")
	})
}

// TestFramesSeveralPending: asks waiting together are counted, PgDn and
// PgUp switch between them, and when one ends the next is shown with a
// line saying what the one before came to.
func TestFramesSeveralPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		second := &askuser.Form{TimeoutSeconds: 120, Title: "Migrate", Questions: []askuser.Question{
			{ID: "now", Header: "When", Text: "Run the migration now?", Options: []askuser.Option{{Label: "now"}, {Label: "tonight", Default: true}}},
		}}
		h := newHarness(t, 80, 20, deployForm(), second)
		h.press()
		h.press("pgdown")
		h.press("2")
		h.press("pgup")
		h.press("pgdown")
		h.press("enter")
		if out := h.outcome(1); out.Status != askuser.StatusAnswered || out.Answers[0].Selected[0] != "tonight" {
			t.Errorf("the second ask: %s %+v", out.Status, out.Answers)
		}
		h.golden("several-pending")
	})
}

// TestFramesSecret: a secret is typed in a masked field that shows only
// whether something is typed, never what; Enter hands it over sealed.
// No frame holds any of it.
func TestFramesSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const typed = "tok-Very-Secret-4-Deploy"
		f := &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{{
			ID: "token", Kind: askuser.KindSecret, Header: "Token", Text: "Paste the deploy token", SecretName: "DEPLOY_TOKEN", Purpose: "to deploy the login fix",
		}}}
		h := newHarness(t, 80, 20, f)
		h.press()
		h.pressAs("(8 characters typed)", "type:"+typed[:8])
		h.pressAs("(backspace, and the rest pasted)", "backspace", "paste:"+typed[7:])
		h.press("tab")
		h.press("enter")
		h.press("enter")
		out := h.outcome(0)
		if out.Status != askuser.StatusAnswered || out.Answers[0].SecretRef != "session:DEPLOY_TOKEN" {
			t.Errorf("outcome %s %+v, want answered with session:DEPLOY_TOKEN", out.Status, out.Answers)
		}
		v, err := h.o.Secrets.Get(context.Background(), "s0", "DEPLOY_TOKEN")
		if err != nil {
			t.Fatal(err)
		}
		if b := v.Reveal(); string(b) != typed {
			t.Errorf("the sealed value is not what was typed (%d bytes, want %d)", len(b), len(typed))
		}
		for _, part := range []string{typed, typed[:8], typed[7:], "Secret-4"} {
			if strings.Contains(h.log.String(), part) {
				t.Errorf("a frame shows part of the secret (%d bytes of it)", len(part))
			}
		}
		h.golden("secret")
	})
}

// TestFramesSensitiveChoice: the options of a sensitive choice are shown,
// but the pick is typed as a number in a masked field, so that no frame
// shows which option was picked.
func TestFramesSensitiveChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{{
			ID: "words", Header: "Words", Text: "Which recovery words?", Sensitive: true, MultiSelect: true, AllowOther: true, SecretName: "WORDS",
			Options: []askuser.Option{{Label: "amber"}, {Label: "teal"}, {Label: "plum"}},
		}}}
		h := newHarness(t, 80, 20, f)
		h.press()
		h.press("type:9")
		h.press("enter")
		h.press("type:3, 1, 4")
		h.press("enter")
		h.pressAs("(typing: ochre)", "type:ochre")
		h.press("enter")
		h.press("enter")
		out := h.outcome(0)
		if out.Status != askuser.StatusAnswered || out.Answers[0].SecretItems != 3 {
			t.Errorf("outcome %s %+v, want answered with 3 sealed items", out.Status, out.Answers)
		}
		v, err := h.o.Secrets.Get(context.Background(), "s0", "WORDS")
		if err != nil {
			t.Fatal(err)
		}
		if b := v.Reveal(); string(b) != `["plum","amber","ochre"]` {
			t.Errorf("the sealed value is not the picks in pick order and the own answer")
		}
		if strings.Contains(strings.ReplaceAll(h.log.String(), "(typing: ochre)", ""), "ochre") {
			t.Error("a frame shows the own answer")
		}
		h.golden("sensitive-choice")
	})
}

// TestFramesInert: whatever the call writes is shown with its control
// characters, escape sequences and bidi controls as visible escapes
// (checkFrame holds every frame to that), and text the person types or
// pastes likewise.
func TestFramesInert(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &askuser.Form{TimeoutSeconds: 120, Title: "Deploy\x1b[2J\x1b]52;c;aGk=\a", HumanIntent: "evil\u202eoof", Questions: []askuser.Question{
			{ID: "env", Header: "E\x1b[31mnv", Text: "Which\rone?\n  1. production (recommended)\n\x9b1m", AllowOther: true, OtherLabel: "Mine\x07", Options: []askuser.Option{
				{Label: "staging\x1b[1A\x1b[2Kproduction", Description: "safe\x00", Preview: "line\x1b[H\nsecond\ttab\xff"},
				{Label: "prod"},
			}},
			{ID: "t", Kind: askuser.KindText, Header: "T", Text: "Text?", Prefill: "pre\x1b[8mfill"},
		}}
		h := newHarness(t, 100, 24, f)
		h.press()
		h.press("3", "paste:a\x1b[31mb\u202ec\r\nd")
		h.press("enter", "tab")
		h.golden("inert")
	})
}

// TestFramesPiContract: where the contract has no notes and no decline
// (the pi contract), n, Shift+N and the Decline button are not offered.
func TestFramesPiContract(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &askuser.Form{TimeoutSeconds: 120, Contract: "pi", Questions: []askuser.Question{
			{ID: "env", Header: "env", Text: "Deploy where?", AllowOther: true, OtherLabel: "Other (type your own)", Options: []askuser.Option{{Label: "staging", Default: true}, {Label: "production"}}},
		}}
		h := newHarness(t, 80, 14, f)
		h.press("n", "N")
		h.press("tab")
		h.golden("pi-contract")
	})
}

// TestFramesScroll: on a short terminal the body scrolls to keep the row
// under the cursor in view, between the tabs and the help line.
func TestFramesScroll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var opts []askuser.Option
		for _, l := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"} {
			opts = append(opts, askuser.Option{Label: l, Description: "the " + l + " option"})
		}
		f := &askuser.Form{TimeoutSeconds: 120, Questions: []askuser.Question{{ID: "pick", Header: "Pick", Text: "Which one?", Options: opts}}}
		h := newHarness(t, 60, 10, f)
		h.press()
		h.press("up")
		h.press("up", "up", "up")
		h.press("7")
		h.golden("scroll")
	})
}
