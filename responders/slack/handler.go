package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
)

// maxBody caps an interaction request's body.
const maxBody = 1 << 20

// ServeHTTP is the app's interactivity endpoint. It answers 401 to a
// request whose signature or timestamp does not verify, 200 with nothing
// done to one it has taken before, and otherwise acknowledges at once and
// does the work after (a modal's submission, which Slack needs answered with
// its errors, is the exception, and is answered within the 3 seconds).
func (r *Responder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only: this is a Slack app's interactivity endpoint", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if err != nil {
		http.Error(w, "the body is unreadable or larger than 1 MiB", http.StatusRequestEntityTooLarge)
		return
	}
	if err := r.verifier(req.Header, body); err != nil {
		http.Error(w, "the request's Slack signature or timestamp does not verify", http.StatusUnauthorized)
		return
	}
	first, err := r.firstUse(req.Context(), req.Header, body)
	if err != nil {
		r.log.Error("askuser slack: the notes of the requests already taken could not be read; the request is refused, for Slack to send again", "err", err)
		http.Error(w, "the responder's store failed; try again", http.StatusServiceUnavailable)
		return
	}
	if !first {
		w.WriteHeader(http.StatusOK) // a replay: Slack's own retry, or someone else's, to any replica
		return
	}
	cb, err := parseInteraction(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch cb.Type {
	case slack.InteractionTypeBlockActions:
		r.spawn(func() { r.blockActions(cb) })
		w.WriteHeader(http.StatusOK)
	case slack.InteractionTypeViewSubmission:
		resp := r.viewSubmission(req.Context(), cb)
		if resp == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	default:
		w.WriteHeader(http.StatusOK) // view_closed, shortcuts: nothing to do
	}
}

// firstUse reports whether this signed request is seen for the first time
// on any replica (the first to note it wins).
func (r *Responder) firstUse(ctx context.Context, h http.Header, body []byte) (bool, error) {
	return r.firstSeen(ctx, "request:"+h.Get("X-Slack-Request-Timestamp")+":"+h.Get("X-Slack-Signature")+":"+string(body))
}

// parseInteraction reads the payload form field of an interaction request.
func parseInteraction(body []byte) (*slack.InteractionCallback, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("the body is not a form: %v", err)
	}
	p := form["payload"]
	if len(p) != 1 {
		return nil, errors.New(`the body must have one "payload" field holding the interaction's JSON`)
	}
	var cb slack.InteractionCallback
	if err := json.Unmarshal([]byte(p[0]), &cb); err != nil {
		return nil, fmt.Errorf("the payload is not an interaction: %v", err)
	}
	if cb.Type == "" {
		return nil, errors.New(`the payload has no "type"`)
	}
	return &cb, nil
}

// spawn runs f on a goroutine the responder waits for at Close.
func (r *Responder) spawn(f func()) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// value splits a button's value: the ask id, then its parts.
func value(v string, n int) (string, []string, bool) {
	parts := strings.Split(v, sep)
	if len(parts) != n+1 || parts[0] == "" {
		return "", nil, false
	}
	return parts[0], parts[1:], true
}

func (r *Responder) blockActions(cb *slack.InteractionCallback) {
	team, user := cb.Team.ID, cb.User.ID
	if cb.User.TeamID != "" && cb.User.TeamID != team {
		team = cb.User.TeamID
	}
	for _, act := range cb.ActionCallback.BlockActions {
		msgID, _, _ := strings.Cut(act.Value, sep)
		if !r.may(r.ctx, team, user) {
			r.ephemeral(cb.Channel.ID, user, "This ask isn't yours: only the people the program names can answer it.")
			continue
		}
		e, release, err := r.entryFor(r.ctx, msgID)
		if err != nil {
			r.log.Warn("askuser slack: a click's ask could not be read from the stores", "message", msgID, "err", err)
			r.ephemeral(cb.Channel.ID, user, "The ask could not be read just now; click again.")
			continue
		}
		if e == nil {
			r.ephemeral(cb.Channel.ID, user, "This ask has already ended.")
			continue
		}
		r.act(cb, act, e, team, user)
		release()
	}
}

// act does what one click on an ask's message says.
func (r *Responder) act(cb *slack.InteractionCallback, act *slack.BlockAction, e *entry, team, user string) {
	a := e.a
	f := a.Form()
	principal := r.principal(team, user)
	switch act.ActionID {
	case actionPick:
		_, parts, ok := value(act.Value, 2)
		qi, err1 := strconv.Atoi(parts0(parts, 0))
		oi, err2 := strconv.Atoi(parts0(parts, 1))
		if !ok || err1 != nil || err2 != nil || qi < 0 || qi >= len(f.Questions) || oi < 0 || oi >= len(f.Questions[qi].Options) {
			return
		}
		q := &f.Questions[qi]
		a.SetPrincipal(principal)
		if err := a.Report(askuser.Answer{QuestionID: q.ID, Selected: []string{q.Options[oi].Value}}); err != nil {
			r.refused(cb, err)
			return
		}
		r.submitIfDone(cb, a)
	case actionCard:
		r.secretLink(cb, e, principal)
	case actionOther, actionModal:
		r.openAnswer(cb, e)
	case actionDetails:
		r.openDetails(cb, e)
	case actionApprove:
		_, parts, ok := value(act.Value, 1)
		if !ok || f.Approval == nil {
			return
		}
		choice := parts[0]
		approve := choice == approval.ApproveOnce || choice == approval.ApproveSession
		deny := choice == approval.DenyOnce || choice == approval.DenySession
		switch {
		case approve && e.challenge != "":
			r.openConfirm(cb, e, choice)
		case approve || deny:
			a.SetPrincipal(principal)
			if err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{choice}}); err != nil {
				r.refused(cb, err)
				return
			}
			_ = a.Submit()
		}
	}
}

func parts0(p []string, i int) string {
	if i < len(p) {
		return p[i]
	}
	return ""
}

// secretLink sends the clicker, alone, a one-time link to the web card
// for the ask's secret: never a link in the channel, where anyone could
// follow it.
func (r *Responder) secretLink(cb *slack.InteractionCallback, e *entry, principal string) {
	if r.opts.SecretLink == nil {
		r.ephemeral(cb.Channel.ID, cb.User.ID, "This question asks for a credential, which cannot be answered from Slack.")
		return
	}
	link, err := r.opts.SecretLink(e.a, principal)
	if err != nil {
		r.log.Warn("askuser slack: no one-time link to the web card could be made", "ask", e.a.ID(), "err", err)
		r.ephemeral(cb.Channel.ID, cb.User.ID, "No link to the web card could be made: the ask may have ended.")
		return
	}
	r.ephemeral(cb.Channel.ID, cb.User.ID, "Your one-time link to answer on the web card: <"+escapeAmp(link)+"|open the card>. It opens once, for you only, and only this ask: do not share it.")
}

// refused tells the clicker why an answer was not taken.
func (r *Responder) refused(cb *slack.InteractionCallback, err error) {
	var ae *askuser.AnswerError
	switch {
	case errors.As(err, &ae):
		r.ephemeral(cb.Channel.ID, cb.User.ID, "Not taken: "+escapeAmp(ae.Reason))
	case errors.Is(err, askuser.ErrAskEnded):
		r.ephemeral(cb.Channel.ID, cb.User.ID, "This ask has already ended.")
	default:
		r.log.Warn("askuser slack: an answer was not taken", "err", err)
	}
}

// submitIfDone submits once every required question has an answer, and
// otherwise says what is left.
func (r *Responder) submitIfDone(cb *slack.InteractionCallback, a *askuser.Ask) {
	err := a.Submit()
	var ue *askuser.UnansweredError
	if errors.As(err, &ue) {
		r.ephemeral(cb.Channel.ID, cb.User.ID, "Noted. Still to answer: "+escapeAmp(strings.Join(headers(a.Form(), ue.QuestionIDs), ", "))+".")
	}
}

// openAnswer opens the modal with every question of the ask.
func (r *Responder) openAnswer(cb *slack.InteractionCallback, e *entry) {
	view := answerModal(e.id, e.a.Form(), e.a.Accepted())
	ctx, cancel := context.WithTimeout(r.ctx, 3*time.Second) // a trigger_id lives 3 seconds
	defer cancel()
	if _, err := r.api.OpenViewContext(ctx, cb.TriggerID, view); err != nil {
		r.log.Warn("askuser slack: the answer modal could not be opened", "ask", e.a.ID(), "err", err)
	}
}

func (r *Responder) openDetails(cb *slack.InteractionCallback, e *entry) {
	ap := e.a.Form().Approval
	if ap == nil {
		return
	}
	view := slack.ModalViewRequest{
		Type:       slack.VTModal,
		CallbackID: viewDetails,
		Title:      text("Details", 24),
		Close:      text("Close", 24),
		Blocks:     slack.Blocks{BlockSet: []slack.Block{slack.NewSectionBlock(text(ap.Details, maxPlain), nil, nil)}},
	}
	ctx, cancel := context.WithTimeout(r.ctx, 3*time.Second)
	defer cancel()
	if _, err := r.api.OpenViewContext(ctx, cb.TriggerID, view); err != nil {
		r.log.Warn("askuser slack: the details could not be opened", "ask", e.a.ID(), "err", err)
	}
}

// openConfirm asks for the code an irreversible approval shows.
func (r *Responder) openConfirm(cb *slack.InteractionCallback, e *entry, choice string) {
	code := slack.NewPlainTextInputBlockElement(text("The code", 150), inputAction)
	view := slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      viewConfirm,
		PrivateMetadata: e.id + sep + choice,
		Title:           text("Confirm", 24),
		Submit:          text("Approve", 24),
		Close:           text("Cancel", 24),
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewSectionBlock(text("This action cannot be undone: "+e.a.Form().Approval.Action, maxPlain), nil, nil),
			slack.NewInputBlock(blockCode, text("Type the code the message shows", 150), nil, code),
		}},
	}
	ctx, cancel := context.WithTimeout(r.ctx, 3*time.Second)
	defer cancel()
	if _, err := r.api.OpenViewContext(ctx, cb.TriggerID, view); err != nil {
		r.log.Warn("askuser slack: the confirmation could not be opened", "ask", e.a.ID(), "err", err)
	}
}

// viewSubmission takes a modal's answers, and returns the response Slack
// shows in the modal (nil: close it).
func (r *Responder) viewSubmission(ctx context.Context, cb *slack.InteractionCallback) *slack.ViewSubmissionResponse {
	team, user := cb.Team.ID, cb.User.ID
	if cb.User.TeamID != "" {
		team = cb.User.TeamID
	}
	fail := func(block, msg string) *slack.ViewSubmissionResponse {
		return slack.NewErrorsViewSubmissionResponse(map[string]string{block: msg})
	}
	switch cb.View.CallbackID {
	case viewAnswer, viewConfirm:
	default:
		return nil
	}
	msgID, rest, _ := strings.Cut(cb.View.PrivateMetadata, sep)
	first := firstBlock(cb.View)
	if !r.may(ctx, team, user) {
		return fail(first, "This ask isn't yours: only the people the program names can answer it.")
	}
	e, release, err := r.entryFor(ctx, msgID)
	if err != nil {
		r.log.Warn("askuser slack: a submission's ask could not be read from the stores", "message", msgID, "err", err)
		return fail(first, "The ask could not be read just now; submit again.")
	}
	defer release()
	if e == nil {
		return fail(first, "This ask has already ended.")
	}
	a := e.a
	values := cb.View.State
	if values == nil {
		return fail(first, "The modal sent no answers.")
	}
	a.SetPrincipal(r.principal(team, user))
	if cb.View.CallbackID == viewConfirm {
		got := strings.ToUpper(strings.TrimSpace(values.Values[blockCode][inputAction].Value))
		if e.challenge == "" || got != e.challenge {
			return fail(blockCode, "That is not the code the message shows.")
		}
		if err := a.Report(askuser.Answer{QuestionID: approval.QuestionID, Selected: []string{rest}}); err != nil {
			return fail(blockCode, reason(err))
		}
		if err := a.Submit(); err != nil {
			return fail(blockCode, reason(err))
		}
		return nil
	}
	f := a.Form()
	for i := range f.Questions {
		q := &f.Questions[i]
		ans, ok := answerFrom(q, values.Values[blockQuestion+strconv.Itoa(i)][inputAction], values.Values[blockOther+strconv.Itoa(i)][inputAction])
		if !ok {
			continue
		}
		if err := a.Report(ans); err != nil {
			return fail(blockQuestion+strconv.Itoa(i), reason(err))
		}
	}
	if err := a.Submit(); err != nil {
		var ue *askuser.UnansweredError
		if errors.As(err, &ue) {
			return fail(first, "Still to answer: "+strings.Join(headers(f, ue.QuestionIDs), ", "))
		}
		return fail(first, reason(err))
	}
	return nil
}

func reason(err error) string {
	var ae *askuser.AnswerError
	switch {
	case errors.As(err, &ae):
		return ae.Reason
	case errors.Is(err, askuser.ErrAskEnded):
		return "This ask has already ended."
	}
	return "The answer was not taken."
}

func firstBlock(v slack.View) string {
	for _, b := range v.Blocks.BlockSet {
		if in, ok := b.(*slack.InputBlock); ok {
			return in.BlockID
		}
	}
	return blockQuestion + "0"
}

// headers are the questions' headers, by id, for a person.
func headers(f *askuser.Form, ids []string) []string {
	var out []string
	for _, id := range ids {
		if q := f.Question(id); q != nil {
			out = append(out, q.Header)
		}
	}
	return out
}
