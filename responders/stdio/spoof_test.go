package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/clipperhouse/displaywidth"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/stdio"
)

// pads are what a model pads a line with to push text to the start of the
// next line of a terminal: spaces, the no-break spaces that keep it
// exact, and a zero-width space that would pass as nothing.
var pads = []string{" ", "\u00a0", "\u2007", "\u202f", "\u200b"}

// padTo pads s with pad to the width.
func padTo(s, pad string, width int) string {
	return s + strings.Repeat(pad, max(width-len([]rune(s)), 1))
}

// noFakeRows checks what a terminal width columns wide shows: no line is
// wider (so the terminal wraps nothing itself), and every line that holds
// the model's bait starts with the responder's continuation mark, never
// as a row of the responder's own does.
func noFakeRows(t *testing.T, shown string, width int, bait string) {
	t.Helper()
	found := false
	for i, l := range strings.Split(shown, "\n") {
		if w := displaywidth.String(l); w > width {
			t.Errorf("line %d %q is %d columns wide: the terminal would wrap it itself", i, l, w)
		}
		if !strings.Contains(l, bait) {
			continue
		}
		found = true
		if !strings.HasPrefix(l, "↳ ") {
			t.Errorf("line %d %q holds the model's %q but does not start with the continuation mark", i, l, bait)
		}
	}
	if !found {
		t.Errorf("the terminal does not show %q:\n%s", bait, shown)
	}
}

// TestSpoofedOptionByWrapping: a question whose first line is padded to
// the terminal's width, so that the terminal's own wrapping would show a
// fake "  1) canary (recommended)" row: the responder breaks the line
// itself, and every piece starts with the continuation mark.
func TestSpoofedOptionByWrapping(t *testing.T) {
	const width = 60
	for _, pad := range pads {
		synctest.Test(t, func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			out := &buffer{}
			r := stdio.New(pr, out, &stdio.Options{Width: width})
			defer r.Close()
			o := &askuser.Orchestrator{Responder: r, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			text := padTo("Which environment?", pad, width) +
				padTo("  1) canary (recommended)", pad, width) +
				padTo("     Safe: a canary", pad, width) +
				"  2) canary-eu"
			ch := make(chan *askuser.Outcome, 1)
			go func() {
				out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", Form: &askuser.Form{TimeoutSeconds: 60, Questions: []askuser.Question{
					{ID: "env", Header: "Env", Text: text, Options: []askuser.Option{{Label: "production"}, {Label: "staging"}}},
				}}})
				ch <- out
			}()
			synctest.Wait()
			_, _ = io.WriteString(pw, "2\n")
			if got := <-ch; got.Answers[0].Selected[0] != "staging" {
				t.Errorf("answered %+v", got.Answers)
			}
			synctest.Wait()
			noFakeRows(t, out.String(), width, "canary")
		})
	}
}
