package askuser_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRootImportGraph holds the root package's import graph to the
// standard library, the module's own leaf packages, and the few small
// modules the package needs: a program that imports only askuser and a
// responder builds no browser driver, message broker, LLM SDK or TUI
// framework.
func TestRootImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list is not available here: %v", err)
	}
	// An entry ending in "/" allows every package under it; any other, that
	// package alone (dialect, say, and none of the contracts under it that
	// import the root).
	allowed := []string{
		"github.com/askuser-go/askuser/dialect",
		"github.com/askuser-go/askuser/dialect/approvalwire",
		"github.com/askuser-go/askuser/dialect/askuserwire",
		"github.com/askuser-go/askuser/approval",
		"github.com/askuser-go/askuser/internal/",
		"github.com/askuser-go/askuser/route",
		"github.com/askuser-go/askuser/secret",
		"github.com/askuser-go/askuser/secretstore",
		"github.com/askuser-go/askuser/store",
		"github.com/go-json-experiment/json/",
		"golang.org/x/crypto/",
		"golang.org/x/sys/",
	}
	for _, pkg := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(pkg, "/")
		if !strings.Contains(first, ".") || pkg == "github.com/askuser-go/askuser" {
			continue // the standard library, and the package itself
		}
		ok := false
		for _, a := range allowed {
			if pkg == a || strings.HasSuffix(a, "/") && strings.HasPrefix(pkg, a) {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("the root package depends on %s; keep heavy dependencies in the packages that need them", pkg)
		}
	}
}
