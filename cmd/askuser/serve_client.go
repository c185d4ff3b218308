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
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/secretstore"
)

// The commands that talk to a running askuser serve, or to its NATS store:
// ask --server, secret exec --server and --nats, journal --nats.

// Bounds of the client side.
const (
	// clientHeaderTimeout is how long a response's header may take: a
	// status request waits up to maxStatusWait for the ask.
	clientHeaderTimeout = maxStatusWait + 30*time.Second
	// maxResponseBytes caps what is read of a response.
	maxResponseBytes = 1 << 20
	// clientRetries is how many failed status requests in a row end the
	// wait (a replica restarting answers 503 or not at all for a while).
	clientRetries = 10
)

// serverClient talks to the agent API of a running askuser serve.
type serverClient struct {
	base  string // scheme://host[:port], without a trailing slash
	token string
	hc    *http.Client
}

// newServerClient checks --server and reads the agent's bearer token from
// tokenFile (default: the token file serve makes in the state directory),
// which must exist.
func newServerClient(server, tokenFile string) (*serverClient, error) {
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
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = clientHeaderTimeout
	return &serverClient{base: base, token: token, hc: &http.Client{Transport: tr}}, nil
}

// serverBase checks --server: the URL of askuser serve, without a path.
func serverBase(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || strings.Trim(u.Path, "/") != "" {
		return "", fmt.Errorf("--server %q is not the URL of askuser serve: give http://host:port (https:// behind a proxy), without a path", server)
	}
	return u.Scheme + "://" + u.Host, nil
}

// do sends a request and reads the response, at most maxResponseBytes.
func (c *serverClient) do(ctx context.Context, method, path string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	return res.StatusCode, data, err
}

// refusal is what a refusal of the server says, made inert for a terminal.
func refusal(code int, body []byte) string {
	var e errorJSON
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return fmt.Sprintf("%d %s: %s", code, http.StatusText(code), inert.Line(e.Error))
	}
	return fmt.Sprintf("%d %s: %s", code, http.StatusText(code), inert.Line(strings.TrimSpace(string(body))))
}

// askServer is ask --server: it posts the call to the service (Prefer:
// respond-async), says on standard error where the person answers, and
// waits for the result with long polls, which a restart of the replica or
// a proxy's timeout does not lose. It prints the result as ask does, and
// exits as ask does: 0 for a result; 2 for an invalid call, with the
// message on standard error and, where the contract has one, its result on
// standard output; 1 when the service cannot be reached or refuses.
func (e env) askServer(ctx context.Context, c *serverClient, session, toolCall string, d askuser.Dialect, data []byte) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "askuser ask: "+format+"\n", args...)
		return exitFailure
	}
	if obj := bytes.TrimSpace(data); !json.Valid(obj) || len(obj) == 0 || obj[0] != '{' {
		// Not a JSON object: the contract's own message, as ask gives it.
		if _, err := askuser.Decode(d, data, askuser.Limits{}); err != nil {
			return e.callError(err)
		}
		return fail("the call is not one JSON object")
	}
	if toolCall == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		toolCall = "cli-" + hex.EncodeToString(b[:])
	}
	body, err := json.Marshal(map[string]any{"session": session, "tool_call_id": toolCall, "dialect": d.Name(), "arguments": json.RawMessage(data)})
	if err != nil {
		return fail("%v", err)
	}
	code, resp, err := c.do(ctx, "POST", "/v1/calls", body, map[string]string{"Prefer": "respond-async"})
	switch {
	case err != nil:
		return fail("--server %s: %v", c.base, err)
	case code == http.StatusBadRequest:
		var ej errorJSON
		if json.Unmarshal(resp, &ej) != nil || ej.Error == "" {
			return fail("the server refused the call: %s", refusal(code, resp))
		}
		if ej.Result != nil {
			fmt.Fprintf(e.stdout, "%s\n", ej.Result)
		}
		fmt.Fprintln(e.stderr, inert.Text(ej.Error))
		return exitUsage
	case code != http.StatusAccepted && code != http.StatusOK:
		return fail("the server refused the call: %s", refusal(code, resp))
	}
	var started asyncJSON
	if code == http.StatusAccepted && json.Unmarshal(resp, &started) == nil && started.CardURL != "" {
		fmt.Fprintf(e.stderr, "askuser: answer on %s\n", inert.Line(started.CardURL))
	}
	status := "/v1/sessions/" + url.PathEscape(session) + "/calls/" + url.PathEscape(toolCall)
	for failures := 0; ; {
		code, resp, err := c.do(ctx, "GET", status+"?wait="+fmt.Sprint(int(maxStatusWait/time.Second)), nil, nil)
		switch {
		case ctx.Err() != nil:
			return fail("stopped waiting; the ask stays pending on the server, and its result is at %s%s", c.base, status)
		case err == nil && code == http.StatusOK:
			fmt.Fprintf(e.stdout, "%s\n", bytes.TrimSpace(resp))
			return exitOK
		case err == nil && code == http.StatusAccepted:
			failures = 0
			continue
		case err == nil && code != http.StatusServiceUnavailable:
			return fail("waiting for the result: %s", refusal(code, resp))
		}
		if failures++; failures > clientRetries {
			if err != nil {
				return fail("waiting for the result: %v", err)
			}
			return fail("waiting for the result: %s", refusal(code, resp))
		}
		t := time.NewTimer(time.Duration(failures) * time.Second)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// callError prints an invalid call as ask does, and returns its exit code.
func (e env) callError(err error) int {
	var ce *askuser.CallError
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
func (c *serverClient) secret(ctx context.Context, session, name string) ([]byte, error) {
	code, body, err := c.do(ctx, "GET", "/v1/sessions/"+url.PathEscape(session)+"/secrets/"+url.PathEscape(name), nil, nil)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--server %s: %w", c.base, err)
	case code == http.StatusOK:
		return body, nil
	case code == http.StatusNotFound && bytes.Contains(body, []byte("not a route")):
		clear(body)
		return nil, errors.New("the server does not serve secrets to the agent's token (askuser serve runs without --secrets-api): resolve them with --nats and the key ring instead")
	}
	defer clear(body)
	return nil, fmt.Errorf("the server refused: %s", refusal(code, body))
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
	defer c.hc.CloseIdleConnections()
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
			return c.secret(ctx, session, name)
		}, c.hc.CloseIdleConnections, nil
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
