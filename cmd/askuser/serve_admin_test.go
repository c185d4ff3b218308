package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeAdminAndProbes: --admin-token-file makes the operators' token
// on first run and serves GET /v1/asks behind it, listing the asks of
// every session from NATS; the probes answer with the store and the
// journal checked, and the API describes itself.
func TestServeAdminAndProbes(t *testing.T) {
	adminFile := filepath.Join(t.TempDir(), "admin-token")
	f := newServeFixture(t, "--admin-token-file", adminFile)
	if !strings.Contains(f.srv.stderr.String(), "made the admin token file "+adminFile+" (mode 0600)") {
		t.Errorf("serve did not say it made the admin token file:\n%s", f.srv.stderr)
	}
	b, err := os.ReadFile(adminFile)
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(string(b))
	a := newAgentClient(t, f.token)
	first := a.callAsync(f.srv.base, "run-1", "call_1", serveChoice)
	a.callAsync(f.srv.base, "run-2", "call_2", serveChoice)

	r := a.do("GET", f.srv.base+"/v1/asks", "", map[string]string{"Authorization": "Bearer " + admin})
	var l struct {
		Asks []struct {
			AskID   string `json:"ask_id"`
			Session string `json:"session"`
		} `json:"asks"`
	}
	if r.code != 200 || json.Unmarshal([]byte(r.body), &l) != nil || len(l.Asks) != 2 || l.Asks[0].AskID != first.AskID || l.Asks[1].Session != "run-2" {
		t.Errorf("GET /v1/asks: %d %s; want both sessions' asks, oldest first", r.code, r.body)
	}
	if r := a.do("GET", f.srv.base+"/v1/asks", "", nil); r.code != 401 {
		t.Errorf("GET /v1/asks with the agent's token: %d %s; want 401", r.code, r.body)
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		r := a.do("GET", f.srv.base+p, "", map[string]string{"Authorization": ""})
		if r.code != 200 || p == "/readyz" && !strings.Contains(r.body, `"journal":"ok"`) {
			t.Errorf("GET %s: %d %s; want 200 (the journal checked on /readyz)", p, r.code, r.body)
		}
	}
	if r := a.do("GET", f.srv.base+"/v1/openapi.json", "", map[string]string{"Authorization": ""}); r.code != 200 || !strings.Contains(r.body, `"openapi":`) {
		t.Errorf("GET /v1/openapi.json: %d %.200s", r.code, r.body)
	}
	for _, s := range []string{"run-1", "run-2"} {
		a.do("POST", f.srv.base+"/v1/sessions/"+s+"/supersede", "", nil)
	}
}

// TestServeAdminTokenApart: an admin token file that holds the agent's
// token is refused.
func TestServeAdminTokenApart(t *testing.T) {
	dir := t.TempDir()
	token := writeSecretFile(t, dir, "agent-token", "agent-token-0123456789abcdef")
	code, _, errs := cli(t, "", "serve", "--listen", "127.0.0.1:0", "--state", filepath.Join(dir, "state"), "--nats-listen", "127.0.0.1:0",
		"--token-file", token, "--admin-token-file", token)
	if code != exitUsage || !strings.Contains(errs, "holds the agent's bearer token: the admin API must not open to the agent") {
		t.Errorf("exit %d, stderr %q; want 2 and the refusal", code, errs)
	}
}
