package tui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/askuser-go/askuser"
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

// confirmWord is what the person types before they approve an action that
// cannot be undone, as on the web card.
const confirmWord = "approve"

// The rows of an approval's card the cursor can rest on. It starts on
// none: an approval has no default.
const (
	choiceNone = iota
	choiceApprove
	choiceDeny
)

// An apState is what the person has done on an approval's card.
type apState struct {
	ap      *askuser.Approval
	choice  int  // choiceNone, choiceApprove or choiceDeny: the row under the cursor
	session bool // "for this session" is ticked
	details bool // the details are shown
	scroll  int  // the first line of the details shown
	note    string
}

func (s *apState) irreversible() bool { return s.ap.Risk == askuser.RiskIrreversible }

// CanTakeApprovals reports whether the responder is given approvals: only
// when its input is a real terminal, where a person types, never a pipe
// or a reader a program fills, and only until it is closed.
func (r *Responder) CanTakeApprovals() bool {
	if r.inTTY == nil {
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
			if ap.irreversible() {
				m.ed = newEditor(m.th, editConfirm, "", "", false, m.editorWidth())
				av.status = ""
				return
			}
			m.decide(av, true)
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
			if !strings.EqualFold(strings.TrimSpace(m.ed.value()), confirmWord) {
				av.status = "Not approved: type " + confirmWord + " in full, then Enter; Esc closes the field."
				return
			}
			m.ed = nil
			m.decide(av, true)
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
	v := askuser.DenyOnce
	switch {
	case approve && ap.session:
		v = askuser.ApproveSession
	case approve:
		v = askuser.ApproveOnce
	case ap.session:
		v = askuser.DenySession
	}
	ans := askuser.Answer{QuestionID: askuser.ApprovalQuestionID, Selected: []string{v}, Note: strings.TrimSpace(ap.note)}
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
func (m *model) riskLine(r askuser.Risk) string {
	var st lipgloss.Style
	switch r {
	case askuser.RiskIrreversible:
		st = m.th.riskIrreversible
	case askuser.RiskHigh:
		st = m.th.riskHigh
	case askuser.RiskMedium:
		st = m.th.riskMedium
	case askuser.RiskLow:
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
	approve := "Approve " + when
	if ap.irreversible() {
		approve += " (then type " + confirmWord + " to confirm)"
	}
	row(choiceApprove, approve)
	if m.ed != nil && m.ed.kind == editConfirm {
		b.add(wrap("      "+m.th.paint(m.th.problem, "This cannot be undone. Type "+confirmWord+", then Enter, to approve it:"), m.width)...)
		m.editorLines(b, 6)
	}
	row(choiceDeny, "Deny "+when)
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
	v, _ := askuser.ApprovalVerdict(o)
	s := termtext.Verdict(v)
	if v.Status == askuser.Unresolved {
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
