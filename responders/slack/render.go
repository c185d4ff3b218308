package slack

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
)

// The action ids of the message's buttons and the callback ids of its
// modals. A button's value starts with the ask id.
const (
	actionPick    = "askuser_pick"    // value: ask|question index|option index
	actionOther   = "askuser_other"   // value: ask|question index: "Something else" opens the modal
	actionModal   = "askuser_modal"   // value: ask: the modal with every question
	actionApprove = "askuser_approve" // value: ask|option value
	actionDetails = "askuser_details" // value: ask: the approval's details, in a modal
	actionCard    = "askuser_card"    // value: ask: a one-time link to the web card, sent to the clicker alone
	viewAnswer    = "askuser_answer"  // private_metadata: ask
	viewConfirm   = "askuser_confirm" // private_metadata: ask|option value
	viewDetails   = "askuser_view_details"
	blockQuestion = "q"    // block ids q0…q3 in the answer modal
	blockOther    = "o"    // block ids o0…o3: the free text beside a choice
	blockNote     = "note" // the note on an approval
	blockCode     = "code" // the typed confirmation of an irreversible approval
	inputAction   = "v"    // every input element's action id
	maxLabel      = 75     // Slack's limit on a button's text
	maxPlain      = 3000   // on a section's text
	maxHeader     = 150    // on a header's
	maxOption     = 75     // on an option's text in a select
	sep           = "|"    // between the parts of a button's value
	cardNote      = "a secret never goes through Slack"
)

// plain escapes model text for a plain_text object: every control, bidi
// and invisible format character made visible (internal/inert), then &, <
// and > as Slack requires, so that nothing a model wrote is read as markup.
func plain(s string) string {
	return escapeAmp(inert.Text(s))
}

func escapeAmp(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// clip shortens s to n runes, with an ellipsis where it cut. It never cuts
// an escape (&amp;) in two: it is applied before escaping.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func text(s string, n int) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.PlainTextType, escapeAmp(clip(inert.Text(s), n)), false, false)
}

// ours is text of the responder's own, which may use mrkdwn (a date); it
// never holds model text unescaped.
func ours(s string) *slack.TextBlockObject {
	return slack.NewTextBlockObject(slack.MarkdownType, s, false, true)
}

func button(actionID, value, label string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(actionID, value, text(label, maxLabel))
}

// needsModal reports whether q is answered in the modal rather than with
// buttons: several picks, or free text.
func needsModal(q *askuser.Question) bool {
	return q.Kind == askuser.KindText || q.Kind == askuser.KindChoice && q.MultiSelect
}

// render is the message that asks f: its blocks and the notification text.
func render(askID string, f *askuser.Form, o renderOptions) ([]slack.Block, string) {
	if f.Approval != nil {
		return renderApproval(askID, f, o)
	}
	var blocks []slack.Block
	title := f.Title
	if title == "" {
		title = "Your agent asks"
	}
	blocks = append(blocks, slack.NewHeaderBlock(text(title, maxHeader)))
	if f.HumanIntent != "" {
		blocks = append(blocks, slack.NewContextBlock("intent", text("Agent: "+f.HumanIntent, maxPlain)))
	}
	modal := false
	for i := range f.Questions {
		q := &f.Questions[i]
		head := q.Header
		if len(f.Questions) > 1 {
			head += fmt.Sprintf(" · %d/%d", i+1, len(f.Questions))
		}
		body := head + "\n" + q.Text
		if lines := optionLines(q); lines != "" {
			body += "\n" + lines
		}
		blocks = append(blocks, slack.NewSectionBlock(text(body, maxPlain), nil, nil, slack.SectionBlockOptionBlockID("q"+strconv.Itoa(i))))
		switch {
		case responder.Sealed(q):
			if o.secretLink {
				b := slack.NewButtonBlockElement(actionCard, askID, text("Answer on the web card", maxLabel))
				blocks = append(blocks, slack.NewActionBlock("card"+strconv.Itoa(i), b),
					slack.NewContextBlock("", ours("This question asks for a credential, and "+cardNote+": the button sends you, and only you, a one-time link to the web card.")))
			} else {
				blocks = append(blocks, slack.NewContextBlock("", ours("This question asks for a credential, and "+cardNote+": it cannot be answered here.")))
			}
		case needsModal(q):
			modal = true
		case q.Kind == askuser.KindChoice:
			var els []slack.BlockElement
			for j, opt := range q.Options {
				label := opt.Label
				if opt.Default && !q.NoDefault {
					label += " (recommended)"
				}
				b := button(actionPick, askID+sep+strconv.Itoa(i)+sep+strconv.Itoa(j), label)
				if opt.Default && !q.NoDefault {
					b.Style = slack.StylePrimary
				}
				els = append(els, b)
			}
			if q.AllowOther {
				els = append(els, button(actionOther, askID+sep+strconv.Itoa(i), otherLabel(q)+"…"))
			}
			blocks = append(blocks, slack.NewActionBlock("a"+strconv.Itoa(i), els...))
		}
	}
	if modal {
		b := button(actionModal, askID, "Answer…")
		b.Style = slack.StylePrimary
		blocks = append(blocks, slack.NewActionBlock("answer", b))
	}
	blocks = append(blocks, slack.NewContextBlock("deadline", ours(deadlineLine(f))))
	return blocks, fallback(title, f)
}

func otherLabel(q *askuser.Question) string {
	if q.OtherLabel != "" {
		return q.OtherLabel
	}
	return "Something else"
}

// optionLines lists a choice's options with their descriptions.
func optionLines(q *askuser.Question) string {
	if q.Kind != askuser.KindChoice {
		return ""
	}
	var b strings.Builder
	for j, opt := range q.Options {
		if j > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", j+1, opt.Label)
		if opt.Default && !q.NoDefault {
			b.WriteString(" (recommended)")
		}
		if opt.Description != "" {
			b.WriteString(" — " + opt.Description)
		}
	}
	if q.MultiSelect {
		b.WriteString("\n(pick one or more)")
	}
	return b.String()
}

// deadlineLine says when the deadline is, in the reader's own time zone
// (Slack's date formatting), and what it applies.
func deadlineLine(f *askuser.Form) string {
	if f.ExpiresAt.IsZero() {
		return ""
	}
	at := "<!date^" + strconv.FormatInt(f.ExpiresAt.Unix(), 10) + "^{date_short_pretty} at {time}|" + f.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC") + ">"
	if f.Approval != nil {
		return "Answer by " + at + ". If nobody decides by then, the agent has no permission."
	}
	applies := false
	for i := range f.Questions {
		q := &f.Questions[i]
		if q.OnDeadline == askuser.FallbackDefaults && len(responder.DeclaredDefaults(q)) > 0 {
			applies = true
		}
	}
	if applies {
		return "Answer by " + at + ". Then the recommended options apply to what is not answered."
	}
	return "Answer by " + at + ". Then nothing is applied to what is not answered."
}

// fallback is the notification text: plain, escaped, the first question.
func fallback(title string, f *askuser.Form) string {
	s := title
	if len(f.Questions) > 0 {
		s += ": " + f.Questions[0].Text
	}
	return plain(clip(inert.Line(s), 300))
}

// renderApproval is the message that asks for an approval.
func renderApproval(askID string, f *askuser.Form, o renderOptions) ([]slack.Block, string) {
	ap := f.Approval
	blocks := []slack.Block{slack.NewHeaderBlock(text("Your agent asks for permission", maxHeader))}
	if f.HumanIntent != "" {
		blocks = append(blocks, slack.NewContextBlock("intent", text("Agent: "+f.HumanIntent, maxPlain)))
	}
	blocks = append(blocks,
		slack.NewSectionBlock(text("Action: "+ap.Action, maxPlain), nil, nil, slack.SectionBlockOptionBlockID("action")),
		slack.NewSectionBlock(text("Why: "+ap.Reason, maxPlain), nil, nil, slack.SectionBlockOptionBlockID("reason")),
		slack.NewContextBlock("risk", ours(escapeAmp(termtext.Risk(ap.Risk))+" · *Digest:* `"+escapeAmp(shortDigest(ap.Digest))+"`")),
	)
	approve := button(actionApprove, askID+sep+approval.ApproveOnce, "Approve once")
	approve.Style = slack.StylePrimary
	deny := button(actionApprove, askID+sep+approval.DenyOnce, "Deny")
	deny.Style = slack.StyleDanger
	els := []slack.BlockElement{approve, deny,
		button(actionApprove, askID+sep+approval.ApproveSession, "Approve for this session"),
		button(actionApprove, askID+sep+approval.DenySession, "Deny for this session")}
	if ap.Details != "" {
		els = append(els, button(actionDetails, askID, "Show details"))
	}
	blocks = append(blocks, slack.NewActionBlock("approval", els...))
	if o.challenge != "" {
		blocks = append(blocks, slack.NewContextBlock("challenge", ours("This action cannot be undone: approving asks you to type the code *"+o.challenge+"*.")))
	}
	blocks = append(blocks, slack.NewContextBlock("deadline", ours(deadlineLine(f))))
	return blocks, plain(clip(inert.Line("Permission asked: "+ap.Action), 300))
}

// shortDigest is the part of an approval's digest a person compares.
func shortDigest(d string) string {
	if _, h, ok := strings.Cut(d, ":"); ok && len(h) >= 12 {
		return d[:len(d)-len(h)] + h[:12]
	}
	return d
}

type renderOptions struct {
	secretLink bool // the responder makes one-time links to the card
	challenge  string
}

// renderEnded is the message once the ask has ended: what was decided, by
// whom, and no buttons.
func renderEnded(f *askuser.Form, out *askuser.Outcome, who string) ([]slack.Block, string) {
	title := f.Title
	switch {
	case f.Approval != nil:
		title = "Permission: " + f.Approval.Action
	case title == "":
		title = "Your agent asked"
	}
	summary := termtext.Summary(out, termtext.Words{Dismissed: "Dismissed", LabelSep: ", "})
	blocks := []slack.Block{slack.NewHeaderBlock(text(title, maxHeader))}
	for i := range f.Questions {
		q := &f.Questions[i]
		if f.Approval != nil {
			break
		}
		blocks = append(blocks, slack.NewSectionBlock(text(q.Header+"\n"+q.Text, maxPlain), nil, nil))
	}
	blocks = append(blocks, slack.NewSectionBlock(text(summary, maxPlain), nil, nil, slack.SectionBlockOptionBlockID("ended")))
	if who != "" {
		blocks = append(blocks, slack.NewContextBlock("who", ours(who)))
	}
	return blocks, plain(clip(inert.Line(title+": "+summary), 300))
}
