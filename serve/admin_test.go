package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/store"
)

// adminToken is the operators' token in the tests.
const adminToken = "admin-token-fedcba9876543210"

func withAdmin(c *Config) { c.AdminTokens = []string{adminToken} }

// list reads GET /v1/asks on base with query, as an operator.
func (a *agentClient) list(base, query string) (listJSON, reply) {
	a.t.Helper()
	r := a.do("GET", base+"/v1/asks"+query, "", map[string]string{"Authorization": "Bearer " + adminToken})
	var l listJSON
	if r.code == http.StatusOK {
		if err := json.Unmarshal([]byte(r.body), &l); err != nil {
			a.t.Fatalf("GET /v1/asks%s: %v in %s", query, err, r.body)
		}
	}
	return l, r
}

func listedIDs(l listJSON) []string {
	var ids []string
	for _, a := range l.Asks {
		ids = append(ids, a.Session+"/"+a.ToolCallID+":"+a.Status)
	}
	return ids
}

// TestAdminList: GET /v1/asks lists the asks across the fleet from the
// shared store — those another replica began too — oldest first, by
// status and session, a page at a time, with no answer in it.
func TestAdminList(t *testing.T) {
	asks := store.NewMemory(0)
	first := newReplica(t, asks, nil)
	other := newReplica(t, asks, withAdmin) // lists what the first began
	a := newAgentClient(t, testToken)
	a.callAsync(first.base, "s1", "call_1", serveChoice)
	a.callAsync(first.base, "s2", "call_2", serveChoice)
	a.callAsync(first.base, "s1", "call_3", serveSecret)
	a.callAsync(first.base, "s3", "call_4", serveChoice)
	if r := a.do("POST", first.base+"/v1/sessions/s3/supersede", "", nil); r.code != 200 {
		t.Fatalf("supersede: %d %s", r.code, r.body)
	}
	j := a.waitPending(first.base, "s1", "call_1")
	a.openCard(j.CardURL) // s1's call_1 gets an accepted answer: listed as answered, its value not
	l := a.cardList(first.base, "s1", 2)
	i := slices.IndexFunc(l.Asks, func(x struct {
		ID         string `json:"id"`
		ToolCallID string `json:"tool_call_id"`
	}) bool {
		return x.ToolCallID == "call_1"
	})
	if r := a.do("PUT", first.base+"/api/asks/"+l.Asks[i].ID+"/answers/env", `{"selected":["production"]}`, map[string]string{
		"Authorization": "", "Content-Type": "application/json", "X-CSRF-Token": l.CSRFToken}); r.code != 200 {
		t.Fatalf("accepting one answer: %d %s", r.code, r.body)
	}

	all, r := a.list(other.base, "?status=all")
	if r.code != 200 {
		t.Fatalf("status=all: %d %s", r.code, r.body)
	}
	if !slices.IsSortedFunc(all.Asks, func(x, y askJSON) int {
		if c := x.AskedAt.Compare(y.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(x.AskID, y.AskID)
	}) {
		t.Errorf("not oldest first: %+v", all.Asks)
	}
	got := listedIDs(all)
	slices.Sort(got)
	want := []string{"s1/call_1:pending", "s1/call_3:pending", "s2/call_2:pending", "s3/call_4:cancelled"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("status=all (-want +got):\n%s", diff)
	}
	if strings.Contains(r.body, "production") {
		t.Errorf("the listing carries an answer: %s", r.body)
	}
	for _, x := range all.Asks {
		if want := map[string][]string{"call_1": {"env"}}[x.ToolCallID]; !slices.Equal(x.Answered, want) {
			t.Errorf("%s answered %v; want %v (the ids of the accepted answers)", x.ToolCallID, x.Answered, want)
		}
	}
	for _, x := range all.Asks {
		if x.AskID == "" || x.Contract != "ask_user" || x.AskedAt.IsZero() || x.ExpiresAt.Sub(x.AskedAt) != 600*time.Second || len(x.Questions) != 1 {
			t.Errorf("ask %+v: want its id, contract, deadlines and questions", x)
		}
		if x.Status == "cancelled" && (x.Reason != "superseded" || x.AnsweredBy != "unattended" || x.FinalizedAt.IsZero()) {
			t.Errorf("the superseded ask: %+v; want cancelled / unattended, superseded, with its time", x)
		}
	}

	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{"s1/call_1:pending", "s1/call_3:pending", "s2/call_2:pending"}},
		{"?status=pending&session=s1", []string{"s1/call_1:pending", "s1/call_3:pending"}},
		{"?status=final", []string{"s3/call_4:cancelled"}},
		{"?status=cancelled&session=s3", []string{"s3/call_4:cancelled"}},
		{"?status=answered", nil},
		{"?status=ending", nil},
		{"?session=nobody", nil},
	} {
		l, r := a.list(other.base, tt.query)
		got := listedIDs(l)
		slices.Sort(got)
		if r.code != 200 || !slices.Equal(got, tt.want) {
			t.Errorf("GET /v1/asks%s: %d %v; want %v", tt.query, r.code, got, tt.want)
		}
	}

	// A page at a time: the pages, in order, are the whole listing.
	var paged []askJSON
	query := "?status=all&limit=1"
	for pages := 0; ; pages++ {
		l, r := a.list(other.base, query)
		if r.code != 200 || len(l.Asks) != 1 || pages > len(all.Asks) {
			t.Fatalf("page %d (%s): %d %s", pages, query, r.code, r.body)
		}
		paged = append(paged, l.Asks...)
		if l.NextCursor == "" {
			break
		}
		query = "?status=all&limit=1&cursor=" + l.NextCursor
	}
	if diff := cmp.Diff(all.Asks, paged); diff != "" {
		t.Errorf("the pages of limit=1 (-whole +pages):\n%s", diff)
	}
	if l, _ := a.list(other.base, "?status=all&limit=4"); len(l.Asks) != 4 || l.NextCursor != "" {
		t.Errorf("limit=4 of 4: %d asks, next_cursor %q; want all and no cursor", len(l.Asks), l.NextCursor)
	}
}

// TestAdminRefusals: the admin API opens to the admin token only, and
// refuses a query it cannot read, saying what is allowed.
func TestAdminRefusals(t *testing.T) {
	rp := newReplica(t, nil, withAdmin)
	a := newAgentClient(t, testToken)
	admin := map[string]string{"Authorization": "Bearer " + adminToken}
	for _, tt := range []struct {
		name, method, path string
		hdr                map[string]string
		code               int
		want               string
	}{
		{"the agent's token", "GET", "/v1/asks", nil, 401, "the admin token is missing or wrong"},
		{"no token", "GET", "/v1/asks", map[string]string{"Authorization": ""}, 401, "the admin token is missing or wrong"},
		{"the admin token on the agent API", "GET", "/v1/sessions/s/calls/c", admin, 401, "the bearer token is missing or wrong"},
		{"a POST", "POST", "/v1/asks", admin, 405, "only GET is served here"},
		{"a bad limit", "GET", "/v1/asks?limit=lots", admin, 400, `limit="lots" is not a whole number from 1 to 500 (the default is 50)`},
		{"limit zero", "GET", "/v1/asks?limit=0", admin, 400, `limit="0" is not a whole number from 1 to 500`},
		{"limit too high", "GET", "/v1/asks?limit=501", admin, 400, `limit="501" is not a whole number from 1 to 500`},
		{"a bad status", "GET", "/v1/asks?status=open", admin, 400, `status="open" is not a status; allowed: pending (the default), ending, final, answered, declined, cancelled, timed_out or all`},
		{"a bad cursor", "GET", "/v1/asks?cursor=page2", admin, 400, `cursor="page2" is not a cursor this service handed out: pass a page's next_cursor as it is, or no cursor for the first page`},
		{"a cursor of base64 but not ours", "GET", "/v1/asks?cursor=aGVsbG8", admin, 400, `is not a cursor this service handed out`},
		{"a long cursor is cut in the message", "GET", "/v1/asks?cursor=" + strings.Repeat("A", 200), admin, 400, `cursor="` + strings.Repeat("A", 64) + `"… is not a cursor`},
		{"an unknown parameter", "GET", "/v1/asks?state=pending", admin, 400, `the query has "state"; the parameters of GET /v1/asks are session, status, limit and cursor`},
		{"a parameter twice", "GET", "/v1/asks?limit=1&limit=2", admin, 400, "limit is given 2 times; give it once"},
		{"another host", "GET", "/v1/asks", map[string]string{"Authorization": "Bearer " + adminToken, "Host": "evil.example"}, 421, "answers only for the hosts"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(tt.method, rp.base+tt.path, "", tt.hdr)
			msg := r.body
			var e errorJSON
			if json.Unmarshal([]byte(r.body), &e) == nil {
				msg = e.Error
			}
			if r.code != tt.code || !strings.Contains(msg, tt.want) {
				t.Errorf("%d %s; want %d and %q", r.code, r.body, tt.code, tt.want)
			}
		})
	}
}

// TestAdminTokensApart: an admin token that is an agent's token too is
// refused when the Handler is made.
func TestAdminTokensApart(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "AdminTokens is also an agent's token") {
			t.Errorf("recovered %v; want a panic naming the shared token", p)
		}
	}()
	NewHandler(Config{Orchestrator: &askuser.Orchestrator{}, Tokens: []string{testToken}, AdminTokens: []string{testToken}})
}

// failingList is a store whose List fails.
type failingList struct{ *store.Memory }

func (failingList) List(context.Context, string) ([]store.Entry, error) {
	return nil, errors.New("nats: no responders available for request")
}

// TestAdminListStoreFails: a store that fails is a 503 that says to try
// again, and its error goes to the log only.
func TestAdminListStoreFails(t *testing.T) {
	rp := newReplica(t, failingList{store.NewMemory(0)}, withAdmin)
	_, r := newAgentClient(t, testToken).list(rp.base, "")
	if r.code != 503 || !strings.Contains(r.body, "the asks could not be listed now (the shared store failed); try again") || strings.Contains(r.body, "nats:") {
		t.Errorf("%d %s; want 503 saying to try again, without the store's error", r.code, r.body)
	}
}

// TestAdminListInMemory: without a shared store the orchestrator lists
// one session's pending asks, from its memory; the rest is refused with
// what to give instead.
func TestAdminListInMemory(t *testing.T) {
	card, err := NewCard(CardConfig{Keys: testRing(t)})
	if err != nil {
		t.Fatal(err)
	}
	o := &askuser.Orchestrator{Responder: card, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
	defer o.Close()
	srv := httptest.NewServer(validated(t, NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, AdminTokens: []string{adminToken}, Card: card})))
	defer srv.Close()
	a := newAgentClient(t, testToken)
	j := a.callAsync(srv.URL, "mem", "call_1", serveChoice)
	a.callAsync(srv.URL, "mem-other", "call_2", serveChoice)
	l, r := a.list(srv.URL, "?session=mem")
	if r.code != 200 || len(l.Asks) != 1 || l.Asks[0].AskID != j.AskID || l.Asks[0].Status != "pending" || l.Asks[0].Questions[0].Header != "Env" {
		t.Errorf("session=mem: %d %s; want its one pending ask", r.code, r.body)
	}
	for _, q := range []string{"", "?session=mem&status=final"} {
		if _, r := a.list(srv.URL, q); r.code != 400 || !strings.Contains(r.body, "lists one session's pending asks only: give session=") {
			t.Errorf("%q: %d %s; want 400 saying what to give", q, r.code, r.body)
		}
	}
	a.do("POST", srv.URL+"/v1/sessions/mem/supersede", "", nil)
	a.do("POST", srv.URL+"/v1/sessions/mem-other/supersede", "", nil)
	o.WaitResponders()
}

// TestAdminListAuto: asks that ended at once are listed final, with how.
func TestAdminListAuto(t *testing.T) {
	asks := store.NewMemory(0)
	o := &askuser.Orchestrator{Responder: auto.New(), Asks: asks, Limits: dialect.Limits{MaxTimeoutSeconds: 900}}
	defer o.Close()
	srv := httptest.NewServer(validated(t, NewHandler(Config{Orchestrator: o, Tokens: []string{testToken}, AdminTokens: []string{adminToken}})))
	defer srv.Close()
	a := newAgentClient(t, testToken)
	if r := a.call(srv.URL, "auto", "call_1", serveChoice, nil); r.code != 200 {
		t.Fatalf("call: %d %s", r.code, r.body)
	}
	l, r := a.list(srv.URL, "?status=final")
	if r.code != 200 || len(l.Asks) != 1 {
		t.Fatalf("status=final: %d %s", r.code, r.body)
	}
	x := l.Asks[0]
	if x.Status != "declined" && x.Status != "answered" || x.AnsweredBy != "unattended" || x.Responder == "" {
		t.Errorf("the ask auto ended: %+v; want its final status, answered_by unattended and the responder", x)
	}
}

// FuzzListQuery: GET /v1/asks's query parser never panics; what it
// accepts is within its bounds, and a cursor it accepts is one it would
// hand out again for the same place; what it refuses, it refuses with a
// message.
func FuzzListQuery(f *testing.F) {
	c := listCursor{askedAt: time.Date(2026, 11, 30, 9, 0, 0, 123, time.UTC), askID: "a1"}.encode()
	for _, s := range []string{"", "status=all&limit=1", "session=s1&status=pending", "limit=500", "limit=0", "limit=-1", "limit=1e3",
		"cursor=" + c, "cursor=x", "cursor=aGVsbG8", "status=open", "state=x", "limit=1&limit=2", "session=%ff", "cursor=%20"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return // the server refuses such a query before the handler
		}
		lq, err := parseListQuery(q)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refused without a message")
			}
			return
		}
		if lq.limit < 1 || lq.limit > maxListLimit || lq.status == "" || len(lq.session) > maxIDBytes {
			t.Fatalf("accepted %q as %+v", raw, lq)
		}
		if lq.after != nil {
			again, ok := decodeCursor(lq.after.encode())
			if !ok || !again.askedAt.Equal(lq.after.askedAt) || again.askID != lq.after.askID {
				t.Fatalf("cursor %q read as %+v, written back and read again as %+v, %v", q.Get("cursor"), lq.after, again, ok)
			}
		}
	})
}

// TestAdminTokensApartFromTenants: a tenant's token cannot be an admin
// token either.
func TestAdminTokensApartFromTenants(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "AdminTokens is also an agent's token") {
			t.Errorf("recovered %v; want a panic naming the shared token", p)
		}
	}()
	NewHandler(Config{Orchestrator: &askuser.Orchestrator{}, Tenants: []Tenant{{Prefix: "a-", Token: testToken}}, AdminTokens: []string{testToken}})
}
