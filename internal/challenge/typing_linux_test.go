package challenge

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTypingAllowed: the kernel's switch reading 1 lets programs type, 0
// does not, and a kernel without the switch lets them.
func TestTypingAllowed(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]bool{"1\n": true, "0\n": false, "": false, "2\n": false} {
		p := filepath.Join(dir, "switch")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := typingAllowed(p); got != want {
			t.Errorf("the switch reads %q: typing allowed %v, want %v", content, got, want)
		}
	}
	if !typingAllowed(filepath.Join(dir, "none")) {
		t.Error("without the switch (a kernel before 6.2), typing is not taken as allowed")
	}
}
