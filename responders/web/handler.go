package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/approval"
	"github.com/askuser-go/askuser/responder"
)

func (r *Responder) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /sessions/{session}", r.sessionPage)
	m.HandleFunc("GET /asks/{id}", r.askPage)
	m.HandleFunc("GET /api/sessions/{session}/asks", r.sessionRoute(r.list))
	m.HandleFunc("GET /api/sessions/{session}/events", r.sessionRoute(r.events))
	m.HandleFunc("GET /api/asks/{id}", r.askRoute(false, r.get))
	m.HandleFunc("PUT /api/asks/{id}/answers/{question}", r.askRoute(true, r.answer))
	m.HandleFunc("POST /api/asks/{id}/submit", r.askRoute(true, r.submit))
	m.HandleFunc("POST /api/asks/{id}/decline", r.askRoute(true, r.decline))
	m.HandleFunc("POST /api/asks/{id}/dismiss", r.askRoute(true, r.dismiss))
	m.HandleFunc("/"+oncePath+"{code}", r.onceRoute)
	r.mux = m
}

// ServeHTTP serves the card page and the JSON API; see the package doc.
func (r *Responder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	r.boundBody(w, req)
	if !r.allowHost(w, req) {
		return
	}
	r.mux.ServeHTTP(w, req)
}

// errorBody is what every refusal carries.
type errorBody struct {
	Error      string   `json:"error"`
	QuestionID string   `json:"question_id,omitempty"`
	Unanswered []string `json:"unanswered,omitempty"`
	// Ask is the ask as it stands, on a 409.
	Ask *askJSON `json:"ask,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(`{"error":"the response could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

func writeError(w http.ResponseWriter, code int, e errorBody) { writeJSON(w, code, e) }

// authorize runs Options.Authorize; it writes the refusal and reports false
// when the request may not go on.
func (r *Responder) authorize(w http.ResponseWriter, req *http.Request, sess string) (string, bool) {
	if r.opts.Authorize == nil {
		return "", true
	}
	p, err := r.opts.Authorize(req, sess)
	if err != nil {
		r.logger().Debug("web: a request was not authorized", "session", sess, "path", req.URL.Path, "err", err)
		writeError(w, http.StatusForbidden, errorBody{Error: "you may not answer this session's questions"})
		return "", false
	}
	return p, true
}

// sessionRoute authorizes a request for a session's routes.
func (r *Responder) sessionRoute(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		sess := req.PathValue("session")
		if _, ok := r.authorize(w, req, sess); !ok {
			return
		}
		h(w, req, sess)
	}
}

// askRoute looks the ask up (404; see findAsk), authorizes the request for
// its session (403), and for a state-changing request checks its origin
// and CSRF token (403), records the principal, and reads the capped body
// (413), which is wiped after h returns.
func (r *Responder) askRoute(change bool, h func(http.ResponseWriter, *http.Request, *askuser.Ask, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		a, p, ok := r.findAsk(w, req, false)
		if !ok {
			return
		}
		if !change {
			h(w, req, a, nil)
			return
		}
		if err := r.cop.Check(req); err != nil {
			writeError(w, http.StatusForbidden, errorBody{Error: "cross-origin requests are not allowed"})
			return
		}
		if !r.checkCSRF(req, a.Session()) {
			writeError(w, http.StatusForbidden, errorBody{Error: "the X-CSRF-Token header is missing or wrong; reload the card"})
			return
		}
		buf := bufPool.Get().(*bytes.Buffer)
		defer func() {
			clear(buf.Bytes()[:buf.Cap()])
			buf.Reset()
			bufPool.Put(buf)
		}()
		if _, err := buf.ReadFrom(http.MaxBytesReader(w, req.Body, r.maxBody)); err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				writeError(w, http.StatusRequestEntityTooLarge, errorBody{Error: "the body is too large"})
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				writeError(w, http.StatusRequestTimeout, errorBody{Error: "the body did not arrive in time"})
				return
			}
			writeError(w, http.StatusBadRequest, errorBody{Error: "the body could not be read"})
			return
		}
		if p != "" {
			a.SetPrincipal(p)
			req = req.WithContext(context.WithValue(req.Context(), principalKey{}, p))
		}
		h(w, req, a, buf.Bytes())
	}
}

// principalKey keys the principal Authorize named, in a request's context.
type principalKey struct{}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// list answers a session's listing, once the card has followed the
// session: its pending asks wherever they began. A store that fails leaves
// the asks this replica holds; with none, 503, since an empty listing
// would say that nothing is waiting.
func (r *Responder) list(w http.ResponseWriter, req *http.Request, sess string) {
	followed := r.followOnce(req.Context(), sess)
	as := r.pending(sess)
	if !followed && len(as) == 0 {
		writeError(w, http.StatusServiceUnavailable, errorBody{Error: "the session's asks could not be read; try again"})
		return
	}
	writeJSON(w, http.StatusOK, listView{CSRFToken: r.CSRFToken(sess), Asks: r.views(as)})
}

func (r *Responder) get(w http.ResponseWriter, _ *http.Request, a *askuser.Ask, _ []byte) {
	writeJSON(w, http.StatusOK, r.view(a))
}

// reply answers a report on a: 200 with the ask, or the refusal.
func (r *Responder) reply(w http.ResponseWriter, a *askuser.Ask, err error) {
	var ae *askuser.AnswerError
	var ue *askuser.UnansweredError
	var be *bodyError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, r.view(a))
	case errors.Is(err, askuser.ErrAskEnded):
		writeError(w, http.StatusConflict, errorBody{Error: "the ask has ended; nothing more is accepted", Ask: r.view(a)})
	case errors.As(err, &ae):
		writeError(w, http.StatusBadRequest, errorBody{Error: ae.Reason, QuestionID: ae.QuestionID})
	case errors.As(err, &ue):
		writeError(w, http.StatusBadRequest, errorBody{Error: ue.Error(), Unanswered: ue.QuestionIDs})
	case errors.As(err, &be):
		writeError(w, http.StatusBadRequest, errorBody{Error: be.msg})
	default:
		r.logger().Error("web: a report failed", "ask", a.ID(), "err", err)
		writeError(w, http.StatusInternalServerError, errorBody{Error: "the report failed"})
	}
}

// noQuestion answers a question id the ask does not have.
func noQuestion(w http.ResponseWriter, qid string) {
	writeError(w, http.StatusNotFound, errorBody{Error: "this ask has no such question", QuestionID: qid})
}

func (r *Responder) answer(w http.ResponseWriter, req *http.Request, a *askuser.Ask, body []byte) {
	qid := req.PathValue("question")
	if a.Form().Question(qid) == nil {
		noQuestion(w, qid)
		return
	}
	if a.Form().Approval != nil {
		writeError(w, http.StatusBadRequest, errorBody{Error: "an approval is decided in one request, never from answers put before it: POST its submit with " + shapes["a decision"], QuestionID: qid})
		return
	}
	ans, err := parseAnswer(qid, body)
	if err == nil {
		err = a.Report(ans)
	}
	if err != nil {
		r.reply(w, a, err)
		return
	}
	// The answer as accepted, never a secret value.
	acc := &answerJSON{Selected: ans.Selected, OtherText: ans.Other, Note: ans.Note, OptionNotes: ans.OptionNotes, Sealed: responder.Sealed(a.Form().Question(qid))}
	if acc.Selected == nil {
		acc.Selected = []string{}
	}
	writeJSON(w, http.StatusOK, acceptedJSON{QuestionID: qid, Answer: acc})
}

// acceptedJSON is the reply to an accepted answer.
type acceptedJSON struct {
	QuestionID string      `json:"question_id"`
	Answer     *answerJSON `json:"answer"`
}

func (r *Responder) submit(w http.ResponseWriter, req *http.Request, a *askuser.Ask, body []byte) {
	if a.Form().Approval != nil {
		r.decide(w, req, a, body)
		return
	}
	m, err := fields(body, submitFields, "a submit")
	if err != nil {
		r.reply(w, a, err)
		return
	}
	defer wipe(m)
	var answers map[string]json.RawMessage
	if err := field(m, "answers", &answers, "a submit"); err != nil {
		r.reply(w, a, err)
		return
	}
	defer wipe(answers)
	for qid := range answers {
		if a.Form().Question(qid) == nil {
			noQuestion(w, qid)
			return
		}
	}
	// Report in question order, so that a refusal names the first
	// question at fault.
	for _, q := range a.Form().Questions {
		raw, ok := answers[q.ID]
		if !ok {
			continue
		}
		ans, err := parseAnswer(q.ID, raw)
		if err == nil {
			err = a.Report(ans)
		}
		if err != nil {
			var be *bodyError
			if errors.As(err, &be) {
				err = &askuser.AnswerError{QuestionID: q.ID, Reason: be.msg}
			}
			r.reply(w, a, err)
			return
		}
	}
	r.endReply(w, req, a, a.Submit())
}

// endWait bounds how long an ending's reply waits for the final outcome.
const endWait = 5 * time.Second

// endReply replies to an ending: on success it waits (briefly) for the
// orchestrator to finalize, so the reply carries the final state.
func (r *Responder) endReply(w http.ResponseWriter, req *http.Request, a *askuser.Ask, err error) {
	if err == nil {
		t := time.NewTimer(endWait)
		select {
		case <-a.Done():
		case <-t.C:
		case <-req.Context().Done():
		}
		t.Stop()
	}
	r.reply(w, a, err)
}

// decide takes a decision on an approval: admitted (the code), one of
// the four options, confirmed where the action cannot be undone, reported
// and submitted together.
func (r *Responder) decide(w http.ResponseWriter, req *http.Request, a *askuser.Ask, body []byte) {
	d, err := parseDecision(body)
	if err != nil {
		r.reply(w, a, err)
		return
	}
	defer d.answer.Secret.Wipe() // a secret has no place here; Report refuses it
	if !r.admit(w, req, a, d.code) {
		return
	}
	if len(d.answer.Selected) == 1 && !confirmed(a.Form().Approval, d.answer.Selected[0], d.confirm) {
		writeError(w, http.StatusBadRequest, errorBody{Error: `this action cannot be undone: approving it needs "confirm": "approve", the word the person types to confirm`, QuestionID: approval.QuestionID})
		return
	}
	if err := a.Report(d.answer); err != nil {
		r.reply(w, a, err)
		return
	}
	r.endReply(w, req, a, a.Submit())
}

func (r *Responder) decline(w http.ResponseWriter, req *http.Request, a *askuser.Ask, body []byte) {
	what, allowed := "a decline", []string(nil)
	if a.Form().Approval != nil {
		what, allowed = "an approval's decline", approvalDeclineFields
	}
	m, err := fields(body, allowed, what)
	if err != nil {
		r.reply(w, a, err)
		return
	}
	defer wipe(m)
	if a.Form().Approval != nil {
		var code string
		if err := field(m, "code", &code, what); err != nil {
			r.reply(w, a, err)
			return
		}
		if !r.admit(w, req, a, code) {
			return
		}
	}
	r.endReply(w, req, a, a.Decline())
}

func (r *Responder) dismiss(w http.ResponseWriter, req *http.Request, a *askuser.Ask, body []byte) {
	what, allowed := "a dismissal", dismissFields
	if a.Form().Approval != nil {
		what, allowed = "an approval's dismissal", approvalDismissFields
	}
	m, err := fields(body, allowed, what)
	if err != nil {
		r.reply(w, a, err)
		return
	}
	defer wipe(m)
	var on, code string
	if err := field(m, "on_question", &on, what); err != nil {
		r.reply(w, a, err)
		return
	}
	if on != "" && a.Form().Question(on) == nil {
		noQuestion(w, on)
		return
	}
	if a.Form().Approval != nil {
		if err := field(m, "code", &code, what); err != nil {
			r.reply(w, a, err)
			return
		}
		if !r.admit(w, req, a, code) {
			return
		}
	}
	r.endReply(w, req, a, a.Cancel(on))
}
