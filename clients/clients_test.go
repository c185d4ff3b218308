// Package clients_test runs the tests of the clients in other languages
// (clients/python, clients/typescript) against a real askuser service: the
// serve package's handler, on loopback, with a responder that stands in for
// the person.
package clients_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/serve"
)

const token = "client-token-0123456789abcdef"

// person answers every question with its last option, after a moment (so
// that a call is seen pending first), except a question whose id is "hold",
// which it leaves unanswered: that ask stays pending until it is superseded
// or its deadline passes.
type person struct{}

func (person) Respond(ctx context.Context, a *askuser.Ask) error {
	for _, q := range a.Form().Questions {
		if q.ID == "hold" {
			<-ctx.Done()
			return nil
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(300 * time.Millisecond):
	}
	for _, q := range a.Form().Questions {
		ans := askuser.Answer{QuestionID: q.ID}
		if n := len(q.Options); n > 0 {
			ans.Selected = []string{q.Options[n-1].Value}
		} else {
			ans.Other = "typed by the person"
		}
		if err := a.Report(ans); err != nil {
			return err
		}
	}
	return a.Submit()
}

func (person) ResponderName() string { return "clients-test" }

// service starts the agent API on loopback and returns its URL.
func service(t *testing.T) string {
	t.Helper()
	o := &askuser.Orchestrator{Responder: person{}}
	card, err := serve.NewCard(serve.CardConfig{}) // for the card URLs it hands out
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(serve.NewHandler(serve.Config{Orchestrator: o, Tokens: []string{token}, Card: card}))
	t.Cleanup(func() {
		o.Close()
		srv.Close()
	})
	return srv.URL
}

// required says whether a missing runtime fails the test (in CI) rather
// than skipping it.
func required() bool { return os.Getenv("ASKUSER_CLIENT_TESTS") == "require" }

func runClientTests(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if required() {
			t.Fatalf("%s is not installed, and ASKUSER_CLIENT_TESTS=require", name)
		}
		t.Skipf("%s is not installed", name)
	}
	base := service(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASKUSER_URL="+base, "ASKUSER_TOKEN="+token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	t.Logf("%s", out)
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPython(t *testing.T) {
	runClientTests(t, "python", "python3", "-m", "unittest", "discover", "-v", "-s", "tests", "-t", ".")
}

func TestTypeScript(t *testing.T) {
	dir := "typescript"
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript")); err != nil {
		if required() {
			t.Fatalf("clients/typescript has no node_modules: run npm ci there first (.ci/run does)")
		}
		t.Skip("clients/typescript has no node_modules: run npm ci there to test it")
	}
	runClientTests(t, dir, "npm", "test", "--silent")
}
