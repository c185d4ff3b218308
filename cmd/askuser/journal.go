package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/askuser-go/askuser"
	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secretstore"
)

// journal lists the records of a journal file: a table, or one JSON object
// a line. A torn last line is skipped; a torn line inside the file (closed
// by a later append) is noted on standard error; any other line that holds
// no record is reported on standard error and makes the exit status 1,
// after the listing. With --nats it lists askuser serve's journal stream
// instead (journalNATS).
func (e env) journal(ctx context.Context, args []string) int {
	if len(args) > 0 && args[0] == "verify" {
		return e.journalVerify(ctx, args[1:])
	}
	fl := e.flags("journal", "journal [--session ID] [--json] FILE | --nats URL [--nats-token-file FILE]")
	session := fl.String("session", "", "list only the records of session `ID`")
	asJSON := fl.Bool("json", false, "print each record as one JSON object a line instead of a table")
	natsURL := fl.String("nats", "", "list the journal stream of 'askuser serve' in the NATS server or cluster at `URL` instead of a FILE")
	natsToken := fl.String("nats-token-file", "", "with --nats, present the NATS token in `FILE` (serve's --nats-token-file)")
	if code, stop := parse(fl, args); stop {
		return code
	}
	if *natsURL != "" {
		if fl.NArg() != 0 {
			fmt.Fprintf(e.stderr, "askuser journal: --nats lists the journal stream; give no FILE (got %d)\n", fl.NArg())
			return exitUsage
		}
		return e.journalNATS(ctx, *natsURL, *natsToken, *session, *asJSON)
	}
	if *natsToken != "" {
		fmt.Fprintln(e.stderr, "askuser journal: --nats-token-file is for --nats URL; give --nats")
		return exitUsage
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(e.stderr, "askuser journal: give one journal FILE, not %d\n", fl.NArg())
		return exitUsage
	}
	name := fl.Arg(0)
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
func (l *recordList) add(rec *journal.Record) error {
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

// openJournal opens the journal at path for --journal and sets it on o,
// authenticated with the key ring decisionKeys finds (keyFile is the
// command's --key-file). The returned function closes it, reporting a
// failure on standard error.
func (e env) openJournal(o *askuser.Orchestrator, path, keyFile string) (func(), error) {
	ring, err := decisionKeys(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--journal %s: %w", path, err)
	}
	j, err := journal.Open(path, &journal.Options{Keys: ring, Logger: e.warnLogger()})
	if err != nil {
		return nil, err
	}
	o.Journal = j
	return func() {
		if err := j.Close(); err != nil {
			fmt.Fprintf(e.stderr, "askuser: closing the journal: %v\n", err)
		}
	}, nil
}

// warnLogger logs warnings and errors on standard error, as text.
func (e env) warnLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// decisionKeys returns the key ring that authenticates journals and
// consents files: --key-file FILE, else $ASKUSER_SECRET_KEY, else the
// default key file in the state directory (the default secret store's
// key, made on first use). A journal or consents file is always
// authenticated by the command, so that a record appended by hand is never
// replayed or applied.
func decisionKeys(keyFile string) (*secretstore.KeyRing, error) {
	switch {
	case keyFile != "":
		return readKeyFile("--key-file", keyFile)
	case strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != "":
		return secretstore.KeysFromEnv()
	}
	state, err := stateDir()
	if err != nil {
		return nil, fmt.Errorf("no key ring to authenticate decisions with: give --key-file FILE or set $%s (%v)", secretstore.KeyEnv, err)
	}
	return defaultKeys(filepath.Join(state, keyFileName), filepath.Join(state, storeDirName), true)
}

// verifyKeys is decisionKeys for reading: it makes no key file, and
// returns nil when there is none to be found (the journal is then
// reported, not checked).
func verifyKeys(keyFile string) (*secretstore.KeyRing, string, error) {
	switch {
	case keyFile != "":
		r, err := readKeyFile("--key-file", keyFile)
		return r, keyFile, err
	case strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != "":
		r, err := secretstore.KeysFromEnv()
		return r, "$" + secretstore.KeyEnv, err
	}
	state, err := stateDir()
	if err != nil {
		return nil, "", nil
	}
	name := filepath.Join(state, keyFileName)
	r, err := readKeyFile("the key file", name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	return r, name, err
}
