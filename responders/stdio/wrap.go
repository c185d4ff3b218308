package stdio

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clipperhouse/displaywidth"
	"golang.org/x/term"

	"github.com/askuser-go/askuser/internal/termtext"
)

// continued starts every piece of a line the responder breaks, after the
// first: it says that the line goes on, and no line of the responder's
// own starts with it. Wrapping is the responder's, never the terminal's,
// so that no line it prints can start with what a model put there (a
// question padded to the terminal's width so that it wraps into a fake
// "  1) canary (recommended)").
const continued = "↳ "

// A lineWriter prints to a terminal, breaking every line wider than the
// terminal itself (termtext.Wrap) and starting each piece after the first
// with continued.
type lineWriter struct {
	w     io.Writer
	width func() int // the columns to wrap to; 0 wraps nothing
	cur   string     // what the current line holds so far
}

// print writes text, which holds nothing that acts on a terminal but
// newlines.
func (lw *lineWriter) print(text string) {
	width := lw.width()
	var b strings.Builder
	for i, part := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteByte('\n')
			lw.cur = ""
		}
		if part == "" {
			continue
		}
		if width <= 0 || displaywidth.String(lw.cur+part) <= width {
			b.WriteString(part)
			lw.cur += part
			continue
		}
		lines := termtext.Wrap(part, width, lw.cur, continued)
		lines[0] = strings.TrimPrefix(lines[0], lw.cur)
		// A prompt keeps the space after it, where there is room.
		last := &lines[len(lines)-1]
		if pad := part[len(strings.TrimRight(part, " ")):]; pad != "" && displaywidth.String(*last)+len(pad) <= width {
			*last += pad
		}
		b.WriteString(strings.Join(lines, "\n"))
		if len(lines) > 1 {
			lw.cur = lines[len(lines)-1]
		} else {
			lw.cur += lines[0]
		}
	}
	_, _ = io.WriteString(lw.w, b.String())
}

// typed says the person ended a line: the terminal echoed it, and the
// cursor is at the start of a line.
func (lw *lineWriter) typed() { lw.cur = "" }

// writerFor returns the lineWriter that prints on w, made once per ask.
func (s *asking) writerFor(w io.Writer) *lineWriter {
	for _, lw := range s.writers {
		if lw.w == w {
			return lw
		}
	}
	lw := &lineWriter{w: w, width: func() int { return s.r.columns(w) }}
	s.writers = append(s.writers, lw)
	return lw
}

// fprintf formats and prints on w, wrapped.
func (s *asking) fprintf(w io.Writer, format string, args ...any) {
	s.writerFor(w).print(fmt.Sprintf(format, args...))
}

// columns is the width the responder wraps what it prints on w to:
// Options.Width; or the width of w, when it is a terminal; or else of the
// input or Options.Terminal, when one is; or 0, which wraps nothing.
func (r *Responder) columns(w io.Writer) int {
	if r.width > 0 {
		return r.width
	}
	if f, ok := w.(*os.File); ok {
		if n := terminalColumns(f); n > 0 {
			return n
		}
	}
	for _, f := range []*os.File{r.inTTY, r.tty} {
		if n := terminalColumns(f); n > 0 {
			return n
		}
	}
	return 0
}

// terminalColumns is the width of the terminal f, or 0 when f is none or
// does not say.
func terminalColumns(f *os.File) int {
	if f == nil {
		return 0
	}
	fd, ok := fdOf(f)
	if !ok {
		return 0
	}
	n, _, err := term.GetSize(fd)
	if err != nil {
		return 0
	}
	return n
}
