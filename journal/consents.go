package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// Consents is an store.Consents in a file: the approval decisions
// people made for the rest of their session, kept across restarts. Give it
// to Orchestrator.Consents. The file holds one JSON object a line, each a
// decision remembered or revoked; the latest line for a session and digest
// wins. Every operation takes the file's advisory lock and first reads what
// other processes appended since, so several processes can share one file;
// every change is written with one write and synced before the call
// returns. A line torn by a crash is skipped (and a later write starts on
// a line of its own); without keys, any other line that is not a decision
// is an error naming the file and line.
//
// With ConsentsOptions.Keys, every line carries a MAC and its place in the
// file's chain, as a journal's records do (see the package documentation,
// "Authentication"), and a line that does not verify or is out of its
// place — one appended by hand, an old "remember" copied after its
// "revoke" — is logged and never applied: the person is asked.
type Consents struct {
	path string
	keys *recauth.Keys
	log  *slog.Logger

	mu     sync.Mutex
	f      *os.File
	off    int64                      // how far the file has been read
	line   int                        // lines read so far
	torn   bool                       // the file ends in a torn line
	byKey  map[[2]string]consentEntry // current decisions
	closed bool
	chain  recauth.Chain // with keys: the last authentic line
	unauth int           // with keys: lines without a MAC, not applied
	opened bool          // the file was read once: log each line not applied
}

type consentEntry struct {
	c   store.Consent
	seq int // the line that made it, for listing in order
}

// consentLine is one line of the file.
type consentLine struct {
	V       int            `json:"v"`
	Op      string         `json:"op"` // "remember" or "revoke"
	Consent *store.Consent `json:"consent,omitempty"`
	Session string         `json:"session,omitempty"`
	Digest  string         `json:"digest,omitempty"`
	At      time.Time      `json:"at,omitzero"`
	// Auth is the line's authentication, with keys; Seal writes it.
	Auth *store.RecordAuth `json:"auth,omitempty"`
}

// ConsentsOptions configure a Consents file. A nil *ConsentsOptions is
// the zero value.
type ConsentsOptions struct {
	// Keys authenticates the file: every line written carries a MAC and
	// its place in the chain, and only lines that verify are applied.
	// Nil: lines are neither authenticated nor checked (not
	// tamper-evident).
	Keys *secretstore.KeyRing
	// Logger receives the lines that are not applied (nil:
	// slog.Default()).
	Logger *slog.Logger
}

const maxConsentLine = 64 << 10

// OpenConsents opens (or creates, mode 0600) the consents file at path and
// reads it, without keys: OpenConsentsWith(path, nil).
func OpenConsents(path string) (*Consents, error) { return OpenConsentsWith(path, nil) }

// OpenConsentsWith opens (or creates, mode 0600) the consents file at path
// and reads it.
func OpenConsentsWith(path string, opts *ConsentsOptions) (*Consents, error) {
	if opts == nil {
		opts = &ConsentsOptions{}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: opening the consents file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errors.New("not a regular file")
		}
		return nil, fmt.Errorf("journal: consents file %s: %w", path, err)
	}
	c := &Consents{path: path, f: f, byKey: map[[2]string]consentEntry{}, log: opts.Logger}
	if c.log == nil {
		c.log = slog.Default()
	}
	if opts.Keys != nil {
		c.keys = recauth.New(opts.Keys, recauth.LabelConsent)
		c.chain.Start()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	unlock := lockFile(f)
	defer unlock()
	if err := c.catchUp(); err != nil {
		f.Close()
		return nil, err
	}
	c.opened = true
	if c.unauth > 0 {
		c.log.Warn("journal: remembered consents without authentication (written without a key ring, or by hand) are not applied; the person is asked again", "path", path, "lines", c.unauth)
	}
	return c, nil
}

// catchUp reads what was appended since the last read. It runs under the
// file lock.
func (c *Consents) catchUp() error {
	if fi, err := c.f.Stat(); err == nil && fi.Size() < c.off {
		c.log.Error("journal: the consents file is shorter than it was read: lines were removed from its end; the decisions read before stay as they were", "path", c.path, "size", fi.Size(), "read", c.off)
		c.off = fi.Size()
	}
	if _, err := c.f.Seek(c.off, io.SeekStart); err != nil {
		return fmt.Errorf("journal: reading the consents file %s: %w", c.path, err)
	}
	br := bufio.NewReader(c.f)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var rest []byte
			rest, err = readRest(br, line)
			line = rest
		}
		if err == io.EOF {
			// What is left without a newline is a torn line: skipped, and
			// read again (whole, perhaps) next time.
			c.torn = len(line) > 0
			return nil
		}
		if err != nil {
			return fmt.Errorf("journal: reading the consents file %s: %w", c.path, err)
		}
		c.off += int64(len(line))
		c.line++
		c.torn = false
		if err := c.apply(line); err != nil {
			return fmt.Errorf("journal: consents file %s, line %d: %w", c.path, c.line, err)
		}
	}
}

// readRest reads the rest of a line longer than the reader's buffer,
// refusing one longer than maxConsentLine.
func readRest(br *bufio.Reader, first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		part, err := br.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxConsentLine {
			return nil, fmt.Errorf("a line is longer than %d bytes; this is not a consents file", maxConsentLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

func (c *Consents) apply(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var l consentLine
	if err := json.Unmarshal(line, &l); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && torn(line) {
			return nil // cut short by a crash, and closed by a later write
		}
		if c.keys != nil {
			c.log.Warn("journal: a line of the consents file is not a decision; it is not applied", "path", c.path, "line", c.line)
			return nil
		}
		return fmt.Errorf("not a decision (%v); each line is a JSON object written by askuser", err)
	}
	if c.keys != nil {
		a, mac, err := c.keys.Verify(line)
		if err == nil {
			err = c.chain.Next(a, mac)
		}
		switch {
		case errors.Is(err, recauth.ErrUnauthenticated):
			if c.unauth++; c.opened {
				c.log.Warn("journal: a remembered consent without authentication was appended to the consents file (by hand, or by a program without the key ring); it is not applied, and the person is asked", "path", c.path, "line", c.line)
			}
			return nil
		case err != nil:
			c.log.Warn("journal: a remembered consent does not verify; it is not applied, and the person is asked", "path", c.path, "line", c.line, "reason", err.Error())
			return nil
		}
	}
	switch {
	case l.V != 1:
		return fmt.Errorf("version %d; this askuser reads version 1", l.V)
	case l.Op == "remember" && l.Consent != nil && l.Consent.Session != "" && l.Consent.Digest != "":
		c.byKey[[2]string{l.Consent.Session, l.Consent.Digest}] = consentEntry{c: *l.Consent, seq: c.line}
	case l.Op == "revoke" && l.Session != "" && l.Digest != "":
		delete(c.byKey, [2]string{l.Session, l.Digest})
	default:
		return fmt.Errorf("op %q without what it needs; allowed: remember (with a consent naming a session and a digest) or revoke (with a session and a digest)", l.Op)
	}
	return nil
}

// write appends one line, after catching up, under the file lock.
func (c *Consents) write(ctx context.Context, l consentLine) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("journal: encoding a decision: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("journal: the consents file is closed")
	}
	unlock := lockFile(c.f)
	defer unlock()
	if err := c.catchUp(); err != nil {
		return err
	}
	if c.keys != nil {
		// The next place in the chain, now that every line other
		// processes appended has been read.
		var prev []byte
		if c.chain.Seq > 0 {
			prev = c.chain.MAC
		}
		if b, _, err = c.keys.Seal(b, "", c.chain.Seq+1, prev); err != nil {
			return fmt.Errorf("journal: authenticating a decision: %w", err)
		}
	}
	b = append(b, '\n')
	if c.torn {
		// A line of its own: the torn one before it stays torn.
		b = append([]byte{'\n'}, b...)
	}
	if _, err := c.f.Write(b); err != nil {
		return fmt.Errorf("journal: writing the consents file %s: %w", c.path, err)
	}
	if err := c.f.Sync(); err != nil {
		return fmt.Errorf("journal: syncing the consents file %s: %w", c.path, err)
	}
	return c.catchUp()
}

// read runs f on the current decisions, after catching up.
func (c *Consents) read(f func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("journal: the consents file is closed")
	}
	unlock := lockFile(c.f)
	defer unlock()
	if err := c.catchUp(); err != nil {
		return err
	}
	f()
	return nil
}

// Remember keeps a decision, replacing any for its session and digest.
func (c *Consents) Remember(ctx context.Context, cs store.Consent) error {
	if cs.Session == "" || cs.Digest == "" {
		return errors.New("journal: a consent needs a session and a digest")
	}
	return c.write(ctx, consentLine{V: 1, Op: "remember", Consent: &cs})
}

// Recall returns the decision for the session and digest, if any.
func (c *Consents) Recall(ctx context.Context, session, digest string) (store.Consent, bool, error) {
	if err := ctx.Err(); err != nil {
		return store.Consent{}, false, err
	}
	var e consentEntry
	var ok bool
	err := c.read(func() { e, ok = c.byKey[[2]string{session, digest}] })
	return e.c, ok && err == nil, err
}

// Consents lists the session's decisions, oldest first.
func (c *Consents) Consents(ctx context.Context, session string) ([]store.Consent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []store.Consent
	err := c.read(func() {
		for k, e := range c.byKey {
			if k[0] == session {
				out = append(out, e.c)
			}
		}
	})
	store.SortConsents(out)
	return out, err
}

// Revoke forgets the decision for the session and digest. Revoking what
// is not remembered is not an error (and writes nothing).
func (c *Consents) Revoke(ctx context.Context, session, digest string) error {
	var ok bool
	if err := c.read(func() { _, ok = c.byKey[[2]string{session, digest}] }); err != nil || !ok {
		return err
	}
	return c.write(ctx, consentLine{V: 1, Op: "revoke", Session: session, Digest: digest, At: time.Now().UTC()})
}

// Close closes the file.
func (c *Consents) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.f.Close()
}

var _ store.Consents = (*Consents)(nil)
