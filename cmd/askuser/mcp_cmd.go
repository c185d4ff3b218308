package main

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/dialect/approvalwire"
	"github.com/askuser-go/askuser/internal/buildinfo"
	"github.com/askuser-go/askuser/internal/hostcheck"
	mcpresponder "github.com/askuser-go/askuser/responders/mcp"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/secretstore"
)

// askuser mcp serves askuser as an MCP server with two tools: the question
// tool, in the contract --dialect names (ask_user by default), and
// request_approval beside it (left out with --no-approval; --dialect
// request_approval serves it alone). Their calls are asked through the
// client's elicitation (see package mcpresponder), on one orchestrator;
// --consents FILE keeps the decisions a person makes "for this session",
// as on approve. Over standard input and output by default; with --listen
// ADDR over streamable HTTP at /mcp, behind a bearer token and the web
// card's Host and Origin checks.

const mcpSynopsis = "mcp [--dialect ask_user|pi-ask|pi|request_approval] [--no-approval] [--consents FILE] [--listen ADDR] [--token-file FILE] [--approvers FILE] [--card ADDR] [--session ID] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--nats URL [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION]] [--bridge-to card|slack [--bridge-timeout D]] [--slack-bot-token-file FILE --slack-channel ID (--slack-allowed-users U1,U2 | --slack-allowed-usergroup ID) (--slack-signing-secret-file FILE --slack-listen ADDR | --slack-app-token-file FILE) [--slack-api-url URL]]"

// mcpPath is where --listen serves MCP.
const mcpPath = "/mcp"

// Bounds of the HTTP server. A tool call before 2026-07-28 stays open
// while the person answers (minutes), so the server sets no deadline over
// a whole request or response: a request's header must arrive within
// mcpReadHeaderTimeout, and its body within mcpBodyTimeout, after which
// the connection's read deadline is lifted.
const (
	mcpReadHeaderTimeout = 10 * time.Second
	mcpIdleTimeout       = 2 * time.Minute
	mcpMaxBody           = 1 << 20
	mcpMaxConns          = 256
	maxTokenFileBytes    = 4 << 10
)

// mcpBodyTimeout is how long a request's body may take; tests shorten it.
var mcpBodyTimeout = 30 * time.Second

func (e env) mcp(ctx context.Context, args []string) int {
	fs := e.flags("mcp", mcpSynopsis)
	listen := fs.String("listen", "", "serve MCP over streamable HTTP at http://`ADDR`/mcp (behind a bearer token) instead of standard input and output")
	tokenFile := fs.String("token-file", "", "with --listen, the bearer token is in `FILE` (mode 0600; made, with a random token, when it does not exist); without it a random token is printed on standard error")
	approversFile := fs.String("approvers", "", "with --listen, serve request_approval only to the MCP clients whose bearer token is in `FILE` (mode 0600; one \"NAME TOKEN\" a line): the people who may approve. Without it, --listen serves no request_approval")
	cardAddr := fs.String("card", "", "serve a web card on `ADDR` (127.0.0.1:0 for any free port) where a secret question is answered, reached by a link the MCP client shows with a short code; without it a secret question is declined")
	session := fs.String("session", "mcp", "the session `ID` that owns the asks and their secrets")
	journalFile := fs.String("journal", "", "append each ask's decision record to the journal `FILE` (JSON lines), a regular file")
	ceiling := ceilingFlag(fs)
	storeDir := fs.String("store", "", "keep sealed secrets in a file store under `DIR` (needs --key-file or $ASKUSER_SECRET_KEY; default, with --card: $XDG_STATE_HOME/askuser/store, else ~/.local/state/askuser/store)")
	keyFile := fs.String("key-file", "", "read the key ring from `FILE`, mode 0600: <key-id>:<base64 of 32 bytes>, comma-separated, newest first (default: $ASKUSER_SECRET_KEY, else the default store's key file for secrets and a key made up for the process for requestStates)")
	noApproval := fs.Bool("no-approval", false, "serve only the question tool, without request_approval (for a client that answers elicitations by itself, which could then approve)")
	consentsFile := fs.String("consents", "", "keep the approval decisions a person makes for the session in `FILE` (JSON lines), a regular file, so that they hold across restarts (default: they last as long as the server)")
	dialectName := dialectFlag(fs)
	var nf mcpNATSFlags
	nf.register(fs)
	bridgeTo := fs.String("bridge-to", "", "hand an ask the person has not answered in the MCP client within --bridge-timeout on to `RESPONDER` (card: the --card web card; slack: the channel of the --slack-* flags), and return where it went, so that a client that gives up a long tool call is not kept waiting")
	bridgeAfter := fs.Duration("bridge-timeout", mcpresponder.DefaultBridgeAfter, "with --bridge-to, how long the MCP client is given before the ask goes on (`D`, e.g. 90s; below the 180 s after which some clients give up)")
	var sl mcpSlack
	sl.register(fs)
	if code, stop := parse(fs, args); stop {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := nf.check(set); err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitUsage
	}
	d, err := dialectNamed(*dialectName)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitUsage
	}
	// The tools: the question tool and request_approval beside it, or
	// request_approval alone when --dialect names it.
	alone := d.Name() == approvalwire.ToolName
	dialects := []askuser.Dialect{d}
	if !alone && !*noApproval {
		dialects = append(dialects, approvaltool.Dialect())
	}
	switch {
	case alone && *noApproval:
		fmt.Fprintln(e.stderr, "askuser mcp: --no-approval leaves request_approval out, and --dialect request_approval serves only it; give one of them")
		return exitUsage
	case *consentsFile != "" && *noApproval:
		fmt.Fprintln(e.stderr, "askuser mcp: --consents keeps approval decisions, and --no-approval serves no request_approval; give one of them")
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(e.stderr, "askuser mcp: unexpected argument %q; the calls come from the MCP client\n", fs.Arg(0))
		return exitUsage
	case !e.checkCeiling("mcp", *ceiling):
		return exitUsage
	case *tokenFile != "" && *listen == "":
		fmt.Fprintln(e.stderr, "askuser mcp: --token-file is for --listen: over standard input and output there is no token")
		return exitUsage
	case *approversFile != "" && *listen == "":
		fmt.Fprintln(e.stderr, "askuser mcp: --approvers is for --listen: over standard input and output the client that started askuser is the person's")
		return exitUsage
	case *approversFile != "" && *noApproval:
		fmt.Fprintln(e.stderr, "askuser mcp: --approvers names who may approve, and --no-approval serves no request_approval; give one of them")
		return exitUsage
	case alone && *listen != "" && *approversFile == "":
		fmt.Fprintln(e.stderr, "askuser mcp: --dialect request_approval with --listen needs --approvers: the bearer token alone does not say who may approve")
		return exitUsage
	case strings.TrimSpace(*session) == "":
		fmt.Fprintln(e.stderr, "askuser mcp: --session is empty; give a session id")
		return exitUsage
	case *bridgeTo != "" && *bridgeTo != "card" && *bridgeTo != "slack":
		fmt.Fprintf(e.stderr, "askuser mcp: --bridge-to %q: the ask can go on to card (the --card web card) or slack (the --slack-* flags' channel)\n", *bridgeTo)
		return exitUsage
	case *bridgeTo == "card" && *cardAddr == "":
		fmt.Fprintln(e.stderr, "askuser mcp: --bridge-to card needs --card ADDR, the card the ask goes on to")
		return exitUsage
	case *bridgeAfter <= 0:
		fmt.Fprintln(e.stderr, "askuser mcp: --bridge-timeout must be a positive duration, such as 90s")
		return exitUsage
	}
	if err := sl.check(*bridgeTo); err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitUsage
	}
	store, err := resolveStore(*storeDir, *keyFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: *ceiling}, Logger: logger}

	// The key ring that seals requestStates: the one the flags or the
	// environment name, else one made up for the life of the process.
	var keys *secretstore.KeyRing
	switch {
	case *keyFile != "":
		if keys, err = readKeyFile("--key-file", *keyFile); err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
	case strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != "":
		if keys, err = secretstore.KeysFromEnv(); err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
	}
	if nf.url != "" {
		// The fleet's store: pending asks, the journal, sealed secrets and
		// remembered decisions, shared with every server on it.
		st, err := nf.open(ctx, keys)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		defer st.close()
		o.Asks, o.Journal, o.Secrets, o.Consents = st.Asks(), st.Journal(), st.Secrets(), st.Consents()
		defer o.Close()
		fmt.Fprintf(e.stderr, "askuser mcp: pending asks, the journal, secrets and remembered decisions are in the NATS store at %s, shared with every server on it\n", nf.url)
	}
	// Secrets are asked only on the card: the store is opened when there
	// is one (or when --store names one, so that a bad key is found now).
	if nf.url == "" && (*storeDir != "" || *cardAddr != "") {
		s, err := store.open(true)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		o.Secrets = s
	}
	if *journalFile != "" {
		if err := checkJournal(*journalFile); err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		closeJournal, err := e.openJournal(o, *journalFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		defer closeJournal()
	}
	if *consentsFile != "" {
		cs, err := e.openConsents(*consentsFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		defer func() {
			if err := cs.Close(); err != nil {
				fmt.Fprintf(e.stderr, "askuser mcp: closing the consents file: %v\n", err)
			}
		}()
		o.Consents = cs
	}
	ropts := &mcpresponder.Options{Logger: logger}
	if *cardAddr != "" {
		stopCard, err := e.mcpCard(*cardAddr, ropts, logger)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		defer stopCard()
	}
	var bridge *mcpresponder.Bridge
	if *bridgeTo == "slack" {
		// Stopped after o.Wait (deferred below): an ended ask's message is
		// edited in its AfterEnd.
		b, stopSlack, err := sl.start(ctx, e, *bridgeAfter, logger)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
			return exitFailure
		}
		defer stopSlack()
		bridge = b
	}
	o.Responder = mcpresponder.New(ropts)
	if o.Asks != nil {
		rctx, cancel := context.WithTimeout(ctx, serveReadyTimeout)
		err := o.Ready(rctx)
		cancel()
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser mcp: the server could not follow the shared store's changes within %v: %v\n", serveReadyTimeout, err)
			return exitFailure
		}
	}
	sess := *session
	newServer := func() *mcp.Server {
		// The Tasks extension is advertised: Tasks serves it in front of
		// the SDK, for the clients that declare it.
		caps := &mcp.ServerCapabilities{}
		caps.AddExtension(mcpresponder.TasksExtension, nil)
		return mcp.NewServer(&mcp.Implementation{Name: "askuser", Title: "askuser", Version: buildinfo.Version()}, &mcp.ServerOptions{Logger: logger, Capabilities: caps})
	}
	// Over HTTP, two servers on the one orchestrator: every caller with the
	// bearer token gets the question tool; request_approval is served only
	// to the approvers, each proving who they are by a token of their own.
	server, approvers := newServer(), newServer()
	defer o.WaitResponders()
	// The tasks of each server's tools, for clients that declare the Tasks
	// extension: over HTTP request_approval's only for the approvers.
	tasks, approverTasks := &mcpresponder.Tasks{Logger: logger}, &mcpresponder.Tasks{Logger: logger}
	defer tasks.Close()
	defer approverTasks.Close()
	if *bridgeTo == "card" {
		bridge = &mcpresponder.Bridge{After: *bridgeAfter, To: ropts.Card, Where: func(a *askuser.Ask) string {
			// The code goes to the person running the server, never into
			// the result the model reads.
			link := ropts.CardURL(a)
			code := ropts.Codes.Issue(a.Session(), a.ID(), a.Form().ExpiresAt)
			fmt.Fprintf(e.stderr, "askuser mcp: an unanswered ask went on to the card: %s (code %s)\n", link, code)
			return link
		}}
	}
	for _, d := range dialects {
		tool := &mcpresponder.Tool{Orchestrator: o, Dialect: d, Keys: keys, Bridge: bridge, Session: func(*mcp.CallToolRequest) string { return sess }}
		approval := d.Name() == approvalwire.ToolName
		if approval {
			tool.Session = func(req *mcp.CallToolRequest) string { return approvalSession(sess, req) }
		}
		defer tool.Close()
		for _, s := range []*mcp.Server{server, approvers} {
			if approval && s == server && *listen != "" {
				continue
			}
			if err := mcpresponder.AddTool(s, tool); err != nil {
				fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
				return exitFailure
			}
			if s == server {
				tasks.Tools = append(tasks.Tools, tool)
			} else {
				approverTasks.Tools = append(approverTasks.Tools, tool)
			}
		}
	}

	if *listen != "" {
		var names map[string]string
		switch {
		case *approversFile != "":
			if names, err = readApprovers(*approversFile); err != nil {
				fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
				return exitFailure
			}
		case !*noApproval:
			fmt.Fprintln(e.stderr, "askuser mcp: request_approval is not served: over --listen the bearer token alone does not say who may approve; name the approvers with --approvers FILE")
		}
		return e.mcpHTTP(ctx, server, approvers, tasks, approverTasks, names, *listen, *tokenFile, logger)
	}
	// askuser's IOTransport, not the SDK's: a frame the SDK cannot read
	// gets a JSON-RPC error, where the SDK would end the connection and
	// every pending ask with it.
	// Tasks reads the frames first: the SDK has no hook for the Tasks
	// extension's methods.
	r, w := tasks.Filter(io.NopCloser(e.stdin), nopWriteCloser{e.stdout})
	t := &mcpresponder.IOTransport{Reader: r, Writer: w, Logger: logger}
	if err := server.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitFailure
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpCard serves the web card for secret questions on addr, behind the
// short-code gate and the card's Host check, and sets the responder's
// options to send the person there. The card's link carries no
// credential: the person types the code the MCP client shows beside it.
func (e env) mcpCard(addr string, ropts *mcpresponder.Options, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--card %s: %w", addr, err)
	}
	tcp := ln.Addr().(*net.TCPAddr)
	urlHost, allowed := cardHost(addr, tcp)
	codes := &mcpresponder.Codes{CookieName: "askuser_mcp_code_" + strconv.Itoa(tcp.Port)}
	card := web.New(&web.Options{AllowedHosts: allowed, Authorize: codes.Authorize, BodyTimeout: cardLimits.body, Logger: logger})
	hosts := hostcheck.New(allowed)
	srv := &http.Server{
		Handler:           hosts.Wrap(codes.Gate(card)),
		ReadHeaderTimeout: cardLimits.header,
		ReadTimeout:       cardLimits.read,
		WriteTimeout:      cardLimits.write,
		IdleTimeout:       cardLimits.idle,
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(limitListener(ln, cardLimits.maxConns))
	}()
	ropts.Card = card
	ropts.Codes = codes
	ropts.CardURL = func(a *askuser.Ask) string { return "http://" + urlHost + "/" + web.AskPath(a.ID()) }
	fmt.Fprintf(e.stderr, "askuser mcp: secret questions are answered on the card at http://%s/ (the MCP client shows the link and a code)\n", urlHost)
	return func() {
		card.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		<-served
	}, nil
}

// mcpHTTP serves MCP over streamable HTTP until ctx ends. A request must
// name an allowed Host (the loopback names, or the address --listen
// gives), come from no other origin, and carry the bearer token. Clients
// on 2026-07-28 and later are served statelessly (multi round-trip: the
// form is the tool call's input request), the others with a session,
// within which the server elicits during the call.
func (e env) mcpHTTP(ctx context.Context, server, approvers *mcp.Server, tasks, approverTasks *mcpresponder.Tasks, approverTokens map[string]string, addr, tokenFile string, logger *slog.Logger) int {
	token, made, err := bearerToken("--token-file", tokenFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitFailure
	}
	for name, t := range approverTokens {
		if t == token {
			fmt.Fprintf(e.stderr, "askuser mcp: --approvers gives %s the bearer token of --token-file; an approver's token must be theirs alone\n", name)
			return exitFailure
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser mcp: --listen %s: %v\n", addr, err)
		return exitFailure
	}
	tcp := ln.Addr().(*net.TCPAddr)
	urlHost, allowed := cardHost(addr, tcp)
	srv := &http.Server{
		Handler:           mcpHandler(server, approvers, tasks, approverTasks, token, approverTokens, allowed, logger),
		ReadHeaderTimeout: mcpReadHeaderTimeout,
		IdleTimeout:       mcpIdleTimeout,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(newConnGate(ln, mcpMaxPending, mcpMaxConns)) }()
	switch {
	case tokenFile == "":
		fmt.Fprintf(e.stderr, "askuser mcp: serving MCP on http://%s%s; bearer token %s\n", urlHost, mcpPath, token)
	case made:
		fmt.Fprintf(e.stderr, "askuser mcp: serving MCP on http://%s%s; made the bearer token file %s\n", urlHost, mcpPath, tokenFile)
	default:
		fmt.Fprintf(e.stderr, "askuser mcp: serving MCP on http://%s%s; bearer token in %s\n", urlHost, mcpPath, tokenFile)
	}
	select {
	case err := <-served:
		fmt.Fprintf(e.stderr, "askuser mcp: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		_ = srv.Close()
	}
	return exitOK
}

// mcpHandler is the HTTP side of askuser mcp: the Host and Origin checks,
// the bearer token, and the SDK's streamable handlers, stateless for
// 2026-07-28 and later (by the Mcp-Protocol-Version header every request
// of theirs carries) and with sessions for the others.
//
// A caller whose token is an approver's (principal "approver:NAME") is
// served approvers, the server with request_approval; every other caller
// with the bearer token (principal "bearer") is served server, without it.
func mcpHandler(server, approvers *mcp.Server, tasks, approverTasks *mcpresponder.Tasks, token string, approverTokens map[string]string, allowed []string, logger *slog.Logger) http.Handler {
	get := func(r *http.Request) *mcp.Server {
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && strings.HasPrefix(ti.UserID, approverPrefix) {
			return approvers
		}
		return server
	}
	withSessions := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: logger, MaxRequestBodyBytes: mcpMaxBody})
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Logger: logger, MaxRequestBodyBytes: mcpMaxBody, Stateless: true})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		user := ""
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			user = "bearer"
		}
		for name, t := range approverTokens {
			if subtle.ConstantTimeCompare([]byte(got), []byte(t)) == 1 {
				user = approverPrefix + name
			}
		}
		if user == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user}, nil
	}
	bearer := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	route := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mcpPath {
			http.NotFound(w, r)
			return
		}
		if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		withSessions.ServeHTTP(w, r)
	})
	// The Tasks extension's requests are answered before the SDK sees
	// them, by the tasks of the caller's server.
	callerTasks, approverTasksH := tasks.Handler(route), approverTasks.Handler(route)
	withTasks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != mcpPath:
			route.ServeHTTP(w, r)
		case get(r) == approvers:
			approverTasksH.ServeHTTP(w, r)
		default:
			callerTasks.ServeHTTP(w, r)
		}
	})
	return closeRefused(hostcheck.New(allowed).Wrap(bearer(holdSlot(readBody(withTasks)))))
}

// readBody reads a request's body (at most mcpMaxBody bytes) within
// mcpBodyTimeout, and then lifts the connection's read deadline, so that
// a tool call may stay open for as long as its ask, while a client that
// declares a body it does not send cannot hold the connection.
func readBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			_ = rc.SetReadDeadline(time.Now().Add(mcpBodyTimeout))
			body, err := io.ReadAll(io.LimitReader(r.Body, mcpMaxBody+1))
			if err != nil {
				http.Error(w, "the request's body did not arrive in time", http.StatusRequestTimeout)
				return
			}
			if len(body) > mcpMaxBody {
				http.Error(w, "the request's body is larger than "+hostcheck.Bytes(mcpMaxBody), http.StatusRequestEntityTooLarge)
				return
			}
			_ = rc.SetReadDeadline(time.Time{})
			// A retry whose reply the SDK could not read would be a
			// JSON-RPC error; repaired, the person sees the form again.
			body = mcpresponder.RepairFrame(body)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the bearer token: read from file (trimmed; the file
// must be a regular file of mode 0600 or stricter), made there when it
// does not exist (made reports so), or, without a file, made up for the
// life of the process. what names the file's flag in messages
// ("--token-file").
func bearerToken(what, file string) (token string, made bool, err error) {
	fresh := func() string {
		var b [32]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	}
	if file == "" {
		return fresh(), false, nil
	}
	f, fi, err := openRegular(what, file, "keep the token in a regular file of mode 0600")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t := fresh()
		nf, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", false, fileError(what, file, err)
		}
		_, err = nf.WriteString(t + "\n")
		if cerr := nf.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", false, fileError(what, file, err)
		}
		return t, true, nil
	case err != nil:
		return "", false, err
	}
	defer f.Close()
	if checkKeyMode && fi.Mode().Perm()&0o077 != 0 {
		return "", false, fmt.Errorf("%s %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", what, file, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	defer clear(data)
	if err != nil {
		return "", false, fileError(what, file, err)
	}
	t := strings.TrimSpace(string(data))
	switch {
	case len(data) > maxTokenFileBytes:
		return "", false, fmt.Errorf("%s %s is larger than %s; it holds one token", what, file, hostcheck.Bytes(maxTokenFileBytes))
	case len(t) < 16 || strings.ContainsAny(t, " \t\r\n"):
		return "", false, fmt.Errorf("%s %s must hold one token of at least 16 characters, without spaces", what, file)
	}
	return t, false, nil
}

// mcpMaxPending is how many connections may wait at once without having
// authenticated (no request with the bearer token yet); past it, a new
// connection pushes out the oldest of them.
const mcpMaxPending = 64

// A connGate holds --listen's connections on two leashes. A connection
// that has not authenticated is pending: at most mcpMaxPending of them
// are kept, and a new connection closes the oldest, so that connections
// that hold a 401 (or send nothing) cannot keep out a client with the
// token. A connection whose request carried the token takes one of
// mcpMaxConns slots for the rest of its life; when they are all taken,
// its request is refused with 503.
type connGate struct {
	net.Listener
	maxPending, maxAuthed int

	mu      sync.Mutex
	pending *list.List // of *gatedConn, oldest first
	authed  int
}

func newConnGate(ln net.Listener, maxPending, maxAuthed int) *connGate {
	return &connGate{Listener: ln, maxPending: maxPending, maxAuthed: maxAuthed, pending: list.New()}
}

func (g *connGate) Accept() (net.Conn, error) {
	c, err := g.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &gatedConn{Conn: c, gate: g}
	var evict *gatedConn
	g.mu.Lock()
	if g.pending.Len() >= g.maxPending {
		evict = g.pending.Remove(g.pending.Front()).(*gatedConn)
		evict.elem = nil
	}
	gc.elem = g.pending.PushBack(gc)
	g.mu.Unlock()
	if evict != nil {
		_ = evict.Conn.Close()
	}
	return gc, nil
}

// A gatedConn is a connection of a connGate: pending (elem set) until a
// request on it authenticates, then authenticated.
type gatedConn struct {
	net.Conn
	gate   *connGate
	elem   *list.Element // in gate.pending; nil once authenticated or closed
	authed bool
	once   sync.Once
}

// authenticate moves the connection from pending to a slot; it reports
// false when every slot is taken.
func (c *gatedConn) authenticate() bool {
	g := c.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.authed {
		return true
	}
	if g.authed >= g.maxAuthed {
		return false
	}
	if c.elem != nil {
		g.pending.Remove(c.elem)
		c.elem = nil
	}
	c.authed = true
	g.authed++
	return true
}

func (c *gatedConn) Close() error {
	c.once.Do(func() {
		g := c.gate
		g.mu.Lock()
		if c.elem != nil {
			g.pending.Remove(c.elem)
			c.elem = nil
		}
		if c.authed {
			g.authed--
			c.authed = false
		}
		g.mu.Unlock()
	})
	return c.Conn.Close()
}

// connKey keys a request's *gatedConn in its context.
type connKey struct{}

// holdSlot takes the request's connection off the pending leash once the
// bearer token has been checked (it runs behind it), or refuses the
// request when every slot is taken.
func holdSlot(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gc, ok := r.Context().Value(connKey{}).(*gatedConn); ok && !gc.authenticate() {
			w.Header().Set("Connection", "close")
			http.Error(w, "askuser mcp serves "+strconv.Itoa(mcpMaxConns)+" connections at once, and all are taken; try again later", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// closeRefused closes the connection after a request refused before the
// bearer token was taken (401, 403, 421), so that it does not idle on.
func closeRefused(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&refusalCloser{ResponseWriter: w}, r)
	})
}

type refusalCloser struct{ http.ResponseWriter }

func (w *refusalCloser) WriteHeader(code int) {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusMisdirectedRequest:
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusalCloser) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// approverPrefix begins the principal of a caller whose token is an
// approver's.
const approverPrefix = "approver:"

// approvalSession is the session of a request_approval call: the command's
// --session, scoped to the caller's principal and, where the transport has
// one, its MCP session, so that a decision a person remembers "for this
// session" holds only there (the consent store keys decisions by session).
// Over standard input and output, where there is neither, it is --session.
func approvalSession(sess string, req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
		sess += "/" + req.Extra.TokenInfo.UserID
	}
	if req.Session != nil && req.Session.ID() != "" {
		sess += "/" + req.Session.ID()
	}
	return sess
}

// readApprovers reads --approvers: one "NAME TOKEN" a line (blank lines and
// lines starting with # skipped), in a regular file of mode 0600 or
// stricter; a name is letters, digits, '.', '_' or '-', a token at least
// 16 characters, and neither repeats.
func readApprovers(file string) (map[string]string, error) {
	const what = "--approvers"
	f, fi, err := openRegular(what, file, "keep the approvers' tokens in a regular file of mode 0600")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if checkKeyMode && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", what, file, fi.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10+1))
	defer clear(data)
	if err != nil {
		return nil, fileError(what, file, err)
	}
	if len(data) > 64<<10 {
		return nil, fmt.Errorf("%s %s is larger than %s", what, file, hostcheck.Bytes(64<<10))
	}
	names := map[string]string{}
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) != 2:
			return nil, fmt.Errorf("%s %s line %d: want NAME TOKEN, two words", what, file, i+1)
		case !validApproverName(fields[0]):
			return nil, fmt.Errorf("%s %s line %d: the name may hold only letters, digits, '.', '_' and '-'", what, file, i+1)
		case len(fields[1]) < 16:
			return nil, fmt.Errorf("%s %s line %d: the token must be at least 16 characters", what, file, i+1)
		case names[fields[0]] != "":
			return nil, fmt.Errorf("%s %s line %d: %s is named twice", what, file, i+1, fields[0])
		case seen[fields[1]]:
			return nil, fmt.Errorf("%s %s line %d: the token is another approver's; each approver's token is theirs alone", what, file, i+1)
		}
		names[fields[0]], seen[fields[1]] = fields[1], true
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s %s names no approver; write one \"NAME TOKEN\" a line", what, file)
	}
	return names, nil
}

func validApproverName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}
