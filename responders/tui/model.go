package tui

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/challenge"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/secret"
)

// The messages the responder sends the model, besides the terminal's.
type (
	// arrivedMsg: an ask is pending and waits to be shown.
	arrivedMsg struct{ a *askuser.Ask }
	// endedMsg: an ask has ended, with its final outcome.
	endedMsg struct {
		a *askuser.Ask
		o *askuser.Outcome
	}
	// closeMsg: the responder is closing; every pending ask is dismissed.
	closeMsg struct{}
	// tickMsg: the clock, for the countdown.
	tickMsg time.Time
)

// The model is what the terminal shows: the pending asks, one of them on
// screen, and the asks that ended while it ran. Its Update is a function of
// the messages it gets (keys, the size of the terminal, the clock, asks
// arriving and ending) and of what the asks answer when it reports to them
// (Report, Draft, Submit, Decline, Cancel), which is all it does besides
// drawing: it reads no clock and no terminal of its own, so that a test can
// drive it with messages and compare the frames View draws.
type model struct {
	th            theme
	width, height int
	now           time.Time
	asks          []*askView
	cur           int
	// ended are the outcomes of the asks that ended while the model ran,
	// in the order they ended; the responder prints their summaries when
	// the screen is given back.
	ended []*askuser.Outcome
	// banner says what the last ask that ended came to, while another is
	// on screen.
	banner  string
	closing bool
	// drained is closed once the end of the input is marked (see
	// drainedMode); nil where nobody waits for it.
	drained chan struct{}
	ed      *editor // the open editor, or nil
	mask    *masked // the open masked field, or nil
	// codes draws the codes that approve approvals (see drawCode); nil
	// draws from crypto/rand.
	codes *challenge.Source
}

// A askView is one pending ask, as the model shows it.
type askView struct {
	a       *askuser.Ask
	f       *askuser.Form
	qs      []*qstate
	tab     int // a question, or len(qs): the review tab
	button  int // the review tab's button under the cursor
	status  string
	ending  bool     // the person ended it; its outcome is on the way
	lastQ   string   // the id of the question tab last shown
	notesQ  bool     // the contract carries a note on the answer
	notesO  bool     // the contract carries notes on options
	decline bool     // the contract has a decline
	ap      *apState // an approval's card, or nil for questions
}

// A qstate is what the person has done on one question's tab.
type qstate struct {
	q      *askuser.Question
	row    int      // the row under the cursor: an option, or len(Options): the free-text row
	picked []string // option values, in the order picked
	// other is the saved free text (a text question's answer), and otherOn
	// whether it is part of the answer (on a choice, the free-text row is
	// selected).
	other   string
	otherOn bool
	// draft is text left in the free-text editor with Esc: kept, and
	// reported as a draft, but not saved into the answer.
	draft     string
	note      string
	optNotes  map[string]string
	confirmed bool // what the tab shows is what the orchestrator holds
	held      bool // the orchestrator holds an accepted answer
}

func newModel(th theme, now time.Time, width, height int) *model {
	if width <= 0 {
		width = 80
	}
	if height <= 0 {
		height = 24
	}
	return &model{th: th, now: now, width: width, height: height}
}

func newAskView(a *askuser.Ask) *askView {
	f := a.Form()
	av := &askView{a: a, f: f, notesQ: true, notesO: true, decline: true}
	// Where a contract has nowhere to put a note or a decline, the keys
	// for them are not offered: the pi contract has neither, ask_user
	// keeps a note on the answer but none on options.
	switch f.Contract {
	case "pi":
		av.notesQ, av.notesO, av.decline = false, false, false
	case "ask_user":
		av.notesO = false
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		qs := &qstate{q: q}
		if q.Kind == askuser.KindText && !responder.Sealed(q) && q.Prefill != "" {
			qs.other = inert.Text(q.Prefill)
			qs.otherOn = true
		}
		av.qs = append(av.qs, qs)
	}
	if len(f.Questions) > 0 {
		av.lastQ = f.Questions[0].ID
	}
	if f.Approval != nil {
		av.ap = &apState{ap: f.Approval}
	}
	return av
}

// Init does nothing: the responder sends the clock's ticks (a command
// that sleeps would outlive the program).
func (m *model) Init() tea.Cmd { return nil }

// shown is the ask on screen, or nil.
func (m *model) shown() *askView {
	if m.cur < 0 || m.cur >= len(m.asks) {
		return nil
	}
	return m.asks[m.cur]
}

// Update takes one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 5)
		if m.ed != nil {
			m.ed.setWidth(m.editorWidth())
		}
	case tickMsg:
		m.now = time.Time(msg)
	case arrivedMsg:
		m.arrive(msg.a)
	case endedMsg:
		m.end(msg.a, msg.o)
	case closeMsg:
		m.closing = true
		for _, av := range m.asks {
			m.cancel(av)
		}
	case tea.ModeReportMsg:
		if msg.Mode == ansi.DECMode(drainedMode) && m.drained != nil && !closed(m.drained) {
			close(m.drained)
		}
	case tea.PasteMsg:
		m.paste(msg.Content)
	case tea.KeyPressMsg:
		m.key(msg)
	}
	return m, nil
}

func (m *model) arrive(a *askuser.Ask) {
	av := newAskView(a)
	m.drawCode(av)
	m.asks = append(m.asks, av)
	if m.closing {
		m.cancel(av)
	}
	if len(m.asks) == 1 {
		m.cur = 0
		m.enterTab(av)
	}
}

// end takes an ask that has ended off the screen, keeping its outcome.
func (m *model) end(a *askuser.Ask, o *askuser.Outcome) {
	if o != nil {
		m.ended = append(m.ended, o)
		m.banner = summary(o)
	}
	i := slices.IndexFunc(m.asks, func(av *askView) bool { return av.a == a })
	if i < 0 {
		return
	}
	wasShown := i == m.cur
	if wasShown {
		m.discardField()
	}
	m.asks = slices.Delete(m.asks, i, i+1)
	if i < m.cur || m.cur >= len(m.asks) {
		m.cur = max(m.cur-1, 0)
	}
	if av := m.shown(); wasShown && av != nil {
		m.enterTab(av)
	}
}

// switchAsk shows the next (+1) or previous (-1) pending ask.
func (m *model) switchAsk(d int) {
	if len(m.asks) < 2 {
		return
	}
	m.closeField()
	m.cur = (m.cur + d + len(m.asks)) % len(m.asks)
	m.enterTab(m.shown())
}

// paste takes pasted text: into the open editor or masked field, or
// nowhere.
func (m *model) paste(s string) {
	switch {
	case m.mask != nil:
		m.mask.paste(s)
	case m.ed != nil:
		m.ed.update(tea.PasteMsg{Content: s})
	}
}

func (m *model) key(k tea.KeyPressMsg) {
	av := m.shown()
	if av == nil || av.ending {
		return
	}
	m.banner = ""
	s := k.String()
	if s == "ctrl+c" {
		// Dismisses the whole ask at once, even while editing, and saves
		// nothing of what the editor holds.
		m.discardField()
		m.cancel(av)
		return
	}
	if s == "pgdown" || s == "pgup" {
		m.closeField()
		m.switchAsk(map[string]int{"pgdown": 1, "pgup": -1}[s])
		return
	}
	switch {
	case av.ap != nil:
		m.approvalKey(av, k)
	case m.mask != nil:
		m.maskKey(av, k)
	case m.ed != nil:
		m.editorKey(av, k)
	case av.tab == len(av.qs):
		m.reviewKey(av, k)
	default:
		m.questionKey(av, k)
	}
}

// isNav reports whether s moves between tabs, and which way.
func isNav(s string) (int, bool) {
	switch s {
	case "tab", "right":
		return 1, true
	case "shift+tab", "left":
		return -1, true
	}
	return 0, false
}

// moveTab moves to another tab, wrapping round.
func (m *model) moveTab(av *askView, d int) {
	m.closeField()
	n := len(av.qs) + 1
	av.tab = (av.tab + d + n) % n
	av.status = ""
	m.enterTab(av)
}

// enterTab opens what the tab opens by itself: the editor of a text
// question, the masked field of a sealed one.
func (m *model) enterTab(av *askView) {
	if av.ap != nil {
		// An approval comes on screen with nothing chosen, every time,
		// so that no key typed before it was shown (an Enter meant for
		// the ask before it) can decide it.
		av.ap.choice = choiceNone
		return
	}
	if av.tab < len(av.qs) {
		qs := av.qs[av.tab]
		av.lastQ = qs.q.ID
		switch {
		case responder.Sealed(qs.q) && !qs.held:
			m.mask = &masked{}
		case responder.Sealed(qs.q):
		case qs.q.Kind == askuser.KindText && !qs.confirmed:
			m.ed = newEditor(m.th, editText, "", qs.other, qs.q.Multiline, m.editorWidth())
		}
	}
}

// closeField closes the open editor as Esc does (its text kept as a
// draft), and the masked field, wiping what was typed.
func (m *model) closeField() {
	if av := m.shown(); av != nil && m.ed != nil {
		if av.ap != nil {
			m.closeApprovalField(av)
		} else {
			m.saveEditor(av, false)
		}
	}
	m.discardField()
}

// discardField closes the editor and the masked field, keeping nothing.
func (m *model) discardField() {
	m.ed = nil
	if m.mask != nil {
		m.mask.wipe()
		m.mask = nil
	}
}

// questionKey takes a key on a question's tab, with no editor open.
func (m *model) questionKey(av *askView, k tea.KeyPressMsg) {
	qs := av.qs[av.tab]
	q := qs.q
	s := k.String()
	if d, ok := isNav(s); ok {
		m.moveTab(av, d)
		return
	}
	switch s {
	case "esc":
		m.cancel(av)
		return
	case "N", "shift+n":
		if av.notesQ && !responder.Sealed(q) {
			m.ed = newEditor(m.th, editNote, "", qs.note, false, m.editorWidth())
		}
		return
	}
	if responder.Sealed(q) {
		if s == "enter" && !qs.held {
			m.mask = &masked{}
		}
		return
	}
	if q.Kind == askuser.KindText {
		if s == "enter" {
			m.ed = newEditor(m.th, editText, "", qs.other, q.Multiline, m.editorWidth())
		}
		return
	}
	rows := len(q.Options)
	if responder.FreeText(q) {
		rows++
	}
	switch s {
	case "up":
		qs.row = (qs.row - 1 + rows) % rows
	case "down":
		qs.row = (qs.row + 1) % rows
	case "space":
		m.toggle(av, qs, qs.row, false)
	case "enter":
		if qs.row == len(q.Options) {
			m.openOther(qs)
			return
		}
		// Enter confirms what the tab shows: on a multi-select it never
		// checks the row under the cursor, so that a row the person
		// unchecked (or never checked) is never sent.
		if !q.MultiSelect {
			m.pick(av, qs, qs.row)
		}
		m.confirm(av, qs)
	case "n":
		if av.notesO && qs.row < len(q.Options) {
			v := q.Options[qs.row].Value
			m.ed = newEditor(m.th, editOptNote, v, qs.optNotes[v], false, m.editorWidth())
		}
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 9 {
			return
		}
		if n > rows {
			av.status = fmt.Sprintf("There is no row %d here; the rows are 1 to %d.", n, rows)
			return
		}
		qs.row = n - 1
		if !q.MultiSelect && n <= len(q.Options) {
			m.pick(av, qs, n-1)
			m.confirm(av, qs)
			return
		}
		m.toggle(av, qs, n-1, true)
	}
}

// openOther opens the free-text editor, with the saved text or the draft.
func (m *model) openOther(qs *qstate) {
	text := qs.other
	if qs.draft != "" {
		text = qs.draft
	}
	m.ed = newEditor(m.th, editOther, "", text, false, m.editorWidth())
}

// pick selects option i of a single-select, the free text aside.
func (m *model) pick(av *askView, qs *qstate, i int) {
	qs.picked = []string{qs.q.Options[i].Value}
	qs.otherOn = false
	m.changed(av, qs)
}

// toggle acts on row i as Space does: on a multi-select it checks or
// unchecks an option, on a single-select it selects it; on the free-text
// row it selects the saved text, or opens the editor when there is none.
func (m *model) toggle(av *askView, qs *qstate, i int, number bool) {
	q := qs.q
	if i == len(q.Options) {
		if qs.other == "" || number && !q.MultiSelect {
			m.openOther(qs)
			return
		}
		qs.otherOn = !qs.otherOn || !q.MultiSelect
		if qs.otherOn && (!q.MultiSelect || q.OtherExclusive) {
			qs.picked = nil
		}
		m.changed(av, qs)
		return
	}
	if !q.MultiSelect {
		m.pick(av, qs, i)
		return
	}
	v := q.Options[i].Value
	if j := slices.Index(qs.picked, v); j >= 0 {
		qs.picked = slices.Delete(qs.picked, j, j+1)
	} else {
		qs.picked = append(qs.picked, v)
		if q.OtherExclusive {
			qs.otherOn = false
		}
	}
	m.changed(av, qs)
}

// changed follows a change the person made on a tab: the tab is no longer
// confirmed, and what it shows is reported as a draft, so that a deadline
// can keep it where the question's rule says so. A tab left empty, or
// holding what a draft may not be, clears the draft: the deadline must
// not keep what the person has undone.
func (m *model) changed(av *askView, qs *qstate) {
	qs.confirmed = false
	av.status = ""
	if responder.Sealed(qs.q) {
		return
	}
	if ans := qs.draftAnswer(); ans.empty() || av.a.Draft(ans.Answer) != nil {
		_ = av.a.Draft(askuser.Answer{QuestionID: qs.q.ID}) // a draft of nothing forgets it
	}
}

// confirm reports the tab's answer and moves to the next tab. An optional
// question left empty is passed over; a refused answer stays on the tab,
// with the reason.
func (m *model) confirm(av *askView, qs *qstate) {
	ans := qs.answer()
	if ans.empty() {
		if !qs.q.Optional {
			av.status = "Nothing to confirm yet: " + emptyHint(qs.q) + "."
			return
		}
		m.moveTab(av, 1)
		return
	}
	if !m.report(av, qs, ans.Answer) {
		return
	}
	m.moveTab(av, 1)
}

// report reports an answer, and reports whether it was accepted; a
// refusal is shown on the ask.
func (m *model) report(av *askView, qs *qstate, ans askuser.Answer) bool {
	err := av.a.Report(ans)
	var ae *askuser.AnswerError
	switch {
	case err == nil:
		qs.confirmed, qs.held = true, true
		return true
	case errors.As(err, &ae):
		av.status = "Not accepted: " + inert.Line(strings.TrimSuffix(ae.Reason, ".")) + "."
	case errors.Is(err, askuser.ErrAskEnded):
		av.ending = true
	default:
		av.status = "Not accepted: " + inert.Line(err.Error()) + "."
	}
	return false
}

// emptyHint says what an empty answer to q lacks.
func emptyHint(q *askuser.Question) string {
	switch {
	case q.Kind == askuser.KindText:
		return "type an answer"
	case q.MultiSelect && responder.FreeText(q):
		return "check an option (Space or its number) or type your own answer"
	case q.MultiSelect:
		return "check an option (Space or its number)"
	case responder.FreeText(q):
		return "pick an option or type your own answer"
	}
	return "pick an option"
}

// editorKey takes a key while the editor is open.
func (m *model) editorKey(av *askView, k tea.KeyPressMsg) {
	s := k.String()
	switch s {
	case "enter":
		m.saveEditor(av, true)
		return
	case "esc":
		m.saveEditor(av, false)
		m.ed = nil
		return
	}
	if m.ed.empty() {
		// An empty editor lets the navigation keys through, closing it
		// as Esc would.
		if d, ok := isNav(s); ok {
			m.saveEditor(av, false)
			m.moveTab(av, d)
			return
		}
		if (s == "up" || s == "down") && av.tab < len(av.qs) && av.qs[av.tab].q.Kind == askuser.KindChoice {
			m.saveEditor(av, false)
			m.questionKey(av, k)
			return
		}
	}
	if s == "tab" || s == "shift+tab" {
		return // stays in the editor
	}
	m.ed.update(k)
}

// saveEditor saves what the editor holds. With submit (Enter) the text is
// saved into the answer and the tab confirmed (a multi-select's own answer
// is selected and the tab stays); without (Esc) a free-text answer is kept
// as a draft. Notes are saved either way.
func (m *model) saveEditor(av *askView, submit bool) {
	e := m.ed
	qs := av.qs[av.tab]
	text := e.value()
	switch e.kind {
	case editText:
		tab := av.tab
		qs.other, qs.otherOn = text, true
		m.ed = nil
		m.changed(av, qs)
		if submit {
			m.confirm(av, qs)
			if av.tab == tab && !av.ending {
				m.ed = newEditor(m.th, editText, "", qs.other, qs.q.Multiline, m.editorWidth())
			}
		}
		return
	case editOther:
		m.ed = nil
		if !submit {
			qs.draft = ""
			if strings.TrimSpace(text) != "" && text != qs.other {
				qs.draft = text
			}
			m.changed(av, qs)
			return
		}
		qs.draft = ""
		if strings.TrimSpace(text) == "" {
			qs.other, qs.otherOn = "", false
			m.changed(av, qs)
			return
		}
		qs.other, qs.otherOn = text, true
		if !qs.q.MultiSelect || qs.q.OtherExclusive {
			qs.picked = nil
		}
		m.changed(av, qs)
		if !qs.q.MultiSelect {
			m.confirm(av, qs)
		}
		return
	case editNote:
		qs.note = text
	case editOptNote:
		if qs.optNotes == nil {
			qs.optNotes = map[string]string{}
		}
		if strings.TrimSpace(text) == "" {
			delete(qs.optNotes, e.opt)
		} else {
			qs.optNotes[e.opt] = text
		}
	}
	m.ed = nil
	wasConfirmed := qs.confirmed
	m.changed(av, qs)
	if wasConfirmed {
		// The note joins the answer the orchestrator holds.
		if ans := qs.answer(); !ans.empty() {
			m.report(av, qs, ans.Answer)
		}
	}
}

// maskKey takes a key while a masked field is open: a secret question's
// value, or a sensitive choice's picks (typed as numbers) and own answer.
func (m *model) maskKey(av *askView, k tea.KeyPressMsg) {
	qs := av.qs[av.tab]
	s := k.String()
	switch s {
	case "enter":
		m.handOver(av, qs)
		return
	case "esc":
		m.discardField()
		return
	}
	if len(m.mask.b) == 0 && !m.mask.stage2 {
		if d, ok := isNav(s); ok {
			m.moveTab(av, d)
			return
		}
	}
	if m.mask.key(k) {
		av.status = ""
	}
}

// handOver hands what the masked field holds to the orchestrator as a
// secret value, and wipes it.
func (m *model) handOver(av *askView, qs *qstate) {
	f := m.mask
	q := qs.q
	var v secret.Value
	switch {
	case q.Kind == askuser.KindChoice && !f.stage2:
		picks, other, ok := parsePicks(q, string(f.b))
		f.wipe()
		if !ok || len(picks) == 0 && !other {
			av.status = "Not accepted: " + accepted(q) + "."
			return
		}
		f.picks = picks
		if other {
			f.stage2 = true
			av.status = ""
			return
		}
		v = responder.ChoiceSecret(q, picks, "")
	case q.Kind == askuser.KindChoice:
		if strings.TrimSpace(string(f.b)) == "" {
			av.status = "Not accepted: your own answer is empty; type it, or press Esc and pick again."
			return
		}
		v = responder.ChoiceSecret(q, f.picks, string(f.b))
	default:
		b := bytes.TrimSpace(f.b) // a slice of f.b: nothing is copied
		if len(b) == 0 {
			av.status = "Not accepted: the secret is empty; type or paste it, then press Enter."
			return
		}
		v = secret.New(b)
	}
	f.wipe()
	m.mask = nil
	if m.report(av, qs, askuser.Answer{QuestionID: q.ID, Secret: v}) {
		m.moveTab(av, 1)
		return
	}
	if !av.ending {
		m.mask = &masked{}
	}
}

// parsePicks reads what is typed for a sensitive choice (see
// termtext.Picks) and returns the values picked and whether the free-text
// row was.
func parsePicks(q *askuser.Question, s string) (values []string, other, ok bool) {
	picks, other, ok := termtext.Picks(q, s)
	for _, i := range picks {
		values = append(values, q.Options[i].Value)
	}
	return values, other, ok
}

// accepted says what a sensitive choice's field accepts.
func accepted(q *askuser.Question) string {
	n := len(q.Options)
	if responder.FreeText(q) {
		n++
	}
	if q.MultiSelect {
		return fmt.Sprintf("type one or more numbers from 1 to %d, separated by commas, each at most once", n)
	}
	return fmt.Sprintf("type one number from 1 to %d", n)
}

// reviewKey takes a key on the review tab.
func (m *model) reviewKey(av *askView, k tea.KeyPressMsg) {
	s := k.String()
	if d, ok := isNav(s); ok {
		m.moveTab(av, d)
		return
	}
	buttons := av.buttons()
	switch s {
	case "up":
		av.button = (av.button - 1 + len(buttons)) % len(buttons)
	case "down":
		av.button = (av.button + 1) % len(buttons)
	case "esc":
		m.cancel(av)
	case "enter":
		switch buttons[av.button] {
		case "Submit":
			m.submit(av)
		case "Decline":
			m.finish(av, av.a.Decline())
		case "Cancel":
			m.cancel(av)
		}
	}
}

// buttons are the review tab's buttons.
func (av *askView) buttons() []string {
	if av.decline {
		return []string{"Submit", "Decline", "Cancel"}
	}
	return []string{"Submit", "Cancel"}
}

// submit reports every tab whose answer the orchestrator does not hold
// yet, as the tabs show them (text left in a free-text editor with Esc is
// not part of it), and submits. A refused answer or a question that still
// needs one stops it, and shows that tab.
func (m *model) submit(av *askView) {
	for i, qs := range av.qs {
		if qs.confirmed || responder.Sealed(qs.q) {
			continue
		}
		ans := qs.answer()
		if ans.empty() {
			continue
		}
		if !m.report(av, qs, ans.Answer) {
			if !av.ending {
				st := av.status
				av.tab = i
				m.enterTab(av)
				av.status = st
			}
			return
		}
	}
	err := av.a.Submit()
	var ue *askuser.UnansweredError
	if errors.As(err, &ue) {
		var names []string
		first := -1
		for i, qs := range av.qs {
			if slices.Contains(ue.QuestionIDs, qs.q.ID) {
				names = append(names, inert.Line(qs.q.Header))
				if first < 0 {
					first = i
				}
			}
		}
		av.status = "Still to answer: " + strings.Join(names, ", ") + "."
		if first >= 0 {
			st := av.status
			av.tab = first
			m.enterTab(av)
			av.status = st
		}
		return
	}
	m.finish(av, err)
}

// cancel dismisses the ask, as Esc and Ctrl+C do.
func (m *model) cancel(av *askView) {
	onQ := av.lastQ
	if av.tab < len(av.qs) {
		onQ = av.qs[av.tab].q.ID
	}
	if av == m.shown() {
		m.discardField()
	}
	m.finish(av, av.a.Cancel(onQ))
}

// finish follows an ending the person chose: the outcome is on its way.
func (m *model) finish(av *askView, err error) {
	if err == nil || errors.Is(err, askuser.ErrAskEnded) {
		av.ending = true
		av.status = ""
		return
	}
	av.status = "Not done: " + inert.Line(err.Error()) + "."
}

// An answer is an askuser.Answer with the test for nothing in it.
type answer struct{ askuser.Answer }

func (a answer) empty() bool {
	return len(a.Selected) == 0 && strings.TrimSpace(a.Other) == "" && strings.TrimSpace(a.Note) == "" && len(a.OptionNotes) == 0
}

// answer is what the tab holds as the person's answer.
func (qs *qstate) answer() answer {
	return qs.build(false)
}

// draftAnswer is answer, with text left in the editor in place of the
// saved text.
func (qs *qstate) draftAnswer() answer {
	return qs.build(true)
}

func (qs *qstate) build(draft bool) answer {
	a := askuser.Answer{QuestionID: qs.q.ID, Selected: slices.Clone(qs.picked), Note: qs.note}
	switch {
	case draft && qs.draft != "":
		a.Other = qs.draft
	case qs.otherOn:
		a.Other = qs.other
	}
	if strings.TrimSpace(a.Note) == "" {
		a.Note = ""
	}
	for _, v := range qs.picked {
		if n := qs.optNotes[v]; strings.TrimSpace(n) != "" {
			if a.OptionNotes == nil {
				a.OptionNotes = map[string]string{}
			}
			a.OptionNotes[v] = n
		}
	}
	return answer{a}
}

// editorWidth is the width the editor gets.
func (m *model) editorWidth() int {
	w := m.width - 8
	if m.wide() {
		w = m.leftWidth() - 8
	}
	return max(w, 10)
}
