package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/secretstore"
)

// A Problem is a line of a journal that does not verify.
type Problem struct {
	// File is the file the line is in.
	File string
	// Line is its number in the file, counting from 1.
	Line int
	// Seq is the sequence number the line claims, where it carries
	// one (0: none).
	Seq uint64
	// Reason says why it does not verify.
	Reason string
	// Unauthenticated is set for a line without a MAC (written without a
	// key ring, by hand, or not a record at all).
	Unauthenticated bool
}

// Error returns "FILE:LINE: sequence N: reason".
func (p *Problem) Error() string {
	if p.Seq > 0 {
		return fmt.Sprintf("%s:%d: sequence %d: %s", p.File, p.Line, p.Seq, p.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Reason)
}

// A Report is what VerifyFile found.
type Report struct {
	// Files are the files read, oldest first.
	Files []string
	// Verified counts the records that verify and are in their place.
	Verified int
	// Problems are the lines that do not verify, in order; the first is
	// the first bad record.
	Problems []Problem
	// Torn counts the incomplete records a crash left (never reported
	// written, never replayed); they are not problems.
	Torn int
	// Keys are the ids of the keys the verified records were made with.
	Keys []string
	// Head is the last verified record: its sequence number and MAC
	// (empty when none). Removing records from the end of a journal
	// leaves a shorter chain that is whole; only a head noted elsewhere
	// shows it.
	HeadSeq uint64
	HeadMAC string
	// LinkUnchecked is set when the first file's first record links to
	// an earlier file that was not read (pruned, or named on its own).
	LinkUnchecked bool
}

// OK reports whether every record verified.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.Verified > 0 }

// VerifyFile checks the authentication of the journal at path with ring:
// that every record carries a MAC made with one of the ring's keys, and
// that the records form one chain — each the next sequence number,
// carrying the MAC of the one before. An authentic record of an approval
// decided by votes must also have the status its votes give
// (CheckVotes). The files path rotated by size are
// read first, oldest first, so that the chain is checked across them; a
// path that is itself a rotated file is read alone. A nil ring checks
// nothing but reports every record without a MAC as unauthenticated and
// every other as unverifiable. The error is for a file that cannot be
// read; what does not verify is in the Report.
func VerifyFile(path string, ring *secretstore.KeyRing) (*Report, error) {
	names, err := Rotated(path)
	if err != nil {
		return nil, fmt.Errorf("journal: listing the rotated files of %s: %w", path, err)
	}
	rep := &Report{Files: append(names, path)}
	var keys *recauth.Keys
	if ring != nil {
		keys = recauth.New(ring, recauth.LabelJournal)
	}
	var chain recauth.Chain
	chain.Start()
	var link []byte
	for i, name := range rep.Files {
		if i > 0 {
			chain.Link(link)
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		err = verifyReader(rep, name, f, keys, &chain, i == 0)
		f.Close()
		if err != nil {
			return nil, err
		}
		if chain.Seq > 0 {
			link = chain.MAC
		}
	}
	finish(rep, &chain)
	return rep, nil
}

// Verify checks the journal read from r as VerifyFile checks one file
// that has no rotated files before it; name names it in the Problems.
func Verify(name string, r io.Reader, ring *secretstore.KeyRing) (*Report, error) {
	rep := &Report{Files: []string{name}}
	var keys *recauth.Keys
	if ring != nil {
		keys = recauth.New(ring, recauth.LabelJournal)
	}
	var chain recauth.Chain
	chain.Start()
	if err := verifyReader(rep, name, r, keys, &chain, true); err != nil {
		return nil, err
	}
	finish(rep, &chain)
	return rep, nil
}

func finish(rep *Report, chain *recauth.Chain) {
	if chain.Seq > 0 {
		rep.HeadSeq, rep.HeadMAC = chain.Seq, recauth.Encode(chain.MAC)
	}
	slices.Sort(rep.Keys)
	rep.Keys = slices.Compact(rep.Keys)
}

// verifyReader checks the lines of one file against the chain.
func verifyReader(rep *Report, name string, r io.Reader, keys *recauth.Keys, chain *recauth.Chain, first bool) error {
	for l := range lines(r) {
		var le *LineError
		switch {
		case errors.As(l.err, &le) && le.Torn:
			rep.Torn++
			continue
		case errors.As(l.err, &le):
			rep.Problems = append(rep.Problems, Problem{File: name, Line: le.Line, Reason: le.Reason, Unauthenticated: true})
			continue
		case l.err != nil:
			return fmt.Errorf("journal: verifying %s: %w", name, l.err)
		}
		p, ok := verifyLine(keys, chain, l.raw)
		if ok {
			if err := CheckVotes(l.rec); err != nil {
				// Authentic, and yet its verdict does not follow from its
				// votes: written so by a bug, or by a holder of the key.
				var seq uint64
				if l.rec.Auth != nil {
					seq = l.rec.Auth.Seq
				}
				rep.Problems = append(rep.Problems, Problem{File: name, Line: l.n, Seq: seq, Reason: "the approval's status does not follow from its votes: " + err.Error()})
				continue
			}
		}
		if ok {
			rep.Verified++
			if l.rec.Auth != nil {
				rep.Keys = append(rep.Keys, l.rec.Auth.Key)
				if first && chain.Seq == 1 && l.rec.Auth.Prev != "" {
					rep.LinkUnchecked = true
				}
			}
			continue
		}
		p.File, p.Line = name, l.n
		rep.Problems = append(rep.Problems, p)
	}
	return nil
}

// verifyLine checks one line: its MAC, then its place in the chain.
func verifyLine(keys *recauth.Keys, chain *recauth.Chain, raw []byte) (Problem, bool) {
	if keys == nil {
		_, a, err := recauth.Split(raw)
		switch {
		case errors.Is(err, recauth.ErrUnauthenticated):
			return Problem{Reason: "not authenticated: the record carries no MAC (written without a key ring, or by hand)", Unauthenticated: true}, false
		case err != nil:
			return Problem{Reason: err.Error()}, false
		}
		return Problem{Seq: a.Seq, Reason: "not checked: no key ring to check its MAC with"}, false
	}
	a, mac, err := keys.Verify(raw)
	switch {
	case errors.Is(err, recauth.ErrUnauthenticated):
		return Problem{Reason: "not authenticated: the record carries no MAC (written without a key ring, or by hand)", Unauthenticated: true}, false
	case err != nil:
		return Problem{Seq: a.Seq, Reason: err.Error()}, false
	}
	if err := chain.Next(a, mac); err != nil {
		return Problem{Seq: a.Seq, Reason: err.Error()}, false
	}
	return Problem{}, true
}
