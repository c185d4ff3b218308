package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
)

// An approval asks a person for permission to act. It gets a card of its
// own, with no tabs and no review: the risk, the action, the reason, the
// details (behind a key), Approve and Deny with nothing chosen, a "for
// this session" box, and a note. Nothing the person does on it reaches
// the orchestrator before they decide: no draft, no answer; the decision
// is reported and submitted at once, so that nothing picked and left
// standing can count.
//
// Approve asks for the card's code, drawn at random and shown on the
// card: a program that shares the terminal can type into it but cannot
// read it, so no sequence of keys it can type approves. A wrong code
// draws a new one and asks again, once; a second wrong code denies.

// The rows of an approval's card the cursor can rest on. It starts on
// none: an approval has no default.
const (
	choiceNone = iota
	choiceApprove
	choiceDeny
)

// An apState is what the person has done on an approval's card.
type apState struct {
	ap      *approval.Request
	choice  int  // choiceNone, choiceApprove or choiceDeny: the row under the cursor
	session bool // "for this session" is ticked
	details bool // the details are shown
	scroll  int  // the first line of the details shown
	note    string
	code    string // what approves: typed in the confirmation field
	missed  bool   // a wrong code was typed: the next one denies
}

func (s *apState) irreversible() bool { return s.ap.Risk == approval.RiskIrreversible }

// drawCode draws the code of an approval that arrives.
func (m *model) drawCode(av *askView) {
	if av.ap != nil {
		av.ap.code = m.codeSource().Code()
	}
}

// codeSource is where the codes come from.
func (m *model) codeSource() *challenge.Source {
	if m.codes == nil {
		m.codes = challenge.System()
	}
	return m.codes
}

// CanTakeApprovals reports whether the responder is given approvals: only
// when its input is a real terminal, where a person types, never a pipe
// or a reader a program fills, and its output a terminal too, where the
// approval's code is shown to the person and to no program; and only
// until it is closed.
func (r *Responder) CanTakeApprovals() bool {
	if r.inTTY == nil || !r.outTTY {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.closed
}

// approvalKey takes a key on an approval's card.
func (m *model) approvalKey(av *askView, k tea.KeyPressMsg) {
	s := k.String()
	ap := av.ap
	if m.ed != nil {
		m.approvalEditorKey(av, k)
		return
	}
	switch s {
	case "esc":
		m.cancel(av)
	case "up":
		ap.choice = map[int]int{choiceNone: choiceDeny, choiceApprove: choiceDeny, choiceDeny: choiceApprove}[ap.choice]
		av.status = ""
	case "down":
		ap.choice = map[int]int{choiceNone: choiceApprove, choiceApprove: choiceDeny, choiceDeny: choiceApprove}[ap.choice]
		av.status = ""
	case "s":
		ap.session = !ap.session
		av.status = ""
	case "d":
		if ap.ap.Details != "" {
			ap.details = !ap.details
		}
	case "j", "shift+down":
		m.scrollDetails(av, 1)
	case "k", "shift+up":
		m.scrollDetails(av, -1)
	case "n":
		m.ed = newEditor(m.th, editNote, "", ap.note, false, m.editorWidth())
	case "enter":
		switch ap.choice {
		case choiceNone:
			av.status = "Nothing is chosen: move to Approve or Deny with ↑↓, then press Enter. Esc dismisses without deciding."
		case choiceDeny:
			m.decide(av, false)
		case choiceApprove:
			m.ed = newEditor(m.th, editConfirm, "", "", false, m.editorWidth())
			av.status = ""
		}
	default:
		if s == "space" || len(s) == 1 && (s[0] >= '0' && s[0] <= '9' || s == "y" || s == "Y") {
			av.status = "No single key decides an approval: move to Approve or Deny with ↑↓, then press Enter."
		}
	}
}

// approvalEditorKey takes a key while the note's editor or the
// confirmation field is open on an approval's card.
func (m *model) approvalEditorKey(av *askView, k tea.KeyPressMsg) {
	switch k.String() {
	case "enter":
		if m.ed.kind == editConfirm {
			m.confirmCode(av)
			return
		}
		m.closeApprovalField(av)
	case "esc":
		m.closeApprovalField(av)
		av.status = ""
	case "tab", "shift+tab":
		// stays in the field
	default:
		m.ed.update(k)
		av.status = ""
	}
}

// confirmCode takes what is typed in the confirmation field: the code
// approves; nothing typed says what to type; anything else is a wrong
// code, which draws a new one and asks again, or, the second time,
// denies this once.
func (m *model) confirmCode(av *askView) {
	ap := av.ap
	typed := m.ed.value()
	switch {
	case challenge.Match(ap.code, typed):
		m.ed = nil
		m.decide(av, true)
	case strings.TrimSpace(typed) == "":
		av.status = "Type the code " + ap.code + ", then Enter, to approve; Esc closes the field."
	case !ap.missed:
		ap.missed = true
		m.codeSource().Missed()
		ap.code = m.codeSource().Code()
		m.ed = newEditor(m.th, editConfirm, "", "", false, m.editorWidth())
		av.status = "Not approved: that is not the code. The new code is " + ap.code + "; another wrong code denies."
	default:
		m.codeSource().Missed()
		m.ed = nil
		ap.session = false // the wrong code denies this once, never for the session
		m.decide(av, false)
	}
}

// closeApprovalField closes the open field: the note is kept (on the card,
// not reported), the confirmation field's text is dropped.
func (m *model) closeApprovalField(av *askView) {
	if m.ed != nil && m.ed.kind == editNote {
		av.ap.note = m.ed.value()
	}
	m.ed = nil
}

// decide reports the person's decision, with their note, and submits it
// at once.
func (m *model) decide(av *askView, approve bool) {
	ap := av.ap
	v := approval.DenyOnce
	switch {
	case approve && ap.session:
		v = approval.ApproveSession
	case approve:
		v = approval.ApproveOnce
	case ap.session:
		v = approval.DenySession
	}
	ans := askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{v}, Note: strings.TrimSpace(ap.note)}
	if !m.report(av, av.qs[0], ans) {
		return
	}
	m.finish(av, av.a.Submit())
}

// scrollDetails moves the details shown by d lines.
func (m *model) scrollDetails(av *askView, d int) {
	ap := av.ap
	if !ap.details {
		return
	}
	n := len(m.detailLines(ap))
	ap.scroll = min(max(ap.scroll+d, 0), max(n-m.detailRows(av), 0))
}

// detailRows is how many lines of details the card shows at once: what
// the terminal has room for once everything else on the card is drawn
// (so that the action stays in view as the details scroll), and at least
// three.
func (m *model) detailRows(av *askView) int {
	var b body
	m.approvalBody(av, &b, 0)
	used := len(m.headLines(av)) + len(b.lines) + len(m.footLines(av)) + 1 // and the line that says which are shown
	return max(m.height-used, 3)
}

// detailLines are the details, made inert, each line marked "│ " and
// wrapped to the card, each piece of a line it wraps marked "┆ ", so that
// a wrapped line reads as one (a command that goes on) and not as two.
func (m *model) detailLines(ap *apState) []string {
	var out []string
	for l := range strings.SplitSeq(inert.Text(strings.TrimRight(ap.ap.Details, "\n")), "\n") {
		out = append(out, termtext.Wrap(strings.ReplaceAll(l, "\t", "    "), max(m.width, 10), "  │ ", "  ┆ ")...)
	}
	return out
}

// riskLine says how much harm the action can do in words, as the line
// based terminal does, loudest for what cannot be undone; the theme adds
// colour.
func (m *model) riskLine(r approval.Risk) string {
	var st lipgloss.Style
	switch r {
	case approval.RiskIrreversible:
		st = m.th.riskIrreversible
	case approval.RiskHigh:
		st = m.th.riskHigh
	case approval.RiskMedium:
		st = m.th.riskMedium
	case approval.RiskLow:
		st = m.th.riskLow
	}
	return m.th.paint(st, termtext.Risk(r))
}

// approvalHead is the top of an approval's card, which never scrolls: the
// risk.
func (m *model) approvalHead(av *askView) []string {
	return wrap(m.riskLine(av.ap.ap.Risk), m.width)
}

// approvalBody draws an approval's card, with at most rows lines of the
// details when they are shown.
func (m *model) approvalBody(av *askView, b *body, rows int) {
	ap := av.ap
	a := ap.ap
	b.add("Your agent asks your permission to:")
	for i, l := range wrapped(inert.Line(a.Action), m.width-2, "") {
		if i > 0 {
			l = strings.TrimPrefix(l, gutter)
			b.add("  " + gutter + m.th.paint(m.th.title, l))
			continue
		}
		b.add("  " + m.th.paint(m.th.title, l))
	}
	b.add(wrapped(inert.Line(a.Reason), m.width, "Reason: ")...)
	if a.Details != "" {
		n := strings.Count(strings.TrimRight(a.Details, "\n"), "\n") + 1
		b.add("")
		if !ap.details {
			b.add("▸ Details: " + plural(n, "line") + ", hidden " + m.th.paint(m.th.dim, "(d shows them)"))
		} else {
			b.add("▾ Details " + m.th.paint(m.th.dim, "(d hides them)"))
			lines := m.detailLines(ap)
			start := min(ap.scroll, max(len(lines)-rows, 0))
			b.add(lines[start:min(start+rows, len(lines))]...)
			if len(lines) > rows && rows > 0 {
				b.add(m.th.paint(m.th.dim, "  lines "+strconv.Itoa(start+1)+"–"+strconv.Itoa(min(start+rows, len(lines)))+" of "+strconv.Itoa(len(lines))+" · j/k scroll"))
			}
		}
	}
	b.add("")
	box := "[ ]"
	if ap.session {
		box = "[x]"
	}
	b.focus = len(b.lines)
	b.add(wrap(box+" For this session "+m.th.paint(m.th.dim, "(s): remember your decision for this same action"), m.width)...)
	b.add("")
	when := "this once"
	if ap.session {
		when = "for this session"
	}
	row := func(choice int, label string) {
		mark, st := "  ", m.th.dim
		if ap.choice == choice {
			mark, st = "› ", m.th.active
			b.focus = len(b.lines)
		}
		for i, l := range wrap(label, m.width-4) {
			if i == 0 {
				b.add(m.th.paint(st, mark+l))
			} else {
				b.add("    " + l)
			}
		}
	}
	row(choiceApprove, "Approve "+when+" (then type the code "+ap.code+")")
	if m.ed != nil && m.ed.kind == editConfirm {
		ask := "Type " + ap.code + ", then Enter, to approve:"
		if ap.irreversible() {
			ask = "This cannot be undone. Type " + ap.code + ", then Enter, to approve it:"
		}
		b.add(wrap("      "+m.th.paint(m.th.problem, ask), m.width)...)
		m.editorLines(b, 6)
	}
	row(choiceDeny, "Deny "+when)
	if m.codeSource().Injectable() {
		b.add("")
		b.add(wrap(m.th.paint(m.th.dim, "This system lets any program on this terminal type into it: only the code shown here approves."), m.width)...)
	}
	switch {
	case m.ed != nil && m.ed.kind == editNote:
		b.add("", m.th.paint(m.th.dim, "Your note for your agent:"))
		m.editorLines(b, 2)
	case strings.TrimSpace(ap.note) != "":
		b.add("", "Your note: "+inert.Line(ap.note))
	}
}

// approvalHelp lists the keys that work on an approval's card.
func (m *model) approvalHelp(av *askView, b func(k, desc string)) {
	ap := av.ap
	switch {
	case m.ed != nil && m.ed.kind == editConfirm:
		b("enter", "approve")
		b("esc", "close")
	case m.ed != nil:
		b("enter/esc", "save the note")
	default:
		b("↑↓", "choose")
		b("enter", "do it")
		b("s", "for this session")
		if ap.ap.Details != "" {
			b("d", "details")
			if ap.details {
				b("j/k", "scroll")
			}
		}
		b("n", "note")
		b("esc", "dismiss")
		return
	}
	b("ctrl+c", "dismiss")
}

// approvalSummary says how an approval ended, from its verdict, and what
// it was for: the card that showed the action is gone when this is shown.
func approvalSummary(o *askuser.Outcome) string {
	v, _ := approvaltool.VerdictOf(o)
	s := termtext.Verdict(v)
	if v.Status == approval.Unresolved {
		s += " for: "
	} else {
		s += ": "
	}
	s += inert.Line(o.Form.Approval.Action)
	if v.Note != "" {
		s += " — your note: " + quoted(v.Note)
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
