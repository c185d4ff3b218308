package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// listCounter is a replica's view of a shared store that counts its List
// calls (the reads a replica makes to follow a session) and fails them on
// demand.
type listCounter struct {
	store.Pending
	lists atomic.Int32
	fail  atomic.Bool
}

func (s *listCounter) List(ctx context.Context, prefix string) ([]store.Entry, error) {
	s.lists.Add(1)
	if s.fail.Load() {
		return nil, errors.New("the store is down")
	}
	return s.Pending.List(ctx, prefix)
}

// newReplica is one replica of a fleet on the shared store st: an
// orchestrator, in step with st, and its card, served unprefixed.
func newReplica(t *testing.T, st store.Pending, opts *web.Options) *apiServer {
	t.Helper()
	if opts == nil {
		opts = &web.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	rp := &apiServer{cardServer: &cardServer{t: t, r: web.New(opts), rec: &recorder{}, store: secretstore.NewMemory(nil)}}
	rp.o = &askuser.Orchestrator{Responder: rp.r, Asks: st, Logger: quiet, Secrets: rp.store}
	rp.srv = httptest.NewServer(rp.rec.wrap(rp.r))
	if err := rp.o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rp.o.Close(); rp.r.Close(); rp.srv.Close(); rp.o.WaitResponders() })
	return rp
}

// serve serves h in place of the replica's card, on a server of its own.
func (as *apiServer) serve(h http.Handler) {
	as.srv.Close()
	as.srv = httptest.NewServer(h)
}

// begin begins an ask of session s for the tool call on the replica, and
// returns its id.
func (as *apiServer) begin(call, toolCallID string) string {
	as.t.Helper()
	id, err := as.o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: toolCallID, Arguments: []byte(call)})
	if err != nil {
		as.t.Fatal(err)
	}
	return id
}

// awaitSize waits for the replica's result of the tool call, and checks
// that the person answered size.
func (as *apiServer) awaitSize(toolCallID, size string) {
	as.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := as.o.Await(ctx, "s", toolCallID)
	if err != nil {
		as.t.Fatal(err)
	}
	if a := out.Answer("size"); out.Status != askuser.StatusAnswered || out.AnsweredBy != askuser.ByUser || a == nil || len(a.Selected) != 1 || a.Selected[0] != size {
		as.t.Errorf("the result %s / %s, size %+v; want answered by the person with %s", out.Status, out.AnsweredBy, a, size)
	}
}

// listIDs lists session s on the replica's card: the CSRF token and the
// asks' ids.
func (as *apiServer) listIDs() (token string, ids []string) {
	as.t.Helper()
	res := as.do("GET", "/api/sessions/s/asks", "s", "", nil)
	var l struct {
		CSRFToken string `json:"csrf_token"`
		Asks      []struct {
			ID string `json:"id"`
		} `json:"asks"`
	}
	if err := json.Unmarshal([]byte(res.body), &l); res.code != http.StatusOK || err != nil {
		as.t.Fatalf("GET /api/sessions/s/asks: %d %s", res.code, res.body)
	}
	for _, a := range l.Asks {
		ids = append(ids, a.ID)
	}
	return l.CSRFToken, ids
}

// TestFleetListsAndAnswersAnywhere: an ask begun on replica A is listed by
// replica B's card, which A's card never told, and answered through B's
// API with the token B's listing carries (each card has a CSRF key of its
// own); A's caller gets the answer.
func TestFleetListsAndAnswersAnywhere(t *testing.T) {
	st := store.NewMemory(0)
	a, b := newReplica(t, st, nil), newReplica(t, st, nil)
	id := a.begin(otherAsk, "c1")
	token, ids := b.listIDs()
	if len(ids) != 1 || ids[0] != id {
		t.Fatalf("B lists %q; want the ask begun on A, %s", ids, id)
	}
	if token != b.r.CSRFToken("s") {
		t.Fatalf("B's listing carries the token %q; B's CSRFToken says %q", token, b.r.CSRFToken("s"))
	}
	// What B was told stays B's after the listing: its routes need no
	// ?session=.
	if res := b.do("POST", "/api/asks/"+id+"/submit", "s", `{"answers":{"size":{"selected":["large"]}}}`, nil); res.code != http.StatusOK {
		t.Fatalf("submit on B: %d %s", res.code, res.body)
	}
	a.awaitSize("c1", "large")
}

// TestFleetStreamFollowsWhileOpen: replica B's event stream for a session
// opens with the asks begun on A before it, and brings those begun on A
// while it is open; once it ends, B's card keeps what it was told and is
// told of no new ask of the session.
func TestFleetStreamFollowsWhileOpen(t *testing.T) {
	st := store.NewMemory(0)
	a := newReplica(t, st, nil)
	b := newReplica(t, st, nil)
	streamed := make(chan struct{}, 1)
	b.serve(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b.r.ServeHTTP(w, req)
		if req.URL.Path == "/api/sessions/s/events" {
			streamed <- struct{}{} // the stream's handler has returned
		}
	}))
	before := a.begin(otherAsk, "c1")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", b.srv.URL+"/api/sessions/s/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := readEvents(res.Body)
	next := func(want string) sseEvent {
		t.Helper()
		select {
		case e := <-events:
			if e.name != want {
				t.Fatalf("event %q, want %q", e.name, want)
			}
			return e
		case <-time.After(time.Minute):
			t.Fatalf("no %q event", want)
		}
		return sseEvent{}
	}
	var snap struct {
		Asks []struct {
			ID string `json:"id"`
		} `json:"asks"`
	}
	if err := json.Unmarshal([]byte(next("snapshot").data), &snap); err != nil || len(snap.Asks) != 1 || snap.Asks[0].ID != before {
		t.Fatalf("B's snapshot %+v (%v); want the ask begun on A before the stream opened, %s", snap, err, before)
	}
	during := a.begin(otherAsk, "c2")
	var ask struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(next("ask").data), &ask); err != nil || ask.ID != during {
		t.Fatalf("B's ask event names %q (%v); want the ask begun on A while the stream was open, %s", ask.ID, err, during)
	}

	cancel()
	select {
	case <-streamed:
	case <-time.After(time.Minute):
		t.Fatal("the stream's handler did not return")
	}
	after := a.begin(otherAsk, "c3")
	for _, id := range []string{before, during} {
		if res := b.do("GET", "/api/asks/"+id, "s", "", nil); res.code != http.StatusOK {
			t.Errorf("GET on B of an ask its stream was told of: %d %s; want 200", res.code, res.body)
		}
	}
	if res := b.do("GET", "/api/asks/"+after, "s", "", nil); res.code != http.StatusNotFound {
		t.Errorf("GET on B, without ?session=, of an ask begun after its stream ended: %d %s; want 404", res.code, res.body)
	}
	if res := b.do("GET", "/api/asks/"+after+"?session=s", "s", "", nil); res.code != http.StatusOK {
		t.Errorf("GET on B, with ?session=, of an ask begun after its stream ended: %d %s; want 200", res.code, res.body)
	}
}

// TestFleetAskRoutesNameTheSession: replica C, whose card never listed or
// streamed the session, takes an answer for an ask begun on A when the
// request names the ask's session, as the page does. It authorizes the
// request for that session before it reads the store; without ?session=,
// or naming another session, the ask is not found.
func TestFleetAskRoutesNameTheSession(t *testing.T) {
	st := store.NewMemory(0)
	key := []byte("the fleet's CSRF key, derived from its key ring")
	a := newReplica(t, st, &web.Options{CSRFKey: key})
	cStore := &listCounter{Pending: st}
	c := newReplica(t, cStore, &web.Options{CSRFKey: key, Authorize: func(req *http.Request, _ string) (string, error) {
		if req.Header.Get("Authorization") != "Bearer the-person" {
			return "", errors.New("who are you?")
		}
		return "the person", nil
	}})
	id := a.begin(otherAsk, "c1")
	person := map[string]string{"Authorization": "Bearer the-person"}
	submit := `{"answers":{"size":{"selected":["small"]}}}`
	// The page's token is A's; the fleet's key makes it good on C.
	if a.r.CSRFToken("s") != c.r.CSRFToken("s") {
		t.Fatal("the fleet's cards make different tokens")
	}
	for _, tt := range []struct {
		name, path string
		hdr        map[string]string
		code       int
		lists      int32 // C's reads of the store, after the request
	}{
		{"without ?session=", "/api/asks/" + id + "/submit", person, http.StatusNotFound, 0},
		{"not authorized", "/api/asks/" + id + "/submit?session=s", nil, http.StatusForbidden, 0},
		{"another session", "/api/asks/" + id + "/submit?session=other", person, http.StatusNotFound, 1},
		{"the page for the ask", "/asks/" + id + "?session=s", person, http.StatusOK, 2},
		{"the ask's session", "/api/asks/" + id + "/submit?session=s", person, http.StatusOK, 2},
	} {
		method, body := "POST", submit
		if strings.HasPrefix(tt.path, "/asks/") {
			method, body = "GET", ""
		}
		res := c.do(method, tt.path, "s", body, tt.hdr)
		if res.code != tt.code {
			t.Errorf("%s: %s %s on C: %d %s; want %d", tt.name, method, tt.path, res.code, res.body, tt.code)
		}
		if method == "GET" && !strings.Contains(res.body, `data-ask="`+id+`"`) {
			t.Errorf("%s: the page does not name its ask", tt.name)
		}
		if got := cStore.lists.Load(); got != tt.lists {
			t.Errorf("%s: C read the store %d times in all; want %d", tt.name, got, tt.lists)
		}
	}
	a.awaitSize("c1", "small")
}

// TestFleetStoreFails: when a replica cannot read a session from the store,
// its listing and its ask routes answer 503 rather than "nothing is
// waiting" or "no such ask", and its event stream sends what the replica
// holds and ends, for the page to reconnect.
func TestFleetStoreFails(t *testing.T) {
	st := store.NewMemory(0)
	a := newReplica(t, st, nil)
	cStore := &listCounter{Pending: st}
	c := newReplica(t, cStore, nil)
	id := a.begin(otherAsk, "c1")
	cStore.fail.Store(true)
	for _, path := range []string{"/api/sessions/s/asks", "/api/asks/" + id + "?session=s"} {
		if res := c.do("GET", path, "s", "", nil); res.code != http.StatusServiceUnavailable {
			t.Errorf("GET %s on C: %d %s; want 503", path, res.code, res.body)
		}
	}
	res, err := http.Get(c.srv.URL + "/api/sessions/s/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var names []string
	for e := range readEvents(res.Body) {
		names = append(names, e.name)
	}
	if len(names) != 1 || names[0] != "snapshot" {
		t.Errorf("C's stream sent %q and ended; want a snapshot only", names)
	}
	// An ask this replica was told of is listed all the same: C begins
	// one and lists the session while the store works, and is told of
	// both asks; then the store fails again.
	cStore.fail.Store(false)
	own := c.begin(otherAsk, "c2")
	if _, ids := c.listIDs(); len(ids) != 2 {
		t.Fatalf("C lists %q with the store back; want both asks", ids)
	}
	cStore.fail.Store(true)
	if _, ids := c.listIDs(); len(ids) != 2 || !slices.Contains(ids, own) || !slices.Contains(ids, id) {
		t.Errorf("C lists %q with the store failing; want the asks it was told of, %s and %s", ids, id, own)
	}
}

// follower is a card that lets a test follow a session through the
// Sessions its orchestrator handed it.
type follower struct {
	*web.Responder
	sessions atomic.Pointer[askuser.Sessions]
}

func (f *follower) FollowSessions(s *askuser.Sessions) {
	f.sessions.Store(s)
	f.Responder.FollowSessions(s)
}

// TestFleetClosedCardLeavesFollowedAsks: an ask of a followed session that
// reaches a closed card stays pending for the other replicas' cards,
// rather than ending as having nobody to ask.
func TestFleetClosedCardLeavesFollowedAsks(t *testing.T) {
	st := store.NewMemory(0)
	a := newReplica(t, st, nil)
	card := &follower{Responder: web.New(&web.Options{Logger: quiet})}
	o := &askuser.Orchestrator{Responder: card, Asks: st, Logger: quiet}
	defer func() { o.Close(); o.WaitResponders() }()
	ctx := context.Background()
	if err := o.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	a.begin(otherAsk, "c1")
	card.Close()
	stop, err := card.sessions.Load().Follow(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if got := len(a.o.Pending("s")); got != 1 {
		t.Fatalf("%d asks pending after a closed card was told of the ask; want it still pending", got)
	}
}

// slowCreate holds each Create back, once it has landed, until the card
// has been told of the ask through the session it follows (or a second
// has passed), as the store's feed may outrun the replica that writes.
type slowCreate struct {
	store.Pending
	told <-chan struct{}
}

func (s *slowCreate) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	rev, err := s.Pending.Create(ctx, key, data)
	select {
	case <-s.told:
	case <-time.After(time.Second):
	}
	return rev, err
}

// telling is a card that says when it is first told of an ask.
type telling struct {
	*web.Responder
	once sync.Once
	told chan struct{}
}

func (c *telling) Asked(a *askuser.Ask) {
	c.once.Do(func() { close(c.told) })
	c.Responder.Asked(a)
}

// TestFleetToldTwiceShowsOnce: a replica that begins an ask of a session
// its card follows may tell the card of it twice, once from the store's
// feed and once as it begins it; the card shows it, and its outcome, once.
func TestFleetToldTwiceShowsOnce(t *testing.T) {
	card := &telling{Responder: web.New(&web.Options{Logger: quiet}), told: make(chan struct{})}
	o := &askuser.Orchestrator{Responder: card, Asks: &slowCreate{Pending: store.NewMemory(0), told: card.told}, Logger: quiet}
	rp := &apiServer{cardServer: &cardServer{t: t, r: card.Responder, o: o, rec: &recorder{}}}
	rp.srv = httptest.NewServer(card.Responder)
	t.Cleanup(func() { o.Close(); card.Close(); rp.srv.Close(); o.WaitResponders() })
	if err := o.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(rp.srv.URL + "/api/sessions/s/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := readEventNames(res.Body)
	next := func(want string) {
		t.Helper()
		select {
		case e := <-events:
			if e != want {
				t.Fatalf("event %q, want %q", e, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no %q event", want)
		}
	}
	next("snapshot")
	id := rp.begin(otherAsk, "c1")
	next("ask")
	if res := rp.do("POST", "/api/asks/"+id+"/submit", "s", `{"answers":{"size":{"selected":["large"]}}}`, nil); res.code != http.StatusOK {
		t.Fatalf("submit: %d %s", res.code, res.body)
	}
	next("outcome")
	rp.awaitSize("c1", "large")
	if _, ids := rp.listIDs(); len(ids) != 0 {
		t.Errorf("the card lists %q after the ask ended", ids)
	}
}
