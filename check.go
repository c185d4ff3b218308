package askuser

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/askuser-go/askuser/secret"
)

// checkAnswer checks one answer against the form it answers, as the
// orchestrator does when a responder reports it (Ask.Report, Ask.Draft). A
// responder may call it first to re-prompt before reporting. It returns nil
// or an *AnswerError whose Reason a person can read (docs/ask_user.md lists
// every reason):
//   - the question was asked;
//   - each selected value was offered, exactly, once, and a single-select
//     carries at most one;
//   - free text is trimmed, and blank counts as absent; non-blank free text
//     needs a question that allows it;
//   - the answer says something (a selection or free text; on an optional
//     question a note alone will do);
//   - a secret or sensitive question's answer carries only its secret value
//     (for a sensitive multi-select, a JSON array of strings: see
//     responder.ChoiceSecret), which is not blank (empty after trimming white
//     space) and holds no NUL byte, and no other answer carries one;
//   - where the question has OtherExclusive, picked options and free text
//     do not come together;
//   - notes on options (OptionNotes) are on selected options only;
//   - free text and notes that look like a credential are refused, naming
//     the look-alike, never echoing it (sealed answers are exempt).
func (c *Form) checkAnswer(a Answer) error {
	q := c.Question(a.QuestionID)
	if q == nil {
		return c.unknownQuestion(a.QuestionID)
	}
	refuse := func(reason string) error { return &AnswerError{QuestionID: q.ID, Reason: reason} }
	other := strings.TrimSpace(a.Other)

	if q.sealed() {
		if len(a.Selected) > 0 || other != "" || strings.TrimSpace(a.Note) != "" || len(a.OptionNotes) > 0 {
			return refuse("this question takes only the secret value itself; nothing else is accepted with it")
		}
		if reason := secretValueProblem(a.Secret); reason != "" {
			return refuse(reason)
		}
		if _, ok := secretItems(q, a.Secret); !ok {
			return refuse("a sensitive multi-select answer is handed over as the JSON array of the picked labels, with at least one item")
		}
		return nil
	}
	if !a.Secret.Empty() {
		return refuse("only a secret question takes a secret value; " + q.accepts())
	}

	seen := make(map[string]bool, len(a.Selected))
	for _, v := range a.Selected {
		if q.Option(v) == nil {
			if _, found := secret.Detect(v); found {
				return refuse("the selection is not one of the options; choose from " + q.optionList())
			}
			return refuse(strconv.Quote(v) + " is not one of the options; choose from " + q.optionList())
		}
		if seen[v] {
			return refuse(strconv.Quote(q.Option(v).Label) + " is selected twice; pick each option at most once")
		}
		seen[v] = true
	}
	if !q.MultiSelect && len(a.Selected) > 1 {
		return refuse("this question takes one option, not " + strconv.Itoa(len(a.Selected)) + "; pick one")
	}
	if other != "" && !q.freeText() {
		return refuse("this question takes only its options; free text is not accepted here")
	}
	if other != "" && q.OtherExclusive && len(a.Selected) > 0 {
		return refuse("pick an option or type your own answer, not both")
	}
	for v := range a.OptionNotes {
		if !seen[v] {
			return refuse("a note is given on " + strconv.Quote(v) + ", which is not selected; notes go on selected options only")
		}
	}
	if len(a.Selected) == 0 && other == "" {
		if !q.Optional || (strings.TrimSpace(a.Note) == "" && !hasNote(a.OptionNotes)) {
			return refuse("the answer is empty; " + q.accepts())
		}
	}
	if kind, found := secret.Detect(a.Other); found {
		return refuse(credentialReason(kind, "answer"))
	}
	if kind, found := secret.Detect(a.Note); found {
		return refuse(credentialReason(kind, "note"))
	}
	for _, n := range a.OptionNotes {
		if kind, found := secret.Detect(n); found {
			return refuse(credentialReason(kind, "note"))
		}
	}
	return nil
}

// secretValueProblem says what is wrong with a sealed answer's value, or
// returns "": a value that is empty after trimming white space, or that
// holds a NUL byte, is no credential. The reason never echoes the value.
func secretValueProblem(v secret.Value) string {
	b := v.Reveal()
	defer clear(b)
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return "the secret is empty; enter the value, or decline the question"
	case bytes.IndexByte(b, 0) >= 0:
		return "the secret holds a NUL byte, which no credential has; enter the value again, or decline the question"
	}
	return ""
}

func credentialReason(kind, where string) string {
	return "the " + where + " looks like " + kind + "; it will not be passed on. Leave the credential out (the agent can ask for one through a secret question)"
}

func hasNote(m map[string]string) bool {
	for _, n := range m {
		if strings.TrimSpace(n) != "" {
			return true
		}
	}
	return false
}

func (q *Question) accepts() string {
	switch {
	case q.Kind == KindText:
		return "type an answer"
	case q.freeText():
		return "pick an option or type your own answer"
	}
	return "pick an option"
}

func (q *Question) optionList() string {
	var b strings.Builder
	for i, o := range q.Options {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(o.Label))
	}
	if b.Len() == 0 {
		return "nothing (this question has no options)"
	}
	return b.String()
}

func (c *Form) idList() string {
	ids := make([]string, len(c.Questions))
	for i := range c.Questions {
		ids[i] = strconv.Quote(c.Questions[i].ID)
	}
	return strings.Join(ids, ", ")
}

// choiceSecret returns the secret value a responder hands over for a choice
// answer to a sensitive question: for a single-select, the picked option's
// label, or else the free text as typed; for a multi-select, the JSON array
// of the picked options' labels in pick order, with the free text (as
// typed) last. values name options as Answer.Selected does; a value no
// option has is kept as it is, to be refused by the checks. Blank free text
// counts as absent.
func (q *Question) choiceSecret(values []string, other string) secret.Value {
	items := make([]string, 0, len(values)+1)
	for _, v := range values {
		if o := q.Option(v); o != nil {
			v = o.Label
		}
		items = append(items, v)
	}
	if strings.TrimSpace(other) != "" {
		items = append(items, other)
	}
	if !q.MultiSelect {
		if len(items) == 0 {
			return secret.Value{}
		}
		return secret.FromString(items[0])
	}
	b, _ := json.Marshal(items) // strings always marshal
	v := secret.New(b)
	clear(b)
	return v
}

// secretItems counts the items of a sealed answer to a sensitive
// multi-select question, which must be a JSON array of at least one
// string; for any other question it returns 0 and true. The bytes it reads
// are cleared.
func secretItems(q *Question, v secret.Value) (int, bool) {
	if q.Kind != KindChoice || !q.MultiSelect || !q.Sensitive {
		return 0, true
	}
	b := v.Reveal()
	defer clear(b)
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil || len(items) == 0 {
		return 0, false
	}
	defer func() {
		for _, it := range items {
			clear(it)
		}
	}()
	for _, it := range items {
		if len(it) == 0 || it[0] != '"' {
			return 0, false
		}
	}
	return len(items), true
}

// unknownQuestion is the refusal of an answer to a question c does not ask.
func (c *Form) unknownQuestion(id string) error {
	return &AnswerError{QuestionID: id, Reason: "this call has no question " + strconv.Quote(id) + "; it asks " + c.idList()}
}
