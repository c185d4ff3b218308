package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeFirstCommand runs what the README's first command runs and checks
// that it prints exactly the result the README shows under it, and that the
// README's terminal example prints its result too.
func TestReadmeFirstCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(sh|json)\n(.*?)```").FindAllStringSubmatch(string(readme), 4)
	if len(blocks) < 3 || blocks[0][1] != "sh" || blocks[1][1] != "json" || !strings.HasPrefix(blocks[2][2], "go test -race ./...") {
		t.Fatalf("README must open with the first command (sh), its result (json) and the test command (sh); found %d blocks", len(blocks))
	}
	if got, want := strings.TrimSpace(blocks[0][2]), "go -C examples run ./quickstart"; got != want {
		t.Fatalf("README's first command is %q; this test runs %q", got, want)
	}

	var out, errOut bytes.Buffer
	if err := run(&out, strings.NewReader(""), &errOut, "../calls/deploy.json", false); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), blocks[1][2]; got != want {
		t.Errorf("quickstart printed\n%s\nthe README shows\n%s", got, want)
	}
	if errOut.Len() != 0 {
		t.Errorf("quickstart wrote to standard error without -terminal: %q", errOut.String())
	}
}

// TestTerminal answers the call as a person would on the terminal.
func TestTerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(&out, strings.NewReader("2\n1,3\n"), &errOut, "../calls/deploy.json", true); err != nil {
		t.Fatal(err)
	}
	const want = `{"status":"answered","answered_by":"user","answers":[{"id":"env","selected":["production"],"other_text":null},{"id":"checks","selected":["unit","load"],"other_text":null}]}` + "\n"
	if out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
	if !strings.Contains(errOut.String(), "Which environment should this release go to first?") {
		t.Errorf("the question was not shown on standard error: %q", errOut.String())
	}
}

// TestMissingCall says which file is missing.
func TestMissingCall(t *testing.T) {
	err := run(&bytes.Buffer{}, strings.NewReader(""), &bytes.Buffer{}, "no-such-call.json", false)
	if err == nil || !strings.Contains(err.Error(), "no-such-call.json") {
		t.Fatalf("got %v, want an error naming the file", err)
	}
}
