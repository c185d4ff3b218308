package main

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/askuser-go/askuser/internal/buildinfo"
)

// TestVersionCommand: askuser version prints the build's version on one
// line, as the MCP server announces it.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errs := cli(t, "", args...)
		if code != 0 || errs != "" || out != buildinfo.Describe()+"\n" || !strings.Contains(out, buildinfo.Version()) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and one line with the version %q", args, code, out, errs, buildinfo.Version())
		}
	}
	if code, _, errs := cli(t, "", "version", "extra"); code != exitUsage || !strings.Contains(errs, `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, stderr %q; want a usage error", code, errs)
	}
}

// TestHelpEndsWithExamples: every command's --help ends with its two
// examples, and each example names only flags the command has.
func TestHelpEndsWithExamples(t *testing.T) {
	cmds := []string{"validate", "ask", "schema", "approve", "mcp", "serve", "journal", "secret exec", "version"}
	for name := range examples {
		if !slices.Contains(cmds, name) {
			t.Errorf("examples has %q, which is not a command here", name)
		}
	}
	for _, cmd := range cmds {
		t.Run(cmd, func(t *testing.T) {
			ex, ok := examples[cmd]
			if !ok {
				t.Fatalf("no examples for %s", cmd)
			}
			args := append(strings.Fields(cmd), "--help")
			code, _, errs := cli(t, "", args...)
			want := "\nexamples:\n  " + ex[0] + "\n  " + ex[1] + "\n"
			if code != 0 || !strings.HasPrefix(errs, "usage: askuser "+cmd) || !strings.HasSuffix(errs, want) {
				t.Fatalf("%s --help: exit %d, stderr:\n%s\nwant the usage, ending with%s", cmd, code, errs, want)
			}
			for _, e := range ex {
				if !strings.HasPrefix(e, "askuser "+cmd) {
					continue // an example with another tool (go version -m)
				}
				// The example's flags, then --help: a flag the command does
				// not have fails before --help is reached.
				words := strings.Fields(strings.TrimPrefix(e, "askuser "))
				if i := slices.Index(words, "--"); i >= 0 {
					words = words[:i]
				}
				if code, _, errs := cli(t, "", append(words, "--help")...); code != 0 {
					t.Errorf("example %q: exit %d, stderr %q; want its flags to be the command's", e, code, errs)
				}
			}
		})
	}
}

// TestNATSDefaultPort: the embedded NATS server does not take NATS's own
// port, so that serve starts beside a NATS server already on 4222, and
// its port is outside the ephemeral range, so that no outgoing connection
// holds it.
func TestNATSDefaultPort(t *testing.T) {
	host, port, err := net.SplitHostPort(defaultNATSListen)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || host != "127.0.0.1" || port != defaultNATSPort || p == 4222 || p >= 32768 || p < 1024 {
		t.Errorf("--nats-listen defaults to %s; want loopback, a port other than 4222, between 1024 and the ephemeral range", defaultNATSListen)
	}
	_, _, errs := cli(t, "", "serve", "--help")
	if !strings.Contains(errs, `(default "`+defaultNATSListen+`")`) {
		t.Errorf("serve --help does not give --nats-listen's default %s:\n%s", defaultNATSListen, errs)
	}
}
