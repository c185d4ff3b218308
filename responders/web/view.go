package web

import (
	"slices"
	"time"

	"github.com/askuser-go/askuser"
)

// The JSON the API and the events send. Every string the model wrote is
// carried as a JSON string and shown by the page as text.

type listView struct {
	CSRFToken string     `json:"csrf_token,omitempty"`
	Asks      []*askJSON `json:"asks"`
}

type askJSON struct {
	ID          string         `json:"id"`
	Session     string         `json:"session"`
	ToolCallID  string         `json:"tool_call_id,omitempty"`
	Title       string         `json:"title,omitempty"`
	HumanIntent string         `json:"human_intent,omitempty"`
	State       string         `json:"state"`
	AskedAt     time.Time      `json:"asked_at"`
	NudgeAt     time.Time      `json:"nudge_at"`
	ExpiresAt   time.Time      `json:"expires_at"`
	NudgeInMS   int64          `json:"nudge_in_ms"`
	ExpiresInMS int64          `json:"expires_in_ms"`
	Questions   []questionJSON `json:"questions"`
	Final       *finalJSON     `json:"final,omitempty"`
}

type questionJSON struct {
	ID               string       `json:"id"`
	Kind             askuser.Kind `json:"kind"`
	Header           string       `json:"header"`
	Question         string       `json:"question"`
	Options          []optionJSON `json:"options"`
	MultiSelect      bool         `json:"multi_select"`
	AllowOther       bool         `json:"allow_other"`
	OtherLabel       string       `json:"other_label"`
	OtherExclusive   bool         `json:"other_exclusive,omitempty"`
	SecretName       string       `json:"secret_name,omitempty"`
	Purpose          string       `json:"purpose,omitempty"`
	Prefill          string       `json:"prefill,omitempty"`
	Multiline        bool         `json:"multiline,omitempty"`
	Optional         bool         `json:"optional,omitempty"`
	Sealed           bool         `json:"sealed,omitempty"`
	DeclaredDefaults []string     `json:"declared_defaults"`
	// AtDeadline is what the deadline applies to the question when it is
	// unanswered: its declared defaults, or null (nothing: the call is
	// then declined).
	AtDeadline []string    `json:"at_deadline"`
	Answer     *answerJSON `json:"answer,omitempty"`
}

type optionJSON struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Preview     string `json:"preview,omitempty"`
	Recommended bool   `json:"recommended"`
}

// answerJSON is an accepted answer as the API shows it: never a secret
// value, only that one was sealed.
type answerJSON struct {
	Selected    []string          `json:"selected"`
	OtherText   string            `json:"other_text,omitempty"`
	Note        string            `json:"note,omitempty"`
	OptionNotes map[string]string `json:"option_notes,omitempty"`
	Sealed      bool              `json:"sealed,omitempty"`
}

type finalJSON struct {
	// State is what the card shows: answered, auto_selected, declined or
	// cancelled.
	State      string                `json:"state"`
	Status     askuser.Status        `json:"status"`
	AnsweredBy askuser.Provenance    `json:"answered_by"`
	Reason     askuser.Reason        `json:"reason"`
	Answers    []askuser.FinalAnswer `json:"answers"`
}

// The card's final states.
const (
	stateAnswered     = "answered"
	stateAutoSelected = "auto_selected"
	stateDeclined     = "declined"
	stateCancelled    = "cancelled"
)

func askViews(as []*askuser.Ask, now time.Time) []*askJSON {
	out := make([]*askJSON, len(as))
	for i, a := range as {
		out[i] = askView(a, now)
	}
	return out
}

func askView(a *askuser.Ask, now time.Time) *askJSON {
	c := a.Form()
	v := &askJSON{
		ID:          a.ID(),
		Session:     a.Session(),
		ToolCallID:  a.ToolCallID(),
		Title:       c.Title,
		HumanIntent: c.HumanIntent,
		State:       "pending",
		AskedAt:     c.AskedAt,
		NudgeAt:     c.NudgeAt,
		ExpiresAt:   c.ExpiresAt,
		NudgeInMS:   c.NudgeAt.Sub(now).Milliseconds(),
		ExpiresInMS: c.ExpiresAt.Sub(now).Milliseconds(),
		Questions:   make([]questionJSON, len(c.Questions)),
	}
	answers := a.Accepted()
	for i := range c.Questions {
		q := &c.Questions[i]
		qv := questionJSON{
			ID:               q.ID,
			Kind:             q.Kind,
			Header:           q.Header,
			Question:         q.Text,
			Options:          make([]optionJSON, len(q.Options)),
			MultiSelect:      q.MultiSelect,
			AllowOther:       q.FreeText(),
			OtherLabel:       q.OtherLabel,
			OtherExclusive:   q.OtherExclusive,
			SecretName:       q.SecretName,
			Purpose:          q.Purpose,
			Prefill:          q.Prefill,
			Multiline:        q.Multiline,
			Optional:         q.Optional,
			Sealed:           q.Sealed(),
			DeclaredDefaults: q.DeclaredDefaults(),
		}
		if qv.OtherLabel == "" {
			qv.OtherLabel = "Something else"
		}
		if q.OnDeadline != askuser.DeadlineNothing {
			qv.AtDeadline = qv.DeclaredDefaults
		}
		for j, o := range q.Options {
			qv.Options[j] = optionJSON{
				Value:       o.Value,
				Label:       o.Label,
				Description: o.Description,
				Preview:     o.Preview,
				Recommended: slices.Contains(qv.DeclaredDefaults, o.Value),
			}
		}
		for _, ans := range answers {
			if ans.QuestionID == q.ID {
				qv.Answer = &answerJSON{
					Selected:    ans.Selected,
					OtherText:   ans.Other,
					Note:        ans.Note,
					OptionNotes: ans.OptionNotes,
					Sealed:      q.Sealed(),
				}
				if qv.Answer.Selected == nil {
					qv.Answer.Selected = []string{}
				}
			}
		}
		v.Questions[i] = qv
	}
	if out := a.Outcome(); out != nil {
		v.State = "ended"
		v.Final = finalView(out)
	}
	return v
}

func finalView(out *askuser.Outcome) *finalJSON {
	f := &finalJSON{
		Status:     out.Status,
		AnsweredBy: out.AnsweredBy,
		Reason:     out.Reason,
		Answers:    out.Answers,
	}
	if f.Answers == nil {
		f.Answers = []askuser.FinalAnswer{}
	}
	switch {
	case out.Status == askuser.StatusAnswered && out.AnsweredBy == askuser.ByUser:
		f.State = stateAnswered
	case out.Status == askuser.StatusAnswered, out.Status == askuser.StatusTimedOut:
		f.State = stateAutoSelected
	case out.Status == askuser.StatusDeclined:
		f.State = stateDeclined
	default:
		f.State = stateCancelled
	}
	return f
}

func sortAsks(as []*askuser.Ask) {
	slices.SortFunc(as, func(x, y *askuser.Ask) int {
		if c := x.Form().AskedAt.Compare(y.Form().AskedAt); c != 0 {
			return c
		}
		if x.ID() < y.ID() {
			return -1
		}
		return 1
	})
}
