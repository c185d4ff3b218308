package web

import (
	"context"
	"net/http"

	"github.com/askuser-go/askuser"
)

// FollowSessions keeps s, through which the card follows a session while
// it shows it: on a fleet (replicas sharing Orchestrator.Asks) a session's
// listing and event stream, and an ask's routes given the session, show
// the session's asks wherever they began. The orchestrator calls it at its
// first use; a Responder serves one orchestrator. A card never handed a
// Sessions shows the asks it is told about.
func (r *Responder) FollowSessions(s *askuser.Sessions) { r.fleet.Store(s) }

// follow follows sess until stop is called; the asks it is told about
// meanwhile stay on the card until they end. It reports false when the
// store failed (logged): the card goes on with the asks it holds. Without
// Sessions, or once closed, it follows nothing.
func (r *Responder) follow(ctx context.Context, sess string) (stop func(), ok bool) {
	s := r.fleet.Load()
	if s == nil || r.isClosed() {
		return func() {}, true
	}
	stop, err := s.Follow(ctx, sess)
	if err != nil && ctx.Err() == nil { // a request that went away is no failure to log
		r.logger().Error("web: reading a session's asks from the pending-ask store failed; the card shows the asks this replica holds", "session", sess, "err", err)
	}
	return stop, err == nil
}

// followOnce follows sess long enough to be told about its pending asks.
func (r *Responder) followOnce(ctx context.Context, sess string) bool {
	stop, ok := r.follow(ctx, sess)
	stop()
	return ok
}

func (r *Responder) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// findAsk finds the ask a request names by id and authorizes the request
// for its session (403): a browser that a one-time link admitted to the
// ask (OneTimeLinks) is authorized for it by its cookie, in place of
// Options.Authorize. An ask the card does not hold, in the session the
// request names (?session=, as the page sends it), is looked for on the
// fleet: the request is authorized for that session first, so that no
// refused request makes the card read the store, and the card follows the
// session once. An ask of another session is not found (404), nor one
// the store does not hold pending; a store that fails answers 503. page
// says whether to refuse as the page does (text) rather than as the API
// (JSON). It writes the refusal and reports false when the request may not
// go on.
func (r *Responder) findAsk(w http.ResponseWriter, req *http.Request, page bool) (*askuser.Ask, string, bool) {
	id := req.PathValue("id")
	if a := r.lookup(id); a != nil {
		if p, ok := r.admitted(req, id, a.Session()); ok {
			return a, p, true
		}
		p, ok := r.authorize(w, req, a.Session())
		return a, p, ok
	}
	sess := req.URL.Query().Get("session")
	if sess == "" || r.fleet.Load() == nil {
		missing(w, page, http.StatusNotFound)
		return nil, "", false
	}
	p, ok := r.admitted(req, id, sess)
	if !ok {
		p, ok = r.authorize(w, req, sess)
	}
	if !ok {
		return nil, "", false
	}
	followed := r.followOnce(req.Context(), sess)
	a := r.lookup(id)
	switch {
	case a == nil && !followed:
		missing(w, page, http.StatusServiceUnavailable)
		return nil, "", false
	case a == nil || a.Session() != sess:
		missing(w, page, http.StatusNotFound)
		return nil, "", false
	}
	return a, p, true
}

// missing answers a request for an ask the card could not find: 404, or
// 503 when the store failed.
func missing(w http.ResponseWriter, page bool, code int) {
	switch {
	case page && code == http.StatusNotFound:
		http.Error(w, "There is no such question; it may have ended long ago.", code)
	case page:
		http.Error(w, "The pending questions could not be read; try again.", code)
	case code == http.StatusNotFound:
		writeError(w, code, errorBody{Error: "there is no such ask; it may have ended long ago"})
	default:
		writeError(w, code, errorBody{Error: "the pending asks could not be read; try again"})
	}
}
