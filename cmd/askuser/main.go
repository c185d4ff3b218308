// Command askuser drives the askuser library from a shell: it validates a
// model's ask_user call, asks it through a responder, and prints the result
// the model would read.
//
// Usage:
//
//	askuser validate [--dialect ask_user|pi-ask|pi|request_approval] [--now RFC3339] [--max-timeout-seconds N] [FILE]
//	askuser validate --routes FILE
//	askuser ask [--dialect ask_user|pi-ask|pi] [--responder tui|stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--server URL [--token-file FILE]]
//	askuser schema [--dialect ask_user|pi-ask|pi|request_approval] [--tool ask_user|request_approval] [--format json|openai|anthropic|anthropic-strict|gemini|gemini-json-schema|mcp|result] [--max-timeout-seconds N]
//	askuser approve [--responder tui|stdio|auto|web|script=FILE] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--consents FILE] [--key-file FILE] [--max-timeout-seconds N] [--listen ADDR]
//	askuser mcp [--dialect ask_user|pi-ask|pi|request_approval] [--no-approval] [--consents FILE] [--listen ADDR] [--token-file FILE] [--approvers FILE] [--card ADDR] [--session ID] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--nats URL [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION]] [--bridge-to card|slack [--bridge-timeout D]] [--slack-bot-token-file FILE --slack-channel ID (--slack-allowed-users U1,U2 | --slack-allowed-usergroup ID) (--slack-signing-secret-file FILE --slack-listen ADDR | --slack-app-token-file FILE) [--slack-api-url URL]]
//	askuser serve --listen ADDR [--state DIR] [--nats URL] [--nats-listen ADDR] [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION] [--token-file FILE] [--key-file FILE] [--max-timeout-seconds N] [--allowed-host NAME ...] [--secrets-api] [--admin-token-file FILE] [--webhook URL ... [--webhook-secret-file FILE]] [--otlp URL] [--public-url URL] [--slack-* ...] [--smtp HOST:PORT ...]
//	askuser journal [--session ID] [--json] FILE | --nats URL [--nats-token-file FILE]
//	askuser journal verify [--key-file FILE] FILE | --nats URL [--nats-token-file FILE]
//	askuser secret exec [--store DIR | --nats URL [--nats-token-file FILE] | --server URL [--token-file FILE]] [--key-file FILE] --session ID --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]
//	askuser stats [--since DURATION] [--by tool|header|responder|principal] [--html FILE] JOURNAL | --nats URL [--nats-token-file FILE]
//	askuser hook claude [--responder web|auto|stdio|tui|script=FILE] [--server URL [--token-file FILE]] [--approve-tools TOOL,...] [--max-timeout-seconds N] [--journal FILE] [--consents FILE] [--key-file FILE]
//	askuser version
//
// Every command's --help ends with two examples of it.
//
// Flags may come before or after a command's arguments (askuser validate
// FILE --now T); after "--" every argument is an argument. secret exec is
// the exception: everything from COMMAND on is the command's, flags
// included.
//
// validate reads a call (standard input when no FILE is given, or FILE is
// "-") and prints the normalized call in its contract's own form, or the
// model-facing message on standard error. --now stamps the deadlines from a
// fixed time instead of the clock (the ask_user form prints the stamps; the
// pi contracts have none).
//
// ask validates the call, asks it, and prints the result JSON on one line.
// It exits 0 for every result; an invalid call behaves as in validate. When
// standard input and standard error are terminals and TERM can draw a
// screen (it is set and not dumb), the default responder is tui: a
// full-screen card drawn on the terminal (never on standard output; the
// result is printed once the screen is given back), answered with the
// keyboard (docs/tui.md), NO_COLOR honoured. Otherwise it is stdio, which
// asks line by line: questions on standard error, answers from standard
// input (give the call with --request so that standard input carries the
// answers, from a person or a pipe), secrets typed without echo on the
// controlling terminal. --responder tui|stdio chooses. With stdio, Ctrl-C
// dismisses the ask shown (the result is cancelled / user); a second
// Ctrl-C quits at once; on the full screen Ctrl-C is a key that dismisses
// it.
// With --responder web the card is served on --listen (by default a free
// port on 127.0.0.1) and its URL, carrying a random access token, is
// printed on standard error; the result still goes to standard output. The
// card answers only requests naming a loopback host (localhost, 127.0.0.1,
// [::1]) or, when --listen names another address, that address or the host
// name --listen gave; any other Host is refused, so a DNS-rebinding page
// cannot reach it. Each card's cookie is named for its port, so several
// cards work side by side in one browser.
// --session and --tool-call are the correlation data of the ask (the
// session owns its secrets). --journal FILE appends the ask's decision
// record to a journal file (JSON lines). A secret answer is sealed into a
// store (see Secrets below) and ask says on standard error, in one line
// without the value, where it went.
//
// --max-timeout-seconds N, on validate, ask and schema, is the ceiling on
// timeout_seconds that the embedding program sets, and the wait of a call
// that gives none (0: the default, 300).
//
// schema prints the tool definition of a contract (--dialect) for one model
// API (--format; json by default): every contract in every format.
//
// mcp serves two tools as an MCP server: the question tool of one contract
// (--dialect; ask_user by default) and request_approval beside it
// (--no-approval leaves it out; --dialect request_approval serves it
// alone), over standard input and output, or with --listen ADDR over
// streamable HTTP at http://ADDR/mcp behind a bearer token (--token-file)
// and the card's Host and Origin checks. Each call is asked through the
// MCP client's elicitation (see package responders/mcp and docs/mcp.md); a
// secret question goes to a web card (--card ADDR) through a link and a
// short code, and is declined without one. --session names the session of
// every ask (default mcp); --consents FILE keeps "for this session"
// approvals as on approve; --journal, --store, --key-file and
// --max-timeout-seconds are as on ask; --approvers FILE names, over
// --listen, the people served request_approval. --nats URL (with
// --nats-token-file, --nats-replicas, --journal-retention, as on serve)
// keeps the pending asks, the journal, secrets and decisions in the
// fleet's store, so that several servers behind a load balancer serve one
// ask. --bridge-to card|slack hands an ask the person has not answered in
// the client within --bridge-timeout (default 90s) on to the card or to a
// Slack channel (the --slack-* flags, as on ask, and --slack-listen ADDR
// for Slack's interactivity endpoint unless in Socket Mode), and the call
// returns where it went.
//
// serve runs askuser as a service for agents in any language (see
// docs/serve.md): an agent API on --listen behind a bearer token
// (--token-file, made on first run) — POST /v1/calls with {"session",
// "tool_call_id", "dialect", "arguments"} answers with the result the
// model reads, or at once with Prefer: respond-async, and GET
// /v1/sessions/{session}/calls/{tool_call_id} reads it — and the web card
// at the root of --listen, opened by a card URL that carries the session's
// access token. Pending asks, results, the journal and sealed secrets live
// in NATS JetStream: a server embedded under --state (default: the state
// directory below), listening on --nats-listen for other replicas, or an
// existing cluster with --nats URL. Every replica reads one key ring
// (--key-file or $ASKUSER_SECRET_KEY; embedding, the key file in the state
// directory made on first run), which seals the secrets before they reach
// NATS and from which the card's access and CSRF tokens derive, so that
// they work on every replica and across restarts. --admin-token-file FILE
// serves the operators GET /v1/asks, the asks across the fleet, behind a
// token of their own; GET /healthz and GET /readyz answer probes, and GET
// /v1/openapi.json describes the API. SIGTERM or Ctrl-C stops
// a replica and leaves its pending asks pending for the others, or for it
// when it comes back.
//
// ask --server URL sends the call to a running serve instead of asking
// here (with the agent's bearer token from --token-file, by default the
// one serve makes in the state directory), prints the card's URL on
// standard error, and prints the result as ask does.
//
// version prints askuser's version (the module's, as go install stamps
// it, else the commit it was built from), the Go toolchain and the
// platform, on one line; the MCP server announces the same version.
//
// journal lists the records of a journal file as a table, or with --json
// one JSON object a line; --session ID keeps one session's records.
// journal --nats URL lists serve's journal stream instead.
//
// secret exec runs COMMAND with each named secret in its environment and
// prints nothing of its own. With --nats URL it reads serve's secrets from
// NATS, opening them with the key ring; with --server URL it asks a serve
// started with --secrets-api, with the agent's bearer token, and needs no
// key (but then whoever holds that token reads every secret); a reference from another session, or to a name
// never stored, is refused (exit 1, the command not run); otherwise the exit
// status is the command's.
//
// --dialect picks the tool contract (ask_user, the default; pi-ask; pi): of
// the call and the result on validate and ask, of the tool definition on
// schema. validate prints the normalized call in that contract's own form,
// so that validating its output again with the same dialect gives it back
// unchanged (the stamps aside). Where a contract answers an invalid call
// with a tool result of its own (pi-ask, pi), ask prints that result on
// standard output and the message on standard error, and exits 2.
//
// Exit codes: 0 success; 1 a failure outside the call (a file that cannot be
// read or is refused, a store that cannot be opened, a responder that
// cannot start); 2 a usage error or an invalid call; 130 a second Ctrl-C.
//
// # Secrets
//
// ask seals a secret answer into a store that outlives the command, and the
// result carries only its reference (session:NAME); secret exec resolves
// references in the same store. Without --store that is the default store,
// under the user's state directory: $XDG_STATE_HOME/askuser (when
// XDG_STATE_HOME is an absolute path), else ~/.local/state/askuser, made
// with mode 0700. Its records are in store/ there and its key in the file
// key, which ask makes (mode 0600, atomically) the first time it seals a
// secret; an ask without a secret question makes nothing. --store DIR keeps
// the records under DIR instead, and needs a key: --key-file FILE, or
// $ASKUSER_SECRET_KEY (<key-id>:<base64 of 32 bytes>, comma-separated,
// newest first, for rotation). Either also stands in for the default key
// file when --store is not given. A key file that group or others may read
// or write is refused (chmod 600 it).
//
// COMMAND, run by secret exec, inherits askuser's environment without
// askuser's key material: ASKUSER_SECRET_KEY is removed. askuser reads its
// key from no other variable (the key file is named by --key-file or found
// in the state directory), so no other variable is removed. COMMAND runs as
// the same user: this keeps the key out of the tool's environment, and of
// whatever the tool logs or passes on, not out of its reach. A tool that
// must not read the key file has to run as another user.
//
// # Files
//
// Every FILE (a call, a script, a key file, a journal) must be a regular
// file. A symbolic link is followed, and the file it names must be a
// regular file (for a key file, its mode is the one checked). A FIFO, a
// device or a socket is refused at once (exit 1) instead of blocking the
// command or reading without end: pipe a call into standard input instead.
// What is read is capped: a call at 64 KiB (read to one byte more, so that
// the call's own message about its cap is the one printed), a script at
// 1 MiB, a key file at 64 KiB.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/buildinfo"
	"github.com/askuser-go/askuser/internal/deadline"
	"github.com/askuser-go/askuser/responder"
	"github.com/askuser-go/askuser/responders/web"
)

func main() {
	ctx, stop := interruptible(context.Background())
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  askuser validate [--dialect ask_user|pi-ask|pi|request_approval] [--now RFC3339] [--max-timeout-seconds N] [FILE]
  askuser validate --routes FILE
  askuser ask [--dialect ask_user|pi-ask|pi] [--responder tui|stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--server URL [--token-file FILE]]
  askuser schema [--dialect ask_user|pi-ask|pi|request_approval] [--tool ask_user|request_approval] [--format json|openai|anthropic|anthropic-strict|gemini|gemini-json-schema|mcp|result] [--max-timeout-seconds N]
  askuser approve [--responder tui|stdio|auto|web|script=FILE] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--consents FILE] [--key-file FILE] [--max-timeout-seconds N] [--listen ADDR]
  askuser mcp [--dialect ask_user|pi-ask|pi|request_approval] [--no-approval] [--consents FILE] [--listen ADDR] [--token-file FILE] [--approvers FILE] [--card ADDR] [--session ID] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--nats URL [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION]] [--bridge-to card|slack [--bridge-timeout D]] [--slack-bot-token-file FILE --slack-channel ID (--slack-allowed-users U1,U2 | --slack-allowed-usergroup ID) (--slack-signing-secret-file FILE --slack-listen ADDR | --slack-app-token-file FILE) [--slack-api-url URL]]
  askuser serve --listen ADDR [--state DIR] [--nats URL] [--nats-listen ADDR] [--nats-token-file FILE] [--nats-replicas N] [--journal-retention DURATION] [--token-file FILE] [--key-file FILE] [--max-timeout-seconds N] [--allowed-host NAME ...] [--secrets-api] [--admin-token-file FILE] [--webhook URL ... [--webhook-secret-file FILE]] [--otlp URL] [--public-url URL] [--slack-* ...] [--smtp HOST:PORT ...]
  askuser journal [--session ID] [--json] FILE | --nats URL [--nats-token-file FILE]
  askuser journal verify [--key-file FILE] FILE | --nats URL [--nats-token-file FILE]
  askuser secret exec [--store DIR | --nats URL [--nats-token-file FILE] | --server URL [--token-file FILE]] [--key-file FILE] --session ID --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]
  askuser stats [--since DURATION] [--by tool|header|responder|principal] [--html FILE] JOURNAL | --nats URL [--nats-token-file FILE]
  askuser hook claude [--responder web|auto|stdio|tui|script=FILE] [--server URL [--token-file FILE]] [--approve-tools TOOL,...] [--max-timeout-seconds N] [--journal FILE] [--consents FILE] [--key-file FILE]
  askuser version

Flags may follow a command's arguments; after '--' all are arguments (secret exec: from COMMAND on).
'ask --journal FILE' appends the decision record to a journal FILE, authenticated (a MAC, and its
place in the file's chain) with the key ring: --key-file, $ASKUSER_SECRET_KEY, else the default key
file below; only records that verify are replayed. 'journal verify FILE' checks a journal.
Secrets go to a store that outlives the command: without --store, $XDG_STATE_HOME/askuser/store
(else ~/.local/state/askuser/store), with its key file askuser/key made on first use (mode 0600).
'--store DIR' keeps them under DIR; the key then comes from --key-file FILE or $ASKUSER_SECRET_KEY
(<key-id>:<base64 of 32 bytes>, comma-separated, newest first), which also replace the default key.
'secret exec' runs COMMAND without $ASKUSER_SECRET_KEY in its environment.
'serve' runs askuser as a service: an HTTP API for agents, the web card, state in NATS JetStream (docs/serve.md).
Every FILE must be a regular file (a symbolic link to one is followed); a FIFO or device is refused.
Caps: a call 64 KiB, a script 1 MiB, a key file 64 KiB.
Run 'askuser COMMAND --help' (for secrets, 'askuser secret exec --help') for a command's flags.
Exit codes: 0 success, 1 failure, 2 usage error or invalid call, 130 a second Ctrl-C.
`

// exit codes
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := env{stdin, stdout, stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "validate":
		return e.validate(args[1:])
	case "ask":
		return e.ask(ctx, args[1:])
	case "schema":
		return e.schema(args[1:])
	case "secret":
		return e.secretCmd(ctx, args[1:])
	case "journal":
		return e.journal(ctx, args[1:])
	case "stats":
		return e.stats(ctx, args[1:])
	case "approve":
		return e.approve(ctx, args[1:])
	case "mcp":
		return e.mcp(ctx, args[1:])
	case "serve":
		return e.serve(ctx, args[1:])
	case "hook":
		return e.hook(ctx, args[1:])
	case "version", "--version":
		return e.version(args[1:])
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "askuser: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

func (e env) flags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: askuser %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
		fmt.Fprint(e.stderr, examplesOf(name))
	}
	return fs
}

// examples are two command lines of each command, which its --help ends
// with: the everyday use first, then one that shows its other side.
var examples = map[string][2]string{
	"validate":    {"askuser validate --now 2026-11-30T09:00:00Z call.json", "askuser validate --dialect pi-ask --max-timeout-seconds 900 pi-call.json"},
	"ask":         {"askuser ask --responder stdio --session run-42 --tool-call call_7 --request call.json", "askuser ask --server http://127.0.0.1:8080 --session run-42 --tool-call call_7 --request call.json"},
	"schema":      {"askuser schema --format openai", "askuser schema --tool request_approval --format anthropic"},
	"approve":     {"askuser approve --responder stdio --request approval.json", "askuser approve --responder web --session run-42 --consents consents.json --request approval.json"},
	"mcp":         {"askuser mcp --journal decisions.jsonl", "askuser mcp --listen 127.0.0.1:8765 --token-file mcp-token --card 127.0.0.1:8766"},
	"serve":       {"askuser serve --listen 127.0.0.1:8080", "askuser serve --listen 0.0.0.0:8080 --allowed-host askuser.internal --nats nats://nats-1:4222 --key-file /etc/askuser/key --admin-token-file /etc/askuser/admin-token"},
	"journal":     {"askuser journal --session run-42 decisions.jsonl", "askuser journal --json --nats nats://127.0.0.1:" + defaultNATSPort + " --nats-token-file nats-token"},
	"secret exec": {"askuser secret exec --session run-42 --env DEPLOY_TOKEN=session:DEPLOY_TOKEN -- ./deploy.sh", "askuser secret exec --server http://127.0.0.1:8080 --session run-42 --env DEPLOY_TOKEN=session:DEPLOY_TOKEN -- ./deploy.sh"},
	"version":     {"askuser version", "go version -m $(command -v askuser)"},
}

// examplesOf is the end of a command's --help: its two examples.
func examplesOf(name string) string {
	ex, ok := examples[name]
	if !ok {
		return ""
	}
	return "\nexamples:\n  " + ex[0] + "\n  " + ex[1] + "\n"
}

// parse parses a command's flags, which may come before, between and after
// its arguments, up to a "--" after which every argument is an argument. It
// returns an exit code when the command should stop. fs.Args() are the
// arguments, in order.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		// A flag, as the flag package reads one: -name, --name, -name=value,
		// or -name value for a flag that is not boolean.
		flags = append(flags, a)
		name := strings.TrimPrefix(a[1:], "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // Parse reports it (or gives help for -h)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return parseUntilCommand(fs, flags) // "flag needs an argument"
		}
		i++
		flags = append(flags, args[i])
	}
	return parseUntilCommand(fs, append(append(flags, "--"), positional...))
}

// parseUntilCommand parses flags up to the first argument, as the flag
// package does: for secret exec, whose arguments from COMMAND on are the
// command's. It returns an exit code when the command should stop.
func parseUntilCommand(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	return 0, false
}

// ceilingFlag adds --max-timeout-seconds to a command's flags.
func ceilingFlag(fs *flag.FlagSet) *int {
	return fs.Int("max-timeout-seconds", 0, "the ceiling on timeout_seconds the program sets, and the wait of a call that gives none: `N` seconds (0: the default, 300)")
}

// checkCeiling refuses a negative --max-timeout-seconds.
func (e env) checkCeiling(cmd string, n int) bool {
	if n < 0 {
		fmt.Fprintf(e.stderr, "askuser %s: --max-timeout-seconds %d is negative; give a number of seconds, or 0 for the default\n", cmd, n)
		return false
	}
	return true
}

// version prints the binary's version on one line.
func (e env) version(args []string) int {
	fs := e.flags("version", "version")
	if code, stop := parse(fs, args); stop {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser version: unexpected argument %q; version takes none\n", fs.Arg(0))
		return exitUsage
	}
	fmt.Fprintln(e.stdout, buildinfo.Describe())
	return exitOK
}

const validateSynopsis = "validate [--dialect ask_user|pi-ask|pi|request_approval] [--now RFC3339] [--max-timeout-seconds N] [FILE] | validate --routes FILE"

func (e env) validate(args []string) int {
	fs := e.flags("validate", validateSynopsis)
	nowFlag := fs.String("now", "", "stamp the deadlines from this time instead of the clock: an `RFC3339` time such as 2026-11-30T09:00:00Z")
	ceiling := ceilingFlag(fs)
	dialectName := dialectFlag(fs)
	routesFile := routesFlag(fs)
	if code, stop := parse(fs, args); stop {
		return code
	}
	if *routesFile != "" {
		return e.validateRoutes(fs, *routesFile)
	}
	d, err := dialectNamed(*dialectName)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser validate: %v\n", err)
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(e.stderr, "askuser validate: give at most one FILE, not %d\n", fs.NArg())
		return exitUsage
	}
	if !e.checkCeiling("validate", *ceiling) {
		return exitUsage
	}
	now := time.Now()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339Nano, *nowFlag)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser validate: --now %q is not an RFC 3339 time such as 2026-11-30T09:00:00Z\n", *nowFlag)
			return exitUsage
		}
		now = t
	}
	data, err := e.readCall("the call file", fs.Arg(0))
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser validate: %v\n", err)
		return exitFailure
	}
	call, err := askuser.Decode(d, data, dialect.Limits{MaxTimeoutSeconds: *ceiling})
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitUsage
	}
	call.AskedAt, call.NudgeAt, call.ExpiresAt = deadline.Stamps(now, call.TimeoutSeconds)
	out, err := marshalNormalized(d, call)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser validate: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(e.stdout, "%s\n", out)
	return exitOK
}

const askSynopsis = "ask [--dialect ask_user|pi-ask|pi] [--responder tui|stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--max-timeout-seconds N] [--store DIR] [--key-file FILE] [--server URL [--token-file FILE]] [--public-url URL] [--responder slack|email with serve's --slack-* or --smtp flags]"

func (e env) ask(ctx context.Context, args []string) int {
	fs := e.flags("ask", askSynopsis)
	responder := fs.String("responder", "", "who answers (`tui|stdio|auto|web|script=FILE`; default: tui where standard input and standard error are terminals and TERM is set and not dumb, else stdio): tui (a person at the terminal, on a full-screen card drawn on the terminal), stdio (a person at the terminal: questions on standard error, answers on standard input), auto (nobody: the unattended rules apply), web (a person on a web card: its URL is printed on standard error) or script=FILE (replay a script file)")
	listen := fs.String("listen", "127.0.0.1:0", "with --responder web, serve the card on `ADDR`")
	session := fs.String("session", "cli", "the session `ID` that owns the ask and its secrets")
	toolCall := fs.String("tool-call", "", "the model's tool-call `ID`")
	request := fs.String("request", "", "read the call from `FILE`, a regular file (default, or -: standard input)")
	journalFile := fs.String("journal", "", "append the decision record to the journal `FILE` (JSON lines), a regular file")
	ceiling := ceilingFlag(fs)
	storeDir := fs.String("store", "", "keep sealed secrets in a file store under `DIR` (needs --key-file or $ASKUSER_SECRET_KEY; default: $XDG_STATE_HOME/askuser/store, else ~/.local/state/askuser/store)")
	keyFile := fs.String("key-file", "", "read the store's keys from `FILE`, mode 0600: <key-id>:<base64 of 32 bytes>, comma-separated, newest first (default: $ASKUSER_SECRET_KEY, else the default store's key file)")
	server := fs.String("server", "", "send the call to a running 'askuser serve' at `URL` (http://host:port) instead of asking here; the card's URL is printed on standard error")
	tokenFile := fs.String("token-file", "", "with --server, the agent's bearer token is in `FILE` (serve's --token-file; default: $XDG_STATE_HOME/askuser/agent-token, else ~/.local/state/askuser/agent-token)")
	dialectName := dialectFlag(fs)
	var chats chatFlags
	chats.register(fs)
	if code, stop := parse(fs, args); stop {
		return code
	}
	d, err := dialectNamed(*dialectName)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser ask: unexpected argument %q; the call comes from --request FILE or standard input\n", fs.Arg(0))
		return exitUsage
	}
	if !e.checkCeiling("ask", *ceiling) {
		return exitUsage
	}
	if *server != "" || *tokenFile != "" {
		return e.askOnServer(ctx, fs, *server, *tokenFile, *session, *toolCall, *request, d)
	}
	store, err := resolveStore(*storeDir, *keyFile)
	if err != nil { // --store without a key
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitUsage
	}
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: *ceiling}}
	closeResponder, giveBack, code, ok := chats.pickChat(ctx, e, "ask", *responder, *listen, o, func() (*web.Responder, func(), error) {
		return e.webResponder(*listen, *session)
	})
	if !ok {
		return code
	}
	defer closeResponder()
	// A store the flags name is opened at once, so that a bad key is found
	// before anybody is asked; the default store only for a call that seals
	// (below), so that an ask without a secret makes nothing on disk.
	if *storeDir != "" {
		s, err := store.open(false)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		o.Secrets = s
	}
	if *journalFile != "" {
		if err := checkJournal(*journalFile); err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		closeJournal, err := e.openJournal(o, *journalFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		defer closeJournal()
	}
	data, err := e.readCall("--request", *request)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	if *storeDir == "" && seals(d, data, dialect.Limits{MaxTimeoutSeconds: *ceiling}) {
		s, err := store.open(true)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		o.Secrets = s
	}
	out, err := o.Handle(ctx, askuser.Request{Session: *session, ToolCallID: *toolCall, Arguments: data, Dialect: d})
	giveBack()
	var ce *dialect.CallError
	switch {
	case errors.As(err, &ce):
		if ce.Result != nil {
			fmt.Fprintf(e.stdout, "%s\n", ce.Result)
		}
		fmt.Fprintln(e.stderr, ce.Message)
		return exitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	if out.Fault != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", out.Fault)
	}
	if out.JournalErr != nil {
		fmt.Fprintf(e.stderr, "askuser ask: the decision record was not written: %v\n", out.JournalErr)
	}
	if line := sealedLine(out, store, *storeDir != "", *session); line != "" {
		fmt.Fprintln(e.stderr, line)
	}
	fmt.Fprintf(e.stdout, "%s\n", out.Result)
	return exitOK
}

// seals reports whether a call has a question whose answer is sealed. An
// invalid call does not; Handle reports it.
func seals(d askuser.Dialect, data []byte, lim dialect.Limits) bool {
	form, err := askuser.Decode(d, data, lim)
	if err != nil {
		return false
	}
	for i := range form.Questions {
		if responder.Sealed(&form.Questions[i]) {
			return true
		}
	}
	return false
}

// sealedLine says where the secrets of an outcome went, in one line
// without their values, or returns "" when it handed out no reference.
func sealedLine(out *askuser.Outcome, s storeSpec, storeFlag bool, session string) string {
	var refs []string
	for _, a := range out.Answers {
		if a.SecretRef != "" {
			refs = append(refs, a.SecretRef)
		}
	}
	if len(refs) == 0 {
		return ""
	}
	which := "the default store"
	if storeFlag {
		which = "the store"
	}
	return fmt.Sprintf("askuser ask: sealed %s for session %q in %s %s (key: %s); 'askuser secret exec' hands it to a command",
		strings.Join(refs, ", "), session, which, s.dir, s.keySource())
}
