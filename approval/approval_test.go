package approval_test

import (
	"testing"

	"github.com/askuser-go/askuser/approval"
)

// TestDigestMatchesOtherLanguages: Digest is the SHA-256 of [action,
// details] as Python's json.dumps(…, ensure_ascii=False,
// separators=(",", ":")) and JavaScript's JSON.stringify write it, so that
// a program in either language computes the same digest. The expected
// digests were computed with Python 3's json and hashlib.
func TestDigestMatchesOtherLanguages(t *testing.T) {
	for _, tt := range []struct {
		action, details, want string
	}{
		{"Delete the oldest backup", "rm /srv/backups/2024-01.tar", "sha256:56b232f87670ce3dc24a9db1dfdcd053331b625881347f9d98b7a7664ba13945"},
		{"", "", "sha256:439083f38956ba51ece90631552c6ea23c5c29570d3d5710e408e77e01ba7375"},
		{"a", "", "sha256:58a281f64690131c92a2fdc5dde7b762b3d04b4295c68c40297e717160ef20d8"},
		// '"' and '\\' escaped, and the short escapes of the control characters.
		{`say "hi" \ now`, "line1\nline2\ttab\r\b\f", "sha256:fb9a0de9f08b62a180ff252b517c54b7394bf98e1cfafbd5103da6489a181893"},
		// Other control characters as \u00XX; DEL, '<', '>' and '&' as they are.
		{"ctrl \x00\x01\x1f\x7f", "<script>&amp;</script>", "sha256:96b8e93f9b89342b0b026451d1c14213df30c06edc90c091ca60e4022a7f07e7"},
		// Non-ASCII in UTF-8, U+2028 and U+2029 not escaped.
		{"naïve — 日本語 🚀", "\u2028\u2029 sep", "sha256:65498580aa553752cac5f31d4cd426ddb8acde7b84dfa12eba95cfeac1c2f999"},
	} {
		if got := approval.Digest(tt.action, tt.details); got != tt.want {
			t.Errorf("Digest(%q, %q) = %s; want %s", tt.action, tt.details, got, tt.want)
		}
	}
}

// TestDigestSeparatesActionFromDetails: moving text between the action
// and the details gives another digest.
func TestDigestSeparatesActionFromDetails(t *testing.T) {
	if approval.Digest("ab", "c") == approval.Digest("a", "bc") {
		t.Error(`Digest("ab", "c") == Digest("a", "bc")`)
	}
	if approval.Digest("a", "") == approval.Digest("", "a") {
		t.Error(`Digest("a", "") == Digest("", "a")`)
	}
}

// TestRisksInOrder: Risks lists every risk once, lowest first, and a
// caller's change to the slice does not change the next call's.
func TestRisksInOrder(t *testing.T) {
	want := []approval.Risk{"low", "medium", "high", "irreversible"}
	got := approval.Risks()
	if len(got) != len(want) {
		t.Fatalf("Risks() = %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Risks() = %v; want %v", got, want)
		}
	}
	got[0] = "none"
	if approval.Risks()[0] != approval.RiskLow {
		t.Error("a change to what Risks returned changed the next call's")
	}
}
