package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/web"
)

// The load tests run on loopback only, each beside its floor in the same
// run: a bare net/http handler that decodes the same body and answers 200.
// They take about a minute, so they run only when asked:
//
//	ASKUSER_WEB_LOAD=1 go test -run TestLoad -count=1 -v ./responders/web/
//
// The figures are in BENCHMARKS.web.part.md.

const (
	loadAsks    = 10000
	loadClients = 64
	loadRate    = 500 // answers per second, offered
	loadFor     = 20 * time.Second
	loadRounds  = 5
)

func loadGate(t *testing.T) {
	if os.Getenv("ASKUSER_WEB_LOAD") == "" {
		t.Skip("set ASKUSER_WEB_LOAD=1 to run the load tests (about a minute)")
	}
}

// floor is the bare handler: it decodes an answer body and answers 200.
func floor() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b struct {
			Selected  []string `json:"selected"`
			OtherText *string  `json:"other_text"`
			Note      string   `json:"note"`
			Secret    *string  `json:"secret"`
			Answers   map[string]struct {
				Selected []string `json:"selected"`
			} `json:"answers"`
		}
		data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err == nil {
			err = json.Unmarshal(data, &b)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}` + "\n"))
	})
}

func loadClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
}

func post(c *http.Client, method, url, token, body string) (int, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", token)
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// loadAsked is loadAsks pending asks of one question in session "load",
// each with the time its Handle returned.
type loadAsked struct {
	o     *askuser.Orchestrator
	r     *web.Responder
	srv   *httptest.Server
	ids   []string
	ended []atomic.Int64 // unix nanoseconds, by ask index
	wg    sync.WaitGroup
}

func newLoadAsked(t *testing.T) *loadAsked {
	l := &loadAsked{r: web.New(&web.Options{Logger: quiet}), ended: make([]atomic.Int64, loadAsks)}
	l.o = &askuser.Orchestrator{Responder: l.r, Logger: quiet, ReplayLimit: -1}
	l.srv = httptest.NewServer(l.r)
	for i := range loadAsks {
		l.wg.Go(func() {
			call := `{"questions":[{"id":"size","header":"Size","question":"How big?","options":[{"label":"small","description":"1 CPU"},{"label":"large","description":"8 CPUs"}]}],"timeout_seconds":300}`
			out, err := l.o.Handle(context.Background(), askuser.Request{Session: "load", ToolCallID: fmt.Sprint(i), Arguments: []byte(call)})
			if err != nil {
				t.Error(err)
				return
			}
			if out.Status == askuser.StatusAnswered {
				l.ended[i].Store(time.Now().UnixNano())
			}
		})
	}
	// Wait until every ask is on the card.
	for {
		as := l.o.Pending("load")
		if len(as) == loadAsks {
			l.ids = make([]string, loadAsks)
			for _, a := range as {
				var i int
				fmt.Sscan(a.ToolCallID, &i)
				l.ids[i] = a.AskID
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := loadClient()
	for _, id := range l.ids {
		for {
			res, err := c.Get(l.srv.URL + "/api/asks/" + id)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return l
}

func (l *loadAsked) close() {
	l.o.Supersede("load")
	l.wg.Wait()
	l.r.Close()
	l.srv.Close()
}

// closedLoop sends n requests from clients goroutines and returns the
// requests per second.
func closedLoop(t *testing.T, n, clients int, send func(c *http.Client, i int) (int, error)) float64 {
	c := loadClient()
	var next atomic.Int64
	var bad atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				code, err := send(c, i)
				if err != nil || code != 200 {
					if bad.Add(1) == 1 {
						t.Errorf("request %d: %d %v", i, code, err)
					}
				}
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// TestLoadAnswerThroughput: 64 concurrent clients answer 10,000 pending
// asks; answers per second beside the floor's requests per second.
func TestLoadAnswerThroughput(t *testing.T) {
	loadGate(t)
	body := `{"selected":["small"]}`

	fl := httptest.NewServer(floor())
	defer fl.Close()
	l := newLoadAsked(t)
	defer l.close()
	token := l.r.CSRFToken("load")
	floorRound := func() float64 {
		return closedLoop(t, loadAsks, loadClients, func(c *http.Client, i int) (int, error) {
			return post(c, "PUT", fl.URL+"/api/asks/x/answers/size", "t", body)
		})
	}
	webRound := func() float64 {
		return closedLoop(t, loadAsks, loadClients, func(c *http.Client, i int) (int, error) {
			return post(c, "PUT", l.srv.URL+"/api/asks/"+l.ids[i]+"/answers/size", token, body)
		})
	}
	// A warm-up round each, then rounds in turn, so that the machine's
	// noise falls on both alike; the medians are compared.
	floorRound()
	webRound()
	var floorRPS, webRPS []float64
	for range loadRounds {
		floorRPS = append(floorRPS, floorRound())
		webRPS = append(webRPS, webRound())
	}
	for _, a := range l.o.Pending("load") {
		if len(a.Answered) != 1 {
			t.Fatalf("an answered ask holds %d answers", len(a.Answered))
		}
	}
	slices.Sort(floorRPS)
	slices.Sort(webRPS)
	fm, wm := floorRPS[len(floorRPS)/2], webRPS[len(webRPS)/2]
	t.Logf("answers/s with %d clients on %d pending asks, median of %d rounds: web %.0f, floor %.0f, ratio %.2f (target ≥ 0.5); rounds: web %.0f, floor %.0f",
		loadClients, loadAsks, loadRounds, wm, fm, wm/fm, webRPS, floorRPS)
	fmt.Printf("LOAD throughput: web %.0f answers/s, floor %.0f req/s, ratio %.2f\n", wm, fm, wm/fm)
}

// openLoop offers loadRate requests per second for loadFor, each in its
// own goroutine, and returns each request's start time.
func openLoop(send func(i int)) []time.Time {
	n := int(loadFor.Seconds()) * loadRate
	starts := make([]time.Time, n)
	interval := time.Second / loadRate
	var wg sync.WaitGroup
	begin := time.Now()
	for i := range n {
		if d := time.Until(begin.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		starts[i] = time.Now()
		wg.Go(func() { send(i) })
	}
	wg.Wait()
	return starts
}

func percentiles(d []time.Duration) (p50, p99, max time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100], d[len(d)-1]
}

// TestLoadSubmitLatency: at a fixed offered rate of 500 answers/s for 20 s,
// the time from POST to the orchestrator's outcome, beside the floor's
// time from POST to its response.
func TestLoadSubmitLatency(t *testing.T) {
	loadGate(t)
	body := `{"answers":{"size":{"selected":["small"]}}}`

	fl := httptest.NewServer(floor())
	defer fl.Close()
	fc := loadClient()
	floorLat := make([]time.Duration, int(loadFor.Seconds())*loadRate)
	openLoop(func(i int) {
		t0 := time.Now()
		if code, err := post(fc, "POST", fl.URL+"/api/asks/x/submit", "t", body); err != nil || code != 200 {
			t.Errorf("floor: %d %v", code, err)
		}
		floorLat[i] = time.Since(t0)
	})

	l := newLoadAsked(t)
	defer l.close()
	token := l.r.CSRFToken("load")
	c := loadClient()
	starts := openLoop(func(i int) {
		if code, err := post(c, "POST", l.srv.URL+"/api/asks/"+l.ids[i]+"/submit", token, body); err != nil || code != 200 {
			t.Errorf("submit %d: %d %v", i, code, err)
		}
	})
	l.wg.Wait() // every Handle has returned: each ask was submitted
	webLat := make([]time.Duration, len(starts))
	for i, s := range starts {
		webLat[i] = time.Duration(l.ended[i].Load() - s.UnixNano())
	}
	f50, f99, fmax := percentiles(floorLat)
	w50, w99, wmax := percentiles(webLat)
	t.Logf("%d answers/s for %v: POST→outcome p50 %v p99 %v max %v (target p99 ≤ 5ms); floor POST→200 p50 %v p99 %v max %v",
		loadRate, loadFor, w50, w99, wmax, f50, f99, fmax)
	fmt.Printf("LOAD latency: web p50 %v p99 %v max %v; floor p50 %v p99 %v max %v\n", w50, w99, wmax, f50, f99, fmax)
}
