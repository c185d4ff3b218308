package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/journal"
)

// journal lists the records of a journal file: a table, or one JSON object
// a line. A torn last line is skipped; a torn line inside the file (closed
// by a later append) is noted on standard error; any other line that holds
// no record is reported on standard error and makes the exit status 1,
// after the listing. With --nats it lists askuser serve's journal stream
// instead (journalNATS).
func (e env) journal(ctx context.Context, args []string) int {
	fs := e.flags("journal", "journal [--session ID] [--json] FILE | --nats URL [--nats-token-file FILE]")
	session := fs.String("session", "", "list only the records of session `ID`")
	asJSON := fs.Bool("json", false, "print each record as one JSON object a line instead of a table")
	natsURL := fs.String("nats", "", "list the journal stream of 'askuser serve' in the NATS server or cluster at `URL` instead of a FILE")
	natsToken := fs.String("nats-token-file", "", "with --nats, present the NATS token in `FILE` (serve's --nats-token-file)")
	if code, stop := parse(fs, args); stop {
		return code
	}
	if *natsURL != "" {
		if fs.NArg() != 0 {
			fmt.Fprintf(e.stderr, "askuser journal: --nats lists the journal stream; give no FILE (got %d)\n", fs.NArg())
			return exitUsage
		}
		return e.journalNATS(ctx, *natsURL, *natsToken, *session, *asJSON)
	}
	if *natsToken != "" {
		fmt.Fprintln(e.stderr, "askuser journal: --nats-token-file is for --nats URL; give --nats")
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(e.stderr, "askuser journal: give one journal FILE, not %d\n", fs.NArg())
		return exitUsage
	}
	name := fs.Arg(0)
	f, _, err := openRegular("askuser journal:", name, "give the journal file itself")
	if err != nil {
		fmt.Fprintf(e.stderr, "%v\n", err)
		return exitFailure
	}
	defer f.Close()

	l := e.newRecordList(*asJSON)
	code := exitOK
	for rec, err := range journal.Read(f) {
		var le *journal.LineError
		switch {
		case errors.As(err, &le) && le.Torn:
			fmt.Fprintf(e.stderr, "askuser journal: %s:%d: skipped an incomplete record left by a crash\n", name, le.Line)
			continue
		case errors.As(err, &le):
			fmt.Fprintf(e.stderr, "askuser journal: %s:%d: %s\n", name, le.Line, inert.Line(le.Reason))
			code = exitFailure
			continue
		case err != nil:
			_ = l.flush()
			fmt.Fprintf(e.stderr, "askuser journal: %v\n", err)
			return exitFailure
		}
		if *session != "" && rec.Session != *session {
			continue
		}
		if err := l.add(rec); err != nil {
			fmt.Fprintf(e.stderr, "askuser journal: %s: %v\n", name, err)
			return exitFailure
		}
	}
	if err := l.flush(); err != nil {
		fmt.Fprintf(e.stderr, "askuser journal: %v\n", err)
		return exitFailure
	}
	return code
}

// A recordList prints journal records: a table, or one JSON object a line.
type recordList struct {
	out io.Writer
	tw  *tabwriter.Writer // nil: JSON
}

func (e env) newRecordList(asJSON bool) *recordList {
	l := &recordList{out: e.stdout}
	if !asJSON {
		l.tw = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(l.tw, "FINALIZED\tSESSION\tTOOL_CALL\tCONTRACT\tSTATUS\tANSWERED_BY\tREASON\tRESPONDER")
	}
	return l
}

// add prints one record.
func (l *recordList) add(rec *askuser.Record) error {
	if l.tw == nil {
		data, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(l.out, "%s\n", data)
		return err
	}
	_, err := fmt.Fprintln(l.tw, strings.Join([]string{
		cell(rec.FinalizedAt.UTC().Format(time.RFC3339)),
		cell(rec.Session),
		cell(rec.ToolCallID),
		cell(rec.Contract),
		cell(string(rec.Status)),
		cell(string(rec.AnsweredBy)),
		cell(string(rec.Reason)),
		cell(rec.Responder),
	}, "\t"))
	return err
}

func (l *recordList) flush() error {
	if l.tw == nil {
		return nil
	}
	return l.tw.Flush()
}

// cell makes s, read from the file, fit one table cell and safe to show on
// a terminal: "-" when empty, and made inert (a tab, a newline, an escape
// sequence, a C1 or bidi control shown as an escape such as \t or \x1b),
// so that it can neither break the columns nor act on the terminal.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return inert.Line(s)
}

// openJournal opens the journal at path for ask --journal and sets it on o.
// The returned function closes it, reporting a failure on standard error.
func (e env) openJournal(o *askuser.Orchestrator, path string) (func(), error) {
	j, err := journal.Open(path, nil)
	if err != nil {
		return nil, err
	}
	o.Journal = j
	return func() {
		if err := j.Close(); err != nil {
			fmt.Fprintf(e.stderr, "askuser ask: closing the journal: %v\n", err)
		}
	}, nil
}
