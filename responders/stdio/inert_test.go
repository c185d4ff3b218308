package stdio_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/askuser-go/askuser"
)

// classes are the kinds of sequence a model (or a person) can put in a
// string to act on a terminal instead of being read on it, with how the
// responder shows each: as visible escapes.
var classes = []struct {
	name, raw, shown string
}{
	{"CSI cursor moves", "\x1b[2A\x1b[2K", `\x1b[2A\x1b[2K`},
	{"OSC 52 ended by BEL", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\a`},
	{"OSC 52 ended by ST", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`},
	{"CR overwrite", "production\rstaging", `production\rstaging`},
	{"backspaces", "prod\b\b\b\bstag", `prod\b\b\b\bstag`},
	{"DEL", "a\x7fb", `a\x7fb`},
	{"C1 CSI", "\u009b2A", `\u009b2A`},
	{"right-to-left override", "\u202eexe.txt", `\u202eexe.txt`},
	{"invalid UTF-8", "\xff\xfe", `\xff\xfe`},
	{"a newline in a one-line field", "a\nb", `a\nb`},
	{"zero-width space and joiner", "a\u200bb\u200dc", `a\u200bb\u200dc`},
	{"a text hidden in tags", "\U000e0068\U000e0069", `\U000e0068\U000e0069`},
	{"a byte order mark", "\ufeffx", `\ufeffx`},
}

// inertOutput reports what in out could act on a terminal or hide text: a
// control byte other than a newline, DEL, a C1 control, a bidi control or
// another format character, invalid UTF-8.
func inertOutput(out string) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	for i, r := range out {
		switch {
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			unicode.Is(unicode.Cf, r), r >= 0x2060 && r <= 0x206f, r >= 0xe0000 && r <= 0xe0fff: // bidi controls and invisible characters
			return fmt.Sprintf("U+%04X at byte %d", r, i)
		}
	}
	return ""
}

// TestModelTextIsInert feeds each class of sequence through a real call,
// in every field the responder prints (title, human intent, header,
// question, labels, descriptions, previews, the other label, a prefill,
// the countdown, an option note dropped, what was applied) and in the
// person's own text, and checks the bytes written: nothing that acts on a
// terminal, and every sequence shown as escapes.
func TestModelTextIsInert(t *testing.T) {
	for _, c := range classes {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newRig(t)
				defer g.close()
				p := c.raw
				res := g.ask(`{"questions":[`+
					`{"id":"branch","kind":"text","header":"Branch","question":"Which branch?"},`+
					`{"id":"env","header":"Env","question":"Which environment?","multi_select":true,"options":[`+
					`{"label":"staging","description":"Safe","default":true},{"label":"production","description":"Real users"}]}`+
					`],"timeout_seconds":100}`, func(f *askuser.Form) {
					f.Title, f.HumanIntent = "T"+p, "I"+p
					b, e := &f.Questions[0], &f.Questions[1]
					b.Header, b.Text, b.Prefill = "B"+p, "Q"+p, "F"+p
					e.Header, e.Text, e.OtherLabel = "H"+p, "Which environment?", "O"+p
					e.Options[0].Label, e.Options[0].Description, e.Options[0].Preview = "L1"+p, "D1"+p, "V1"+p
					e.Options[1].Label = "L2" + p
				})
				typed := strings.ReplaceAll(p, "\n", "")
				g.typeLines("") // the prefill
				synctest.Wait()
				time.Sleep(81 * time.Second) // the countdown
				synctest.Wait()
				g.typeLines("note 2: x", "1,3", "typed"+typed)
				g.resultOf(res)
				out := g.out.String()
				if what := inertOutput(out); what != "" {
					t.Errorf("the output holds %s", what)
				}
				question, preview := "\nQ"+c.shown+"\n", "     | V1"+c.shown+"\n"
				if strings.Contains(p, "\n") { // multi-line fields keep their lines
					question, preview = "\nQa\n| b\n", "     | V1a\n     | b\n"
				}
				for _, want := range []string{
					"\nT" + c.shown + "\n", // the title
					"\nI" + c.shown + "\n", // the human intent
					"] B" + c.shown + "\n", // a header
					question,
					preview,
					`Answer (Enter for "F` + c.shown + `"): `,              // a prefill
					"  1) L1" + c.shown + " (recommended)\n",               // a label
					"     D1" + c.shown + "\n",                             // a description
					"  3) O" + c.shown + "\n",                              // the other label
					"at the deadline, L1" + c.shown + " will be applied\n", // the countdown
					"The note on L2" + c.shown + " is dropped",             // a note dropped
					"Submitted: B" + c.shown + ` → "F` + c.shown + `", H` + c.shown + " → L1" + c.shown + ` + "typed`, // what was applied
				} {
					if !strings.Contains(out, want) {
						t.Errorf("the output does not show %q", want)
					}
				}
				if t.Failed() {
					t.Logf("the output (quoted, as it is not inert): %q", out)
				}
			})
		})
	}
}

// TestQuestionParagraphs: a question's text keeps its lines, and every
// line after the first is marked, so that none can pose as an option.
func TestQuestionParagraphs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newRig(t)
		defer g.close()
		res := g.ask(envCall, func(f *askuser.Form) {
			f.Questions[0].Text = "Deploy where?\n\nReason: the fix is ready\n  2) staging (recommended)\n\tx"
		})
		g.typeLines("1")
		g.resultOf(res)
		want := "[1/1] Env\nDeploy where?\n|\n| Reason: the fix is ready\n|   2) staging (recommended)\n| \tx\n  1) staging (recommended)\n"
		if out := g.out.String(); !strings.Contains(out, want) {
			t.Errorf("the output does not show %q:\n%s", want, out)
		}
	})
}
