package webhook_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	secret = []byte("0123456789abcdef0123456789abcdef")
	at     = time.Unix(1733097600, 0)
	body   = []byte(`{"v":2,"ask_id":"a1","status":"answered"}`)
)

// The signature is the one a receiver computes by hand: HMAC-SHA256 over
// "<t>.<body>", in hex (the value below was computed with openssl:
// printf '%s' '1733097600.<body>' | openssl dgst -sha256 -hmac <secret>).
func TestSignKnownValue(t *testing.T) {
	got := webhook.Sign(secret, at, body)
	const want = "t=1733097600,v1=f4bb14f6533805d00f9d27ecd4935f61e3072c2ed9d933852cfbde165971c29f"
	if got != want {
		t.Fatalf("Sign = %q; want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	good := webhook.Sign(secret, at, body)
	other := webhook.Sign([]byte("another secret, sixteen+ bytes"), at, body)
	cases := []struct {
		name   string
		header string
		body   []byte
		now    time.Time
		want   error // nil, ErrSignature or ErrStale
	}{
		{"good", good, body, at, nil},
		{"good, 4m59s late", good, body, at.Add(299 * time.Second), nil},
		{"good, clock 4m early", good, body, at.Add(-4 * time.Minute), nil},
		{"stale", good, body, at.Add(5*time.Minute + time.Second), webhook.ErrStale},
		{"from the future", good, body, at.Add(-6 * time.Minute), webhook.ErrStale},
		{"body changed", good, []byte(`{"v":2,"ask_id":"a1","status":"declined"}`), at, webhook.ErrSignature},
		{"other secret", other, body, at, webhook.ErrSignature},
		{"rotation: one of two matches", other + "," + good[strings.Index(good, "v1="):], body, at, nil},
		{"empty", "", body, at, webhook.ErrSignature},
		{"no signature", "t=1733097600", body, at, webhook.ErrSignature},
		{"no timestamp", good[strings.Index(good, "v1="):], body, at, webhook.ErrSignature},
		{"two timestamps", "t=1733097600," + good, body, at, webhook.ErrSignature},
		{"timestamp moved", strings.Replace(good, "t=1733097600", "t=1733097601", 1), body, at, webhook.ErrSignature},
		{"leading zero", strings.Replace(good, "t=", "t=0", 1), body, at, webhook.ErrSignature},
		{"not hex", "t=1733097600,v1=zz", body, at, webhook.ErrSignature},
		{"short", good[:len(good)-2], body, at, webhook.ErrSignature},
		{"not key=value", "t=1733097600,garbage", body, at, webhook.ErrSignature},
		{"unknown scheme beside v1", good + ",v0=abc", body, at, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := webhook.Verify(secret, c.header, c.body, c.now, 0)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v; want %v", err, c.want)
			}
		})
	}
	if err := webhook.Verify([]byte("short"), good, body, at, 0); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short secret: %v; want it refused, saying how long one must be", err)
	}
}

// A delivery reaches a receiver that verifies it as documented, with the
// ask id; a non-2xx answer is an error that names the host and not the
// URL's path (often a credential).
func TestSend(t *testing.T) {
	var status atomic.Int32
	status.Store(500)
	got := make(chan *http.Request, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header.Get(webhook.SignatureHeader), b, time.Now(), 0); err != nil {
			t.Errorf("the receiver's Verify: %v", err)
		}
		if string(b) != string(body) {
			t.Errorf("body %s; want %s", b, body)
		}
		got <- r
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	ep := &webhook.Endpoint{URL: srv.URL + "/hooks/T0KEN-in-the-path?key=hunter2", Secret: secret}
	err := ep.Send(context.Background(), "a1", body)
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("Send to a 500: %v; want an error naming the status and %s", err, srv.URL)
	}
	if strings.Contains(err.Error(), "T0KEN") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the URL's path or query: %v", err)
	}
	status.Store(204)
	if err := ep.Send(context.Background(), "a1", body); err != nil {
		t.Fatalf("Send to a 204: %v", err)
	}
	for range 2 {
		r := <-got
		if r.Header.Get(webhook.IDHeader) != "a1" || r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost {
			t.Errorf("request %s %v; want a POST of JSON with the ask id", r.Method, r.Header)
		}
	}
}

// A redirect is not followed: the signed body goes only where it was sent.
func TestSendRefusesRedirect(t *testing.T) {
	var reached atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Store(true) }))
	defer target.Close()
	srv := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer srv.Close()
	err := (&webhook.Endpoint{URL: srv.URL, Secret: secret}).Send(context.Background(), "a1", body)
	if err == nil || !strings.Contains(err.Error(), "307") {
		t.Fatalf("Send to a redirect: %v; want a failed delivery naming 307", err)
	}
	if reached.Load() {
		t.Error("the redirect was followed")
	}
}

func TestCheck(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "http://", "not a url at all\x7f"} {
		if err := (&webhook.Endpoint{URL: u, Secret: secret}).Check(); err == nil {
			t.Errorf("Check(%q) = nil; want an error", u)
		}
	}
	if err := (&webhook.Endpoint{URL: "https://example.test/h", Secret: []byte("x")}).Check(); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a short secret: %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(webhook.Sign(secret, at, body), body, int64(0))
	f.Add("t=1,v1=00", []byte("x"), int64(10))
	f.Add("t=,v1=,,", []byte{}, int64(-1))
	f.Fuzz(func(t *testing.T, header string, b []byte, skew int64) {
		now := at.Add(time.Duration(skew) * time.Second)
		err := webhook.Verify(secret, header, b, now, 0)
		if err == nil {
			// Whatever passes must be what Sign gives for the
			// body at a time within the tolerance.
			if !strings.Contains(header, "v1=") {
				t.Fatalf("Verify took %q, which has no v1 signature", header)
			}
			return
		}
		if !errors.Is(err, webhook.ErrSignature) && !errors.Is(err, webhook.ErrStale) {
			t.Fatalf("Verify(%q) = %v; want ErrSignature or ErrStale", header, err)
		}
	})
}
