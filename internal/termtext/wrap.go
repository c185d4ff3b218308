package termtext

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// Wrap breaks text made inert (by inert.Line or inert.Text) into lines of
// at most width columns of a terminal. The first line starts with first
// (a label of the responder's own, or an indent), and every line after it
// with rest, a gutter: the lines of the text after its first, and each
// piece of a line it broke. A responder draws model text with it so that
// the terminal never wraps a line itself (which would start a line with
// whatever the model put there: a fake option, a fake block of details)
// and so that no line of model text but the first starts with anything
// but the gutter, which the responder's own rows never start with.
//
// A line breaks at a run of spaces where the next word does not fit; a
// word wider than a line is broken between two characters (grapheme
// clusters). The spaces at a break, and at the end of a line, are dropped,
// so that padding cannot place text at the start of a line after the
// gutter; the spaces a line of the text starts with are kept (up to the
// width). A tab is expanded to spaces, to the next multiple of eight
// columns of its line. Widths are measured as a terminal does, a wide
// character (CJK, most emoji) taking two columns, an East Asian character
// of ambiguous width one. A line holds at least one character after its
// first or rest, so that a width too small for them still makes progress:
// that is the only case in which a line is wider than width.
func Wrap(text string, width int, first, rest string) []string {
	var w wrapper
	w.width, w.first, w.rest = width, first, rest
	w.fw, w.rw = displaywidth.String(first), displaywidth.String(rest)
	for i, line := range strings.Split(text, "\n") {
		w.logical(expandTabs(line), i > 0)
	}
	w.flush()
	return w.out
}

// A wrapper builds the lines of Wrap.
type wrapper struct {
	width       int
	first, rest string
	fw, rw      int
	out         []string

	cur     strings.Builder
	used    int  // the columns cur takes, gutter included
	content bool // cur holds something after the gutter and the indent
	started bool // cur is a line (the first one may be empty)
	pending int  // the spaces after the last word, put before the next
}

// newLine ends the line being built and starts one with the gutter, or
// starts the first.
func (w *wrapper) newLine() {
	w.flush()
	w.started = true
	if len(w.out) > 0 {
		w.cur.WriteString(w.rest)
		w.used = w.rw
	} else {
		w.cur.WriteString(w.first)
		w.used = w.fw
	}
}

func (w *wrapper) flush() {
	if !w.started {
		return
	}
	w.out = append(w.out, w.cur.String())
	w.cur.Reset()
	w.used, w.content, w.started = 0, false, false
}

// logical adds one line of the text: after a newline of the text when
// later is set.
func (w *wrapper) logical(line string, later bool) {
	if later || !w.started {
		w.newLine()
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	room := 0 // for the first character after the indent
	if g := displaywidth.StringGraphemes(line[indent:]); g.Next() {
		room = max(g.Width(), 1)
	}
	n := min(indent, max(w.width-w.used-room, 0))
	w.cur.WriteString(line[:n])
	w.used += n
	rest := line[indent:]
	for rest != "" {
		word := rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			word = rest[:i]
		}
		rest = rest[len(word):]
		gap := len(rest) - len(strings.TrimLeft(rest, " "))
		rest = rest[gap:]
		if rest == "" {
			gap = 0 // the spaces at the end of a line are dropped
		}
		w.word(word)
		w.pending = gap
	}
}

// word adds a word, after the spaces pending before it.
func (w *wrapper) word(word string) {
	ww := cols(word)
	gap := w.pending
	w.pending = 0
	if !w.content {
		gap = 0
	}
	switch {
	case w.used+gap+ww <= w.width:
		w.spaces(gap)
	case ww <= w.width-w.rw && w.content:
		w.newLine()
	case w.content && w.used+gap+1 <= w.width:
		w.spaces(gap) // a long word starts here and breaks
	case w.content:
		w.newLine()
	}
	if w.used+ww <= w.width {
		w.put(word, ww)
		w.content = true
		return
	}
	g := displaywidth.StringGraphemes(word)
	for g.Next() {
		cw := g.Width()
		if w.used+cw > w.width && w.content {
			w.newLine()
		}
		w.put(g.Value(), cw)
		w.content = true
	}
}

func (w *wrapper) put(s string, n int) {
	w.cur.WriteString(s)
	w.used += n
}

// spaces puts n spaces.
func (w *wrapper) spaces(n int) {
	const run = "                "
	for w.used += n; n > 0; n -= min(n, len(run)) {
		w.cur.WriteString(run[:min(n, len(run))])
	}
}

// cols is the columns s takes on a terminal.
func cols(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return displaywidth.String(s)
		}
	}
	return len(s) // printable ASCII
}

// expandTabs writes each tab of line as the spaces to the next multiple
// of eight columns.
func expandTabs(line string) string {
	if !strings.Contains(line, "\t") {
		return line
	}
	var b strings.Builder
	col := 0
	g := displaywidth.StringGraphemes(line)
	for g.Next() {
		if v := g.Value(); v == "\t" {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteString(g.Value())
		col += g.Width()
	}
	return b.String()
}
