package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/askuser-go/askuser/store"
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

// FuzzOnceNoted: on notes shared by replicas, a one-time link's code (the
// URL's path) and its note (what another replica wrote) never admit a
// browser to an ask the card cannot find, and whatever they hold, the
// link's pages answer with a refusal, never a cookie.
func FuzzOnceNoted(f *testing.F) {
	f.Add("abc", []byte(`{"a":"a1","s":"s1","p":"p","u":99999999999999}`))
	f.Add("abc", []byte(`{"a":"a1","s":"s1","u":1,"used":true}`))
	f.Add("x/../y", []byte(`{}`))
	f.Add("", []byte(`not json`))
	f.Fuzz(func(t *testing.T, code string, note []byte) {
		notes := &store.MemoryNotes{}
		r := New(&Options{Notes: notes, Logger: slog.New(slog.DiscardHandler)})
		defer r.Close()
		if _, err := notes.Create(context.Background(), onceNoteKey(code), note); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			req := httptest.NewRequest(m, "/once/x", nil)
			req.SetPathValue("code", code)
			rec := httptest.NewRecorder()
			r.onceRoute(rec, req)
			if rec.Code == http.StatusSeeOther || rec.Header().Get("Set-Cookie") != "" {
				t.Fatalf("%s of the code %q with the note %q admitted: %d %v", m, code, note, rec.Code, rec.Header())
			}
			if m == http.MethodPost && rec.Code != http.StatusNotFound && rec.Code != http.StatusGone {
				t.Fatalf("POST of the code %q with the note %q: %d; want 404 or 410", code, note, rec.Code)
			}
		}
	})
}
