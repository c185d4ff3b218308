package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/dialect/approvaltool"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/responders/web"
	"github.com/askuser-go/askuser/route"
)

const approveSynopsis = "approve [--responder tui|stdio|auto|web|script=FILE] [--session ID] [--tool-call ID] [--request FILE] [--journal FILE] [--consents FILE] [--key-file FILE] [--max-timeout-seconds N] [--routes FILE [--requester PRINCIPAL] [--owner PRINCIPAL]] [--listen ADDR] [--public-url URL] [--responder slack with serve's --slack-* flags]"

// approve asks a person for permission to act: it reads a request_approval
// call (docs/request_approval.md), asks it through the responder, and
// prints the result JSON on one line. It exits 0 whatever the person did
// (approved, denied, or nobody decided: the result says which); an invalid
// call prints the model-facing message on standard error and exits 2.
//
// Only a responder that can tell a person is answering is given the
// approval: tui (the default where ask draws the full screen: standard
// input and standard error are terminals and TERM is set and not dumb)
// shows it on its own card and reads the keys from the terminal, never
// from a pipe; stdio (the default otherwise) reads the decision from the
// controlling terminal, never from a pipe; web admits the person by a code shown only on the
// controlling terminal; auto reaches nobody, so the result is unresolved;
// script=FILE plays a script (for tests). --consents FILE keeps the
// decisions a person makes for the session in a file, so that the next
// approve for the same session and action is decided the same way.
func (e env) approve(ctx context.Context, args []string) int {
	fl := e.flags("approve", approveSynopsis)
	responder := fl.String("responder", "", "who decides (`tui|stdio|auto|web|script=FILE`; default: tui where standard input and standard error are terminals and TERM is set and not dumb, else stdio): tui (a person at the terminal, on a full-screen card; keys from the terminal, never a pipe), stdio (a person at the controlling terminal; never standard input), auto (nobody: the result is unresolved), web (a person on a web card, admitted by a code shown on the controlling terminal) or script=FILE (replay a script file)")
	listen := fl.String("listen", "127.0.0.1:0", "with --responder web, serve the card on `ADDR`")
	session := fl.String("session", "cli", "the session `ID` the request, and any decision remembered for the session, belong to")
	toolCall := fl.String("tool-call", "", "the model's tool-call `ID`")
	request := fl.String("request", "", "read the call from `FILE`, a regular file (default, or -: standard input)")
	journalFile := fl.String("journal", "", "append the decision record to the journal `FILE` (JSON lines), a regular file")
	consentsFile := fl.String("consents", "", "keep the decisions a person makes for the session in `FILE` (JSON lines), a regular file, so that later approves of the session find them (default: none are kept after the command)")
	keyFile := fl.String("key-file", "", "authenticate the journal and the consents file with the key ring in `FILE`, mode 0600 (default: $ASKUSER_SECRET_KEY, else the default key file in the state directory, made on first use)")
	ceiling := ceilingFlag(fl)
	routesFile := fl.String("routes", "", routesUsage)
	requester := fl.String("requester", "", "with --routes, the verified `PRINCIPAL` the agent asking acts as: its own vote never counts toward a quorum, whatever the quorum lists")
	owner := fl.String("owner", "", "with --routes, the session's owner, the `PRINCIPAL` who started the agent: a quorum with exclude_owner does not count their vote")
	var chats chatFlags
	chats.register(fl)
	if code, stop := parse(fl, args); stop {
		return code
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(e.stderr, "askuser approve: unexpected argument %q; the call comes from --request FILE or standard input\n", fl.Arg(0))
		return exitUsage
	}
	if !e.checkCeiling("approve", *ceiling) {
		return exitUsage
	}
	routes, code, ok := e.routesSelector("approve", *routesFile)
	if !ok {
		return code
	}
	approvers, ok := e.approvers(*routesFile, *requester, *owner)
	if !ok {
		return exitUsage
	}
	o := &askuser.Orchestrator{Limits: dialect.Limits{MaxTimeoutSeconds: *ceiling}, Routes: routes}
	closeResponder, giveBack, code, ok := chats.pickChat(ctx, e, "approve", *responder, *listen, o, func() (*web.Responder, func(), error) {
		return e.approvalWebResponder(*listen, *session)
	})
	if !ok {
		return code
	}
	defer closeResponder()
	if *journalFile != "" {
		if err := checkJournal(*journalFile); err != nil {
			fmt.Fprintf(e.stderr, "askuser approve: %v\n", err)
			return exitFailure
		}
		closeJournal, err := e.openJournal(o, *journalFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser approve: %v\n", err)
			return exitFailure
		}
		defer closeJournal()
	}
	if *consentsFile != "" {
		cs, err := e.openConsents(*consentsFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser approve: %v\n", err)
			return exitFailure
		}
		defer func() {
			if err := cs.Close(); err != nil {
				fmt.Fprintf(e.stderr, "askuser approve: closing the consents file: %v\n", err)
			}
		}()
		o.Consents = cs
	}
	data, err := e.readCall("--request", *request)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser approve: %v\n", err)
		return exitFailure
	}
	out, err := o.Handle(ctx, askuser.Request{Session: *session, ToolCallID: *toolCall, Arguments: data, Dialect: approvaltool.Dialect(), Approvers: approvers})
	giveBack()
	var ce *dialect.CallError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintln(e.stderr, ce.Message)
		return exitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "askuser approve: %v\n", err)
		return exitFailure
	}
	if out.Fault != nil {
		fmt.Fprintf(e.stderr, "askuser approve: %v\n", out.Fault)
	}
	if out.JournalErr != nil {
		fmt.Fprintf(e.stderr, "askuser approve: the decision record was not written: %v\n", out.JournalErr)
	}
	fmt.Fprintf(e.stdout, "%s\n", out.Result)
	return exitOK
}

// approvers is --requester and --owner: who may never approve, for the
// quorum of the route --routes chose. Nil without either.
func (e env) approvers(routesFile, requester, owner string) (*route.Approvers, bool) {
	if requester == "" && owner == "" {
		return nil, true
	}
	if routesFile == "" {
		fmt.Fprintln(e.stderr, "askuser approve: --requester and --owner name who may not approve under a quorum, which comes from --routes FILE: give --routes, or leave them out")
		return nil, false
	}
	for _, f := range []struct{ flag, p string }{{"--requester", requester}, {"--owner", owner}} {
		if f.p == "" {
			continue
		}
		if err := route.CheckPerson(f.p); err != nil || strings.HasPrefix(f.p, "group:") {
			fmt.Fprintf(e.stderr, "askuser approve: %s %s is not a principal: give one verified principal (alice@example.com), without spaces or control characters, not a group\n", f.flag, inert.Line(f.p))
			return nil, false
		}
	}
	return &route.Approvers{Requester: requester, Owner: owner}, true
}

// openConsents opens the consents file, refusing one that exists and is
// not a regular file (a FIFO, a device, a directory); a file that does not
// exist yet is made (mode 0600). Its lines are authenticated with the key
// ring decisionKeys finds (keyFile is --key-file): a line appended by hand
// is never applied.
func (e env) openConsents(name, keyFile string) (*journal.Consents, error) {
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fileError("--consents", name, err)
	case !fi.Mode().IsRegular():
		return nil, notRegular("--consents", name, fi.Mode(), "the consents file is a regular file askuser appends to; give its path, or the path of one to create")
	}
	ring, err := decisionKeys(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--consents %s: %w", name, err)
	}
	return journal.OpenConsentsWith(name, &journal.ConsentsOptions{Keys: ring, Logger: e.warnLogger()})
}
