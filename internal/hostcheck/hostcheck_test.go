package hostcheck

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheck(t *testing.T) {
	h := New([]string{"askuser.internal:8080"}).Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"askuser.internal", "", 200},
		{"ASKUSER.internal:9", "https://askuser.internal", 200},
		{"evil.example", "", http.StatusMisdirectedRequest},
		{"askuser.internal", "https://evil.example", http.StatusForbidden},
		{"askuser.internal", "file://askuser.internal", http.StatusForbidden},
		{"localhost", "", http.StatusMisdirectedRequest}, // only the allowed hosts
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, w.Code, c.want)
		}
	}
}

func TestHelpers(t *testing.T) {
	for in, want := range map[string]string{"[::1]:80": "::1", "[::1]": "::1", "Example.COM:443": "example.com", "x": "x"} {
		if got := HostOnly(in); got != want {
			t.Errorf("HostOnly(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"//evil": "/evil", `/\evil`: "/evil", "/a/b": "/a/b"} {
		if got := LocalPath(in, ""); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
	if LocalPath("/s", "t=1") != "/s?t=1" || !Plain("a-b.c:1") || Plain("a@b") || Plain("") {
		t.Error("LocalPath with a query, or Plain, is wrong")
	}
	for n, want := range map[int64]string{64 << 10: "64 KiB", 1 << 20: "1 MiB", 1000: "1000 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
