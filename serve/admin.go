package serve

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
)

// Bounds of GET /v1/asks.
const (
	defaultListLimit = 50
	maxListLimit     = 500
)

// listParams are the query parameters of GET /v1/asks.
const listParams = "session, status, limit and cursor"

// listStatuses are the values of GET /v1/asks?status=.
const listStatuses = "pending (the default), ending, final, answered, declined, cancelled, timed_out or all"

// askJSON is one ask of GET /v1/asks, as an operator sees it: who asked
// what, since when, and how it ended. It carries no answer.
type askJSON struct {
	AskID      string `json:"ask_id"`
	Session    string `json:"session"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Contract   string `json:"contract"`
	// Status is pending, ending (ended, its result being written) or the
	// final status.
	Status      string         `json:"status"`
	AnsweredBy  string         `json:"answered_by,omitempty"`
	Reason      string         `json:"reason,omitempty"`
	Responder   string         `json:"responder,omitempty"`
	Title       string         `json:"title,omitempty"`
	Questions   []questionJSON `json:"questions"`
	Answered    []string       `json:"answered"`
	AskedAt     time.Time      `json:"asked_at"`
	ExpiresAt   time.Time      `json:"expires_at,omitzero"`
	FinalizedAt time.Time      `json:"finalized_at,omitzero"`
}

type questionJSON struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Header string `json:"header"`
}

// listJSON is the body of GET /v1/asks.
type listJSON struct {
	Asks       []askJSON `json:"asks"`
	NextCursor string    `json:"next_cursor,omitempty"`
}

// storedAsk is what GET /v1/asks reads of an ask the orchestrator keeps
// in its pending-ask store (Orchestrator.Asks): the fields of its record
// (format version 1) an operator is shown, and nothing of the answers.
type storedAsk struct {
	V          int    `json:"v"`
	AskID      string `json:"ask_id"`
	Session    string `json:"session"`
	ToolCallID string `json:"tool_call_id"`
	Dialect    string `json:"dialect"`
	Form       *struct {
		Title     string    `json:"title"`
		Contract  string    `json:"contract"`
		AskedAt   time.Time `json:"asked_at"`
		ExpiresAt time.Time `json:"expires_at"`
		Questions []struct {
			ID     string `json:"id"`
			Kind   string `json:"kind"`
			Header string `json:"header"`
		} `json:"questions"`
	} `json:"form"`
	Responder string `json:"responder"`
	Accepted  []struct {
		Set bool   `json:"set"`
		ID  string `json:"id"`
	} `json:"accepted"`
	Ending *struct {
		Reason string `json:"reason"`
	} `json:"ending"`
	Final *struct {
		Status      string    `json:"status"`
		AnsweredBy  string    `json:"answered_by"`
		Reason      string    `json:"reason"`
		Responder   string    `json:"responder"`
		FinalizedAt time.Time `json:"finalized_at"`
	} `json:"final"`
}

// storedVersion is the format version of the records storedAsk reads.
const storedVersion = 1

// ask is the listing of a stored ask, or false for a value that is not an
// ask's record of this format.
func (a *storedAsk) ask() (askJSON, bool) {
	if a.V != storedVersion || a.AskID == "" || a.Form == nil {
		return askJSON{}, false
	}
	j := askJSON{
		AskID: a.AskID, Session: a.Session, ToolCallID: a.ToolCallID, Contract: cmp.Or(a.Form.Contract, a.Dialect),
		Status: "pending", Responder: a.Responder, Title: a.Form.Title,
		Questions: make([]questionJSON, len(a.Form.Questions)), Answered: []string{},
		AskedAt: a.Form.AskedAt, ExpiresAt: a.Form.ExpiresAt,
	}
	for i, q := range a.Form.Questions {
		j.Questions[i] = questionJSON{ID: q.ID, Kind: q.Kind, Header: q.Header}
	}
	for _, s := range a.Accepted {
		if s.Set {
			j.Answered = append(j.Answered, s.ID)
		}
	}
	switch {
	case a.Final != nil:
		j.Status, j.AnsweredBy, j.Reason, j.FinalizedAt = a.Final.Status, a.Final.AnsweredBy, a.Final.Reason, a.Final.FinalizedAt
		j.Responder = cmp.Or(a.Final.Responder, j.Responder)
	case a.Ending != nil:
		j.Status, j.Reason = "ending", a.Ending.Reason
	}
	return j, true
}

// A listQuery is what GET /v1/asks's query asks for.
type listQuery struct {
	session string
	status  string
	limit   int
	after   *listCursor
}

// A listCursor is where a page ends: the asks are listed oldest first,
// by when they were asked, then by id.
type listCursor struct {
	askedAt time.Time
	askID   string
}

func (c listCursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.askedAt.UTC().Format(time.RFC3339Nano) + " " + c.askID))
}

func (c listCursor) before(a askJSON) bool {
	if x := c.askedAt.Compare(a.AskedAt); x != 0 {
		return x < 0
	}
	return c.askID < a.AskID
}

// parseListQuery reads GET /v1/asks's query; its errors say what is wrong
// and what is allowed.
func parseListQuery(q url.Values) (listQuery, error) {
	lq := listQuery{status: "pending", limit: defaultListLimit}
	for k, vs := range q {
		switch k {
		case "session", "status", "limit", "cursor":
			if len(vs) > 1 {
				return lq, fmt.Errorf("%s is given %d times; give it once", k, len(vs))
			}
		default:
			return lq, fmt.Errorf("the query has %s; the parameters of GET /v1/asks are %s", short(k), listParams)
		}
	}
	lq.session = q.Get("session")
	if len(lq.session) > maxIDBytes {
		return lq, fmt.Errorf("session is %d bytes long; at most %d are allowed", len(lq.session), maxIDBytes)
	}
	if v := q.Get("status"); v != "" {
		switch v {
		case "pending", "ending", "final", "all",
			string(askuser.StatusAnswered), string(askuser.StatusDeclined), string(askuser.StatusCancelled), string(askuser.StatusTimedOut):
			lq.status = v
		default:
			return lq, fmt.Errorf("status=%s is not a status; allowed: %s", short(v), listStatuses)
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			return lq, fmt.Errorf("limit=%s is not a whole number from 1 to %d (the default is %d)", short(v), maxListLimit, defaultListLimit)
		}
		lq.limit = n
	}
	if v := q.Get("cursor"); v != "" {
		c, ok := decodeCursor(v)
		if !ok {
			return lq, fmt.Errorf("cursor=%s is not a cursor this service handed out: pass a page's next_cursor as it is, or no cursor for the first page", short(v))
		}
		lq.after = &c
	}
	return lq, nil
}

func decodeCursor(v string) (listCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return listCursor{}, false
	}
	at, id, ok := strings.Cut(string(b), " ")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || id == "" {
		return listCursor{}, false
	}
	return listCursor{askedAt: t, askID: id}, true
}

// short quotes a value from a query for a message, cut to 64 bytes.
func short(v string) string {
	if len(v) > 64 {
		return strconv.Quote(v[:64]) + "…"
	}
	return strconv.Quote(v)
}

// matches reports whether an ask is of the status the query asks for.
func (lq listQuery) matches(a askJSON) bool {
	switch lq.status {
	case "all":
		return true
	case "final":
		return a.Status != "pending" && a.Status != "ending"
	}
	return a.Status == lq.status
}

// admin admits a request that carries one of the operators' tokens.
func (s *Handler) admin(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		if !tokenIn(r.Header.Get("Authorization"), s.admins) {
			h.Set("WWW-Authenticate", `Bearer realm="askuser-admin"`)
			apiError(w, http.StatusUnauthorized, "the admin token is missing or wrong: send Authorization: Bearer <the token in askuser serve's --admin-token-file> (an agent's token does not open the admin API)")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			apiError(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": only GET is served here")
			return
		}
		next(w, r)
	})
}

// tokenIn reports whether an Authorization header carries one of tokens,
// comparing with every token in constant time.
func tokenIn(auth string, tokens [][]byte) bool {
	if len(auth) <= 7 || !strings.EqualFold(auth[:7], "bearer ") {
		return false
	}
	got := []byte(strings.TrimSpace(auth[7:]))
	ok := 0
	for _, t := range tokens {
		ok |= subtle.ConstantTimeCompare(got, t)
	}
	return ok == 1
}

// listAsks serves GET /v1/asks: the asks across the fleet, from the
// orchestrator's store, oldest first, a page at a time.
func (s *Handler) listAsks(w http.ResponseWriter, r *http.Request) {
	lq, err := parseListQuery(r.URL.Query())
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	asks, err := s.asksOf(r.Context(), lq)
	var le *listError
	switch {
	case errors.As(err, &le):
		apiError(w, http.StatusBadRequest, le.msg)
		return
	case err != nil:
		s.logger.Error("askuser serve: listing the asks failed", "err", err)
		w.Header().Set("Retry-After", "1")
		apiError(w, http.StatusServiceUnavailable, "the asks could not be listed now (the shared store failed); try again")
		return
	}
	slices.SortFunc(asks, func(x, y askJSON) int {
		return cmp.Or(x.AskedAt.Compare(y.AskedAt), strings.Compare(x.AskID, y.AskID))
	})
	page := listJSON{Asks: []askJSON{}}
	for _, a := range asks {
		if lq.after != nil && !lq.after.before(a) || !lq.matches(a) {
			continue
		}
		if len(page.Asks) == lq.limit {
			last := page.Asks[len(page.Asks)-1]
			page.NextCursor = listCursor{askedAt: last.AskedAt, askID: last.AskID}.encode()
			break
		}
		page.Asks = append(page.Asks, a)
	}
	writeAPI(w, http.StatusOK, page)
}

// A listError is a query the orchestrator cannot answer as it is set up.
type listError struct{ msg string }

func (e *listError) Error() string { return e.msg }

// asksOf returns the asks the query may list: from the store, every ask
// it holds (or one session's); without a store, the session's pending
// asks from this process's memory.
func (s *Handler) asksOf(ctx context.Context, lq listQuery) ([]askJSON, error) {
	if s.o.Asks == nil {
		if lq.session == "" || lq.status != "pending" {
			return nil, &listError{"this service keeps its asks in its process's memory (no shared store), which lists one session's pending asks only: give session= (and status=pending, the default)"}
		}
		var out []askJSON
		for _, p := range s.o.Pending(lq.session) {
			out = append(out, pendingAsk(p))
		}
		return out, nil
	}
	prefix := ""
	if lq.session != "" {
		prefix = sessionPrefix(lq.session)
	}
	es, err := s.o.Asks.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]askJSON, 0, len(es))
	for _, e := range es {
		var sa storedAsk
		if json.Unmarshal(e.Data, &sa) != nil {
			continue // not an ask's record
		}
		a, ok := sa.ask()
		if ok && (lq.session == "" || a.Session == lq.session) {
			out = append(out, a)
		}
	}
	return out, nil
}

// pendingAsk is the listing of an ask pending in this process's memory.
func pendingAsk(p askuser.PendingAsk) askJSON {
	j := askJSON{AskID: p.AskID, Session: p.Session, ToolCallID: p.ToolCallID, Status: "pending",
		Contract: p.Form.Contract, Title: p.Form.Title, AskedAt: p.Form.AskedAt, ExpiresAt: p.Form.ExpiresAt,
		Questions: make([]questionJSON, len(p.Form.Questions)), Answered: append([]string{}, p.Answered...)}
	for i, q := range p.Form.Questions {
		j.Questions[i] = questionJSON{ID: q.ID, Kind: string(q.Kind), Header: q.Header}
	}
	return j
}

// sessionPrefix is the prefix of the store keys of a session's asks, as
// the orchestrator lays them out: "s", the first 16 bytes of the SHA-256
// of the session in hex, and a dot.
func sessionPrefix(session string) string {
	h := sha256.Sum256([]byte(session))
	return "s" + hex.EncodeToString(h[:16]) + "."
}

// adminTokens returns c's admin tokens, and panics when one of them is an
// agent's token too: the admin API must not open to an agent.
func adminTokens(c Config) [][]byte {
	var out [][]byte
	for _, t := range c.AdminTokens {
		if t == "" {
			continue
		}
		if slices.Contains(c.Tokens, t) || slices.ContainsFunc(c.Tenants, func(tn Tenant) bool { return tn.Token == t }) {
			panic("serve: one of Config.AdminTokens is also an agent's token (Config.Tokens or Config.Tenants): give the operators a token no agent holds")
		}
		out = append(out, []byte(t))
	}
	return out
}
