// Command quickstart is askuser in a dozen lines: it reads a model's
// ask_user call and prints the result the model would read.
//
// With no flags nobody is asked (the auto responder): every choice question
// gets its recommended options at once, and the result says nobody decided
// ("answered_by":"unattended"). With -terminal the questions are asked on the
// terminal, line by line (standard error), and answered on standard input.
//
// From the repository's root:
//
//	go -C examples run ./quickstart
//	printf '2\n1,3\n' | go -C examples run ./quickstart -terminal
//
// It builds only the library and the responder it uses, so it compiles in
// seconds; the whole command line (askuser serve, mcp, the full-screen card,
// the fleet) is go install github.com/askuser-go/askuser/cmd/askuser@latest.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/responders/auto"
	"github.com/askuser-go/askuser/responders/stdio"
)

func main() {
	terminal := flag.Bool("terminal", false, "ask on the terminal instead of answering with the recommended options")
	call := flag.String("call", "calls/deploy.json", "the ask_user call: a file holding the tool call's arguments")
	flag.Parse()

	if err := run(os.Stdout, os.Stdin, os.Stderr, *call, *terminal); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run answers the call in the file call and prints its result on out; with
// terminal the questions go to errOut and the answers come from in.
func run(out io.Writer, in io.Reader, errOut io.Writer, call string, terminal bool) error {
	args, err := os.ReadFile(call)
	if err != nil {
		return err
	}
	o := &askuser.Orchestrator{Responder: auto.New()}
	if terminal {
		r := stdio.New(in, errOut, nil)
		defer r.Close()
		o.Responder = r
	}
	defer o.Close()

	res, err := o.Handle(context.Background(), askuser.Request{Session: "quickstart", ToolCallID: "call_1", Arguments: args})
	if err != nil {
		return err // a *dialect.CallError's message is what the model would read
	}
	_, err = fmt.Fprintln(out, string(res.Result))
	return err
}
