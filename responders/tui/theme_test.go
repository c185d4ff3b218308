package tui

import (
	"regexp"
	"testing"
	"testing/synctest"
)

// colourSGR matches a select-graphic-rendition sequence that sets a
// colour (30-37, 38, 40-47, 48, 90-97, 100-107).
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]+)*m`)

// TestNoColor: the default theme colours the card; with NoColor (NO_COLOR)
// it is emphasised by bold, faint and underline only; the golden frames'
// theme writes no escape sequence at all.
func TestNoColor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, 80, 24, deployForm())
		frames := map[string]string{}
		for name, th := range map[string]theme{"colour": colorTheme(), "mono": monoTheme(), "plain": plainTheme()} {
			h.m.th = th
			frames[name] = h.m.frame().text
		}
		if !colourSGR.MatchString(frames["colour"]) {
			t.Error("the default theme sets no colour")
		}
		if c := colourSGR.FindString(frames["mono"]); c != "" {
			t.Errorf("the NO_COLOR theme sets a colour: %q", c)
		}
		if !regexp.MustCompile(`\x1b\[1m`).MatchString(frames["mono"]) {
			t.Error("the NO_COLOR theme emphasises nothing")
		}
		if regexp.MustCompile("\x1b").MatchString(frames["plain"]) {
			t.Error("the plain theme writes an escape sequence")
		}
	})
}
