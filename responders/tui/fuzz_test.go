package tui

import (
	"strings"
	"testing"
	"testing/synctest"
	"unicode"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
)

// FuzzParsePicks: whatever is typed for a sensitive choice, the picks are
// options of the question, each at most once, at most one for a single
// choice, and nothing typed that is not a list of row numbers is
// accepted.
func FuzzParsePicks(f *testing.F) {
	for _, s := range []string{"", "1", "2, 3", "1 1", "4", "0", "-1", "1,,2", " 3 ", "1\t2", "٣", "+1", "01", "99999999999999999999"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, typed string, multi bool) {
		q := &askuser.Question{ID: "q", MultiSelect: multi, AllowOther: true, Options: []askuser.Option{{Value: "a", Label: "a"}, {Value: "b", Label: "b"}, {Value: "c", Label: "c"}}}
		values, other, ok := parsePicks(q, typed)
		if !ok {
			if values != nil || other {
				t.Errorf("%q: refused, but with picks %v %v", typed, values, other)
			}
			return
		}
		n := len(values)
		if other {
			n++
		}
		if !multi && n > 1 {
			t.Errorf("%q: a single choice took %d picks", typed, n)
		}
		seen := map[string]bool{}
		for _, v := range values {
			if q.Option(v) == nil || seen[v] {
				t.Errorf("%q: pick %q is not an option, or picked twice", typed, v)
			}
			seen[v] = true
		}
		for _, r := range typed {
			if !(r >= '0' && r <= '9' || r == ',' || unicode.IsSpace(r)) {
				t.Errorf("%q: accepted, though it holds %q", typed, r)
			}
		}
	})
}

// fuzzKeys are the keys FuzzFrames presses, one per byte of its input.
var fuzzKeys = []string{
	"up", "down", "left", "right", "tab", "shift+tab", "enter", "space", "1", "2", "3", "4", "5",
	"n", "N", "alt+enter", "backspace", "type:ab", "paste:x\x1by\r\n\u202ez", "esc", "pgdown", "home", "ctrl+u",
}

// FuzzFrames: whatever a call writes (its title, narration, header,
// question text, labels, descriptions, previews, free-text label, prefill)
// and whatever keys are pressed, every frame fits the terminal and holds
// no control character but its newlines: nothing the call wrote can act
// on the terminal.
func FuzzFrames(f *testing.F) {
	f.Add("Deploy\x1b[2J", "E\x1b]52;c;aGk=\a", "Which\rone?\n1. prod", "staging\u202e", "safe\x00\x9b", "diff\x1b[H\n\tline\xff", []byte{1, 8, 6, 0, 17, 18, 6, 4, 6})
	f.Add("", "H", "Q?", "a", "", "", []byte{14, 17, 6, 2, 2, 2, 6})
	f.Add("t", "wide 表情 😀", strings.Repeat("long ", 40), strings.Repeat("x", 200), "d", "p", []byte{8, 9, 10, 11, 12, 15, 16, 4, 5})
	f.Fuzz(func(t *testing.T, title, header, text, label, desc, preview string, keys []byte) {
		if len(keys) > 64 {
			keys = keys[:64]
		}
		form := &askuser.Form{TimeoutSeconds: 60, Title: title, HumanIntent: header, Questions: []askuser.Question{
			{ID: "c", Header: "C" + header, Text: "T" + text, AllowOther: true, OtherLabel: label, MultiSelect: len(keys)%2 == 1, Options: []askuser.Option{
				{Value: "a", Label: "L" + label, Description: desc, Preview: preview},
				{Value: "b", Label: "M" + desc},
			}},
			{ID: "t", Kind: askuser.KindText, Header: "T", Text: text + "?", Prefill: label, Multiline: true},
		}}
		if _, err := askuser.Normalize(form, dialect.Limits{}); err != nil {
			t.Skip(err)
		}
		width := 20 + len(title)%100
		height := 5 + len(text)%30
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, width, height, form)
			h.shot("")
			for _, k := range keys {
				h.press(fuzzKeys[int(k)%len(fuzzKeys)])
			}
		})
	})
}

// approvalKeys are the keys FuzzApprovalFrames presses: every key of the
// card, and text that is not the code.
var approvalKeys = []string{
	"up", "down", "enter", "esc", "s", "d", "j", "k", "shift+down", "shift+up", "n", "1", "y", "space",
	"tab", "left", "backspace", "ctrl+u", "type:approv", "type:yes", "paste:x\x1by\r\n\u202ez", "pgdown",
}

// FuzzApprovalFrames: whatever an approval's call writes (its action,
// reason, details, narration) and whatever keys are pressed, every frame
// fits the terminal and holds no control character but its newlines, and
// nothing is approved: the code was never typed (these keys never type
// it).
func FuzzApprovalFrames(f *testing.F) {
	f.Add("Delete\x1b[2K", "why\u202e", "rm -rf /\n\tx\x1b]52;c;aGk=\a", "intent\r", uint8(3), []byte{1, 2, 6, 7, 4, 8, 2, 19, 18, 2})
	f.Add("a", "b", "", "", uint8(0), []byte{1, 2, 1, 2})
	f.Add(strings.Repeat("long ", 40), strings.Repeat("why ", 100), strings.Repeat("line\n", 200), "表情 😀", uint8(2), []byte{5, 6, 6, 6, 7, 9, 10, 0, 2})
	f.Fuzz(func(t *testing.T, action, reason, details, intent string, risk uint8, keys []byte) {
		if len(keys) > 64 {
			keys = keys[:64]
		}
		form, err := approvaltool.Form(approval.Request{Action: action, Reason: reason, Details: details, Risk: approval.Risks()[int(risk)%4]}, 60)
		if err != nil {
			t.Skip(err)
		}
		form.HumanIntent = intent
		if _, err := askuser.Normalize(form, dialect.Limits{}); err != nil {
			t.Skip(err)
		}
		width := 20 + len(action)%100
		height := 5 + len(reason)%30
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, width, height, form)
			h.shot("")
			for _, k := range keys {
				h.press(approvalKeys[int(k)%len(approvalKeys)])
			}
			h.settle()
			select {
			case <-h.asks[0].Done():
				v, _ := approvaltool.VerdictOf(h.asks[0].Outcome())
				if v.Status == approval.Approved {
					t.Errorf("approved, though no key typed the code %s", firstCode)
				}
			default:
			}
		})
	})
}
