package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/askuser-go/askuser"
)

// heartbeat is how often an idle event stream sends a comment line.
var heartbeat = 15 * time.Second

// writeTimeout bounds one write to an event stream.
var writeTimeout = 10 * time.Second

// subBuffer is how many events a stream may fall behind before it is
// disconnected.
const subBuffer = 64

// A subscriber is one connected event stream.
type subscriber struct {
	ch   chan []byte
	done chan struct{}
	once sync.Once
}

func (s *subscriber) end() { s.once.Do(func() { close(s.done) }) }

// frame formats one server-sent event. data is JSON, so it holds no
// newline.
func frame(name string, data []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(name) + len(data) + 16)
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteString("\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.Bytes()
}

// publish sends an event about a to the session's connected pages. A page
// that has fallen subBuffer events behind is disconnected; it reconnects
// and its snapshot brings it up to date.
func (r *Responder) publish(sess, name string, a *askuser.Ask) {
	r.mu.Lock()
	s := r.sessions[sess]
	n := 0
	if s != nil {
		n = len(s.subs)
	}
	r.mu.Unlock()
	if n == 0 {
		return
	}
	data, err := json.Marshal(r.view(a))
	if err != nil {
		r.logger().Error("web: encoding an event failed", "ask", a.ID(), "err", err)
		return
	}
	f := frame(name, data)
	r.mu.Lock()
	defer r.mu.Unlock()
	if s = r.sessions[sess]; s == nil {
		return
	}
	for sub := range s.subs {
		select {
		case sub.ch <- f:
		default:
			delete(s.subs, sub)
			sub.end()
		}
	}
}

// followRetry is the reconnection delay (in milliseconds) a stream that
// could not follow its session asks of the page before it ends.
const followRetry = "5000"

// events serves a session's event stream. The card follows the session for
// the stream's life, and the snapshot comes once the session's asks are
// here: those told about on the way are in it, and every later one comes
// as an event. A stream whose session the store could not give sends the
// asks this replica holds and ends, for the page to reconnect and try
// again.
func (r *Responder) events(w http.ResponseWriter, req *http.Request, sess string) {
	if r.isClosed() {
		writeError(w, http.StatusServiceUnavailable, errorBody{Error: "the card is closed"})
		return
	}
	stop, followed := r.follow(req.Context(), sess)
	defer stop()
	sub := &subscriber{ch: make(chan []byte, subBuffer), done: make(chan struct{})}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, errorBody{Error: "the card is closed"})
		return
	}
	s := r.sessionLocked(sess)
	s.subs[sub] = struct{}{}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if s := r.sessions[sess]; s != nil {
			delete(s.subs, sub)
			if len(s.pending) == 0 && len(s.subs) == 0 {
				delete(r.sessions, sess)
			}
		}
	}()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	// The stream is exempt from the server's read and write deadlines
	// (ReadTimeout, WriteTimeout, Options.BodyTimeout): it reads nothing
	// (net/http's HTTP/1 server clears the read deadline itself once the
	// request is in; the stream does not rely on it), and it bounds each of
	// its writes instead (writeTimeout). Once it ends, a server without a
	// WriteTimeout of its own, which would set a fresh deadline for the
	// connection's next request, gets no deadline back.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	if srv, _ := req.Context().Value(http.ServerContextKey).(*http.Server); srv == nil || srv.WriteTimeout <= 0 {
		defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	}
	w.WriteHeader(http.StatusOK)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}

	snap, err := json.Marshal(listView{Asks: r.views(r.pending(sess))})
	if err != nil || !write(frame("snapshot", snap)) {
		return
	}
	if !followed {
		write([]byte("retry: " + followRetry + "\n\n"))
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case f := <-sub.ch:
			if !write(f) {
				return
			}
		case <-sub.done:
			for {
				select {
				case f := <-sub.ch:
					if !write(f) {
						return
					}
				default:
					return
				}
			}
		case <-req.Context().Done():
			return
		case <-tick.C:
			if !write([]byte(": ping\n\n")) {
				return
			}
		}
	}
}
