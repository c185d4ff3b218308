package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/askuser-go/askuser/secretstore"
)

// envFlag collects repeated --env NAME=session:SECRET flags.
type envFlag []string

func (f *envFlag) String() string     { return strings.Join(*f, ",") }
func (f *envFlag) Set(v string) error { *f = append(*f, v); return nil }

const secretSynopsis = "secret exec [--store DIR | --nats URL [--nats-token-file FILE] | --server URL [--token-file FILE]] [--key-file FILE] --session ID --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]"

// keyEnvVars are the environment variables that hold askuser's own key
// material, which the child of secret exec never inherits: a tool handed
// one secret could otherwise open every record in the store. askuser reads
// its keys from ASKUSER_SECRET_KEY alone; the key file is named by
// --key-file or found in the state directory, never by an ASKUSER_
// variable, so no other variable points at it.
var keyEnvVars = []string{secretstore.KeyEnv}

// childEnv returns the environment of secret exec's child: environ without
// askuser's key material and without the variables the secrets will set
// (so that each is set once), followed by secrets.
func childEnv(environ, secrets []string) []string {
	drop := append([]string(nil), keyEnvVars...)
	for _, kv := range secrets {
		name, _, _ := strings.Cut(kv, "=")
		drop = append(drop, name)
	}
	env := make([]string, 0, len(environ)+len(secrets))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(drop, func(d string) bool { return sameEnvName(name, d) }) {
			env = append(env, kv)
		}
	}
	return append(env, secrets...)
}

// sameEnvName reports whether two names are the same variable: on Windows
// names are case-insensitive.
func sameEnvName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// secretCmd runs 'askuser secret exec': COMMAND runs with each named secret
// in its environment, and without askuser's key material (keyEnvVars).
// askuser itself prints nothing on stdout: a value printed into an agent's
// shell would land in the model's context. A reference from another
// session, or to a name never stored, is refused (exit 1, the command not
// run); otherwise the exit status is the command's. Without --store the
// secrets come from the default store (see store.go). Everything from
// COMMAND on is the command's, flags included.
func (e env) secretCmd(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] != "exec" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintf(e.stderr, "usage: askuser %s\n", secretSynopsis)
			return exitOK
		}
		fmt.Fprintf(e.stderr, "usage: askuser %s\n", secretSynopsis)
		return exitUsage
	}
	fs := e.flags("secret exec", secretSynopsis)
	dir := fs.String("store", "", "the secret store `DIR` (default: the default store, $XDG_STATE_HOME/askuser/store or ~/.local/state/askuser/store)")
	session := fs.String("session", "", "the session `ID` that owns the secrets")
	keyFile := fs.String("key-file", "", "read the store's keys from `FILE`, mode 0600 (default: $"+secretstore.KeyEnv+", else the default store's key file)")
	var envs envFlag
	fs.Var(&envs, "env", "put a secret in the command's environment: `NAME=session:SECRET` (repeatable)")
	src := secretSourceFlags(fs)
	if code, stop := parseUntilCommand(fs, args[1:]); stop {
		return code
	}
	switch {
	case *session == "":
		fmt.Fprintln(e.stderr, "askuser secret exec: --session ID is required")
		return exitUsage
	case len(envs) == 0:
		fmt.Fprintln(e.stderr, "askuser secret exec: give at least one --env NAME=session:SECRET")
		return exitUsage
	case fs.NArg() == 0:
		fmt.Fprintln(e.stderr, "askuser secret exec: give the command to run after --")
		return exitUsage
	}
	for _, kv := range envs {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" || strings.ContainsAny(name, "=\x00") {
			fmt.Fprintf(e.stderr, "askuser secret exec: --env %q is not NAME=session:SECRET\n", kv)
			return exitUsage
		}
	}
	if err := src.check(fs, *dir); err != nil {
		fmt.Fprintf(e.stderr, "askuser secret exec: %v\n", err)
		return exitUsage
	}
	var resolve func(ref string) ([]byte, error)
	switch {
	case src.server != "" || src.natsURL != "":
		r, done, err := src.open(ctx, *keyFile, *session)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser secret exec: %v; the command was not run\n", err)
			return exitFailure
		}
		defer done()
		resolve = r
	default:
		spec, err := resolveStore(*dir, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser secret exec: %v; the command was not run\n", err)
			return exitFailure
		}
		store, err := spec.open(false)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser secret exec: %v; the command was not run\n", err)
			return exitFailure
		}
		resolve = storeResolver(ctx, store, *session)
	}
	secrets := make([]string, 0, len(envs))
	for _, kv := range envs {
		name, ref, _ := strings.Cut(kv, "=")
		b, err := resolve(ref)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser secret exec: %s: %v; the command was not run\n", name, err)
			return exitFailure
		}
		secrets = append(secrets, name+"="+string(b))
		clear(b)
	}
	cmd := exec.CommandContext(ctx, fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = childEnv(os.Environ(), secrets)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			return code
		}
		return exitFailure
	case err != nil:
		fmt.Fprintf(e.stderr, "askuser secret exec: %v\n", err)
		return exitFailure
	}
	return exitOK
}
