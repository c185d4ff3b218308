package main

import (
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/askuser-go/askuser/responders/web"
)

// controllingTerminal is where the approval code is shown: the terminal of
// the person who runs the command. Tests point it at a pseudo-terminal.
var controllingTerminal = "/dev/tty"

// approvalWebResponder serves the web card for approvals, as webResponder
// serves it for questions (the URL with its access token on standard
// error), and admits the person to decide by an approval code
// (web.Options.ApprovalCode) that it shows only on the controlling
// terminal: never on standard output or standard error, which an agent's
// shell reads, and never in the URL. Whoever can read the URL can see the
// card, but only the person at the terminal can approve or deny. Without a
// controlling terminal there is nowhere private to show the code, and it
// refuses: approvals over the web card need a terminal (or, in a program
// that embeds the card, web.Options.Authorize). done stops the card.
func (e env) approvalWebResponder(listen, session string) (r *web.Responder, done func(), err error) {
	tty, err := openTerminal()
	if err != nil {
		return nil, nil, err
	}
	defer tty.Close()
	code := web.NewApprovalCode()
	r, cardURL, done, err := serveCard(listen, session, func(o *web.Options) { o.ApprovalCode = code })
	if err != nil {
		return nil, nil, err
	}
	if _, err := fmt.Fprintf(tty, "\naskuser: your agent asks your permission to act. Decide on\n  %s\nwith the approval code %s (shown only here).\n", cardURL, code); err != nil {
		done()
		return nil, nil, fmt.Errorf("approvals over the web card need the approval code shown on the terminal, and writing it to %s failed: %v", controllingTerminal, err)
	}
	fmt.Fprintf(e.stderr, "askuser: decide on %s (the approval code is on the terminal)\n", cardURL)
	return r, done, nil
}

// openTerminal opens the controlling terminal for the approval code.
func openTerminal() (*os.File, error) {
	tty, err := os.OpenFile(controllingTerminal, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("approvals over the web card need a terminal to show the approval code on, where the agent cannot read it, and there is none (%v); run askuser approve from a terminal, or with --responder stdio there (a program that embeds the web card admits the person with web.Options.Authorize instead)", err)
	}
	if !term.IsTerminal(int(tty.Fd())) {
		tty.Close()
		return nil, fmt.Errorf("approvals over the web card need a terminal to show the approval code on, and %s is not one; run askuser approve from a terminal, or with --responder stdio there", controllingTerminal)
	}
	return tty, nil
}
