package tui

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/askuser-go/askuser/internal/inert"
)

// What an editor edits.
type editKind int

const (
	editOther   editKind = iota // a choice's own answer ("Type your own")
	editText                    // a text question's answer
	editNote                    // the question's note
	editOptNote                 // the note on one option
	editConfirm                 // the code that confirms an approval
)

// An editor is the inline text editor, open under the row it edits: a
// bubbles textarea, with the real terminal cursor in it.
type editor struct {
	kind  editKind
	opt   string // the option a note is on (editOptNote)
	multi bool   // Alt+Enter and Ctrl+J insert a newline
	ta    textarea.Model
}

// The editor's prompt, and the most lines it shows at once.
const (
	editorPrompt   = "> "
	editorMaxLines = 8
)

func newEditor(th theme, kind editKind, opt, text string, multi bool, width int) *editor {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = editorPrompt
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = editorMaxLines
	ta.MaxContentHeight = 1 << 10
	ta.EndOfBufferCharacter = ' '
	ta.SetVirtualCursor(false)
	st := th.editorStyles()
	st.Cursor = textarea.CursorStyle{Shape: tea.CursorBar}
	ta.SetStyles(st)
	// Alt+Enter and Ctrl+J are the newline keys; Enter saves. Tab and the
	// keys the textarea would take for paste (Ctrl+V reads the clipboard
	// through the terminal) do nothing.
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j", "shift+enter")
	ta.KeyMap.InsertNewline.SetEnabled(multi)
	ta.KeyMap.Paste.SetEnabled(false)
	ta.KeyMap.CopySelection.SetEnabled(false)
	ta.SetWidth(max(width, len(editorPrompt)+4))
	ta.SetValue(text)
	ta.Focus()
	return &editor{kind: kind, opt: opt, multi: multi, ta: ta}
}

// value is the text in the editor.
func (e *editor) value() string { return e.ta.Value() }

// empty reports whether the editor holds no text at all.
func (e *editor) empty() bool { return e.ta.Value() == "" }

// setWidth fits the editor to width columns.
func (e *editor) setWidth(width int) { e.ta.SetWidth(max(width, len(editorPrompt)+4)) }

// update hands a key or a paste to the textarea. What the person types or
// pastes is made inert first, so that nothing shown in the editor can act
// on the terminal; a single-line editor takes a pasted newline as a space.
func (e *editor) update(msg tea.Msg) {
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		if m.Text != "" {
			if t := e.clean(m.Text); t != m.Text {
				msg = tea.PasteMsg{Content: t}
			}
		}
	case tea.PasteMsg:
		msg = tea.PasteMsg{Content: e.clean(m.Content)}
	}
	e.ta, _ = e.ta.Update(msg)
}

func (e *editor) clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !e.multi {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	return inert.Text(s)
}

// view is the editor's lines.
func (e *editor) view() []string {
	return strings.Split(e.ta.View(), "\n")
}

// cursor is where the terminal cursor goes, relative to the editor's top
// left corner.
func (e *editor) cursor() (x, y int, ok bool) {
	c := e.ta.Cursor()
	if c == nil {
		return 0, 0, false
	}
	return c.X, c.Y, true
}

// A masked field collects a secret: what is typed is kept in bytes the
// field owns, never shown (the field shows only whether something has been
// typed) and wiped when the value is handed over, discarded or the ask
// ends.
type masked struct {
	b []byte
	// stage2 is set while a sensitive choice's own answer is typed, after
	// its picks (held in picks).
	stage2 bool
	picks  []string
}

// key takes one key press; it reports whether the key was the field's.
func (f *masked) key(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "backspace", "ctrl+h":
		if len(f.b) > 0 {
			_, size := utf8.DecodeLastRune(f.b)
			clear(f.b[len(f.b)-size:])
			f.b = f.b[:len(f.b)-size]
		}
		return true
	case "ctrl+u":
		f.wipe()
		return true
	}
	if k.Text != "" && k.Mod&^tea.ModShift == 0 {
		f.add(k.Text)
		return true
	}
	return false
}

// paste takes pasted text, less a trailing newline.
func (f *masked) paste(s string) { f.add(strings.TrimRight(s, "\r\n")) }

// add appends s, moving the bytes to a larger buffer when they do not fit
// and wiping the old one, so that no copy of a secret is left behind.
func (f *masked) add(s string) {
	if len(f.b)+len(s) > cap(f.b) {
		nb := make([]byte, len(f.b), 2*(len(f.b)+len(s))+16)
		copy(nb, f.b)
		clear(f.b[:cap(f.b)])
		f.b = nb
	}
	f.b = append(f.b, s...)
}

// wipe clears what was typed.
func (f *masked) wipe() {
	clear(f.b[:cap(f.b)])
	f.b = f.b[:0]
}
