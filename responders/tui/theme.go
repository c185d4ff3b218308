package tui

import (
	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"
)

// A theme says how the parts of a frame are styled. Every mark that
// carries meaning (the cursor "›", "(•)", "[x]", "✓", brackets round the
// active tab) is text, so a frame reads the same without any style: the
// styles only add emphasis.
type theme struct {
	plain    bool // no style at all: what the golden frames are drawn with
	title    lipgloss.Style
	active   lipgloss.Style // the active tab, the row under the cursor
	dim      lipgloss.Style // descriptions, hints
	mark     lipgloss.Style // (recommended), ✓
	warn     lipgloss.Style // the countdown
	problem  lipgloss.Style // a refusal
	keyStyle lipgloss.Style // key names in the help line
	// The risk of an approval, loudest for what cannot be undone.
	riskLow, riskMedium, riskHigh, riskIrreversible lipgloss.Style
}

// plainTheme styles nothing: a frame is plain text, with no escape
// sequence at all.
func plainTheme() theme { return theme{plain: true} }

// monoTheme emphasises with bold, faint and reverse video, and no colour
// (NO_COLOR).
func monoTheme() theme {
	s := lipgloss.NewStyle
	return theme{
		title:    s().Bold(true),
		active:   s().Bold(true),
		dim:      s().Faint(true),
		mark:     s().Bold(true),
		warn:     s().Bold(true),
		problem:  s().Bold(true).Underline(true),
		keyStyle: s().Bold(true),

		riskLow:          s(),
		riskMedium:       s().Bold(true),
		riskHigh:         s().Bold(true).Underline(true),
		riskIrreversible: s().Bold(true).Reverse(true),
	}
}

// colorTheme is the default.
func colorTheme() theme {
	s := lipgloss.NewStyle
	return theme{
		title:    s().Bold(true).Foreground(lipgloss.Color("12")),
		active:   s().Bold(true).Foreground(lipgloss.Color("14")),
		dim:      s().Faint(true),
		mark:     s().Foreground(lipgloss.Color("11")),
		warn:     s().Bold(true).Foreground(lipgloss.Color("11")),
		problem:  s().Bold(true).Foreground(lipgloss.Color("9")),
		keyStyle: s().Bold(true),

		riskLow:          s().Foreground(lipgloss.Color("10")),
		riskMedium:       s().Bold(true).Foreground(lipgloss.Color("11")),
		riskHigh:         s().Bold(true).Foreground(lipgloss.Color("9")),
		riskIrreversible: s().Bold(true).Foreground(lipgloss.Color("15")).Background(lipgloss.Color("1")),
	}
}

// paint renders s in st, or returns s as it is in the plain theme.
func (t theme) paint(st lipgloss.Style, s string) string {
	if t.plain || s == "" {
		return s
	}
	return st.Render(s)
}

// editorStyles styles the editor: no line highlight, no colour behind the
// text; the prompt in the active style.
func (t theme) editorStyles() textarea.Styles {
	var st textarea.StyleState
	if !t.plain {
		st.Prompt = t.active
		st.Placeholder = t.dim
	}
	return textarea.Styles{Focused: st, Blurred: st}
}
