package approvalwire_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvalwire"
)

// TestDocsCarryTheMessages: docs/request_approval.md quotes every rule's
// message and every result's message as the code writes them, so the
// contract page cannot drift from the contract.
func TestDocsCarryTheMessages(t *testing.T) {
	doc, err := os.ReadFile("../../docs/request_approval.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(doc)
	for _, c := range []string{
		`{}`,
		call(`"action":"` + strings.Repeat("a", 201) + `"`),
		call(action),
		call(action, `"reason":"`+strings.Repeat("r", 501)+`"`),
		call(action, reason),
		call(action, reason, risk, `"details":"`+strings.Repeat("é", 4097)+`"`),
		call(action, reason, risk, `"timeout_seconds":0`),
		call(action, reason, risk, `"human_intent":"`+strings.Repeat("h", 121)+`"`),
		call(`"risk":"High"`),
		call(`"command":"rm"`),
		call(action, reason, risk, `"risk":"low"`),
		call(`"timeout_seconds":1.5`),
		call(`"risk":3`),
	} {
		_, err := approvalwire.Decode([]byte(c), dialect.Limits{})
		if err == nil {
			t.Fatalf("%s decoded", c)
		}
		msg := strings.TrimPrefix(err.Error(), prefix)
		if !strings.Contains(page, msg) {
			t.Errorf("the page does not quote %q", msg)
		}
	}
	results := []approvalwire.Result{
		{Status: "approved", DecidedBy: "user"}, {Status: "approved", DecidedBy: "user", RememberSession: true},
		{Status: "approved", DecidedBy: "remembered", RememberedFrom: "a"}, {Status: "approved", DecidedBy: "policy"},
		{Status: "denied", DecidedBy: "user"}, {Status: "denied", DecidedBy: "user", RememberSession: true},
		{Status: "denied", DecidedBy: "remembered", RememberedFrom: "a"}, {Status: "denied", DecidedBy: "policy"},
	}
	for _, r := range results {
		r.ActionDigest = digest
		b, err := approvalwire.EncodeResult(&r)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Message string }
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(page, "`"+m.Message+"`") {
			t.Errorf("the page does not quote the message %q", m.Message)
		}
	}
	for ended, why := range map[string]string{"deadline": "the wait ended before anyone decided", "unattended": "nobody could be asked",
		"dismissed": "the user dismissed the request without deciding", "superseded": "the user wrote a message instead of deciding",
		"fault": "the request could not be shown or answered"} {
		b, err := approvalwire.EncodeResult(&approvalwire.Result{Status: "unresolved", Ended: ended, ActionDigest: digest})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), why) || !strings.Contains(page, "`"+why+"` ("+ended+")") {
			t.Errorf("the page does not give the reason %q for %s", why, ended)
		}
	}
	if !strings.Contains(page, "`Nobody approved this action: <why>. You have no permission to perform it, and must not act. Tell the user what you did not do; ask again only if it is still needed.`") {
		t.Error("the page does not quote the unresolved message")
	}
}
