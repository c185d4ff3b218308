package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/internal/inert"
	"github.com/askuser-go/askuser/journal"
	"github.com/askuser-go/askuser/secretstore"
)

const journalVerifySynopsis = "journal verify [--key-file FILE] FILE | --nats URL [--nats-token-file FILE]"

// journalVerify checks that a journal was not tampered with: that every
// record carries a MAC made with the key ring (--key-file, else
// $ASKUSER_SECRET_KEY, else the default key file, which it never makes)
// and that the records form an unbroken chain. On a good journal it prints
// a short summary, with the last record's sequence and MAC to note
// elsewhere (removing records from the end is found only against it), and
// exits 0; otherwise it prints the first bad record — its line (or
// message) and sequence, and why — and how many are bad, and exits 1. A
// journal written without a key is reported as not authenticated.
func (e env) journalVerify(ctx context.Context, args []string) int {
	fl := e.flags("journal verify", journalVerifySynopsis)
	keyFile := fl.String("key-file", "", "check the MACs with the key ring in `FILE`, mode 0600 (default: $ASKUSER_SECRET_KEY, else the default key file in the state directory)")
	natsURL := fl.String("nats", "", "verify the journal stream of 'askuser serve' in the NATS server or cluster at `URL` instead of a FILE")
	natsToken := fl.String("nats-token-file", "", "with --nats, present the NATS token in `FILE` (serve's --nats-token-file)")
	if code, stop := parse(fl, args); stop {
		return code
	}
	ring, source, err := verifyKeys(*keyFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal verify: %v\n", err)
		return exitFailure
	}
	if ring == nil {
		fmt.Fprintln(e.stderr, "askuser journal verify: no key ring (no --key-file, no $ASKUSER_SECRET_KEY, no default key file): no MAC can be checked; records are only told apart as carrying one or not")
	}
	if *natsURL != "" {
		if fl.NArg() != 0 {
			fmt.Fprintf(e.stderr, "askuser journal verify: --nats verifies the journal stream; give no FILE (got %d)\n", fl.NArg())
			return exitUsage
		}
		return e.journalVerifyNATS(ctx, *natsURL, *natsToken, ring, source)
	}
	if *natsToken != "" {
		fmt.Fprintln(e.stderr, "askuser journal verify: --nats-token-file is for --nats URL; give --nats")
		return exitUsage
	}
	if fl.NArg() != 1 {
		fmt.Fprintf(e.stderr, "askuser journal verify: give one journal FILE, not %d\n", fl.NArg())
		return exitUsage
	}
	name := fl.Arg(0)
	f, _, err := openRegular("askuser journal verify:", name, "give the journal file itself")
	if err != nil {
		fmt.Fprintf(e.stderr, "%v\n", err)
		return exitFailure
	}
	f.Close()
	rep, err := journal.VerifyFile(name, ring)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal verify: %v\n", err)
		return exitFailure
	}
	total := rep.Verified + len(rep.Problems)
	files := name
	if len(rep.Files) > 1 {
		files = fmt.Sprintf("%s and the %d files it rotated", name, len(rep.Files)-1)
	}
	if rep.OK() {
		fmt.Fprintf(e.stdout, "%s: ok: %s, each authenticated and in its place in one chain (sequence %s; %s %s, from %s)\n",
			files, plural(rep.Verified, "record"), seqRange(rep), keyWord(len(rep.Keys)), strings.Join(rep.Keys, ", "), source)
		fmt.Fprintf(e.stdout, "head: sequence %d, MAC %s (note it elsewhere: records removed from the end are found only against it)\n", rep.HeadSeq, rep.HeadMAC)
		if rep.LinkUnchecked {
			fmt.Fprintln(e.stdout, "note: the first record links to an earlier file that is not here; that link was not checked")
		}
		if rep.Torn > 0 {
			fmt.Fprintf(e.stdout, "note: %s left by a crash (never reported written, never replayed)\n", plural(rep.Torn, "incomplete record"))
		}
		return exitOK
	}
	if total == 0 {
		fmt.Fprintf(e.stdout, "%s: no records to verify\n", files)
		return exitFailure
	}
	p := rep.Problems[0]
	fmt.Fprintln(e.stdout, inert.Line(p.Error()))
	unauth := 0
	for _, p := range rep.Problems {
		if p.Unauthenticated {
			unauth++
		}
	}
	switch {
	case unauth == total:
		fmt.Fprintf(e.stdout, "%s: FAILED: none of its %s is authenticated: it was written without a key ring, and is not tamper-evident\n", files, plural(total, "record"))
	default:
		fmt.Fprintf(e.stdout, "%s: FAILED: %d of %s do not verify (%d not authenticated); the first is line %d of %s\n", files, len(rep.Problems), plural(total, "record"), unauth, p.Line, p.File)
	}
	return exitFailure
}

// journalVerifyNATS is journal verify --nats: the journal stream of
// askuser serve, each writer's chain.
func (e env) journalVerifyNATS(ctx context.Context, natsURL, tokenFile string, ring *secretstore.KeyRing, source string) int {
	st, done, err := openNATSStore(ctx, natsURL, tokenFile, ring)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal verify: %v\n", err)
		return exitFailure
	}
	defer done()
	rctx, cancel := context.WithTimeout(ctx, serveOpenTimeout)
	defer cancel()
	rep, err := st.Journal().Verify(rctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "askuser journal verify: %v\n", err)
		return exitFailure
	}
	what := "the journal stream at " + inert.Line(natsURL)
	if rep.OK() {
		fmt.Fprintf(e.stdout, "%s: ok: %s of %s, each authenticated and in its place in its writer's chain (messages %d to %d; key ring from %s)\n",
			what, plural(rep.Verified, "record"), plural(rep.Writers, "writer"), rep.FirstSeq, rep.LastSeq, source)
		if rep.Trimmed {
			fmt.Fprintf(e.stdout, "note: the stream no longer holds its messages before %d (its retention); chains that began there were not checked from their start\n", rep.FirstSeq)
		}
		return exitOK
	}
	if rep.Messages == 0 && len(rep.Problems) == 0 {
		fmt.Fprintf(e.stdout, "%s: no records to verify\n", what)
		return exitFailure
	}
	unauth := 0
	for _, p := range rep.Problems {
		if p.Unauthenticated {
			unauth++
		}
	}
	p := rep.Problems[0]
	fmt.Fprintln(e.stdout, inert.Line(p.Error()))
	if unauth == rep.Messages {
		fmt.Fprintf(e.stdout, "%s: FAILED: none of its %s is authenticated: it was written without a key ring, and is not tamper-evident\n", what, plural(rep.Messages, "record"))
	} else {
		fmt.Fprintf(e.stdout, "%s: FAILED: %s found (%d records not authenticated) in %s\n", what, plural(len(rep.Problems), "problem"), unauth, plural(rep.Messages, "message"))
	}
	return exitFailure
}

func keyWord(n int) string {
	if n == 1 {
		return "key"
	}
	return "keys"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func seqRange(rep *journal.Report) string {
	first := rep.HeadSeq - uint64(rep.Verified) + 1
	if first == rep.HeadSeq {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d to %d", first, rep.HeadSeq)
}
