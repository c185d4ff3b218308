package askuserwire_test

import (
	"strings"
	"testing"

	"github.com/askuser-go/askuser/dialect/askuserwire"
)

// TestGuidanceCoversContract checks the model-facing texts against the contract:
// the guidance carries each of its rules, and both the guidance and the
// tool description say that nothing here grants permission.
func TestGuidanceCoversContract(t *testing.T) {
	rules := []struct{ rule, phrase string }{
		{"ask only when blocked on what code and context cannot answer", "code and the context cannot answer"},
		{"batch related questions", "Batch related questions"},
		{"put the likely option first", "most likely option first"},
		{"never use it as a consent gate", "Never use ask_user as a consent gate"},
		{"never ask for a credential in prose or an option; use kind secret", `Never ask for a credential in prose or in an option; use a question of kind "secret"`},
		{"read answered_by", `Read "answered_by"`},
		{"never re-ask a declined question", "Never ask a declined question again"},
	}
	for _, r := range rules {
		if !strings.Contains(askuserwire.Guidance, r.phrase) {
			t.Errorf("Guidance does not say: %s (looked for %q)", r.rule, r.phrase)
		}
	}
	for name, text := range map[string]string{"Guidance": askuserwire.Guidance, "Description": askuserwire.Description} {
		if !strings.Contains(text, "destructive, irreversible or outward-facing") || !strings.Contains(strings.ToLower(text), "permission") {
			t.Errorf("%s does not say that answers grant no permission for destructive, irreversible or outward-facing actions", name)
		}
	}
	for _, limit := range []string{"1–4", "2–6", "at most 16 characters", `"session:NAME"`, `"user"`, `"timeout"`, `"unattended"`, "do not ask it again"} {
		if !strings.Contains(askuserwire.Description, limit) {
			t.Errorf("Description does not state %q", limit)
		}
	}
}
