package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tenants' tokens in the tests.
const (
	tokenA = "tenant-a-token-0123456789"
	tokenB = "tenant-b-token-0123456789"
)

// TestTenantsAttack: tenant A holds a token scoped to "a-", tenant B one
// scoped to "b-". A tries everything the agent API offers against B's
// pending ask — reading it, waiting on it, joining it with the same call,
// superseding it, reading its secret — and is refused each time with 403,
// saying the token's own prefix and not B's; B's ask is untouched, and B
// reads its result once answered. A token for every session (the one-line
// token file) still reaches both.
func TestTenantsAttack(t *testing.T) {
	rp := newReplica(t, nil, func(c *Config) {
		c.Tenants = []Tenant{{Prefix: "a-", Token: tokenA}, {Prefix: "b-", Token: tokenB}}
		c.Secrets = c.Orchestrator.Secrets
	})
	a, b, all := newAgentClient(t, tokenA), newAgentClient(t, tokenB), newAgentClient(t, testToken)
	jb := b.callAsync(rp.base, "b-run", "call-b", serveChoice)
	ja := a.callAsync(rp.base, "a-run", "call-a", serveChoice)
	if !strings.Contains(ja.CardURL, "/sessions/a-run?") {
		t.Errorf("A's card URL %s; want its own session's", ja.CardURL)
	}

	for _, tt := range []struct {
		name         string
		method, path string
		body         string
	}{
		{"read B's ask", "GET", "/v1/sessions/b-run/calls/call-b", ""},
		{"wait on B's ask", "GET", "/v1/sessions/b-run/calls/call-b?wait=30", ""},
		{"join B's ask with B's call", "POST", "/v1/calls", callBody("b-run", "call-b", "", serveChoice)},
		{"join B's ask, asynchronously", "POST", "/v1/calls", callBody("b-run", "call-b", "", serveChoice)},
		{"ask in B's session", "POST", "/v1/calls", callBody("b-other", "call-x", "", serveChoice)},
		{"supersede B's asks", "POST", "/v1/sessions/b-run/supersede", ""},
		{"read B's secret", "GET", "/v1/sessions/b-run/secrets/DEPLOY_TOKEN", ""},
		{"a session that only looks like A's", "POST", "/v1/calls", callBody("xa-run", "call-y", "", serveChoice)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hdr := map[string]string{}
			if strings.Contains(tt.name, "asynchronously") {
				hdr["Prefer"] = "respond-async"
			}
			r := a.do(tt.method, rp.base+tt.path, tt.body, hdr)
			var e errorJSON
			if r.code != http.StatusForbidden || json.Unmarshal([]byte(r.body), &e) != nil ||
				!strings.Contains(e.Error, `reaches only the sessions whose ids begin with "a-"`) || strings.Contains(e.Error, `"b-"`) {
				t.Errorf("%d %s; want 403 naming A's prefix only", r.code, r.body)
			}
		})
	}

	// B's ask is pending still, and B answers it and reads the result.
	if got := rp.o.Pending("b-run"); len(got) != 1 || got[0].ToolCallID != "call-b" {
		t.Fatalf("B's pending asks after the attack: %+v; want call-b, untouched", got)
	}
	b.answerOn(rp.base, jb.CardURL, "b-run", "call-b", serveAnswer)
	if r := b.status(rp.base, "b-run", "call-b", "?wait=30"); r.code != 200 || r.body != serveAnswered {
		t.Errorf("B's result: %d %s; want 200 %s", r.code, r.body, serveAnswered)
	}
	// B is as fenced in as A.
	if r := b.status(rp.base, "a-run", "call-a", ""); r.code != http.StatusForbidden {
		t.Errorf("B reading A's ask: %d %s; want 403", r.code, r.body)
	}
	// A token for every session reaches both tenants' sessions.
	if r := all.status(rp.base, "a-run", "call-a", ""); r.code != http.StatusAccepted {
		t.Errorf("the token for every session on A's ask: %d %s; want 202", r.code, r.body)
	}
	if r := all.status(rp.base, "b-run", "call-b", ""); r.code != 200 {
		t.Errorf("the token for every session on B's ask: %d %s; want 200", r.code, r.body)
	}
	// A's own supersede ends A's ask only.
	if r := a.do("POST", rp.base+"/v1/sessions/a-run/supersede", "", nil); r.code != 200 || r.body != `{"superseded":1}`+"\n" {
		t.Errorf("A superseding its own: %d %s", r.code, r.body)
	}
}

// TestParseTokens: a token file's lines, and the files refused, with a
// message naming the line and never the token.
func TestParseTokens(t *testing.T) {
	const t1, t2, t3 = "0123456789abcdef0001", "0123456789abcdef0002", "0123456789abcdef0003"
	for _, tt := range []struct {
		name, text string
		want       []Tenant
		err        string
	}{
		{"one token (the file askuser serve makes)", t1 + "\n", []Tenant{{Token: t1}}, ""},
		{"tenants, a token for all, comments, blanks, tabs", "# ops\n" + t1 + "\n\n  team-a/\t" + t2 + "  \r\nteam-b/ " + t3 + "\n",
			[]Tenant{{Token: t1}, {Prefix: "team-a/", Token: t2}, {Prefix: "team-b/", Token: t3}}, ""},
		{"empty", "\n# nothing\n", nil, "holds no token"},
		{"three fields", "a/ " + t1 + " extra\n", nil, "line 1 has 3 fields"},
		{"a short token", "a/ short\n", nil, "line 1: the token is shorter than 16 characters"},
		{"a token twice", "a/ " + t1 + "\nb/ " + t1 + "\n", nil, "line 2 holds the token of line 1"},
		{"overlapping prefixes", "team " + t1 + "\n#\nteam-b/ " + t2 + "\n", nil, `the prefix "team-b/" of line 3 and "team" of line 1 overlap`},
		{"one prefix twice", "a/ " + t1 + "\na/ " + t2 + "\n", nil, `overlap`},
		{"a control character", "a\x01/ " + t1 + "\n", nil, "line 1: the prefix holds a control character"},
		{"not UTF-8", "a\xff/ " + t1 + "\n", nil, "line 1: the prefix is not valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTokens(tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v; want one saying %q", err, tt.err)
				}
				for _, tok := range []string{t1, t2, t3} {
					if strings.Contains(err.Error(), tok) {
						t.Errorf("the error %q holds a token", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tenants (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseTokens: the token file parser never panics; what it accepts
// has a token of at least 16 characters on every line, once, and prefixes
// none of which begins another; its errors never hold a token.
func FuzzParseTokens(f *testing.F) {
	for _, s := range []string{
		"0123456789abcdef\n", "# c\nteam-a/ 0123456789abcdef0001\nteam-b/ 0123456789abcdef0002\n",
		"a/ x", "a b c", "team 0123456789abcdef0001\nteam-b/ 0123456789abcdef0002", "", "\xff 0123456789abcdef",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ts, err := ParseTokens(text)
		if err != nil {
			for _, l := range strings.Fields(text) {
				if len(l) >= minTokenChars && strings.Contains(err.Error(), l) && !strings.Contains(err.Error(), `"`+l+`"`) {
					t.Fatalf("the error %q holds a field of the file", err)
				}
			}
			return
		}
		seen := map[string]bool{}
		for i, a := range ts {
			if len([]rune(a.Token)) < minTokenChars || seen[a.Token] || strings.ContainsAny(a.Token, " \t\r\n") {
				t.Fatalf("accepted the token %q", a.Token)
			}
			seen[a.Token] = true
			for _, b := range ts[i+1:] {
				if a.Prefix != "" && b.Prefix != "" && (strings.HasPrefix(a.Prefix, b.Prefix) || strings.HasPrefix(b.Prefix, a.Prefix)) {
					t.Fatalf("accepted the overlapping prefixes %q and %q", a.Prefix, b.Prefix)
				}
			}
		}
	})
}

// TestAdmitAll: a route about the whole service (not one session) admits
// a token for every session only, and refuses a scoped one with 403.
func TestAdmitAll(t *testing.T) {
	s := &Handler{tenants: tenants(Config{Tokens: []string{testToken}, Tenants: []Tenant{{Prefix: "a-", Token: tokenA}, {Token: tokenB}}})}
	for _, tt := range []struct {
		token string
		code  int
	}{{testToken, 200}, {tokenB, 200}, {tokenA, 403}, {"", 403}} {
		r := httptest.NewRequest("GET", "/v1/whatever", nil)
		if t := s.authenticate("Bearer " + tt.token); t != nil {
			r = withTenant(r, t)
		}
		rec := httptest.NewRecorder()
		if s.admitAll(rec, r) {
			rec.WriteHeader(200)
		}
		if rec.Code != tt.code {
			t.Errorf("token %q: %d %s; want %d", tt.token, rec.Code, rec.Body, tt.code)
		}
	}
}
