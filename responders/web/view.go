package web

import (
	"slices"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/responder"
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
	// Approval is what an approval asks to permit; absent on other asks.
	Approval *approvalJSON `json:"approval,omitempty"`
	Final    *finalJSON    `json:"final,omitempty"`
}

// approvalJSON is an approval as the card shows it.
type approvalJSON struct {
	Action  string        `json:"action"`
	Reason  string        `json:"reason"`
	Risk    approval.Risk `json:"risk"`
	Details string        `json:"details,omitempty"`
	Digest  string        `json:"digest"`
	// NeedsCode says a decision must carry the approval code.
	NeedsCode bool `json:"needs_code"`
	// Confirm is the word an approve must carry in "confirm" (for an
	// irreversible action); empty when none is needed.
	Confirm string `json:"confirm,omitempty"`
}

// verdictJSON is what an ended approval means (approvaltool.VerdictOf).
type verdictJSON struct {
	Status    string             `json:"status"`
	DecidedBy askuser.Provenance `json:"decided_by,omitempty"`
	Ended     askuser.Reason     `json:"ended,omitempty"`
	Remember  bool               `json:"remember,omitempty"`
	Note      string             `json:"note,omitempty"`
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
	// Verdict is, for an approval, what its ending means; its State is
	// then the verdict's status: approved, denied or unresolved.
	Verdict *verdictJSON `json:"verdict,omitempty"`
}

// The card's final states.
const (
	stateAnswered     = "answered"
	stateAutoSelected = "auto_selected"
	stateDeclined     = "declined"
	stateCancelled    = "cancelled"
)

// view is the ask as the API shows it now.
func (r *Responder) view(a *askuser.Ask) *askJSON { return askView(a, time.Now(), r.needsCode()) }

func (r *Responder) views(as []*askuser.Ask) []*askJSON {
	out := make([]*askJSON, len(as))
	now := time.Now()
	for i, a := range as {
		out[i] = askView(a, now, r.needsCode())
	}
	return out
}

// askView is the ask as the API shows it at now; needsCode says an
// approval's decision needs the approval code.
func askView(a *askuser.Ask, now time.Time, needsCode bool) *askJSON {
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
			AllowOther:       responder.FreeText(q),
			OtherLabel:       q.OtherLabel,
			OtherExclusive:   q.OtherExclusive,
			SecretName:       q.SecretName,
			Purpose:          q.Purpose,
			Prefill:          q.Prefill,
			Multiline:        q.Multiline,
			Optional:         q.Optional,
			Sealed:           responder.Sealed(q),
			DeclaredDefaults: responder.DeclaredDefaults(q),
		}
		if qv.OtherLabel == "" {
			qv.OtherLabel = "Something else"
		}
		if q.OnDeadline != askuser.FallbackNothing {
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
					Sealed:      responder.Sealed(q),
				}
				if qv.Answer.Selected == nil {
					qv.Answer.Selected = []string{}
				}
			}
		}
		v.Questions[i] = qv
	}
	if ap := c.Approval; ap != nil {
		v.Approval = &approvalJSON{Action: ap.Action, Reason: ap.Reason, Risk: ap.Risk, Details: ap.Details, Digest: ap.Digest, NeedsCode: needsCode}
		if ap.Risk == approval.RiskIrreversible {
			v.Approval.Confirm = confirmWord
		}
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
	if vd, ok := approvaltool.VerdictOf(out); ok {
		f.Verdict = &verdictJSON{Status: vd.Status, DecidedBy: vd.DecidedBy, Ended: vd.Ended, Remember: vd.Remember, Note: vd.Note}
		f.State = vd.Status
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
