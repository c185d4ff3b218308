package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
)

// verifyNoLeaks checks, once the test and its cleanups are done, that no
// goroutine it started is left.
func verifyNoLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// serveTimed serves r on loopback with an http.Server whose every timeout
// is d, as a careful embedding program configures it, and closes both when
// the test ends.
func serveTimed(t *testing.T, r *web.Responder, d time.Duration) string {
	t.Helper()
	srv := &http.Server{Handler: r, ReadHeaderTimeout: d, ReadTimeout: d, WriteTimeout: d, IdleTimeout: d}
	srv.RegisterOnShutdown(func() { r.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
		<-served
	})
	return ln.Addr().String()
}

// TestEventsOutliveServerTimeouts: an event stream and an ending's wait
// are exempt from the server's read and write timeouts: a page connected
// longer than them still gets the next ask and its outcome on the same
// stream.
func TestEventsOutliveServerTimeouts(t *testing.T) {
	verifyNoLeaks(t)
	// The submit below is read within the server's timeouts even when a
	// loaded machine stalls a moment.
	const timeout = 600 * time.Millisecond
	r := web.New(&web.Options{Logger: quiet})
	addr := serveTimed(t, r, timeout)
	o := &askuser.Orchestrator{Responder: r, Logger: quiet}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/api/sessions/s/events", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := readEventNames(res.Body)
	next := func() string {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the event stream ended")
			}
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return ""
	}
	if e := next(); e != "snapshot" {
		t.Fatalf("first event %q, want snapshot", e)
	}
	time.Sleep(4 * timeout)

	done := make(chan *askuser.Outcome, 1)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(otherAsk)})
		done <- out
	}()
	if e := next(); e != "ask" {
		t.Fatalf("the event after the timeouts %q, want ask", e)
	}
	a := o.Pending("s")[0]
	body := `{"answers":{"size":{"selected":["large"]}}}`
	preq, _ := http.NewRequest("POST", "http://"+addr+"/api/asks/"+a.AskID+"/submit", strings.NewReader(body))
	preq.Header.Set("Content-Type", "application/json")
	preq.Header.Set("X-CSRF-Token", r.CSRFToken("s"))
	pres, err := client.Do(preq)
	if err != nil || pres.StatusCode != 200 {
		t.Fatalf("submit: %v %v", pres.Status, err)
	}
	pres.Body.Close()
	if e := next(); e != "outcome" {
		t.Fatalf("the event after the submit %q, want outcome", e)
	}
	if out := <-done; out.Status != askuser.StatusAnswered {
		t.Errorf("the ask ended %s, want answered", out.Status)
	}
	cancel()
}

// TestStalledBodyIsDropped: a request whose declared body never comes is
// dropped at Options.BodyTimeout on every route (an answer, a refused one,
// an unknown path, another host), on a server with no ReadTimeout of its
// own; a body that comes in time is taken.
func TestStalledBodyIsDropped(t *testing.T) {
	verifyNoLeaks(t)
	// Long enough that a loaded machine's stall does not pass for a
	// stalled client (the answer in time below comes at a tenth of it).
	const timeout = time.Second
	r := web.New(&web.Options{Logger: quiet, BodyTimeout: timeout})
	addr := serveTimed(t, r, 0)
	o := &askuser.Orchestrator{Responder: r, Logger: quiet}
	done := make(chan *askuser.Outcome, 1)
	go func() {
		out, _ := o.Handle(context.Background(), askuser.Request{Session: "s", Arguments: []byte(otherAsk)})
		done <- out
	}()
	for len(o.Pending("s")) == 0 {
		time.Sleep(time.Millisecond)
	}
	id := o.Pending("s")[0].AskID
	put := func(path, host, extra string) string {
		return fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n%s\r\n", path, host, extra)
	}
	csrf := "X-CSRF-Token: " + r.CSRFToken("s") + "\r\n"
	tests := []struct {
		name, req string
		code      int
	}{
		{"an answer", put("/api/asks/"+id+"/answers/size", addr, csrf), http.StatusRequestTimeout},
		{"without the CSRF token", put("/api/asks/"+id+"/answers/size", addr, ""), http.StatusForbidden},
		{"an unknown ask", put("/api/asks/nope/answers/size", addr, csrf), http.StatusNotFound},
		{"an unknown path", put("/nowhere", addr, ""), http.StatusNotFound},
		{"another host", put("/api/asks/"+id+"/answers/size", "evil.example", csrf), http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			conn.SetDeadline(start.Add(10 * timeout))
			io.WriteString(conn, tt.req)
			br := bufio.NewReader(conn)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			res.Body.Close()
			if res.StatusCode != tt.code {
				t.Errorf("%s, want %d", res.Status, tt.code)
			}
			// The connection is dropped, at the timeout and not before it
			// (how much later depends on the machine's load, and is not
			// checked beyond the connection's own deadline above).
			if _, err := io.Copy(io.Discard, br); err != nil {
				t.Fatalf("the connection is still held after %v: %v", time.Since(start), err)
			}
			if took := time.Since(start); took < timeout/2 {
				t.Errorf("the connection was dropped after %v; want it held until the %v timeout", took, timeout)
			}
		})
	}
	// In time, an answer is taken; the connection lives on.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * timeout))
	body := `{"selected":["large"]}`
	fmt.Fprintf(conn, "PUT /api/asks/%s/answers/size HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", id, addr, len(body), csrf)
	time.Sleep(timeout / 10)
	io.WriteString(conn, body)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("an answer in time: %v %v", res.Status, err)
	}
	res.Body.Close()
	time.Sleep(timeout) // past the body's deadline, the connection still serves
	fmt.Fprintf(conn, "GET /api/asks/%s HTTP/1.1\r\nHost: %s\r\n\r\n", id, addr)
	if res, err = http.ReadResponse(br, nil); err != nil || res.StatusCode != 200 {
		t.Fatalf("a second request on the connection: %v %v", res.Status, err)
	}
	res.Body.Close()
	o.Supersede("s")
	<-done
}

// TestStreamLeavesNoStaleWriteDeadline: once an event stream ends, the
// deadline of its last write does not stay on the connection, so that a
// server without a WriteTimeout serves the connection's next request
// however much later it comes.
func TestStreamLeavesNoStaleWriteDeadline(t *testing.T) {
	verifyNoLeaks(t)
	// Long enough that a stalled reader on a loaded machine does not
	// end the stream early by a write timing out.
	const timeout = 500 * time.Millisecond
	t.Cleanup(web.SetStreamWriteTimeout(timeout))
	r := web.New(&web.Options{Logger: quiet})
	addr := serveTimed(t, r, 0)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var reused []bool
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
	get := func(path string) *http.Response {
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", "http://"+addr+path, nil)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return res
	}
	res := get("/api/sessions/s/events")
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}()
	time.Sleep(timeout)
	r.Close() // ends the stream
	<-ended
	time.Sleep(3 * timeout)
	res = get("/api/sessions/s/asks")
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || len(reused) != 2 || !reused[1] {
		t.Errorf("the request after the stream: %s, connections reused %v; want 200 on the stream's connection", res.Status, reused)
	}
}
