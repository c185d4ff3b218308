package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/serve"
)

// The commands that talk to a running askuser serve, or to its NATS store:
// ask --server, secret exec --server and --nats, journal --nats.

// newServerClient checks --server and reads the agent's bearer token from
// tokenFile (default: the token file serve makes in the state directory),
// which must exist.
func newServerClient(server, tokenFile string) (*serve.Client, error) {
	base, err := serverBase(server)
	if err != nil {
		return nil, err
	}
	if tokenFile == "" {
		state, err := stateDir()
		if err != nil {
			return nil, errors.New("--server needs the agent's bearer token: give --token-file FILE (serve's --token-file)")
		}
		tokenFile = filepath.Join(state, agentTokenFileName)
	}
	if _, err := os.Stat(tokenFile); err != nil {
		return nil, fmt.Errorf("%w (the agent's bearer token: give serve's --token-file as --token-file)", fileError("--token-file", tokenFile, err))
	}
	token, _, err := bearerToken("--token-file", tokenFile)
	if err != nil {
		return nil, err
	}
	return &serve.Client{URL: base, Token: token}, nil
}

// serverBase checks --server: the URL of askuser serve, without a path.
func serverBase(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || strings.Trim(u.Path, "/") != "" {
		return "", fmt.Errorf("--server %q is not the URL of askuser serve: give http://host:port (https:// behind a proxy), without a path", server)
	}
	return u.Scheme + "://" + u.Host, nil
}

// askServer is ask --server: it posts the call to the service (Prefer:
// respond-async), says on standard error where the person answers, and
// waits for the result with long polls, which a restart of the replica or
// a proxy's timeout does not lose. It prints the result as ask does, and
// exits as ask does: 0 for a result; 2 for an invalid call, with the
// message on standard error and, where the contract has one, its result on
// standard output; 1 when the service cannot be reached or refuses.
func (e env) askServer(ctx context.Context, c *serve.Client, session, toolCall string, d askuser.Dialect, data []byte) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "askuser ask: "+format+"\n", args...)
		return exitFailure
	}
	if obj := bytes.TrimSpace(data); !json.Valid(obj) || len(obj) == 0 || obj[0] != '{' {
		// Not a JSON object: the contract's own message, as ask gives it.
		if _, err := askuser.Decode(d, data, dialect.Limits{}); err != nil {
			return e.callError(err)
		}
		return fail("the call is not one JSON object")
	}
	if toolCall == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		toolCall = "cli-" + hex.EncodeToString(b[:])
	}
	started, err := c.Start(ctx, serve.Call{Session: session, ToolCallID: toolCall, Dialect: d.Name(), Arguments: data})
	var refused *serve.Error
	switch {
	case errors.Is(err, serve.ErrInvalidCall) && errors.As(err, &refused):
		if refused.Result != nil {
			fmt.Fprintf(e.stdout, "%s\n", refused.Result)
		}
		fmt.Fprintln(e.stderr, inert.Text(refused.Message))
		return exitUsage
	case errors.As(err, &refused):
		return fail("the server refused the call: %v", refused)
	case err != nil:
		return fail("--server %s: %v", c.URL, err)
	}
	if started.CardURL != "" {
		fmt.Fprintf(e.stderr, "askuser: answer on %s\n", inert.Line(started.CardURL))
	}
	result, err := c.Wait(ctx, session, toolCall)
	switch {
	case ctx.Err() != nil:
		return fail("stopped waiting; the ask stays pending on the server, and its result is at %s/v1/sessions/%s/calls/%s", c.URL, url.PathEscape(session), url.PathEscape(toolCall))
	case err != nil:
		return fail("waiting for the result: %v", err)
	}
	fmt.Fprintf(e.stdout, "%s\n", bytes.TrimSpace(result))
	return exitOK
}

// callError prints an invalid call as ask does, and returns its exit code.
func (e env) callError(err error) int {
	var ce *dialect.CallError
	if !errors.As(err, &ce) {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	if ce.Result != nil {
		fmt.Fprintf(e.stdout, "%s\n", ce.Result)
	}
	fmt.Fprintln(e.stderr, ce.Message)
	return exitUsage
}

// serverSecret reads a secret's value from askuser serve's
// GET /v1/sessions/{session}/secrets/{name} (served with --secrets-api).
func serverSecret(ctx context.Context, c *serve.Client, session, name string) ([]byte, error) {
	v, err := c.Secret(ctx, session, name)
	var refused *serve.Error
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, serve.ErrSecretsNotServed):
		return nil, errors.New("the server does not serve secrets to the agent's token (askuser serve runs without --secrets-api): resolve them with --nats and the key ring instead")
	case errors.As(err, &refused):
		return nil, fmt.Errorf("the server refused: %v", refused)
	}
	return nil, fmt.Errorf("--server %s: %w", c.URL, err)
}

// connectNATS connects to the NATS server or cluster at natsURL,
// presenting the token in tokenFile when one is named (it must exist).
func connectNATS(natsURL, tokenFile string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name("askuser"), nats.MaxReconnects(-1)}
	if tokenFile != "" {
		if _, err := os.Stat(tokenFile); err != nil {
			return nil, fileError("--nats-token-file", tokenFile, err)
		}
		token, _, err := bearerToken("--nats-token-file", tokenFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, nats.Token(token))
	}
	nc, err := nats.Connect(natsURL, opts...)
	if err != nil {
		return nil, fmt.Errorf("--nats %s: %w", natsURL, err)
	}
	return nc, nil
}

// openNATSStore connects to natsURL and opens askuser's store there (ring
// may be nil when no secret is read). close closes the connection.
func openNATSStore(ctx context.Context, natsURL, tokenFile string, ring *secretstore.KeyRing) (st *natsstore.Store, close func(), err error) {
	nc, err := connectNATS(natsURL, tokenFile)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err == nil {
		octx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
		st, err = natsstore.Open(octx, js, natsstore.Config{Keys: ring, BindOnly: true})
		cancel()
	}
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return st, nc.Close, nil
}

// askOnServer is ask with --server: the flags that ask here (a responder,
// its card, a journal, a store, a ceiling) are the service's, and refused.
func (e env) askOnServer(ctx context.Context, fs *flag.FlagSet, server, tokenFile, session, toolCall, request string, d askuser.Dialect) int {
	if server == "" {
		fmt.Fprintln(e.stderr, "askuser ask: --token-file is the agent's bearer token for --server URL; give --server")
		return exitUsage
	}
	var local []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "responder", "listen", "journal", "store", "key-file", "max-timeout-seconds":
			local = append(local, "--"+f.Name)
		}
	})
	if local != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %s cannot go with --server: the service asks, with its own responders, journal, store and ceiling\n", strings.Join(local, ", "))
		return exitUsage
	}
	if _, err := serverBase(server); err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitUsage
	}
	c, err := newServerClient(server, tokenFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	defer c.CloseIdleConnections()
	data, err := e.readCall("--request", request)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	return e.askServer(ctx, c, session, toolCall, d, data)
}

// secretSource is where secret exec reads secrets besides a file store:
// the NATS store of askuser serve (--nats, with the key ring), or a
// running askuser serve that serves them (--server, with the agent's
// bearer token).
type secretSource struct {
	natsURL, natsTokenFile, server, tokenFile string
}

func secretSourceFlags(fs *flag.FlagSet) *secretSource {
	s := &secretSource{}
	fs.StringVar(&s.natsURL, "nats", "", "read the secrets from the NATS store of 'askuser serve' at `URL`, opened with the fleet's key ring (--key-file or $"+secretstore.KeyEnv+")")
	fs.StringVar(&s.natsTokenFile, "nats-token-file", "", "with --nats, present the NATS token in `FILE` (serve's --nats-token-file)")
	fs.StringVar(&s.server, "server", "", "read the secrets from a running 'askuser serve' at `URL` started with --secrets-api, with the agent's bearer token: no key is needed here, and the value goes only into COMMAND's environment")
	fs.StringVar(&s.tokenFile, "token-file", "", "with --server, the agent's bearer token is in `FILE` (default: $XDG_STATE_HOME/askuser/agent-token, else ~/.local/state/askuser/agent-token)")
	return s
}

// check refuses sources that do not go together.
func (s *secretSource) check(fs *flag.FlagSet, storeDir string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case s.server != "" && (s.natsURL != "" || storeDir != "" || set["key-file"]):
		return errors.New("--server reads the secrets from askuser serve, which holds the key: give it without --nats, --store or --key-file")
	case s.natsURL != "" && storeDir != "":
		return errors.New("--nats and --store name two stores; give one")
	case s.tokenFile != "" && s.server == "":
		return errors.New("--token-file is the agent's bearer token for --server URL; give --server")
	case s.natsTokenFile != "" && s.natsURL == "":
		return errors.New("--nats-token-file is for --nats URL; give --nats")
	case s.server != "":
		if _, err := serverBase(s.server); err != nil {
			return err
		}
	}
	return nil
}

// open returns what reads a session's secret by reference, and what to
// call when done.
func (s *secretSource) open(ctx context.Context, keyFile, session string) (func(ref string) ([]byte, error), func(), error) {
	if s.server != "" {
		c, err := newServerClient(s.server, s.tokenFile)
		if err != nil {
			return nil, nil, err
		}
		return func(ref string) ([]byte, error) {
			name, err := secretstore.ParseRef(ref)
			if err != nil {
				return nil, err
			}
			return serverSecret(ctx, c, session, name)
		}, c.CloseIdleConnections, nil
	}
	var km keyMaterial
	var err error
	switch {
	case keyFile != "":
		km, err = keyFromFile("--key-file", keyFile)
	case strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != "":
		km, err = keyFromEnv()
	default:
		err = fmt.Errorf("--nats needs the fleet's key ring to open the secrets: give --key-file FILE or set $%s", secretstore.KeyEnv)
	}
	if err != nil {
		return nil, nil, err
	}
	st, done, err := openNATSStore(ctx, s.natsURL, s.natsTokenFile, km.ring)
	if err != nil {
		return nil, nil, err
	}
	return storeResolver(ctx, st.Secrets(), session), done, nil
}

// storeResolver reads a session's secrets by reference from a store.
func storeResolver(ctx context.Context, store secretstore.Store, session string) func(ref string) ([]byte, error) {
	return func(ref string) ([]byte, error) {
		v, err := secretstore.ResolveFor(ctx, store, session, ref)
		if err != nil {
			return nil, err
		}
		defer v.Wipe()
		return v.Reveal(), nil
	}
}

// journalNATS is journal --nats: the records of the journal stream of
// askuser serve, oldest first, as journal lists a file's.
func (e env) journalNATS(ctx context.Context, natsURL, tokenFile, session string, asJSON bool) int {
	st, done, err := openNATSStore(ctx, natsURL, tokenFile, nil)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal: %v\n", err)
		return exitFailure
	}
	defer done()
	rctx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
	defer cancel()
	recs, err := st.Journal().Records(rctx, session)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal: reading the journal stream: %v\n", err)
		return exitFailure
	}
	l := e.newRecordList(asJSON)
	for _, rec := range recs {
		if err := l.add(rec); err != nil {
			fmt.Fprintf(e.stderr, "askuser journal: %v\n", err)
			return exitFailure
		}
	}
	if err := l.flush(); err != nil {
		fmt.Fprintf(e.stderr, "askuser journal: %v\n", err)
		return exitFailure
	}
	return exitOK
}
