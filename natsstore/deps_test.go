package natsstore_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestClientDeps holds natsstore to a client: a program that
// imports it to reach a NATS server run elsewhere compiles no server. The
// server in the process is package natsserver, which natsstore's tests
// import and natsstore does not.
func TestClientDeps(t *testing.T) {
	// go test puts the go command that runs it first on PATH.
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not available here: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "github.com/askuser-go/askuser/natsstore")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	var server []string
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/nats-io/nats-server/") {
			server = append(server, pkg)
		}
	}
	if len(server) > 0 {
		t.Errorf("natsstore depends on the NATS server (%s); the server belongs in natsstore/natsserver, which natsstore must not import", strings.Join(server, ", "))
	}
}
