package web_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/store"
)

// TestCloseLeavesSharedAsksPending: closing a card whose asks live in a
// shared store leaves them pending, for another replica's card, and does
// not wait for them to end; an ask of its own memory ends as before.
func TestCloseLeavesSharedAsksPending(t *testing.T) {
	st := store.NewMemory(0)
	card := web.New(&web.Options{Logger: quiet})
	o := &askuser.Orchestrator{Responder: card, Asks: st, Logger: quiet}
	other := &askuser.Orchestrator{Asks: st, Logger: quiet}
	defer func() { o.Close(); o.WaitResponders(); other.Close(); other.WaitResponders() }()
	ctx := context.Background()
	if err := other.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Begin(ctx, askuser.Request{Session: "s1", ToolCallID: "c1", Arguments: []byte(`{"questions":[{"header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); len(other.Pending("s1")) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the other orchestrator never saw the ask")
		}
	}
	if err := card.Close(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := other.Await(wctx, "s1", "c1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Await after Close: %v; want the ask still pending", err)
	}
}

// TestCardsOfOneFleet: two cards, each on its own orchestrator, sharing a
// pending-ask store and a CSRF key, as the replicas of askuser serve do. An
// ask begun on replica A after B's event stream opened reaches it (the
// stream follows the session); the person answers it through B's API with
// the CSRF token A's page carries; the outcome reaches both event streams,
// and A's orchestrator has the result.
func TestCardsOfOneFleet(t *testing.T) {
	st := store.NewMemory(0)
	key := []byte("the fleet's CSRF key, derived from its key ring")
	type replica struct {
		card   *web.Responder
		o      *askuser.Orchestrator
		srv    *httptest.Server
		events <-chan string
	}
	var rs []*replica
	for range 2 {
		r := &replica{card: web.New(&web.Options{Logger: quiet, CSRFKey: key})}
		r.o = &askuser.Orchestrator{Responder: r.card, Asks: st, Logger: quiet}
		r.srv = httptest.NewServer(r.card)
		if err := r.o.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.o.Close(); r.card.Close(); r.srv.Close(); r.o.WaitResponders() })
		r.events = eventNames(t, r.srv.URL+"/api/sessions/s/events")
		rs = append(rs, r)
	}
	next := func(r *replica, want string) {
		t.Helper()
		select {
		case e := <-r.events:
			if e != want {
				t.Fatalf("event %q, want %q", e, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no %q event", want)
		}
	}
	for _, r := range rs {
		next(r, "snapshot")
	}
	id, err := rs[0].o.Begin(context.Background(), askuser.Request{Session: "s", ToolCallID: "c1", Arguments: []byte(`{"questions":[{"id":"env","header":"Env","question":"Which?","options":[{"label":"a","description":"x"},{"label":"b","description":"y"}]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	next(rs[0], "ask")
	next(rs[1], "ask")
	post := func(method, path, body string) {
		t.Helper()
		req, err := http.NewRequest(method, rs[1].srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", rs[0].card.CSRFToken("s")) // the token of A's page
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s on B: %d %s", method, path, res.StatusCode, b)
		}
	}
	post("PUT", "/api/asks/"+id+"/answers/env", `{"selected":["b"]}`)
	post("POST", "/api/asks/"+id+"/submit", "")
	next(rs[1], "outcome")
	next(rs[0], "outcome")
	out, err := rs[0].o.Await(context.Background(), "s", "c1")
	want := `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["b"],"other_text":null}]}`
	if err != nil || string(out.Result) != want {
		t.Errorf("A's result: %v, %v; want %s", out, err, want)
	}
}

// eventNames follows an event stream and sends the name of each event,
// until the stream ends.
func eventNames(t *testing.T, url string) <-chan string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return readEventNames(res.Body)
}

// readEventNames reads an event stream's body and sends the name of each
// event, until the body ends; then it closes the channel.
func readEventNames(body io.Reader) <-chan string {
	names := make(chan string, 16)
	go func() {
		defer close(names)
		for e := range readEvents(body) {
			names <- e.name
		}
	}()
	return names
}

// sseEvent is one event of a stream.
type sseEvent struct{ name, data string }

// readEvents reads an event stream's body and sends each event, until the
// body ends; then it closes the channel.
func readEvents(body io.Reader) <-chan sseEvent {
	events := make(chan sseEvent, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(body)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				e.name = name
			} else if data, ok := strings.CutPrefix(line, "data: "); ok {
				e.data = data
			} else if line == "" && e.name != "" {
				events <- e
				e = sseEvent{}
			}
		}
	}()
	return events
}
