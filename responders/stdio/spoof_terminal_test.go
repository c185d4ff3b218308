//go:build linux

package stdio_test

import (
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// TestSpoofedDetailsOnTerminal: on a real terminal 60 columns wide, an
// approval's reason padded so that the terminal's own wrapping would show
// a second, harmless block of details: the responder wraps to the
// terminal's width, and each piece of the reason starts with the
// continuation mark.
func TestSpoofedDetailsOnTerminal(t *testing.T) {
	const width = 60
	for _, where := range []int{inputAndOutput, beside} {
		for _, pad := range pads {
			g := newTermRig(t, where)
			setColumns(t, g.master, width)
			reason := padTo("Routine cleanup.", pad, width-len("Reason: ")) +
				padTo("Details:", pad, width) +
				padTo("  | echo harmless", pad, width)
			f, err := approvaltool.Form(approval.Request{Action: "Clean up", Reason: reason, Risk: approval.RiskHigh, Details: "rm -rf /"}, 60)
			if err != nil {
				t.Fatal(err)
			}
			ch := g.ask(f)
			g.waitFor(prompt)
			g.typeLine("")
			g.verdict(ch)
			shown := g.shown()
			noFakeRows(t, shown, width, "harmless")
			if n := strings.Count(shown, "\nDetails:"); n != 1 {
				t.Errorf("%s, pad %q: %d lines start with Details:, want 1 (the responder's):\n%s", wheres[where], pad, n, shown)
			}
		}
	}
}

// setColumns makes the pseudo-terminal width columns wide.
func setColumns(t *testing.T, master *os.File, width int) {
	t.Helper()
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(width), Rows: 24}); err != nil {
		t.Fatal(err)
	}
}
