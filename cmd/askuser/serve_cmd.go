package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/pi"
	"github.com/askuser-go/askuser/dialect/piask"
	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/natsstore"
	"github.com/askuser-go/askuser/natsstore/natsserver"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/route"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/serve"
)

// askuser serve runs askuser as a service: an agent in any language posts
// its tool calls to the agent API, a person answers them on the web card,
// and everything that must outlive a request (pending asks, results for
// replay, the journal, sealed secrets, remembered decisions) lives in NATS
// JetStream (package natsstore), so that several replicas serve the same
// asks and a restart loses none. Without --nats it embeds a NATS server
// with JetStream, its files under --state; with --nats it joins an existing
// server or cluster. See docs/serve.md.

const serveSynopsis = "serve --listen ADDR [--state DIR] [--nats URL] [--nats-listen ADDR] [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION] [--token-file FILE] [--key-file FILE] [--max-timeout-seconds N] [--allowed-host NAME ...] [--secrets-api] [--admin-token-file FILE] [--webhook URL ... [--webhook-secret-file FILE]] [--otlp URL] [--routes FILE [--step-webhook NAME=URL ...]] [--public-url URL] [--slack-bot-token-file FILE --slack-signing-secret-file FILE --slack-channel ID [--slack-app-token-file FILE] (--slack-allowed-users U1,U2 | --slack-allowed-usergroup S1) [--slack-api-url URL]] [--smtp HOST:PORT --smtp-from ADDR --email-to ADDR [--smtp-user NAME --smtp-password-file FILE]]"

// Names in serve's state directory.
const (
	natsDirName        = "nats"        // the embedded server's JetStream files
	agentTokenFileName = "agent-token" // the agent's bearer token
	natsTokenFileName  = "nats-token"  // the embedded server's client token
)

// defaultNATSPort is the embedded NATS server's port: not NATS's own 4222,
// so that askuser serve starts beside a NATS server already running on this
// machine (a developer's, a test's) instead of failing to listen or, worse,
// being taken for it by the clients of that one. 14222 is NATS's port with a
// 1 before it: easy to tell apart, assigned to no service by IANA, and
// below the ephemeral range (32768 on Linux, 49152 elsewhere), so that the
// kernel does not hand it to an outgoing connection.
const defaultNATSPort = "14222"

// defaultNATSListen is where the embedded NATS server listens: its port,
// on loopback.
const defaultNATSListen = "127.0.0.1:" + defaultNATSPort

// serveMaxConns is how many connections the service serves at once: every
// blocking call and long poll holds one.
const serveMaxConns = 4096

// Bounds of serve's start and stop.
const (
	serveOpenTimeout  = 30 * time.Second // connecting the store: its buckets and stream
	serveReadyTimeout = time.Minute      // the store's watch catching up
	serveStopTimeout  = 3 * time.Second  // requests finishing after a signal, within graceAfterTerm
)

// listFlag collects a repeated flag's values.
type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, ",") }
func (f *listFlag) Set(v string) error { *f = append(*f, v); return nil }

// serveConfig is what serve's flags say.
type serveConfig struct {
	listen, state, natsURL, natsListen, natsTokenFile string
	tokenFile, keyFile, adminTokenFile                string
	replicas, ceiling                                 int
	journalRetention                                  time.Duration
	hosts                                             []string
	secretsAPI                                        bool
	webhooks                                          webhookFlags
	stepHooks                                         stepWebhookFlags
	stepURLs                                          map[string]string // from stepHooks
	otlp                                              string
	chat                                              chatFlags
	routesFile                                        string
	routes                                            route.Selector // read from routesFile at start
}

func (e env) serve(ctx context.Context, args []string) int {
	fs := e.flags("serve", serveSynopsis)
	var c serveConfig
	fs.StringVar(&c.listen, "listen", "", "serve the agent API and the card on `ADDR` (host:port; required)")
	fs.StringVar(&c.state, "state", "", "keep the embedded NATS server's files, and the token and key files made on first run, under `DIR`, mode 0700 (default: $XDG_STATE_HOME/askuser, else ~/.local/state/askuser)")
	fs.StringVar(&c.natsURL, "nats", "", "join the NATS server or cluster at `URL` (nats://host:port, comma-separated for several) instead of embedding one; needs the fleet's key ring (--key-file or $"+secretstore.KeyEnv+")")
	fs.StringVar(&c.natsListen, "nats-listen", defaultNATSListen, "the embedded NATS server listens on `ADDR`, where other replicas join it with --nats")
	fs.StringVar(&c.natsTokenFile, "nats-token-file", "", "the NATS client token is in `FILE`, mode 0600: the embedded server requires it of every client (default: DIR/nats-token, made on first run); with --nats it is presented to the cluster")
	fs.IntVar(&c.replicas, "nats-replicas", 1, "how many NATS servers keep each bucket and stream this replica creates: `N` from 1 to 5 (3 on a cluster that must outlive losing a server)")
	fs.DurationVar(&c.journalRetention, "journal-retention", 0, "keep journal records for `DURATION` (720h, say; at least 1h), and set it on the fleet's journal; without it, the journal's retention stays as it is (for ever on a new journal)")
	fs.StringVar(&c.tokenFile, "token-file", "", "the agent API's bearer token is in `FILE`, mode 0600 (made, with a random token, when it does not exist; default: DIR/agent-token); or one line per tenant, 'PREFIX TOKEN', a token for the sessions whose ids begin with PREFIX")
	fs.StringVar(&c.keyFile, "key-file", "", "the fleet's key ring is in `FILE`, mode 0600: <key-id>:<base64 of 32 bytes>, comma-separated, newest first, the same on every replica (default: $"+secretstore.KeyEnv+", else, embedding NATS, DIR/key, made on first run)")
	fs.StringVar(&c.adminTokenFile, "admin-token-file", "", "serve the admin API (GET /v1/asks: the asks across the fleet) to the operators' bearer token in `FILE`, mode 0600 (made, with a random token, when it does not exist; it must differ from the agent's); without it the admin API is not served")
	ceiling := ceilingFlag(fs)
	var hosts listFlag
	fs.Var(&hosts, "allowed-host", "also answer for the host `NAME` (repeatable): a name the card and the API are reached by besides the loopback names")
	fs.BoolVar(&c.secretsAPI, "secrets-api", false, "serve secrets' values to the agent's bearer token (GET /v1/sessions/{session}/secrets/{name}), for 'askuser secret exec --server': whoever can read the token file can then read every secret")
	c.webhooks.register(fs)
	c.stepHooks.register(fs)
	fs.StringVar(&c.otlp, "otlp", "", "export traces and metrics over OTLP/HTTP to the collector at `URL` (http://127.0.0.1:4318, say); the metrics are at GET /metrics in Prometheus text format either way, behind the agent's bearer token")
	c.chat.register(fs)
	fs.StringVar(&c.routesFile, "routes", "", routesUsage)
	if code, stop := parse(fs, args); stop {
		return code
	}
	c.ceiling, c.hosts = *ceiling, hosts
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.check(set, fs.NArg()); err != nil {
		fmt.Fprintf(e.stderr, "askuser serve: %v\n", err)
		return exitUsage
	}
	if !e.checkCeiling("serve", c.ceiling) {
		return exitUsage
	}
	routes, code, ok := e.routesSelector("serve", c.routesFile)
	if !ok {
		return code
	}
	c.routes = routes
	return e.runServe(ctx, c)
}

// check refuses flags that do not go together.
func (c *serveConfig) check(set map[string]bool, nargs int) error {
	envKey := strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != ""
	switch {
	case nargs > 0:
		return errors.New("serve takes no arguments; the calls come over the agent API")
	case c.listen == "":
		return errors.New("--listen ADDR is required: where the agent API and the card are served (127.0.0.1:8080, say)")
	case c.natsURL != "" && set["nats-listen"]:
		return errors.New("--nats-listen is where the embedded NATS server listens, and with --nats this replica embeds none; give one of them")
	case c.natsURL != "" && c.keyFile == "" && !envKey:
		return fmt.Errorf("joining with --nats needs the fleet's key ring, the same on every replica: give --key-file FILE or set $%s", secretstore.KeyEnv)
	case c.replicas < 1 || c.replicas > 5:
		return fmt.Errorf("--nats-replicas %d: NATS keeps a bucket on 1 to 5 servers", c.replicas)
	case c.journalRetention < 0 || c.journalRetention > 0 && c.journalRetention < natsstore.DuplicateWindow:
		return fmt.Errorf("--journal-retention %v: at least %v, the window in which a second record of one ask is dropped (or leave it out to keep the journal's retention as it is)", c.journalRetention, natsstore.DuplicateWindow)
	}
	if err := c.webhooks.check(len(c.stepHooks.pairs)); err != nil {
		return err
	}
	hooks, err := c.stepHooks.parse()
	if err != nil {
		return err
	}
	c.stepURLs = hooks
	if err := c.chat.check("serve", ""); err != nil {
		return err
	}
	for _, h := range c.hosts {
		if hostcheck.HostOnly(h) == "" || !hostcheck.Plain(strings.NewReplacer("[", "", "]", "").Replace(h)) {
			return fmt.Errorf("--allowed-host %q is not a host name or IP address (no scheme, port or path: card.example.com, 192.0.2.7)", h)
		}
	}
	return nil
}

// serveFiles are the files serve uses, as the flags and the state
// directory name them.
type serveFiles struct {
	state, tokenFile, keyFile, natsDir, natsTokenFile string
	defaultKey                                        bool // keyFile is made on first run
}

func (c *serveConfig) files() (serveFiles, error) {
	f := serveFiles{tokenFile: c.tokenFile, keyFile: c.keyFile, natsTokenFile: c.natsTokenFile}
	envKey := strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != ""
	embedded := c.natsURL == ""
	needState := embedded || f.tokenFile == "" || (len(c.webhooks.urls) > 0 || len(c.stepHooks.pairs) > 0) && c.webhooks.secretFile == ""
	if !needState {
		return f, nil
	}
	f.state = c.state
	if f.state == "" {
		d, err := stateDir()
		if err != nil {
			return f, errors.New("no state directory: set XDG_STATE_HOME or HOME, or give --state DIR")
		}
		f.state = d
	}
	if err := makePrivateDir("--state", f.state); err != nil {
		return f, err
	}
	if f.tokenFile == "" {
		f.tokenFile = filepath.Join(f.state, agentTokenFileName)
	}
	if embedded {
		f.natsDir = filepath.Join(f.state, natsDirName)
		if f.natsTokenFile == "" {
			f.natsTokenFile = filepath.Join(f.state, natsTokenFileName)
		}
		if f.keyFile == "" && !envKey {
			f.keyFile, f.defaultKey = filepath.Join(f.state, keyFileName), true
		}
	}
	return f, nil
}

// keys reads the fleet's key ring: --key-file, else $ASKUSER_SECRET_KEY,
// else the key file beside the state (made on first run).
func (f serveFiles) keys() (keyMaterial, error) {
	switch {
	case f.keyFile == "":
		return keyFromEnv()
	case f.defaultKey:
		if _, err := defaultKeys(f.keyFile, f.natsDir, true); err != nil {
			return keyMaterial{}, err
		}
		return keyFromFile("the key file", f.keyFile)
	}
	return keyFromFile("--key-file", f.keyFile)
}

// A serveStore is the shared store and what holds it open.
type serveStore struct {
	*natsstore.Store
	nc    *nats.Conn
	emb   *natsserver.Server // nil when joining
	close func()
}

// openStore starts the embedded NATS server (or connects to --nats) and
// opens the store on it.
func (e env) openStore(ctx context.Context, c serveConfig, f serveFiles, ring *secretstore.KeyRing) (*serveStore, error) {
	s := &serveStore{}
	if c.natsURL == "" {
		host, port, err := net.SplitHostPort(c.natsListen)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil || p < 0 || p > 65535 {
			return nil, fmt.Errorf("--nats-listen %q is not host:port (127.0.0.1:"+defaultNATSPort+", say)", c.natsListen)
		}
		token, made, err := bearerToken("--nats-token-file", f.natsTokenFile)
		if err != nil {
			return nil, err
		}
		if made {
			fmt.Fprintf(e.stderr, "askuser serve: made the NATS token file %s (mode 0600); replicas that join present it with --nats-token-file\n", f.natsTokenFile)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			fmt.Fprintf(e.stderr, "askuser serve: NATS listens on %s beyond loopback: clients must present the token, but the traffic is not encrypted; keep it on a private network\n", c.natsListen)
		}
		s.emb, err = natsserver.Start(natsserver.Config{StoreDir: f.natsDir, Host: host, Port: p, Token: token})
		if err != nil {
			return nil, fmt.Errorf("--nats-listen %s: %w", c.natsListen, err)
		}
		s.nc, err = s.emb.Connect(nats.Name("askuser serve"), nats.MaxReconnects(-1))
		if err != nil {
			s.emb.Shutdown()
			return nil, err
		}
	} else {
		var err error
		if s.nc, err = connectNATS(c.natsURL, f.natsTokenFile); err != nil {
			return nil, err
		}
	}
	s.close = func() {
		s.nc.Close()
		if s.emb != nil {
			s.emb.Shutdown()
		}
	}
	js, err := jetstream.New(s.nc)
	if err == nil {
		octx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
		s.Store, err = natsstore.Open(octx, js, natsstore.Config{Replicas: c.replicas, JournalRetention: c.journalRetention, Keys: ring})
		cancel()
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (e env) runServe(ctx context.Context, c serveConfig) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(e.stderr, "askuser serve: %v\n", err)
		return code
	}
	files, err := c.files()
	if err != nil {
		return fail(exitFailure, err)
	}
	km, err := files.keys()
	if err != nil {
		return fail(exitFailure, err)
	}
	tenants, made, err := serveTokens(files.tokenFile)
	if err != nil {
		return fail(exitFailure, err)
	}
	if made {
		fmt.Fprintf(e.stderr, "askuser serve: made the agent's bearer token file %s (mode 0600)\n", files.tokenFile)
	}
	var admins []string
	if c.adminTokenFile != "" {
		admin, made, err := bearerToken("--admin-token-file", c.adminTokenFile)
		if err != nil {
			return fail(exitFailure, err)
		}
		if slices.ContainsFunc(tenants, func(t serve.Tenant) bool { return t.Token == admin }) {
			return fail(exitUsage, fmt.Errorf("--admin-token-file %s holds the agent's bearer token: the admin API must not open to the agent; give the operators a token of their own", c.adminTokenFile))
		}
		if made {
			fmt.Fprintf(e.stderr, "askuser serve: made the admin token file %s (mode 0600)\n", c.adminTokenFile)
		}
		admins = []string{admin}
	}
	addr, err := net.ResolveTCPAddr("tcp", c.listen)
	if err != nil {
		return fail(exitUsage, fmt.Errorf("--listen %s: %w", c.listen, err))
	}
	_, allowed := cardHost(c.listen, addr)
	if len(c.hosts) > 0 {
		if allowed == nil {
			allowed = []string{"localhost", "127.0.0.1", "[::1]"}
		}
		allowed = append(allowed, c.hosts...)
	}

	st, err := e.openStore(ctx, c, files, km.ring)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer st.close()
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	lim := cardLimits
	// A card URL lasts at least as long as the longest ask: the one
	// printed when a call begins still opens the card at its end.
	urlLife := max(time.Hour, time.Duration(c.ceiling)*time.Second)
	onceNotes, err := serveCardNotes(ctx, c, st.Store)
	if err != nil {
		return fail(exitFailure, err)
	}
	card, err := serve.NewCard(serve.CardConfig{Keys: km.ring, URLLifetime: urlLife, Web: web.Options{AllowedHosts: allowed, BodyTimeout: lim.body, Logger: logger, Notes: onceNotes}})
	if err != nil {
		return fail(exitFailure, fmt.Errorf("%s: %w", km.source, err))
	}
	tel, err := newServeTelemetry(c.otlp)
	if err != nil {
		return fail(exitUsage, err)
	}
	defer stopTelemetry(e, tel)
	chat, err := e.startServeChat(ctx, c, card, km.ring, addr, logger, st.Store)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer chat.close()
	channels, stopChannels, err := e.stepChannels(c.stepURLs, c.webhooks, files.state, logger)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer stopChannels()
	first, channels := serveResponders(card, chat, c.routes != nil, channels)
	o := &askuser.Orchestrator{
		Channels:  channels,
		Observer:  tel.obs.Hooks(),
		Responder: first,
		Limits:    dialect.Limits{MaxTimeoutSeconds: c.ceiling},
		Logger:    logger,
		Secrets:   st.Secrets(),
		Journal:   st.Journal(),
		Consents:  st.Consents(),
		Asks:      st.Asks(),
		Dialects:  []askuser.Dialect{pi.Dialect(), piask.Dialect()},
		Routes:    c.routes,
	}
	// The card is not closed: with a shared store its Close would end the
	// pending asks for every replica. Close leaves them pending.
	defer o.Close()
	rctx, cancel := context.WithTimeout(ctx, serveReadyTimeout)
	err = o.Ready(rctx)
	cancel()
	if err != nil {
		return fail(exitFailure, fmt.Errorf("the replica could not follow the shared store's changes within %v: %w", serveReadyTimeout, err))
	}
	stopWebhooks, err := e.startWebhooks(ctx, c.webhooks, files.state, st.Journal(), logger)
	if err != nil {
		return fail(exitFailure, err)
	}
	defer stopWebhooks()
	// Only now, ready, does the replica take connections.
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fail(exitFailure, fmt.Errorf("--listen %s: %w", c.listen, err))
	}
	urlHost, _ := cardHost(c.listen, ln.Addr().(*net.TCPAddr))
	api := serve.Config{Orchestrator: o, Tenants: tenants, AdminTokens: admins, Card: card, AllowedHosts: allowed, Addr: urlHost, WriteTimeout: lim.write, Logger: logger}
	api.Approvals = chat.approvals()
	if c.secretsAPI {
		api.Secrets = st.Secrets()
	}
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           chat.routes(tel.withMetrics(serve.NewHandler(api), tenants)),
		ReadHeaderTimeout: lim.header,
		ReadTimeout:       lim.read,
		WriteTimeout:      lim.write,
		IdleTimeout:       lim.idle,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitListener(ln, serveMaxConns)) }()
	if st.emb != nil {
		fmt.Fprintf(e.stderr, "askuser serve: NATS with JetStream on %s, its files under %s; a replica joins with --nats %s --nats-token-file %s and this key ring\n",
			st.emb.ClientURL(), files.natsDir, st.emb.ClientURL(), files.natsTokenFile)
	}
	fmt.Fprintf(e.stderr, "askuser serve: serving the agent API and the card on http://%s (%s; key ring %s)\n", urlHost, describeTokens(tenants, files.tokenFile), km.source)

	code := exitOK
	select {
	case err := <-served:
		fmt.Fprintf(e.stderr, "askuser serve: %v\n", err)
		code = exitFailure
	case <-ctx.Done():
	}
	// Stop: take no more connections; the callers still waiting are told
	// the ask stays pending (Close); the long polls and event streams end;
	// the rest have serveStopTimeout to finish.
	stopped := make(chan struct{})
	sctx, cancel := context.WithTimeout(context.Background(), serveStopTimeout)
	defer cancel()
	go func() {
		defer close(stopped)
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
	}()
	o.Close()
	cancelBase()
	<-stopped
	return code
}
