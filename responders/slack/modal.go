package slack

import (
	"slices"
	"strconv"
	"strings"

	"github.com/slack-go/slack"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder"
)

// answerModal is the modal that answers every question of a form that the
// message's buttons cannot: one input per question, the recommended (or
// already accepted) options picked at the start. A secret is never asked
// here.
func answerModal(askID string, f *askuser.Form, accepted []askuser.Answer) slack.ModalViewRequest {
	var blocks []slack.Block
	if f.HumanIntent != "" {
		blocks = append(blocks, slack.NewContextBlock("intent", text("Agent: "+f.HumanIntent, maxPlain)))
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		id := strconv.Itoa(i)
		label := text(q.Header+": "+q.Text, 2000)
		if responder.Sealed(q) {
			blocks = append(blocks, slack.NewSectionBlock(text(q.Header+": "+q.Text, maxPlain), nil, nil),
				slack.NewContextBlock("", ours("This question asks for a credential, and "+cardNote+": answer it on the web card.")))
			continue
		}
		var prev *askuser.Answer
		for j := range accepted {
			if accepted[j].QuestionID == q.ID {
				prev = &accepted[j]
			}
		}
		switch q.Kind {
		case askuser.KindText:
			in := slack.NewPlainTextInputBlockElement(nil, inputAction)
			in.Multiline = q.Multiline
			in.InitialValue = q.Prefill
			if prev != nil {
				in.InitialValue = prev.Other
			}
			b := slack.NewInputBlock(blockQuestion+id, label, nil, in)
			b.Optional = q.Optional
			blocks = append(blocks, b)
		case askuser.KindChoice:
			picked := responder.DeclaredDefaults(q)
			if prev != nil {
				picked = prev.Selected
			}
			var opts, initial []*slack.OptionBlockObject
			for j, o := range q.Options {
				lbl := o.Label
				if o.Default && !q.NoDefault {
					lbl += " (recommended)"
				}
				var desc *slack.TextBlockObject
				if o.Description != "" {
					desc = text(o.Description, maxOption)
				}
				ob := slack.NewOptionBlockObject(strconv.Itoa(j), text(lbl, maxOption), desc)
				opts = append(opts, ob)
				if slices.Contains(picked, o.Value) {
					initial = append(initial, ob)
				}
			}
			var el slack.BlockElement
			if q.MultiSelect {
				cb := slack.NewCheckboxGroupsBlockElement(inputAction, opts...)
				cb.InitialOptions = initial
				el = cb
			} else {
				rb := slack.NewRadioButtonsBlockElement(inputAction, opts...)
				if len(initial) > 0 {
					rb.InitialOption = initial[0]
				}
				el = rb
			}
			b := slack.NewInputBlock(blockQuestion+id, label, nil, el)
			b.Optional = q.Optional || q.AllowOther
			blocks = append(blocks, b)
			if q.AllowOther {
				in := slack.NewPlainTextInputBlockElement(nil, inputAction)
				if prev != nil {
					in.InitialValue = prev.Other
				}
				ob := slack.NewInputBlock(blockOther+id, text(otherLabel(q), 2000), nil, in)
				ob.Optional = true
				blocks = append(blocks, ob)
			}
		}
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      viewAnswer,
		PrivateMetadata: askID,
		Title:           text("Your agent asks", 24),
		Submit:          text("Submit", 24),
		Close:           text("Not now", 24),
		Blocks:          slack.Blocks{BlockSet: blocks},
	}
}

// answerFrom reads one question's answer from the modal's state; ok is
// false when the person gave none.
func answerFrom(q *askuser.Question, main, other slack.BlockAction) (askuser.Answer, bool) {
	ans := askuser.Answer{QuestionID: q.ID}
	switch q.Kind {
	case askuser.KindText:
		ans.Other = main.Value
		return ans, strings.TrimSpace(main.Value) != ""
	case askuser.KindChoice:
		picks := main.SelectedOptions
		if main.SelectedOption.Value != "" {
			picks = append(picks, main.SelectedOption)
		}
		for _, p := range picks {
			j, err := strconv.Atoi(p.Value)
			if err != nil || j < 0 || j >= len(q.Options) {
				continue // not an option the modal offered
			}
			ans.Selected = append(ans.Selected, q.Options[j].Value)
		}
		if q.AllowOther {
			ans.Other = other.Value
		}
		return ans, len(ans.Selected) > 0 || strings.TrimSpace(ans.Other) != ""
	}
	return ans, false
}
