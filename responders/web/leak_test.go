package web_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responder/respondertest"
	"github.com/askuser-go/askuser/responders/web"
)

// TestConformance runs the conformance suite with nobody connected: every
// ask waits for its deadline, or is superseded, or its caller goes. Without
// a server nothing touches a socket, so the deadlines pass on a synctest
// bubble's clock.
func TestConformance(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		r := web.New(&web.Options{Logger: quiet})
		t.Cleanup(func() { r.Close() })
		return r
	}, &respondertest.Options{Synctest: true})
}

// TestConformanceOnlyWhenConnected: with nobody connected the orchestrator
// does not call Respond at all; the suite ignores presence to check Respond
// all the same, as when the page goes away between Reachable and Respond.
func TestConformanceOnlyWhenConnected(t *testing.T) {
	respondertest.Run(t, func(t *testing.T) askuser.Responder {
		r := web.New(&web.Options{Logger: quiet, OnlyWhenConnected: true})
		t.Cleanup(func() { r.Close() })
		return r
	}, &respondertest.Options{IgnorePresence: true, Synctest: true})
}

// TestRespondReturnsWhenItsContextEnds: the caller goes away; Respond
// returns and leaves no goroutine behind.
func TestRespondReturnsWhenItsContextEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := web.New(&web.Options{Logger: quiet})
	defer r.Close()
	o := &askuser.Orchestrator{Responder: r, Logger: quiet}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := o.Handle(ctx, askuser.Request{Session: "s", Arguments: []byte(otherAsk)})
		errc <- err
	}()
	for len(o.Pending("s")) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Handle returned %v, want context.Canceled", err)
	}
}

// TestCloseEndsPendingAsks: Close ends what is pending as unreachable and
// waits for Respond to return.
func TestCloseEndsPendingAsks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := web.New(&web.Options{Logger: quiet})
	o := &askuser.Orchestrator{Responder: r, Logger: quiet}
	res := make(chan *askuser.Outcome, 1)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(otherAsk)})
		res <- out
	}()
	for len(o.Pending("s")) == 0 {
		time.Sleep(time.Millisecond)
	}
	r.Close()
	out := <-res
	if out.Reason != askuser.ReasonUnattended {
		t.Errorf("the ask ended %s, want unattended", out.Reason)
	}
	// Later asks are unattended at once.
	out, err := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(otherAsk)})
	if err != nil || out.Reason != askuser.ReasonUnattended {
		t.Errorf("an ask after Close: %v, %v", out, err)
	}
}

// openStream connects to a session's event stream and reads its snapshot;
// the returned channel closes when the stream ends.
func openStream(t *testing.T, client *http.Client, url string) <-chan struct{} {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "event: snapshot") {
		t.Fatalf("the stream did not open with a snapshot: %q", sc.Text())
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer res.Body.Close()
		for sc.Scan() {
		}
	}()
	return ended
}

// TestStreamsEndWhenTheServerCloses: with Close registered on the
// server's shutdown, Shutdown ends every event stream and returns; nothing
// is left running.
func TestStreamsEndWhenTheServerCloses(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := web.New(&web.Options{Logger: quiet})
	srv := &http.Server{Handler: r}
	srv.RegisterOnShutdown(func() { r.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var streams []<-chan struct{}
	for range 3 {
		streams = append(streams, openStream(t, client, "http://"+ln.Addr().String()+"/api/sessions/s/events"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v (the event streams kept it waiting)", err)
	}
	for _, s := range streams {
		select {
		case <-s:
		case <-time.After(5 * time.Second):
			t.Fatal("an event stream did not end")
		}
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatal(err)
	}
}

// TestStreamsEndWithHTTPTest: httptest.Server.Close waits for every
// request; after Responder.Close none is left.
func TestStreamsEndWithHTTPTest(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := web.New(&web.Options{Logger: quiet})
	srv := httptest.NewServer(r)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	s := openStream(t, &http.Client{Transport: tr}, srv.URL+"/api/sessions/s/events")
	r.Close()
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not close")
	}
	<-s
	if res, err := http.Get(srv.URL + "/api/sessions/s/events"); err == nil {
		res.Body.Close()
		t.Error("the closed server still answers")
	}
}

// TestOnlyWhenConnected: the session is reachable while a page is
// connected to its event stream, and not before or after.
func TestOnlyWhenConnected(t *testing.T) {
	r := web.New(&web.Options{Logger: quiet, OnlyWhenConnected: true})
	defer r.Close()
	srv := httptest.NewServer(r)
	defer srv.Close()
	ctx := context.Background()
	if r.Reachable(ctx, "s") {
		t.Error("reachable with no page connected")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	rctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(rctx, "GET", srv.URL+"/api/sessions/s/events", nil)
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Scan() // the snapshot
	if !r.Reachable(ctx, "s") || r.Reachable(ctx, "other") {
		t.Error("with a page connected to s: s should be reachable, other not")
	}
	cancel()
	res.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); r.Reachable(ctx, "s"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still reachable after the page went away")
		}
	}
}
