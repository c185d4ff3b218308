package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/stats"
)

const statsSynopsis = "stats [--since DURATION] [--by tool|header|responder|principal] [--html FILE] JOURNAL | --nats URL [--nats-token-file FILE]"

// stats prints decision analytics over a journal (see package stats): a
// table on standard output, and with --html FILE a page of charts. A
// journal file is read with the files rotated from it, oldest first; with
// --nats, askuser serve's journal stream. Lines that hold no record are
// counted and said on standard error.
func (e env) stats(ctx context.Context, args []string) int {
	fs := e.flags("stats", statsSynopsis)
	since := fs.Duration("since", 0, "count only the asks finalized in the last `DURATION` (24h, 168h; default: all)")
	by := fs.String("by", string(stats.ByTool), "group the rows by `tool`, header (each question's), responder or principal")
	htmlFile := fs.String("html", "", "also write the report as a self-contained page with charts to `FILE`")
	natsURL := fs.String("nats", "", "read the journal stream of 'askuser serve' in the NATS server or cluster at `URL` instead of a JOURNAL file")
	natsToken := fs.String("nats-token-file", "", "with --nats, present the NATS token in `FILE` (serve's --nats-token-file)")
	if code, stop := parse(fs, args); stop {
		return code
	}
	dim, err := stats.ParseDimension(*by)
	usage := func(msg string) int {
		fmt.Fprintf(e.stderr, "askuser stats: %s\n", msg)
		return exitUsage
	}
	switch {
	case err != nil:
		return usage(fmt.Sprintf("--by %s", err.Error()[len("stats: "):]))
	case *since < 0:
		return usage(fmt.Sprintf("--since %v: give how far back to count, a positive duration (24h, say)", *since))
	case *natsURL != "" && fs.NArg() != 0:
		return usage(fmt.Sprintf("--nats reads the journal stream; give no JOURNAL (got %d)", fs.NArg()))
	case *natsURL == "" && *natsToken != "":
		return usage("--nats-token-file is for --nats URL; give --nats")
	case *natsURL == "" && fs.NArg() != 1:
		return usage(fmt.Sprintf("give one JOURNAL file, or --nats URL, not %d arguments", fs.NArg()))
	}
	opts := stats.Options{By: dim}
	if *since > 0 {
		opts.Since = time.Now().Add(-*since)
	}
	var recs iter.Seq2[*journal.Record, error]
	if *natsURL != "" {
		st, done, err := openNATSStore(ctx, *natsURL, *natsToken, nil)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser stats: %v\n", err)
			return exitFailure
		}
		defer done()
		rctx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
		all, err := st.Journal().Records(rctx, "")
		cancel()
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser stats: reading the journal stream: %v\n", err)
			return exitFailure
		}
		recs = stats.Records(all)
	} else {
		name := fs.Arg(0)
		f, _, err := openRegular("askuser stats:", name, "give the journal file itself")
		if err != nil {
			fmt.Fprintf(e.stderr, "%v\n", err)
			return exitFailure
		}
		f.Close()
		rotated, err := journal.Rotated(name)
		if err != nil {
			fmt.Fprintf(e.stderr, "askuser stats: listing the files rotated from %s: %v\n", name, err)
			return exitFailure
		}
		recs = journalFiles(append(rotated, name))
	}
	rep := stats.Compute(recs, opts)
	if err := rep.Table(e.stdout); err != nil {
		fmt.Fprintf(e.stderr, "askuser stats: %v\n", err)
		return exitFailure
	}
	if rep.Skipped > 0 {
		fmt.Fprintf(e.stderr, "askuser stats: %d lines held no record and were skipped (askuser journal lists them)\n", rep.Skipped)
	}
	if *htmlFile != "" {
		if err := writeStatsPage(*htmlFile, rep); err != nil {
			fmt.Fprintf(e.stderr, "askuser stats: --html %s: %v\n", *htmlFile, err)
			return exitFailure
		}
	}
	return exitOK
}

// journalFiles reads the journal files in order, as one journal.
func journalFiles(names []string) iter.Seq2[*journal.Record, error] {
	return func(yield func(*journal.Record, error) bool) {
		for _, n := range names {
			for rec, err := range journal.ReadFile(n) {
				if !yield(rec, err) {
					return
				}
			}
		}
	}
}

// writeStatsPage writes the report's page to name, mode 0644.
func writeStatsPage(name string, rep *stats.Report) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := rep.HTML(f); err != nil {
		f.Close()
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
