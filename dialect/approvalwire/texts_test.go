package approvalwire_test

import (
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/dialect/askuserwire"
)

// TestGuidanceCoversContract checks the model-facing texts against the
// contract: the guidance carries each of its rules, the description states
// the limits and the values of the result, and both tools' texts send
// permission questions here and preferences to ask_user.
func TestGuidanceCoversContract(t *testing.T) {
	rules := []struct{ rule, phrase string }{
		{"ask before destructive, irreversible or outward-facing actions", "Before an action that is destructive, irreversible or outward-facing, call request_approval"},
		{"never ask permission through ask_user", "never ask permission through ask_user"},
		{"ask_user for preferences, request_approval for permission", `Use ask_user for preferences and decisions ("Which environment?"); use request_approval for permission to act ("May I delete this bucket?")`},
		{"describe exactly what will be done", "Describe exactly what you will do"},
		{"act only on approved, and only as approved", `Act only on "status": "approved", and only on the action exactly as approved`},
		{"a changed action needs a new request", "if the action changes, request approval again"},
		{"denied is final", `"denied" is the user's decision: do not act`},
		{"unresolved is no permission", `"unresolved" is never a yes: you have no permission`},
	}
	for _, r := range rules {
		if !strings.Contains(approvalwire.Guidance, r.phrase) {
			t.Errorf("Guidance does not say: %s (looked for %q)", r.rule, r.phrase)
		}
	}
	for _, s := range []string{"200 characters", "500", "8 KiB", `"low"`, `"medium"`, `"high"`, `"irreversible"`,
		`"approved"`, `"denied"`, `"unresolved"`, `"user"`, `"remembered"`, `"policy"`, `"deadline"`, `"unattended"`,
		`"dismissed"`, `"superseded"`, `"fault"`, `"action_digest"`, "must not act", "never resolves by itself", "use ask_user instead"} {
		if !strings.Contains(approvalwire.Description, s) {
			t.Errorf("Description does not state %q", s)
		}
	}
	for name, text := range map[string]string{"ask_user's Guidance": askuserwire.Guidance, "ask_user's Description": askuserwire.Description} {
		if !strings.Contains(text, "request_approval") {
			t.Errorf("%s does not point permission questions at request_approval", name)
		}
	}
}
