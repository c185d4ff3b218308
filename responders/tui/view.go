package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
)

// wideAt is the width from which a preview is drawn beside the options
// rather than under them.
const wideAt = 90

// wide reports whether the shown question's preview goes beside its
// options.
func (m *model) wide() bool {
	if m.width < wideAt {
		return false
	}
	av := m.shown()
	if av == nil || av.tab >= len(av.qs) {
		return false
	}
	return hasPreview(av.qs[av.tab].q)
}

// leftWidth is the width of the options' column when the preview is
// beside them.
func (m *model) leftWidth() int { return m.width * 11 / 20 }

func hasPreview(q *askuser.Question) bool {
	if responder.Sealed(q) {
		return false
	}
	return slices.ContainsFunc(q.Options, func(o askuser.Option) bool { return o.Preview != "" })
}

// View draws the frame on the alternate screen, with the terminal's cursor
// in the editor when one is open.
func (m *model) View() tea.View {
	f := m.frame()
	v := tea.NewView(f.text)
	v.AltScreen = true
	if f.cursor {
		c := tea.NewCursor(f.x, f.y)
		c.Shape = tea.CursorBar
		c.Blink = false
		v.Cursor = c
	}
	return v
}

// A frame is what View draws: the text, and where the cursor is.
type frame struct {
	text   string
	cursor bool
	x, y   int
}

// body is the part of a frame that scrolls: its lines, the line to keep
// on screen, and where the editor is, if it is open.
type body struct {
	lines []string
	focus int
	edTop int // the editor's first line, or -1
	edX   int // the column the editor starts at
}

func (b *body) add(s ...string) { b.lines = append(b.lines, s...) }

func (m *model) frame() frame {
	var head, foot []string
	av := m.shown()
	b := body{edTop: -1}
	if av == nil {
		switch {
		case len(m.ended) > 0:
			o := m.ended[len(m.ended)-1]
			if t := titleLine(o.Form); t != "" {
				head = append(head, m.th.paint(m.th.title, t))
			}
			b.add(wrapped(summary(o), m.width, "")...)
		default:
			b.add("Waiting for a question…")
		}
		return m.compose(head, b, foot)
	}
	head = m.headLines(av)
	switch {
	case av.ending:
		b.add("Ending…")
	case av.ap != nil:
		m.approvalBody(av, &b, m.detailRows(av))
	case av.tab == len(av.qs):
		m.reviewBody(av, &b)
	default:
		m.questionBody(av, av.qs[av.tab], &b)
	}
	foot = m.footLines(av)
	return m.compose(head, b, foot)
}

// headLines are the top of the frame of an ask on screen, which never
// scrolls: the title, the count of asks waiting, what the ask before came
// to, the tabs (an approval's risk), and a rule.
func (m *model) headLines(av *askView) []string {
	var head []string
	if t := titleLine(av.f); t != "" {
		head = append(head, m.th.paint(m.th.title, t))
	}
	if len(m.asks) > 1 {
		head = append(head, fmt.Sprintf("Ask %d of %d waiting · PgUp/PgDn switches between them", m.cur+1, len(m.asks)))
	}
	if m.banner != "" {
		head = append(head, wrapped(m.banner, m.width, "An ask ended. ")...)
	}
	if av.ap != nil {
		head = append(head, m.approvalHead(av)...)
	} else {
		head = append(head, m.tabBar(av))
	}
	return append(head, strings.Repeat("─", m.width))
}

// footLines are the bottom of the frame of an ask on screen: what was
// refused, the countdown, and the keys.
func (m *model) footLines(av *askView) []string {
	var foot []string
	if av.status != "" {
		foot = append(foot, m.paintAll(m.th.problem, wrapped(av.status, m.width, ""))...)
	}
	if !av.f.NudgeAt.IsZero() && !m.now.Before(av.f.NudgeAt) && !av.ending {
		foot = append(foot, m.paintAll(m.th.warn, wrapped(countdown(av, m.now), m.width, ""))...)
	}
	return append(foot, m.helpLines(av)...)
}

// compose fits head, body and foot to the terminal: every line cut to its
// width, and the body cut to the lines left, keeping its focus line (and
// the editor's cursor) in view.
func (m *model) compose(head []string, b body, foot []string) frame {
	room := max(m.height-len(head)-len(foot), 1)
	start := 0
	if len(b.lines) > room {
		keep := b.focus
		if b.edTop >= 0 && m.ed != nil {
			if _, cy, ok := m.ed.cursor(); ok {
				keep = b.edTop + cy
			}
		}
		start = min(max(keep-room/2, 0), len(b.lines)-room)
	}
	end := min(start+room, len(b.lines))
	lines := make([]string, 0, m.height)
	lines = append(lines, head...)
	lines = append(lines, b.lines[start:end]...)
	for len(lines) < len(head)+room && len(lines)+len(foot) < m.height {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Truncate(l, m.width, "…"), " ")
	}
	f := frame{text: strings.Join(lines, "\n")}
	if m.ed != nil && b.edTop >= 0 {
		if cx, cy, ok := m.ed.cursor(); ok {
			y := b.edTop + cy
			if y >= start && y < end {
				f.cursor, f.x, f.y = true, min(b.edX+cx, m.width-1), len(head)+y-start
			}
		}
	}
	return f
}

// titleLine is the form's title and the agent's narration, made inert.
func titleLine(f *askuser.Form) string {
	var parts []string
	if f.Title != "" {
		parts = append(parts, inert.Line(f.Title))
	}
	if f.HumanIntent != "" {
		parts = append(parts, inert.Line(f.HumanIntent))
	}
	return strings.Join(parts, " — ")
}

// tabBar names the tabs: ✓ a confirmed answer, • an answer not confirmed
// yet, ○ nothing; the active tab in brackets.
func (m *model) tabBar(av *askView) string {
	var parts []string
	for i, qs := range av.qs {
		name := tabMark(qs) + " " + ansi.Truncate(inert.Line(qs.q.Header), 20, "…")
		parts = append(parts, m.tabName(name, i == av.tab))
	}
	parts = append(parts, m.tabName("Review", av.tab == len(av.qs)))
	return strings.Join(parts, " ")
}

func (m *model) tabName(name string, active bool) string {
	if active {
		return m.th.paint(m.th.active, "["+name+"]")
	}
	return " " + name + " "
}

func tabMark(qs *qstate) string {
	switch {
	case qs.confirmed:
		return "✓"
	case qs.held, !responder.Sealed(qs.q) && !qs.draftAnswer().empty():
		return "•"
	}
	return "○"
}

// questionText writes a question's text: its first line as it is and
// every later line, and every piece of a line it wraps, marked with the
// gutter, so that no line of it can pose as a row of the card's own.
func (m *model) questionText(b *body, text string, width int) {
	for i, l := range wrapped(inert.Text(strings.TrimSpace(text)), width, "") {
		if i == 0 {
			l = m.th.paint(m.th.title, l)
		}
		b.add(l)
	}
}

func (m *model) questionBody(av *askView, qs *qstate, b *body) {
	q := qs.q
	m.questionText(b, q.Text, m.width)
	switch {
	case responder.Sealed(q):
		m.sealedBody(qs, b)
	case q.Kind == askuser.KindText:
		m.textBody(qs, b)
	default:
		m.choiceBody(av, qs, b)
	}
	if strings.TrimSpace(qs.note) != "" || m.ed != nil && m.ed.kind == editNote {
		b.add("")
		if m.ed != nil && m.ed.kind == editNote {
			b.add(m.th.paint(m.th.dim, "Your note on this question:"))
			m.editorLines(b, 2)
		} else {
			b.add("Your note: " + inert.Line(qs.note))
		}
	}
}

// editorLines adds the open editor, indented.
func (m *model) editorLines(b *body, indent int) {
	pad := strings.Repeat(" ", indent)
	b.edTop, b.edX = len(b.lines), indent
	b.focus = len(b.lines)
	for _, l := range m.ed.view() {
		b.add(pad + l)
	}
}

func (m *model) choiceBody(av *askView, qs *qstate, b *body) {
	q := qs.q
	var rows body
	rows.edTop = -1
	rec := map[string]bool{}
	for _, v := range responder.DeclaredDefaults(q) {
		rec[v] = true
	}
	mark := func(on bool) string {
		switch {
		case q.MultiSelect && on:
			return "[x]"
		case q.MultiSelect:
			return "[ ]"
		case on:
			return "(•)"
		}
		return "( )"
	}
	cursor := func(i int) string {
		if i == qs.row {
			return "› "
		}
		return "  "
	}
	rows.add("")
	for i, o := range q.Options {
		line := cursor(i) + mark(slices.Contains(qs.picked, o.Value)) + " " + strconv.Itoa(i+1) + ". " + inert.Line(o.Label)
		if i == qs.row {
			line = m.th.paint(m.th.active, line)
			rows.focus = len(rows.lines)
		}
		if rec[o.Value] {
			line += " " + m.th.paint(m.th.mark, "(recommended)")
		}
		rows.add(line)
		if o.Description != "" {
			rows.add("       " + m.th.paint(m.th.dim, inert.Line(o.Description)))
		}
		if m.ed != nil && m.ed.kind == editOptNote && m.ed.opt == o.Value {
			rows.add("       " + m.th.paint(m.th.dim, "Your note on this option:"))
			m.editorLines(&rows, 7)
		} else if n := qs.optNotes[o.Value]; strings.TrimSpace(n) != "" {
			rows.add("       note: " + inert.Line(n))
		}
	}
	if responder.FreeText(q) {
		i := len(q.Options)
		line := cursor(i) + mark(qs.otherOn) + " " + strconv.Itoa(i+1) + ". " + otherLabel(q)
		if qs.other != "" {
			line += ": " + quoted(qs.other)
		}
		if i == qs.row {
			line = m.th.paint(m.th.active, line)
			rows.focus = len(rows.lines)
		}
		rows.add(line)
		switch {
		case m.ed != nil && m.ed.kind == editOther:
			m.editorLines(&rows, 7)
		case qs.draft != "":
			rows.add("       " + m.th.paint(m.th.dim, "not saved: "+quoted(qs.draft)+" (Enter on this row to edit it)"))
		}
	}

	var preview []string
	if qs.row < len(q.Options) && hasPreview(q) {
		o := q.Options[qs.row]
		preview = append(preview, m.th.paint(m.th.dim, "Preview of "+inert.Line(o.Label)+":"))
		if o.Preview == "" {
			preview = append(preview, m.th.paint(m.th.dim, "(none for this option)"))
		}
		for l := range strings.SplitSeq(inert.Text(strings.TrimRight(o.Preview, "\n")), "\n") {
			if o.Preview != "" {
				preview = append(preview, "│ "+strings.ReplaceAll(l, "\t", "    "))
			}
		}
	}
	base := len(b.lines)
	switch {
	case preview == nil:
		b.add(rows.lines...)
	case m.wide():
		lw := m.leftWidth()
		right := append([]string{""}, preview...)
		for i := 0; i < max(len(rows.lines), len(right)); i++ {
			var l, r string
			if i < len(rows.lines) {
				l = rows.lines[i]
			}
			if i < len(right) {
				r = right[i]
			}
			l = ansi.Truncate(l, lw-1, "…")
			b.add(l + strings.Repeat(" ", max(lw-ansi.StringWidth(l), 1)) + r)
		}
	default:
		b.add(rows.lines...)
		b.add("")
		b.add(preview...)
	}
	b.focus = base + rows.focus
	if rows.edTop >= 0 {
		b.edTop, b.edX = base+rows.edTop, rows.edX
		b.focus = b.edTop
	}
}

// otherLabel is the label of the free-text row, made inert.
func otherLabel(q *askuser.Question) string {
	if q.OtherLabel != "" {
		return inert.Line(q.OtherLabel)
	}
	return "Something else"
}

func (m *model) textBody(qs *qstate, b *body) {
	q := qs.q
	if q.Multiline {
		b.add(m.th.paint(m.th.dim, "Alt+Enter or Ctrl+J starts a new line; Enter saves."))
	}
	b.add("")
	if m.ed != nil && m.ed.kind == editText {
		m.editorLines(b, 2)
		return
	}
	if qs.other == "" {
		b.add(m.th.paint(m.th.dim, "  (no answer yet: press Enter to type one)"))
		return
	}
	for l := range strings.SplitSeq(inert.Text(qs.other), "\n") {
		b.add("  │ " + l)
	}
	if !qs.confirmed {
		b.add(m.th.paint(m.th.dim, "  (not confirmed: press Enter to edit it and Enter again to confirm)"))
	}
}

func (m *model) sealedBody(qs *qstate, b *body) {
	q := qs.q
	if q.Purpose != "" {
		b.add("For: " + inert.Line(q.Purpose))
	}
	b.add(m.paintAll(m.th.dim, wrapped("The answer is sealed as session:"+inert.Line(responder.SealName(q))+"; the agent sees only that name, never the value. What you type is never shown.", m.width, ""))...)
	b.add("")
	prompt := "Secret"
	if q.Kind == askuser.KindChoice {
		for i, o := range q.Options {
			line := "  " + strconv.Itoa(i+1) + ". " + inert.Line(o.Label)
			if o.Description != "" {
				line += " — " + m.th.paint(m.th.dim, inert.Line(o.Description))
			}
			b.add(line)
		}
		if responder.FreeText(q) {
			b.add("  " + strconv.Itoa(len(q.Options)+1) + ". " + otherLabel(q))
		}
		b.add("")
		prompt = "Your pick (its number)"
		if q.MultiSelect {
			prompt = "Your picks (their numbers, with commas)"
		}
		if m.mask != nil && m.mask.stage2 {
			prompt = otherLabel(q)
		}
	}
	b.focus = len(b.lines)
	switch {
	case qs.held:
		b.add(wrapped(prompt+": handed over, sealed.", m.width, "")...)
	case m.mask == nil:
		b.add(wrapped(prompt+": press Enter to type it.", m.width, "")...)
	case len(m.mask.b) == 0:
		b.add(wrapped(prompt+": nothing typed yet; typing is hidden", m.width, "")...)
	default:
		b.add(wrapped(prompt+": •••• (typing is hidden)", m.width, "")...)
	}
}

func (m *model) reviewBody(av *askView, b *body) {
	b.add(m.th.paint(m.th.title, "Review"), "")
	for _, qs := range av.qs {
		b.add(tabMark(qs) + " " + inert.Line(qs.q.Header) + ": " + reviewAnswer(qs))
		if n := strings.TrimSpace(qs.note); n != "" && !responder.Sealed(qs.q) {
			b.add("    note: " + inert.Line(qs.note))
		}
		for _, v := range qs.picked {
			if n := qs.optNotes[v]; strings.TrimSpace(n) != "" {
				b.add("    note on " + inert.Line(qs.q.Option(v).Label) + ": " + inert.Line(n))
			}
		}
	}
	b.add("")
	for i, name := range av.buttons() {
		line := "  " + name
		if i == av.button {
			line = m.th.paint(m.th.active, "› "+name)
			b.focus = len(b.lines)
		}
		b.add(line)
	}
}

// reviewAnswer says what a tab holds, for the review.
func reviewAnswer(qs *qstate) string {
	q := qs.q
	if responder.Sealed(q) {
		if qs.held {
			return "handed over, sealed"
		}
		return "still open"
	}
	a := qs.answer()
	var vals []string
	if len(a.Selected) > 0 {
		vals = append(vals, labels(q, a.Selected))
	}
	if strings.TrimSpace(a.Other) != "" {
		vals = append(vals, quoted(a.Other))
	}
	s := strings.Join(vals, " + ")
	switch {
	case s == "" && !a.empty():
		s = "a note only"
	case s == "" && qs.held:
		return "your confirmed answer stays as it was"
	case s == "" && q.Optional:
		return "no answer (optional)"
	case s == "":
		return "still open"
	}
	if !qs.confirmed {
		s += " (not confirmed: Submit sends it)"
	}
	return s
}

// helpLines list the keys that work where the person is, wrapped to
// the width between items.
func (m *model) helpLines(av *askView) []string {
	type item struct{ key, desc string }
	var bs []item
	b := func(k, desc string) { bs = append(bs, item{k, desc}) }
	switch {
	case av.ending:
		return nil
	case av.ap != nil:
		m.approvalHelp(av, b)
	case m.mask != nil:
		b("enter", "hand over")
		b("esc", "discard")
		b("ctrl+c", "dismiss")
	case m.ed != nil:
		b("enter", "save")
		b("esc", "keep as draft")
		if m.ed.multi {
			b("alt+enter", "new line")
		}
		b("ctrl+c", "dismiss")
	case av.tab == len(av.qs):
		b("↑↓", "choose")
		b("enter", "do it")
		b("tab", "questions")
		b("esc", "cancel")
	default:
		q := av.qs[av.tab].q
		switch {
		case responder.Sealed(q):
			b("enter", "type it")
		case q.Kind == askuser.KindText:
			b("enter", "edit")
		default:
			n := len(q.Options)
			if responder.FreeText(q) {
				n++
			}
			nums := "1-" + strconv.Itoa(min(n, 9))
			b("↑↓", "move")
			if q.MultiSelect {
				b("space/"+nums, "toggle")
			} else {
				b(nums, "pick")
			}
			b("enter", "confirm")
			if av.notesO {
				b("n", "note")
			}
		}
		if av.notesQ && !responder.Sealed(q) {
			b("N", "question note")
		}
		b("tab", "next")
		b("esc", "cancel")
	}
	if len(m.asks) > 1 {
		b("pgdn", "next ask")
	}
	var lines []string
	line := ""
	for _, it := range bs {
		s := m.th.paint(m.th.keyStyle, it.key) + " " + m.th.paint(m.th.dim, it.desc)
		switch {
		case line == "":
			line = s
		case ansi.StringWidth(line)+3+ansi.StringWidth(s) > m.width:
			lines = append(lines, line)
			line = s
		default:
			line += m.th.paint(m.th.dim, " · ") + s
		}
	}
	return append(lines, line)
}

// wrap wraps s, the card's own words (which may be styled), to width,
// breaking words only where they do not fit. Text that holds anything a
// model wrote is wrapped by wrapped instead.
func wrap(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, max(width, 10), ""), "\n")
}

// gutter starts every line of model text after its first on the card:
// the later lines of a text, and the pieces of a line the card wraps. No
// row of the card's own starts with it, and the model cannot put it at
// the start of a line, so no line of model text can pose as one of the
// card's rows (a fake option, a fake block of details).
const gutter = "│ "

// wrapped wraps text made inert, which holds what a model wrote (and may
// start with first, the card's own label), to width: every line after the
// first starts with the gutter (termtext.Wrap).
func wrapped(text string, width int, first string) []string {
	return termtext.Wrap(text, max(width, 10), first, gutter)
}

// paintAll paints each line in st.
func (m *model) paintAll(st lipgloss.Style, lines []string) []string {
	for i, l := range lines {
		lines[i] = m.th.paint(st, l)
	}
	return lines
}
