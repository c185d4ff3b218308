package approvalwire_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect/approvalwire"
)

const digest = "sha256:0473ef2dc0d324ab659d3580c1134e9d812035905c4781fdd6d529b0c6860e13"

// TestEncodeResult pins the result of every kind of decision, and of every
// reason nobody decided.
func TestEncodeResult(t *testing.T) {
	d := `"action_digest":"` + digest + `"`
	tests := []struct {
		name string
		r    approvalwire.Result
		want string
	}{
		{"approved once", approvalwire.Result{Status: "approved", DecidedBy: "user", Note: "  go ahead ", ActionDigest: digest},
			`{"status":"approved","decided_by":"user","note":"go ahead","ended":null,` + d + `,"message":"The user approved this action. You may perform it once, exactly as requested; if the action changes, request approval again."}`},
		{"approved for the session", approvalwire.Result{Status: "approved", DecidedBy: "user", RememberSession: true, ActionDigest: digest},
			`{"status":"approved","decided_by":"user","note":null,"ended":null,` + d + `,"remember":"session","message":"The user approved this action for the rest of the session. You may perform it, exactly as requested; the same action is approved again without asking, and a changed action needs a new request."}`},
		{"approved, remembered", approvalwire.Result{Status: "approved", DecidedBy: "remembered", RememberedFrom: "ask-1", ActionDigest: digest},
			`{"status":"approved","decided_by":"remembered","note":null,"ended":null,` + d + `,"remembered_from":"ask-1","message":"Approved: the user approved this same action earlier in this session, for the session. You may perform it, exactly as requested."}`},
		{"approved by policy", approvalwire.Result{Status: "approved", DecidedBy: "policy", ActionDigest: digest},
			`{"status":"approved","decided_by":"policy","note":null,"ended":null,` + d + `,"message":"Approved by the program's policy, without asking the user. You may perform this action, exactly as requested."}`},
		{"denied once", approvalwire.Result{Status: "denied", DecidedBy: "user", Note: "not today", ActionDigest: digest},
			`{"status":"denied","decided_by":"user","note":"not today","ended":null,` + d + `,"message":"The user denied this action. You have no permission to perform it: do not perform it, and do not try to achieve the same effect another way."}`},
		{"denied for the session", approvalwire.Result{Status: "denied", DecidedBy: "user", RememberSession: true, ActionDigest: digest},
			`{"status":"denied","decided_by":"user","note":null,"ended":null,` + d + `,"remember":"session","message":"The user denied this action for the rest of the session. You have no permission to perform it: do not perform it, do not try to achieve the same effect another way, and do not request it again in this session."}`},
		{"denied, remembered", approvalwire.Result{Status: "denied", DecidedBy: "remembered", RememberedFrom: "ask-1", ActionDigest: digest},
			`{"status":"denied","decided_by":"remembered","note":null,"ended":null,` + d + `,"remembered_from":"ask-1","message":"Denied: the user denied this same action earlier in this session, for the session. You have no permission to perform it: do not perform it."}`},
		{"denied by policy", approvalwire.Result{Status: "denied", DecidedBy: "policy", ActionDigest: digest},
			`{"status":"denied","decided_by":"policy","note":null,"ended":null,` + d + `,"message":"Denied by the program's policy. You have no permission to perform this action: do not perform it."}`},
		{"a blank note is none", approvalwire.Result{Status: "denied", DecidedBy: "user", Note: " \n", ActionDigest: digest},
			`{"status":"denied","decided_by":"user","note":null,"ended":null,` + d + `,"message":"The user denied this action. You have no permission to perform it: do not perform it, and do not try to achieve the same effect another way."}`},
	}
	for ended, why := range map[string]string{
		"deadline":   "the wait ended before anyone decided",
		"unattended": "nobody could be asked",
		"dismissed":  "the user dismissed the request without deciding",
		"superseded": "the user wrote a message instead of deciding",
		"fault":      "the request could not be shown or answered",
	} {
		tests = append(tests, struct {
			name string
			r    approvalwire.Result
			want string
		}{"unresolved: " + ended, approvalwire.Result{Status: "unresolved", Ended: ended, ActionDigest: digest},
			`{"status":"unresolved","decided_by":null,"note":null,"ended":"` + ended + `",` + d + `,"message":"Nobody approved this action: ` + why + `. You have no permission to perform it, and must not act. Tell the user what you did not do; ask again only if it is still needed."}`})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approvalwire.EncodeResult(&tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// TestUnresolvedAndDeniedSayNoPermission: every result that does not
// approve tells the model in words that it has no permission and must not
// act; no approved result says so.
func TestUnresolvedAndDeniedSayNoPermission(t *testing.T) {
	results := []approvalwire.Result{
		{Status: "denied", DecidedBy: "user"}, {Status: "denied", DecidedBy: "user", RememberSession: true},
		{Status: "denied", DecidedBy: "remembered", RememberedFrom: "a"}, {Status: "denied", DecidedBy: "policy"},
		{Status: "approved", DecidedBy: "user"}, {Status: "approved", DecidedBy: "user", RememberSession: true},
		{Status: "approved", DecidedBy: "remembered", RememberedFrom: "a"}, {Status: "approved", DecidedBy: "policy"},
	}
	for _, e := range []string{"deadline", "unattended", "dismissed", "superseded", "fault"} {
		results = append(results, approvalwire.Result{Status: "unresolved", Ended: e})
	}
	for _, r := range results {
		r.ActionDigest = digest
		b, err := approvalwire.EncodeResult(&r)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Message string }
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		says := strings.Contains(got.Message, "You have no permission") && strings.Contains(got.Message, "not perform it") || strings.Contains(got.Message, "must not act")
		if says != (r.Status != "approved") {
			t.Errorf("%s/%s%s: message %q", r.Status, r.DecidedBy, r.Ended, got.Message)
		}
		if r.Status == "approved" && !strings.Contains(got.Message, "exactly as requested") {
			t.Errorf("approved/%s: message %q does not bind the approval to the request", r.DecidedBy, got.Message)
		}
	}
}

// TestEncodeResultRefuses: a result whose fields do not fit together is
// never written, so that none reads as a decision nobody made.
func TestEncodeResultRefuses(t *testing.T) {
	tests := []struct {
		name string
		r    approvalwire.Result
		want string
	}{
		{"no digest", approvalwire.Result{Status: "approved", DecidedBy: "user"}, "action digest"},
		{"a digest in upper case", approvalwire.Result{Status: "approved", DecidedBy: "user", ActionDigest: strings.ToUpper(digest)}, "action digest"},
		{"approved by nobody", approvalwire.Result{Status: "approved", ActionDigest: digest}, `with status "approved" needs decided_by`},
		{"approved by a timeout", approvalwire.Result{Status: "approved", DecidedBy: "timeout", ActionDigest: digest}, `not "timeout"`},
		{"approved and ended", approvalwire.Result{Status: "approved", DecidedBy: "user", Ended: "deadline", ActionDigest: digest}, "has no ended"},
		{"denied by nobody", approvalwire.Result{Status: "denied", ActionDigest: digest}, `with status "denied" needs decided_by`},
		{"unresolved, decided by a user", approvalwire.Result{Status: "unresolved", DecidedBy: "user", Ended: "deadline", ActionDigest: digest}, "nobody who decided"},
		{"unresolved with a note", approvalwire.Result{Status: "unresolved", Note: "yes", Ended: "deadline", ActionDigest: digest}, "nobody who decided"},
		{"unresolved without a reason", approvalwire.Result{Status: "unresolved", ActionDigest: digest}, "needs ended"},
		{"unresolved for an unknown reason", approvalwire.Result{Status: "unresolved", Ended: "caller", ActionDigest: digest}, `not "caller"`},
		{"an unknown status", approvalwire.Result{Status: "maybe", ActionDigest: digest}, `status "maybe" is not a status`},
		{"remembered by policy", approvalwire.Result{Status: "approved", DecidedBy: "policy", RememberSession: true, ActionDigest: digest}, "must be decided by the user"},
		{"remembered from nowhere", approvalwire.Result{Status: "approved", DecidedBy: "remembered", ActionDigest: digest}, "remembered from"},
		{"remembered from, by a user", approvalwire.Result{Status: "approved", DecidedBy: "user", RememberedFrom: "a", ActionDigest: digest}, "remembered from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := approvalwire.EncodeResult(&tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("EncodeResult = %s, %v; want an error about %q", b, err, tt.want)
			}
		})
	}
	if _, err := approvalwire.EncodeResult(nil); err == nil {
		t.Error("EncodeResult(nil) succeeded")
	}
}
