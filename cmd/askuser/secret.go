package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/secretstore"
)

// keyRing reads the keys for a file store: from --key-file, else from
// ASKUSER_SECRET_KEY. A file store without a key is an error: a key made up
// for one process could never open the records again.
func keyRing(keyFile string) (*secretstore.KeyRing, error) {
	if keyFile != "" {
		return secretstore.KeysFromFile(keyFile)
	}
	if os.Getenv(secretstore.KeyEnv) == "" {
		return nil, fmt.Errorf("--store needs a key: give --key-file FILE or set %s to <key-id>:<base64 of 32 bytes> (several, comma-separated, newest first)", secretstore.KeyEnv)
	}
	return secretstore.KeysFromEnv()
}

// openStore opens the file store under dir with the given keys.
func openStore(dir, keyFile string) (*secretstore.Dir, error) {
	ring, err := keyRing(keyFile)
	if err != nil {
		return nil, err
	}
	return secretstore.OpenDir(dir, ring)
}

// useStore points the orchestrator's sealed answers at a file store.
func useStore(o *askuser.Orchestrator, dir, keyFile string) error {
	if dir == "" {
		if keyFile != "" {
			return errors.New("--key-file goes with --store DIR")
		}
		return nil
	}
	s, err := openStore(dir, keyFile)
	if err != nil {
		return err
	}
	o.Secrets = s
	return nil
}

// envFlag collects repeated --env NAME=session:SECRET flags.
type envFlag []string

func (f *envFlag) String() string     { return strings.Join(*f, ",") }
func (f *envFlag) Set(v string) error { *f = append(*f, v); return nil }

const secretSynopsis = "secret exec --store DIR --session ID [--key-file FILE] --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]"

// secretCmd runs 'askuser secret exec': COMMAND runs with each named secret
// in its environment. askuser itself prints nothing on stdout: a value
// printed into an agent's shell would land in the model's context. A
// reference from another session, or to a name never stored, is refused
// (exit 1, the command not run); otherwise the exit status is the
// command's.
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
	dir := fs.String("store", "", "the secret store `DIR`")
	session := fs.String("session", "", "the session `ID` that owns the secrets")
	keyFile := fs.String("key-file", "", "read the store's keys from `FILE` (default: $"+secretstore.KeyEnv+")")
	var envs envFlag
	fs.Var(&envs, "env", "put a secret in the command's environment: `NAME=session:SECRET` (repeatable)")
	if code, stop := parse(fs, args[1:]); stop {
		return code
	}
	switch {
	case *dir == "":
		fmt.Fprintln(e.stderr, "askuser secret exec: --store DIR is required")
		return exitUsage
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
	store, err := openStore(*dir, *keyFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser secret exec: %v\n", err)
		return exitFailure
	}
	childEnv := os.Environ()
	for _, kv := range envs {
		name, ref, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsAny(name, "=\x00") {
			fmt.Fprintf(e.stderr, "askuser secret exec: --env %q is not NAME=session:SECRET\n", kv)
			return exitUsage
		}
		v, err := secretstore.ResolveFor(ctx, store, *session, ref)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser secret exec: %s: %v; the command was not run\n", name, err)
			return exitFailure
		}
		b := v.Reveal()
		childEnv = append(childEnv, name+"="+string(b))
		clear(b)
		v.Wipe()
	}
	cmd := exec.CommandContext(ctx, fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = childEnv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	err = cmd.Run()
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
