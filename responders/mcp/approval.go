package mcpresponder

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/internal/termtext"
	"github.com/askuser-go/askuser/responder"
)

// CanTakeApprovals reports true: the Responder takes approvals
// (approvaltool.Form, the request_approval contract), since an MCP
// client shows an elicitation to its user, not to the model. Whether this
// call's client can be asked at all is Reachable's to say: without the
// elicitation capability an approval is unresolved at once. A client that
// answers elicitations by itself (or through its model) could approve;
// do not serve request_approval to one.
func (r *Responder) CanTakeApprovals() bool { return true }

// The fields of an approval's form, and what the person types to confirm
// an action that cannot be undone (the web card's word).
const (
	fieldApprove  = "approve"
	fieldConfirm  = "confirm"
	fieldRemember = "remember"
	fieldNote     = "note"
	confirmWord   = "approve"
)

// The titles of the fields, which also name them when a reply is refused.
const (
	titleApprove  = "Approve this action"
	titleConfirm  = "Type approve to confirm"
	titleRemember = "For the rest of this session"
	titleNote     = "Note for your agent"
)

// An approvalForm is an approval (approvaltool.Form) as one form
// elicitation: the action, reason, risk and details in the message, and a
// required yes/no, "Approve this action"; an optional yes/no, "For the
// rest of this session"; an optional note; and, for an action that cannot
// be undone, a required text the person fills with "approve" for an
// approve to count.
type approvalForm struct {
	f            *askuser.Form
	irreversible bool
	principal    string // who decides, where the call says (its verified bearer token's user)
	schema       json.RawMessage
}

// newApprovalForm maps an approval onto its form. No field has a default
// that could decide: the yes/no that approves has none, so that a client
// cannot fill it in for the person (and the SDK, which applies a form's
// defaults to a reply, cannot either).
func newApprovalForm(f *askuser.Form, c *call) *approvalForm {
	m := &approvalForm{f: f, irreversible: f.Approval.Risk == approval.RiskIrreversible}
	if c.req != nil && c.req.Extra != nil && c.req.Extra.TokenInfo != nil {
		m.principal = c.req.Extra.TokenInfo.UserID
	}
	approveDesc := "Yes permits the action described above; no denies it."
	if m.irreversible {
		approveDesc = "Yes permits the action described above, which cannot be undone (type approve below as well); no denies it."
	}
	props := obj{}
	approve := obj{}
	approve.str("type", "boolean").str("title", titleApprove).str("description", approveDesc)
	props.raw(fieldApprove, string(approve.bytes()))
	required := `["` + fieldApprove + `"]`
	if m.irreversible {
		confirm := obj{}
		confirm.str("type", "string").str("title", titleConfirm).
			str("description", "This action cannot be undone. To approve it, type approve here; to deny it, type anything else (or decline).")
		props.raw(fieldConfirm, string(confirm.bytes()))
		required = `["` + fieldApprove + `","` + fieldConfirm + `"]`
	}
	remember := obj{}
	remember.str("type", "boolean").str("title", titleRemember).
		str("description", "Yes decides this same action the same way, without asking again, for the rest of this session.").
		raw("default", "false")
	props.raw(fieldRemember, string(remember.bytes()))
	note := obj{}
	note.str("type", "string").str("title", titleNote).
		str("description", "Optional: words your agent reads with your decision. Never a password or a key.")
	props.raw(fieldNote, string(note.bytes()))
	s := obj{}
	s.str("type", "object").raw("properties", string(props.bytes())).raw("required", required)
	m.schema = s.bytes()
	return m
}

// params returns the elicitation: the approval in words, what was wrong
// with the last reply when there was one, and what the deadline does.
func (m *approvalForm) params(problem string, now time.Time) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: approvalMessage(m.f, problem, now), RequestedSchema: m.schema}
}

// reply acts on the person's reply: accept with content that matches
// reports their decision (approve, approve_session, deny or deny_session,
// with their note) and submits; decline denies; cancel dismisses, which
// decides nothing. Anything else is no answer, and reply says what was
// wrong, for the next form.
func (m *approvalForm) reply(a *askuser.Ask, res *mcp.ElicitResult) (problem string, ended bool, err error) {
	if res == nil {
		return "the client sent the form back without a reply", false, nil
	}
	switch res.Action {
	case "accept":
		ans, p := m.read(res.Content)
		if p != "" {
			return p, false, nil
		}
		if err := a.Report(ans); err != nil {
			var ae *askuser.AnswerError
			if errors.As(err, &ae) {
				return titleNote + ": " + ae.Reason, false, nil
			}
			return "", true, err
		}
		m.decided(a)
		return "", true, a.Submit()
	case "decline":
		m.decided(a)
		return "", true, a.Decline()
	case "cancel":
		return "", true, a.Cancel("")
	case unreadableAction:
		return problemUnreadable, false, nil
	}
	return "the reply was neither accept, decline nor cancel", false, nil
}

// decided records who decided, where the call says.
func (m *approvalForm) decided(a *askuser.Ask) {
	if m.principal != "" {
		a.SetPrincipal(m.principal)
	}
}

// read maps an accepted reply onto the person's decision. The reply is the
// client's and untrusted: a field the form did not ask for, a value of
// the wrong type, "Approve this action" left out, or a yes to an action
// that cannot be undone without "approve" typed to confirm it is no
// decision at all, and read returns what is wrong, written for the person
// (never echoing what they typed). Only a yes approves.
func (m *approvalForm) read(content map[string]any) (askuser.Answer, string) {
	var problems []string
	for key := range content {
		if key != fieldApprove && key != fieldRemember && key != fieldNote && (key != fieldConfirm || !m.irreversible) {
			problems = append(problems, "the reply carries a field the form did not ask for")
			break
		}
	}
	approve, ok := content[fieldApprove].(bool)
	switch {
	case content[fieldApprove] == nil:
		problems = append(problems, titleApprove+": needs yes or no")
	case !ok:
		problems = append(problems, titleApprove+": the reply is not yes or no")
	}
	remember := false
	if v := content[fieldRemember]; v != nil {
		if remember, ok = v.(bool); !ok {
			problems = append(problems, titleRemember+": the reply is not yes or no")
		}
	}
	note := ""
	if v := content[fieldNote]; v != nil {
		if note, ok = v.(string); !ok {
			problems = append(problems, titleNote+": the reply is not text")
		}
	}
	confirmed := !m.irreversible
	if m.irreversible {
		s, ok := content[fieldConfirm].(string)
		switch {
		case content[fieldConfirm] == nil:
			problems = append(problems, titleConfirm+": needs an answer; this action cannot be undone, so type approve to approve it, or anything else to deny it")
		case !ok:
			problems = append(problems, titleConfirm+": the reply is not text")
		}
		confirmed = strings.EqualFold(strings.TrimSpace(s), confirmWord)
	}
	if problems == nil && approve && !confirmed {
		problems = append(problems, "this action cannot be undone: to approve it, type approve in “"+titleConfirm+"”")
	}
	if problems != nil {
		return askuser.Answer{}, strings.Join(problems, "; ")
	}
	decision := approval.DenyOnce
	switch {
	case approve && remember:
		decision = approval.ApproveSession
	case approve:
		decision = approval.ApproveOnce
	case remember:
		decision = approval.DenySession
	}
	ans := askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{decision}, Note: note}
	if err := responder.CheckAnswer(m.f, ans); err != nil {
		// Only the note can be refused: it looks like a credential.
		var ae *askuser.AnswerError
		if errors.As(err, &ae) {
			return askuser.Answer{}, titleNote + ": " + ae.Reason
		}
		return askuser.Answer{}, titleNote + ": the note was refused"
	}
	return ans, ""
}

// approvalMessage is the text the client shows above an approval's form:
// the agent's intent, the risk (loudest for what cannot be undone), the
// action, the reason and the details, each line of the details marked,
// and all of it made inert, so that nothing the model wrote can pose as
// part of the layout or act on a terminal that shows it; then how long the
// person has, and that the deadline decides nothing.
func approvalMessage(f *askuser.Form, problem string, now time.Time) string {
	ap := f.Approval
	var b strings.Builder
	if problem != "" {
		b.WriteString("Your last answer could not be used: ")
		b.WriteString(problem)
		b.WriteString("\nPlease answer again.\n\n")
	}
	if f.HumanIntent != "" {
		b.WriteString(inert.Line(f.HumanIntent))
		b.WriteString("\n\n")
	}
	b.WriteString("Your agent asks your permission.\n")
	b.WriteString(riskLine(ap.Risk))
	b.WriteString("\nAction: ")
	b.WriteString(inert.Line(ap.Action))
	b.WriteString("\nReason: ")
	b.WriteString(inert.Line(ap.Reason))
	if ap.Details != "" {
		b.WriteString("\nDetails:")
		for _, l := range strings.Split(inert.Text(strings.TrimRight(ap.Details, "\n")), "\n") {
			b.WriteString("\n  | ")
			b.WriteString(l)
		}
	}
	if left := f.ExpiresAt.Sub(now); left > 0 {
		b.WriteString("\n\nYou have " + span(left) + " to decide. After that nothing is decided, and your agent has no permission.")
	}
	if ap.Risk == approval.RiskIrreversible {
		b.WriteString("\n\nTo approve, answer yes to “" + titleApprove + "” and type approve to confirm.")
	}
	return b.String()
}

// riskLine says how much harm the action can do, in the words the terminal
// responders use: the message is plain text, so the words and the marks
// carry it.
func riskLine(r approval.Risk) string { return termtext.Risk(r) }
