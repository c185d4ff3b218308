package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/claudehook"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/serve"
)

const hookSynopsis = "hook claude [--responder web|auto|stdio|tui|script=FILE] [--listen ADDR] [--server URL [--token-file FILE]] [--session ID] [--approve-tools TOOL,...] [--max-timeout-seconds N] [--journal FILE] [--consents FILE] [--key-file FILE]"

// hookGrace is how long past the ask's deadline the hook waits for the
// result (askuser serve's answer on the network) before it gives up and
// answers ask: the hook never holds Claude Code much beyond the deadline.
const hookGrace = 15 * time.Second

// hook answers an agent's own hooks: hook claude is Claude Code's
// PreToolUse hook (docs/claude-code.md). It reads the hook input on
// standard input; asks AskUserQuestion's questions as an ask_user call,
// and a call of a tool named in --approve-tools as a request_approval,
// through --responder (the web card by default) or a running askuser
// serve (--server); and prints the hook's reply on standard output: allow
// with the answers, deny, or ask. For any other tool it prints nothing
// and Claude Code goes on as without the hook.
//
// It always exits 0, whatever goes wrong, and answers ask when it could
// not ask or read the answer — a flag it does not know, an input it cannot
// read, a responder that does not start, a service that cannot be reached
// —, with the reason in the reply (Claude Code shows it in its own prompt)
// and on standard error: exit status 2 would block the tool call, and
// nothing that fails may allow one. The one exception is an input of
// another hook event (the hook registered under the wrong event): nothing
// on standard output, the reason on standard error, exit 1, which Claude
// Code reports and goes on.
func (e env) hook(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] != "claude" {
		fmt.Fprintf(e.stderr, "askuser hook: name the agent whose hook this is: askuser %s\n", hookSynopsis)
		return exitUsage
	}
	return e.hookClaude(ctx, args[1:])
}

// hookFlags are the flags of hook claude.
type hookFlags struct {
	responder, listen, server, tokenFile, session, approveTools, journal, consents, keyFile string
	ceiling                                                                                 int
}

func (e env) hookClaude(ctx context.Context, args []string) int {
	fs := e.flags("hook claude", hookSynopsis)
	var f hookFlags
	fs.StringVar(&f.responder, "responder", "web", "who answers (`web|auto|stdio|tui|script=FILE`): web (a person on a web card: its URL is printed on standard error; an approval needs the code shown on the controlling terminal), auto (nobody: Claude Code asks), stdio or tui (no use under Claude Code, which holds the terminal and standard input), or script=FILE (replay a script file)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "with --responder web, serve the card on `ADDR`")
	fs.StringVar(&f.server, "server", "", "ask through a running 'askuser serve' at `URL` (http://host:port) instead; the card's URL is printed on standard error. Approvals are not served there: not with --approve-tools")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --server, the agent's bearer token is in `FILE` (serve's --token-file; default: $XDG_STATE_HOME/askuser/agent-token, else ~/.local/state/askuser/agent-token)")
	fs.StringVar(&f.session, "session", "", "the askuser session `ID` of the asks (default: Claude Code's session_id); a fixed one keeps one card URL for every Claude Code session")
	fs.StringVar(&f.approveTools, "approve-tools", "", "ask every call of these tools as a request_approval, allowed only if a person approves: `TOOL,...` as Claude Code names them (Bash,Write,Edit,mcp__server__tool)")
	fs.StringVar(&f.journal, "journal", "", "append the decision record of every ask to the journal `FILE` (JSON lines), a regular file")
	fs.StringVar(&f.consents, "consents", "", "keep the decisions a person makes for the session in `FILE` (JSON lines), so that later hook runs of the session find them")
	fs.StringVar(&f.keyFile, "key-file", "", "authenticate --journal and --consents with the key ring in `FILE`, mode 0600 (default: $ASKUSER_SECRET_KEY, else the key file in the state directory, made on first use)")
	fs.IntVar(&f.ceiling, "max-timeout-seconds", 0, "how long every ask waits for the person: `N` seconds (0: 300); set Claude Code's hook timeout above it")
	if code, stop := parse(fs, args); stop {
		if code == exitOK {
			return exitOK
		}
		return e.hookReply(claudehook.Fallback("askuser hook claude was given flags it does not take (see its standard error)"))
	}
	if err := f.check(fs); err != nil {
		fmt.Fprintf(e.stderr, "askuser hook claude: %v\n", err)
		return e.hookReply(claudehook.Fallback(err.Error()))
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, claudehook.MaxInputBytes+1))
	if err != nil {
		return e.hookFail(fmt.Errorf("reading the hook input: %w", err))
	}
	in, err := claudehook.ParseInput(data)
	switch {
	case errors.Is(err, claudehook.ErrNotPreToolUse):
		fmt.Fprintf(e.stderr, "askuser hook claude: %v\n", err)
		return exitFailure
	case err != nil:
		return e.hookFail(err)
	}
	cfg := claudehook.Config{ApproveTools: f.tools(), TimeoutSeconds: f.ceiling}
	call, err := cfg.Plan(in)
	switch {
	case err != nil:
		return e.hookFail(err)
	case call == nil:
		return exitOK // not ours: Claude Code decides as without the hook
	}
	session := f.session
	if session == "" {
		session = in.SessionID
	}
	if session == "" {
		session = "claude-code"
	}
	toolCall := in.ToolUseID
	if toolCall == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		toolCall = "hook-" + hex.EncodeToString(b[:])
	}
	wait := time.Duration(f.ceiling) * time.Second
	if f.ceiling == 0 {
		wait = claudehook.DefaultTimeoutSeconds * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, wait+hookGrace)
	defer cancel()
	var result []byte
	if f.server != "" {
		result, err = e.hookOnServer(ctx, f, session, toolCall, call)
	} else {
		result, err = e.hookHere(ctx, f, session, toolCall, call)
	}
	if err != nil {
		return e.hookFail(err)
	}
	return e.hookReply(call.Reply(result))
}

// check refuses flags that do not go together.
func (f *hookFlags) check(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q; the hook input comes on standard input", fs.Arg(0))
	case f.ceiling < 0:
		return fmt.Errorf("--max-timeout-seconds %d is negative; give a number of seconds, or 0 for the default", f.ceiling)
	case f.tokenFile != "" && f.server == "":
		return errors.New("--token-file is the agent's bearer token for --server URL; give --server")
	case f.server == "":
		return nil
	case set["responder"] || set["listen"] || set["journal"] || set["consents"]:
		return errors.New("--responder, --listen, --journal and --consents cannot go with --server: the service asks, with its own card and journal")
	case f.approveTools != "":
		return errors.New("--approve-tools cannot go with --server: askuser serve does not take approvals (its card URL admits whoever holds it, and an approval needs a person the agent cannot stand in for); decide them with --responder web")
	}
	_, err := serverBase(f.server)
	return err
}

// tools are the names --approve-tools lists.
func (f *hookFlags) tools() []string {
	var out []string
	for _, t := range strings.Split(f.approveTools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// hookHere asks the call in this process, through --responder, and
// returns the result the model would read.
func (e env) hookHere(ctx context.Context, f hookFlags, session, toolCall string, call *claudehook.Call) ([]byte, error) {
	d, err := dialectNamed(call.Dialect)
	if err != nil {
		return nil, err
	}
	card := func() (*web.Responder, func(), error) { return e.webResponder(f.listen, session) }
	if call.Dialect == claudehook.DialectApproval {
		card = func() (*web.Responder, func(), error) { return e.approvalWebResponder(f.listen, session) }
	}
	// pickResponder says on standard error why a responder cannot start;
	// the reply says it too, as Claude Code shows the reason and not the
	// hook's standard error.
	var why bytes.Buffer
	pe := e
	pe.stderr = io.MultiWriter(e.stderr, &why)
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: f.ceiling}}
	closeResponder, giveBack, _, ok := pe.pickResponder("hook claude", f.responder, o, card)
	if !ok {
		return nil, errors.New(strings.TrimPrefix(strings.TrimSpace(why.String()), "askuser hook claude: "))
	}
	defer closeResponder()
	if f.journal != "" {
		if err := checkJournal(f.journal); err != nil {
			return nil, err
		}
		closeJournal, err := e.openJournal(o, f.journal, f.keyFile)
		if err != nil {
			return nil, err
		}
		defer closeJournal()
	}
	if f.consents != "" {
		cs, err := e.openConsents(f.consents, f.keyFile)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := cs.Close(); err != nil {
				fmt.Fprintf(e.stderr, "askuser hook claude: closing the consents file: %v\n", err)
			}
		}()
		o.Consents = cs
	}
	out, err := o.Handle(ctx, askuser.Request{Session: session, ToolCallID: toolCall, Arguments: call.Arguments, Dialect: d})
	giveBack()
	var ce *dialect.CallError
	switch {
	case errors.As(err, &ce):
		return nil, errors.New(ce.Message)
	case err != nil:
		return nil, err
	}
	if out.Fault != nil {
		fmt.Fprintf(e.stderr, "askuser hook claude: %v\n", out.Fault)
	}
	if out.JournalErr != nil {
		fmt.Fprintf(e.stderr, "askuser hook claude: the decision record was not written: %v\n", out.JournalErr)
	}
	return out.Result, nil
}

// hookOnServer asks the call through askuser serve, as ask --server does
// (the card's URL on standard error), and returns the result.
func (e env) hookOnServer(ctx context.Context, f hookFlags, session, toolCall string, call *claudehook.Call) ([]byte, error) {
	c, err := newServerClient(f.server, f.tokenFile)
	if err != nil {
		return nil, err
	}
	defer c.CloseIdleConnections()
	started, err := c.Start(ctx, serve.Call{Session: session, ToolCallID: toolCall, Dialect: call.Dialect, Arguments: call.Arguments})
	var refused *serve.Error
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Errorf("the server refused the call: %v", refused)
	case err != nil:
		return nil, fmt.Errorf("--server %s: %w", c.URL, err)
	case !started.Pending():
		return started.Result, nil // a replay
	}
	if started.CardURL != "" {
		fmt.Fprintf(e.stderr, "askuser: answer on %s\n", inert.Line(started.CardURL))
	}
	result, err := c.Wait(ctx, session, toolCall)
	if err != nil {
		return nil, fmt.Errorf("waiting for the answer: %w", err)
	}
	return bytes.TrimSpace(result), nil
}

// hookFail answers ask, saying why on standard error and in the reply.
func (e env) hookFail(err error) int {
	fmt.Fprintf(e.stderr, "askuser hook claude: %s\n", inert.Line(err.Error()))
	return e.hookReply(claudehook.Fallback(err.Error()))
}

// hookReply prints the hook's reply, on one line.
func (e env) hookReply(out *claudehook.Output) int {
	b, err := out.MarshalJSON()
	if err != nil { // cannot happen: the reply is strings
		b, _ = claudehook.Fallback("the reply could not be written").MarshalJSON()
	}
	fmt.Fprintf(e.stdout, "%s\n", b)
	return exitOK
}
