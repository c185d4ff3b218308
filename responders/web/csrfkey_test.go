package web_test

import (
	"context"
	"encoding/json"
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

// TestCSRFKeyShared: two replicas' cards on one shared pending-ask store.
// The page is loaded from replica A (its listing carries the CSRF token);
// the answer is posted to replica B, naming the session as the page does.
// With the same Options.CSRFKey B takes A's token; with a key of its own
// (or none) it refuses it with 403.
func TestCSRFKeyShared(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for _, tt := range []struct {
		name   string
		keyB   []byte
		want   int
		answer bool
	}{
		{"same key", key, http.StatusOK, true},
		{"another key", []byte("fedcba9876543210fedcba9876543210"), http.StatusForbidden, false},
		{"no key", nil, http.StatusForbidden, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory(0)
			cardA := web.New(&web.Options{Logger: quiet, CSRFKey: key})
			cardB := web.New(&web.Options{Logger: quiet, CSRFKey: tt.keyB})
			oA := &askuser.Orchestrator{Responder: cardA, Asks: st, Logger: quiet}
			oB := &askuser.Orchestrator{Responder: cardB, Asks: st, Logger: quiet}
			srvA := httptest.NewServer(cardA)
			srvB := httptest.NewServer(cardB)
			defer func() {
				srvA.Close()
				srvB.Close()
				oA.Close()
				oB.Close()
				oA.WaitResponders()
				oB.WaitResponders()
			}()
			ctx := context.Background()
			for _, o := range []*askuser.Orchestrator{oA, oB} {
				if err := o.Ready(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := oA.Begin(ctx, askuser.Request{Session: "s", ToolCallID: "c1", Arguments: []byte(otherAsk)}); err != nil {
				t.Fatal(err)
			}
			// The listing on A: its token, and the ask, which B finds in the store.
			var list struct {
				CSRFToken string `json:"csrf_token"`
				Asks      []struct {
					ID string `json:"id"`
				} `json:"asks"`
			}
			deadline := time.Now().Add(time.Minute)
			for len(list.Asks) == 0 || len(oB.Pending("s")) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the ask never showed on both cards")
				}
				time.Sleep(5 * time.Millisecond)
				res, err := http.Get(srvA.URL + "/api/sessions/s/asks")
				if err != nil {
					t.Fatal(err)
				}
				err = json.NewDecoder(res.Body).Decode(&list)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := cardA.CSRFToken("s"); got != list.CSRFToken {
				t.Fatalf("A's listing carries %q, CSRFToken says %q", list.CSRFToken, got)
			}
			body := `{"answers":{"size":{"selected":["small"]}}}`
			req, _ := http.NewRequest("POST", srvB.URL+"/api/asks/"+list.Asks[0].ID+"/submit?session=s", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-CSRF-Token", list.CSRFToken)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Fatalf("submit on B with A's token: %d %s; want %d", res.StatusCode, b, tt.want)
			}
			if !tt.answer {
				if got := len(oA.Pending("s")); got != 1 {
					t.Errorf("after the refusal %d asks pending; want the ask still pending", got)
				}
				return
			}
			actx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			out, err := oA.Await(actx, "s", "c1")
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"status":"answered","answered_by":"user","answers":[{"id":"size","selected":["small"],"other_text":null}]}`; string(out.Result) != want {
				t.Errorf("result %s; want %s", out.Result, want)
			}
		})
	}
}
