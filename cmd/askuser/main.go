// Command askuser drives the askuser library from a shell: it validates a
// model's ask_user call, asks it through a responder, and prints the result
// the model would read.
//
// Usage:
//
//	askuser validate [--dialect ask_user|pi-ask|pi] [--now RFC3339] [FILE]
//	askuser ask [--dialect ask_user|pi-ask|pi] [--responder stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--store DIR [--key-file FILE]]
//	askuser schema [--dialect ask_user|pi-ask|pi] [--format json|openai|anthropic|anthropic-strict|gemini|gemini-json-schema|mcp|result] [--max-timeout-seconds N]
//	askuser journal [--session ID] [--json] FILE
//	askuser secret exec --store DIR --session ID [--key-file FILE] --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]
//
// validate reads a call (standard input when no FILE is given) and prints the
// normalized call, or the model-facing message on standard error. --now
// stamps the deadlines from a fixed time instead of the clock.
//
// ask validates the call, asks it, and prints the result JSON on one line.
// It exits 0 for every result; an invalid call behaves as in validate. The
// default responder, stdio, asks on the terminal: questions on standard
// error, answers from standard input (give the call with --request so that
// standard input carries the answers, from a person or a pipe), secrets
// typed without echo on the controlling terminal. Ctrl-C dismisses the ask
// shown (the result is cancelled / user); a second Ctrl-C quits at once.
// With --responder web the card is served on --listen (by default a free
// port on 127.0.0.1) and its URL, carrying a random access token, is
// printed on standard error; the result still goes to standard output.
// --session and --tool-call are the correlation data of the ask (the
// session owns its secrets). --journal FILE appends the ask's decision
// record to a journal file (JSON lines). --store DIR keeps sealed secrets in
// files under DIR, with the keys from --key-file FILE or $ASKUSER_SECRET_KEY
// (<key-id>:<base64 of 32 bytes>, comma-separated, newest first); without
// --store they live in memory and are gone when the command exits.
//
// schema prints the tool definition for one model API (--format; json by
// default), with --max-timeout-seconds N as the ceiling on timeout_seconds
// (0: the default, 300). The pi-ask and pi contracts have one definition
// each, their own, printed with the default --format.
//
// journal lists the records of a journal file as a table, or with --json
// one JSON object a line; --session ID keeps one session's records.
//
// secret exec runs COMMAND with each named secret in its environment and
// prints nothing of its own; a reference from another session, or to a name
// never stored, is refused (exit 1, the command not run); otherwise the exit
// status is the command's.
//
// --dialect picks the tool contract (ask_user, the default; pi-ask; pi): of
// the call and the result on validate and ask, of the tool definition on
// schema. validate prints a pi-ask or pi call in askuser's own form (the
// JSON of askuser.Form). Where a contract answers an invalid call with a
// tool result of its own (pi-ask, pi), ask prints that result on standard
// output and the message on standard error, and exits 2.
//
// Exit codes: 0 success; 1 a failure outside the call (a file that cannot be
// read, a responder that cannot start); 2 a usage error or an invalid call;
// 130 a second Ctrl-C.
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
	"github.com/askuser-go/askuser/internal/deadline"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/responders/auto"
)

func main() {
	ctx, stop := interruptible(context.Background())
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage:
  askuser validate [--dialect ask_user|pi-ask|pi] [--now RFC3339] [FILE]
  askuser ask [--dialect ask_user|pi-ask|pi] [--responder stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--store DIR [--key-file FILE]]
  askuser schema [--dialect ask_user|pi-ask|pi] [--format json|openai|anthropic|anthropic-strict|gemini|gemini-json-schema|mcp|result] [--max-timeout-seconds N]
  askuser journal [--session ID] [--json] FILE
  askuser secret exec --store DIR --session ID [--key-file FILE] --env NAME=session:SECRET [--env ...] -- COMMAND [ARG...]

'ask --journal FILE' appends the decision record to a journal FILE.
'ask --store DIR' keeps sealed secrets under DIR; the keys come from --key-file FILE
or $ASKUSER_SECRET_KEY (<key-id>:<base64 of 32 bytes>, comma-separated, newest first).
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
		return e.journal(args[1:])
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
	}
	return fs
}

// parse parses flags; it returns an exit code when the command should stop.
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, true
		}
		return exitUsage, true
	}
	return 0, false
}

func (e env) validate(args []string) int {
	fs := e.flags("validate", "validate [--dialect ask_user|pi-ask|pi] [--now RFC3339] [FILE]")
	nowFlag := fs.String("now", "", "stamp the deadlines from this time instead of the clock: an `RFC3339` time such as 2026-11-30T09:00:00Z")
	dialectName := dialectFlag(fs)
	if code, stop := parse(fs, args); stop {
		return code
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
	now := time.Now()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339Nano, *nowFlag)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser validate: --now %q is not an RFC 3339 time such as 2026-11-30T09:00:00Z\n", *nowFlag)
			return exitUsage
		}
		now = t
	}
	data, err := e.read(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser validate: %v\n", err)
		return exitFailure
	}
	call, err := askuser.Decode(d, data, askuser.Limits{})
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

func (e env) ask(ctx context.Context, args []string) int {
	fs := e.flags("ask", "ask [--dialect ask_user|pi-ask|pi] [--responder stdio|auto|web|script=FILE] [--listen ADDR] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--store DIR [--key-file FILE]]")
	responder := fs.String("responder", "stdio", "who answers (`stdio|auto|web|script=FILE`): stdio (a person at the terminal: questions on standard error, answers on standard input), auto (nobody: the unattended rules apply), web (a person on a web card: its URL is printed on standard error) or script=FILE (replay a script file)")
	listen := fs.String("listen", "127.0.0.1:0", "with --responder web, serve the card on `ADDR`")
	session := fs.String("session", "cli", "the session `ID` that owns the ask and its secrets")
	toolCall := fs.String("tool-call", "", "the model's tool-call `ID`")
	request := fs.String("request", "", "read the call from `FILE` (default: standard input)")
	journalFile := fs.String("journal", "", "append the decision record to the journal `FILE` (JSON lines)")
	storeDir := fs.String("store", "", "keep sealed secrets in a file store under `DIR` (needs --key-file or $ASKUSER_SECRET_KEY)")
	keyFile := fs.String("key-file", "", "read the store's keys from `FILE`: <key-id>:<base64 of 32 bytes>, comma-separated, newest first")
	dialectName := dialectFlag(fs)
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
	o := &askuser.Orchestrator{}
	switch {
	case *responder == "stdio":
		r, done := e.stdioResponder()
		defer done()
		o.Responder = r
	case *responder == "auto":
		o.Responder = auto.New()
	case *responder == "web":
		r, done, err := e.webResponder(*listen, *session)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		defer done()
		o.Responder = r
	case strings.HasPrefix(*responder, "script="):
		data, err := os.ReadFile(strings.TrimPrefix(*responder, "script="))
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		r, err := scripted.ParseFile(data)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitUsage
		}
		r.Supersede = o.Supersede
		o.Responder = r
	default:
		fmt.Fprintf(e.stderr, "askuser ask: --responder %q is not a responder; allowed: stdio, auto, web, script=FILE\n", *responder)
		return exitUsage
	}
	if err := useStore(o, *storeDir, *keyFile); err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitUsage
	}
	if *journalFile != "" {
		closeJournal, err := e.openJournal(o, *journalFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
			return exitFailure
		}
		defer closeJournal()
	}
	data, err := e.read(*request)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser ask: %v\n", err)
		return exitFailure
	}
	out, err := o.Handle(ctx, askuser.Request{Session: *session, ToolCallID: *toolCall, Arguments: data, Dialect: d})
	var ce *askuser.CallError
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
	fmt.Fprintf(e.stdout, "%s\n", out.Result)
	return exitOK
}

// read reads FILE, or standard input when name is empty or "-".
func (e env) read(name string) ([]byte, error) {
	if name == "" || name == "-" {
		return io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	}
	return os.ReadFile(name)
}
