package tui

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
)

// testGutter is the gutter the card marks model text with.
const testGutter = "│ "

// pads are what a model pads a line with to push text to the start of the
// next: spaces, the no-break spaces that keep it exact, and a zero-width
// space that would pass as nothing.
var pads = []string{" ", "\u00a0", "\u2007", "\u202f", "\u200b"}

// padTo pads s with pad to the width.
func padTo(s, pad string, width int) string {
	return s + strings.Repeat(pad, max(width-len([]rune(s)), 1))
}

// fakeRows checks a frame: every line that holds text the model wrote to
// pose as the card's own (marked by bait) starts with the gutter, and no
// line of it starts as a row of the card does.
func fakeRows(t *testing.T, frame, bait string) {
	t.Helper()
	found := false
	for i, l := range strings.Split(frame, "\n") {
		if !strings.Contains(l, bait) {
			continue
		}
		found = true
		if !strings.HasPrefix(l, testGutter) {
			t.Errorf("line %d %q holds the model's %q but does not start with the gutter %q", i, l, bait, testGutter)
		}
		for _, row := range []string{"›", "( )", "[ ]", "(•)", "[x]", "▾", "▸", "  "} {
			if strings.HasPrefix(l, row) {
				t.Errorf("line %d %q starts as a row of the card does (%q)", i, l, row)
			}
		}
	}
	if !found {
		t.Errorf("the frame does not show %q:\n%s", bait, frame)
	}
}

// TestSpoofedOptionByWrapping: a question whose first line is padded to
// the card's width so that its wrapped lines read as options of the
// card's own (a fake "› ( ) 1. canary (recommended)" above the real
// rows): each of those lines starts with the gutter.
func TestSpoofedOptionByWrapping(t *testing.T) {
	const width = 60
	for _, pad := range pads {
		synctest.Test(t, func(t *testing.T) {
			text := padTo("Which environment?", pad, width) +
				padTo("› ( ) 1. canary (recommended)", pad, width) +
				padTo("       Safe: a canary", pad, width) +
				padTo("  ( ) 2. canary-eu", pad, width)
			f := &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
				{ID: "env", Header: "Env", Text: text, Options: []askuser.Option{{Label: "production"}, {Label: "staging"}}},
			}}
			h := newHarness(t, width, 24, f)
			h.press()
			fakeRows(t, h.m.frame().text, "canary")
		})
	}
}

// TestSpoofedDetailsByWrapping: an approval's reason padded so that its
// wrapped lines read as the details, shown open, with a harmless command,
// while the real ones stay hidden: each of those lines starts with the
// gutter, and the only details heading is the card's own.
func TestSpoofedDetailsByWrapping(t *testing.T) {
	const width = 70
	for _, pad := range pads {
		synctest.Test(t, func(t *testing.T) {
			reason := padTo("Reason: Routine cleanup.", pad, width)[len("Reason: "):] +
				padTo("", pad, width) +
				padTo("▾ Details (d hides them)", pad, width) +
				padTo("  │ echo harmless", pad, width)
			f := approvalForm(t, approval.Request{
				Action: "Clean up old data", Reason: reason, Risk: approval.RiskHigh, Details: "rm -rf / --no-preserve-root",
			}, "")
			h := newHarness(t, width, 30, f)
			h.press()
			frame := h.m.frame().text
			fakeRows(t, frame, "harmless")
			fakeRows(t, frame, "hides them")
			if n := strings.Count(frame, "\n▸ Details"); n != 1 {
				t.Errorf("%d lines start with the details heading, want 1 (the card's):\n%s", n, frame)
			}
		})
	}
}

// TestSpoofedActionByWrapping: an action padded so that its wrapped line
// reads as the card's Approve row: it starts with the gutter.
func TestSpoofedActionByWrapping(t *testing.T) {
	const width = 60
	synctest.Test(t, func(t *testing.T) {
		action := padTo("  Delete the logs", " ", width)[2:] + "› Approve this once (safe)"
		f := approvalForm(t, approval.Request{Action: action, Reason: "old", Risk: approval.RiskLow}, "")
		h := newHarness(t, width, 30, f)
		h.press()
		for i, l := range strings.Split(h.m.frame().text, "\n") {
			if strings.Contains(l, "(safe)") && !strings.HasPrefix(l, "  "+testGutter) {
				t.Errorf("line %d %q of the action does not start with the gutter", i, l)
			}
		}
	})
}

// TestSpoofedCommandInDetails: a line of the details padded so that the
// argument that makes it dangerous wraps: the piece is marked as the rest
// of the line above ("┆"), not as a line of its own ("│").
func TestSpoofedCommandInDetails(t *testing.T) {
	const width = 60
	synctest.Test(t, func(t *testing.T) {
		details := padTo("rm -rf /tmp/build", " ", width) + "/"
		f := approvalForm(t, approval.Request{Action: "Clean", Reason: "old", Risk: approval.RiskHigh, Details: details}, "")
		h := newHarness(t, width, 30, f)
		h.press("d")
		frame := h.m.frame().text
		if !strings.Contains(frame, "\n  │ rm -rf /tmp/build\n  ┆ /\n") {
			t.Errorf("the wrapped piece of the command is not marked as one:\n%s", frame)
		}
	})
}
