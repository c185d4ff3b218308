package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/askuser-go/askuser/serve"
)

// TestServeTokenFile: serve's --token-file holds one token, for every
// session, as it always did (and is made so when missing), or a session
// prefix and a token per line; a file group or others can read, or one
// that is not a token file, is refused, naming the line and no token.
func TestServeTokenFile(t *testing.T) {
	dir := t.TempDir()
	const ta, tb = "tenant-a-token-0123456789", "tenant-b-token-0123456789"
	for _, tt := range []struct {
		name, text string
		mode       os.FileMode
		want       []serve.Tenant
		err        string
	}{
		{"one token", "agent-token-0123456789abcdef\n", 0o600, []serve.Tenant{{Token: "agent-token-0123456789abcdef"}}, ""},
		{"tenants", "# agents\na- " + ta + "\nb- " + tb + "\n", 0o600, []serve.Tenant{{Prefix: "a-", Token: ta}, {Prefix: "b-", Token: tb}}, ""},
		{"readable by others", "a- " + ta + "\n", 0o644, nil, "has mode 0644: it must not be accessible by group or others"},
		{"a short token", "a- " + ta + "\nb- short\n", 0o600, nil, "line 2: the token is shorter than 16 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			if err := os.WriteFile(name, []byte(tt.text), tt.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(name, tt.mode); err != nil {
				t.Fatal(err)
			}
			got, made, err := serveTokens(name)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), ta) {
					t.Fatalf("error %v; want one naming %s and saying %q, without a token", err, name, tt.err)
				}
				return
			}
			if err != nil || made {
				t.Fatalf("made %v, error %v", made, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
		})
	}
	missing := filepath.Join(dir, "made")
	got, made, err := serveTokens(missing)
	if err != nil || !made || len(got) != 1 || got[0].Prefix != "" || len(got[0].Token) < 16 {
		t.Fatalf("a missing file: %+v, made %v, %v; want it made with one token for every session", got, made, err)
	}
	again, made, err := serveTokens(missing)
	if err != nil || made || !cmp.Equal(got, again) {
		t.Errorf("the made file read again: %+v, made %v, %v; want the same token", again, made, err)
	}
}

// TestServeTenants: askuser serve with a token file of two tenants: each
// agent reaches its own sessions only.
func TestServeTenants(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // last: after the clients and the server
	const ta, tb = "tenant-a-token-0123456789", "tenant-b-token-0123456789"
	tokens := writeSecretFile(t, t.TempDir(), "tenants", "a- "+ta+"\nb- "+tb)
	f := newServeFixture(t, "--token-file", tokens)
	a, b := newAgentClient(t, ta), newAgentClient(t, tb)
	if r := b.call(f.srv.base, "b-run", "c", serveChoice, map[string]string{"Prefer": "respond-async"}); r.code != 202 {
		t.Fatalf("B's call: %d %s; want 202", r.code, r.body)
	}
	for _, r := range []reply{
		a.do("GET", f.srv.base+"/v1/sessions/b-run/calls/c", "", nil),
		a.do("POST", f.srv.base+"/v1/sessions/b-run/supersede", "", nil),
		a.call(f.srv.base, "b-run", "c", serveChoice, nil),
	} {
		if r.code != 403 || !strings.Contains(r.body, `reaches only the sessions whose ids begin with \"a-\"`) {
			t.Errorf("A on B's ask: %d %s; want 403 naming A's prefix", r.code, r.body)
		}
	}
	if r := b.do("GET", f.srv.base+"/v1/sessions/b-run/calls/c", "", nil); r.code != 202 {
		t.Errorf("B on its own ask: %d %s; want 202, pending", r.code, r.body)
	}
}
