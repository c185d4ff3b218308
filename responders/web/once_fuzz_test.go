package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// FuzzAdmission: no cookie value but one the card signed admits a
// browser, and a signed one admits only to its own ask and session.
func FuzzAdmission(f *testing.F) {
	r := New(nil)
	good := r.admission(onceCode{ask: "a1", session: "s1", principal: "p"}, time.Now().Add(time.Hour))
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add("eyJhIjoiYTEiLCJzIjoiczEiLCJlIjo5OTk5OTk5OTk5fQ.AAAA")
	f.Add(".")
	f.Fuzz(func(t *testing.T, v string) {
		req := httptest.NewRequest(http.MethodGet, "/api/asks/a1", nil)
		req.Header.Set("Cookie", onceCookie("a1")+"="+v)
		_, ok := r.admitted(req, "a1", "s1")
		if ok && v != good {
			t.Fatalf("the cookie %q admits, though the card did not sign it", v)
		}
		if _, other := r.admitted(req, "a1", "s2"); other {
			t.Fatalf("the cookie %q admits to another session", v)
		}
	})
}
