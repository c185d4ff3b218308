package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// DefaultMaxWait is how long Append waits for its record to be durable
// when Options.MaxWait is zero.
const DefaultMaxWait = time.Second

// rotatedLayout is the time suffix of a file rotated by size.
const rotatedLayout = "20060102T150405.000000000Z"

// Errors Append returns, wrapped with details; test them with errors.Is.
var (
	// ErrClosed: the journal was closed before the record was handed to
	// it. The record was not written.
	ErrClosed = errors.New("journal: closed")
	// ErrTimeout: the record was not durable within Options.MaxWait. The
	// message says whether it may still be written.
	ErrTimeout = errors.New("journal: the record was not durable in time")
)

// Options configure a File. The zero value (or a nil *Options) works.
type Options struct {
	// MaxWait bounds how long Append waits for its record to be written
	// and fsynced (zero: DefaultMaxWait). Past it Append returns an error
	// wrapping ErrTimeout, so that a slow disk never holds the model's
	// result back for longer.
	MaxWait time.Duration
	// RotateBytes rotates the file by size: a batch that would take it
	// past this many bytes first renames it to PATH.<UTC time> (zero or
	// negative: never). A single batch larger than RotateBytes is still
	// written whole.
	RotateBytes int64
	// Logger receives failed and late writes, rotations, reopenings and
	// malformed lines met on Open (nil: slog.Default()). It never receives
	// a record's answers.
	Logger *slog.Logger
	// Keys authenticates the journal (see the package documentation,
	// "Authentication"): every record written carries a MAC under a key
	// derived from the ring's current key and its place in the file's
	// chain, and FindResult replays only records that verify and are in
	// their place — never one without a MAC. Nil: records are written
	// without a MAC and every record is replayed, as before keys existed;
	// such a journal is not tamper-evident.
	Keys *secretstore.KeyRing
}

// A File is a durable JSON-lines journal: a store.Journal and a
// store.ResultFinder. Its methods are safe for concurrent use. Create it
// with Open and stop it with Close.
//
// Before each batch a File makes sure the file ends with '\n', so that a
// record never follows a torn line another process left (see the package
// documentation, "Several writers").
//
// For FindResult a File keeps in memory the last record of every tool call
// that has a result, from the files it read on Open and the records it
// appended since, so its memory grows with the number of such tool calls
// in the journal and its rotated files.
type File struct {
	path    string
	maxWait time.Duration
	rotate  int64
	log     *slog.Logger
	keys    *recauth.Keys // nil: records are not authenticated

	mu     sync.Mutex
	queue  []*request
	closed bool

	wake    chan struct{} // cap 1: the queue has something, or Close was called
	stopped chan struct{} // closed when the writer has exited

	// Owned by the writer goroutine.
	f        *os.File
	end      int64  // the size this writer last left f at
	buf      []byte // a batch: a spare '\n', then the records
	closeErr error
	// The chain, with keys: the last authentic record of f, known up to
	// headAt (-1: f must be read again); link is the MAC the first record
	// of a new file carries (the last of the file before it).
	chain  recauth.Chain
	headAt int64
	link   []byte

	idxMu sync.RWMutex
	index map[key][]byte // a tool call's last record with a result, as written
}

type key struct{ session, toolCallID string }

// The states of a request: queued until the writer takes it into a batch,
// or abandoned by an Append that stopped waiting first.
const (
	queued int32 = iota
	taken
	abandoned
)

type request struct {
	line  []byte // the record and its '\n'; with keys, its body until sealed
	key   key
	index bool // a tool call with a result: FindResult finds it
	state atomic.Int32
	done  chan error // cap 1
}

// Open opens the journal at path for appending, creating it (mode 0600)
// when it does not exist, and starts its writer. It indexes the tool calls
// recorded in the file and in the files it rotated by size, for FindResult,
// and ends a torn last line with '\n' so the next record starts a line of
// its own. A nil opts means the zero Options.
func Open(path string, opts *Options) (*File, error) {
	if opts == nil {
		opts = &Options{}
	}
	j := &File{
		path:    path,
		maxWait: opts.MaxWait,
		rotate:  opts.RotateBytes,
		log:     opts.Logger,
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		index:   map[key][]byte{},
		headAt:  -1,
	}
	if opts.Keys != nil {
		j.keys = recauth.New(opts.Keys, recauth.LabelJournal)
	}
	if j.maxWait <= 0 {
		j.maxWait = DefaultMaxWait
	}
	if j.log == nil {
		j.log = slog.Default()
	}
	if err := j.buildIndex(); err != nil {
		return nil, err
	}
	if err := j.open(); err != nil {
		return nil, err
	}
	go j.run()
	return j, nil
}

// Path returns the path the journal appends to.
func (j *File) Path() string { return j.path }

// Append writes rec's Data as one line and returns once it is durable
// (written and fsynced), or with an error: Data not framed as one JSON
// object on one line is refused, saying why; otherwise ErrClosed,
// ErrTimeout after Options.MaxWait, ctx's error, or the write's failure.
// Every failure is also logged. Concurrent Appends share one write and
// one fsync.
func (j *File) Append(ctx context.Context, rec store.Record) error {
	if err := checkData(rec); err != nil {
		err = fmt.Errorf("journal: the record of ask %s was not written: %w", rec.AskID, err)
		j.log.Error("journal: a record could not be written", "call", rec.AskID, "session", rec.Session, "err", err)
		return err
	}
	// The writer may still hold the line after an Append that gave up
	// waiting, so it has a copy of its own, with room for its '\n'.
	line := make([]byte, len(rec.Data), len(rec.Data)+1)
	copy(line, rec.Data)
	if err := ctx.Err(); err != nil {
		err = fmt.Errorf("journal: the record of call %s was not written: %w", rec.AskID, err)
		j.log.Error("journal: an append gave up waiting", "path", j.path, "call", rec.AskID, "session", rec.Session, "tool_call", rec.ToolCallID, "err", err)
		return err
	}
	if j.keys == nil {
		line = append(line, '\n')
	}
	r := &request{
		line:  line,
		key:   key{rec.Session, rec.ToolCallID},
		index: rec.ToolCallID != "" && rec.HasResult,
		done:  make(chan error, 1),
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		err := fmt.Errorf("%w: the record of call %s was not written", ErrClosed, rec.AskID)
		j.log.Error("journal: append after Close", "path", j.path, "call", rec.AskID, "session", rec.Session, "tool_call", rec.ToolCallID)
		return err
	}
	j.queue = append(j.queue, r)
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}

	timer := time.NewTimer(j.maxWait)
	defer timer.Stop()
	var why error
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		why = ctx.Err()
	case <-timer.C:
		why = fmt.Errorf("%w (within %v)", ErrTimeout, j.maxWait)
	}
	select {
	case err := <-r.done: // the writer answered as we gave up
		return err
	default:
	}
	var err error
	if r.state.CompareAndSwap(queued, abandoned) {
		err = fmt.Errorf("journal: the record of call %s was not written: %w", rec.AskID, why)
	} else {
		err = fmt.Errorf("journal: the record of call %s is not confirmed durable; its write is under way and may still complete: %w", rec.AskID, why)
	}
	j.log.Error("journal: an append gave up waiting", "path", j.path, "call", rec.AskID, "session", rec.Session, "tool_call", rec.ToolCallID, "err", err)
	return err
}

// FindResult returns the last record of the session's tool call that holds
// a result (implementing store.ResultFinder), from the records this File
// appended and those it found on Open. Each call returns a new Record.
func (j *File) FindResult(ctx context.Context, session, toolCallID string) (store.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return store.Record{}, false, err
	}
	j.idxMu.RLock()
	line, ok := j.index[key{session, toolCallID}]
	j.idxMu.RUnlock()
	if !ok {
		return store.Record{}, false, nil
	}
	rec, err := Decode(line)
	if err != nil {
		return store.Record{}, false, fmt.Errorf("journal: decoding the record of tool call %s: %w", toolCallID, err)
	}
	sr, err := rec.Stored()
	return sr, err == nil, err
}

// Close writes what was appended before it, stops the writer and closes
// the file; it returns once that is done. Appends after Close return
// ErrClosed. Close returns the error of closing the file, if any; a later
// call waits the same way and returns nil.
func (j *File) Close() error {
	j.mu.Lock()
	already := j.closed
	j.closed = true
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	<-j.stopped
	if already {
		return nil
	}
	return j.closeErr
}

// run is the writer: it takes everything queued as one batch, writes it
// with one write and one fsync, and answers every request of the batch.
func (j *File) run() {
	defer close(j.stopped)
	for {
		j.mu.Lock()
		batch := j.queue
		j.queue = nil
		closed := j.closed
		j.mu.Unlock()
		if len(batch) > 0 {
			j.commit(batch)
			continue
		}
		if closed {
			if j.f != nil {
				j.closeErr = j.f.Close()
				j.f = nil
			}
			return
		}
		<-j.wake
	}
}

func (j *File) commit(batch []*request) {
	n := 0
	for _, r := range batch {
		if r.state.CompareAndSwap(queued, taken) {
			batch[n] = r
			n++
		}
	}
	batch = batch[:n]
	if n == 0 {
		return
	}
	err := j.write(batch)
	if err != nil {
		j.log.Error("journal: writing a batch of records failed; each of their Appends returns the error", "path", j.path, "records", n, "err", err)
	} else {
		j.idxMu.Lock()
		for _, r := range batch {
			if r.index {
				j.index[r.key] = r.line[:len(r.line)-1]
			}
		}
		j.idxMu.Unlock()
	}
	for _, r := range batch {
		r.done <- err
	}
}

// write appends the batch durably to the file at the path, reopening it
// when it was moved away and rotating it when it would grow past
// RotateBytes. The batch's lines follow a spare '\n', written only when
// the file does not end with one: when another process, killed in the
// middle of a record, left a torn line. With keys, each line is sealed
// here, under the file's lock, after the records other writers appended
// since are followed, so that the file's records form one chain.
func (j *File) write(batch []*request) error {
	if err := j.current(); err != nil {
		return err
	}
	size := 0
	for _, r := range batch {
		size += len(r.line)
		if j.keys != nil {
			size += 200 // the authentication
		}
	}
	if err := j.rotateFor(int64(size)); err != nil {
		return err
	}
	// The check and the write happen under the file's lock, which every
	// File appending to it takes, so that no other writer can tear a line
	// or take a place in the chain in between.
	unlock := lockFile(j.f)
	end, whole, err := j.endsLine()
	if err == nil && j.keys != nil {
		err = j.follow(end)
	}
	if err != nil {
		unlock()
		j.drop()
		return err
	}
	buf := append(j.buf[:0], '\n')
	chain := j.chain
	if j.keys != nil {
		for _, r := range batch {
			prev := chain.MAC
			if chain.Seq == 0 {
				prev = j.link
			}
			line, mac, err := j.keys.Seal(r.line, "", chain.Seq+1, prev)
			if err != nil {
				unlock()
				return fmt.Errorf("journal: authenticating a record: %w", err)
			}
			r.line = append(line, '\n')
			chain.Seq, chain.MAC = chain.Seq+1, mac
		}
	}
	for _, r := range batch {
		buf = append(buf, r.line...)
	}
	if cap(buf) <= 1<<20 {
		j.buf = buf
	}
	if whole {
		buf = buf[1:]
	} else {
		j.log.Warn("journal: the file ends in a torn line that another writer left; ending it so the next record starts a fresh line", "path", j.path)
	}
	_, err = j.f.Write(buf)
	unlock()
	if err != nil {
		j.drop()
		return fmt.Errorf("journal: writing %s: %w", j.path, err)
	}
	j.end = end + int64(len(buf))
	j.chain, j.headAt = chain, j.end
	if err := j.f.Sync(); err != nil {
		// After a failed fsync the state of the written pages is unknown:
		// start again from a fresh descriptor, on a fresh line.
		j.drop()
		return fmt.Errorf("journal: syncing %s: %w", j.path, err)
	}
	return nil
}

// follow brings the chain up to the file's end: it reads what other
// writers appended since headAt (the whole file when headAt is -1) and
// follows every authentic record in it. A file shorter than this writer
// left it lost records: that is logged as an error, and the file is read
// again from its start. It runs under the file's lock.
func (j *File) follow(end int64) error {
	if j.headAt == end {
		return nil
	}
	from := j.headAt
	if from > end {
		j.log.Error("journal: the file is shorter than this writer left it: records were removed from its end", "path", j.path, "size", end, "expected_at_least", from)
		from = -1
	}
	if from < 0 {
		from = 0
		j.chain = recauth.Chain{}
	}
	for l := range lines(io.NewSectionReader(j.f, from, end-from)) {
		if l.rec == nil {
			continue
		}
		if a, mac, err := j.keys.Verify(l.raw); err == nil {
			_ = j.chain.Next(a, mac) // the writer chains to the last authentic record, in its place or not
		}
	}
	j.headAt = end
	return nil
}

// endsLine returns the size of the open file and whether it is empty or
// ends with '\n'. It reads the last byte only when the size is not the one
// this writer left the file at, that is when another writer appended since.
func (j *File) endsLine() (size int64, whole bool, err error) {
	fi, err := j.f.Stat()
	if err != nil {
		return 0, false, fmt.Errorf("journal: %s: %w", j.path, err)
	}
	size = fi.Size()
	if size == 0 || size == j.end || !fi.Mode().IsRegular() {
		return size, true, nil
	}
	var last [1]byte
	if _, err := j.f.ReadAt(last[:], size-1); err != nil {
		return 0, false, fmt.Errorf("journal: reading the end of %s: %w", j.path, err)
	}
	return size, last[0] == '\n', nil
}

// drop closes the file after a failed write; the next batch opens the path
// again, which ends a partly written line with '\n' first.
func (j *File) drop() {
	j.headAt = -1
	if j.f != nil {
		_ = j.f.Close()
		j.f = nil
	}
}

// current makes sure the open file is the one at the path, reopening it
// when an outside tool renamed or removed it. Whatever was written to the
// old file was fsynced, so it stays durable where it now is.
func (j *File) current() error {
	if j.f != nil {
		pfi, perr := os.Stat(j.path)
		ffi, ferr := j.f.Stat()
		if perr == nil && ferr == nil && os.SameFile(pfi, ffi) {
			return nil
		}
		j.log.Info("journal: the file was moved away; opening the path again", "path", j.path)
		j.newFile()
		j.drop()
	}
	return j.open()
}

// open opens the path for appending and makes sure it ends with '\n'.
func (j *File) open() error {
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("journal: opening %s: %w", j.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("journal: opening %s: %w", j.path, err)
	}
	j.f, j.end = f, -1
	if fi.Mode().IsRegular() {
		unlock := lockFile(f)
		size, whole, err := j.endsLine()
		if err == nil && !whole {
			j.log.Warn("journal: the file ends in a torn line (a write cut short by a crash); ending it so the next record starts a fresh line", "path", j.path)
			if _, err = f.Write([]byte{'\n'}); err != nil {
				err = fmt.Errorf("journal: ending the torn last line of %s: %w", j.path, err)
			} else if err = f.Sync(); err != nil {
				err = fmt.Errorf("journal: syncing %s: %w", j.path, err)
			}
			size++
		}
		unlock()
		if err == nil {
			err = syncDir(filepath.Dir(j.path))
		}
		if err != nil {
			j.f = nil
			_ = f.Close()
			return err
		}
		j.end = size
	}
	return nil
}

// rotateFor renames the file away when adding n bytes would take it past
// RotateBytes, and opens a new one.
func (j *File) rotateFor(n int64) error {
	if j.rotate <= 0 {
		return nil
	}
	fi, err := j.f.Stat()
	if err != nil {
		j.drop()
		return fmt.Errorf("journal: %s: %w", j.path, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size()+n <= j.rotate {
		return nil
	}
	t := time.Now().UTC()
	name := j.path + "." + t.Format(rotatedLayout)
	for {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			break
		}
		t = t.Add(time.Nanosecond)
		name = j.path + "." + t.Format(rotatedLayout)
	}
	j.newFile()
	j.drop()
	if err := os.Rename(j.path, name); err != nil {
		return fmt.Errorf("journal: rotating %s: %w", j.path, err)
	}
	j.log.Info("journal: rotated by size", "path", j.path, "to", name, "bytes", fi.Size())
	return j.open() // syncs the directory, making the rename durable too
}

// newFile starts the chain of a new file, whose first record links to the
// last authentic record this writer knows of in the file it leaves.
func (j *File) newFile() {
	if j.chain.Seq > 0 {
		j.link = j.chain.MAC
	}
	j.chain = recauth.Chain{}
}

// syncDir makes a directory's entries (a new or renamed file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: opening directory %s to sync it: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("journal: syncing directory %s: %w", dir, err)
	}
	return nil
}

// Rotated returns the files rotated by size from the journal at path,
// oldest first.
func Rotated(path string) ([]string, error) {
	matches, err := filepath.Glob(escapeGlob(path) + ".*")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range matches {
		if _, err := time.Parse(rotatedLayout, strings.TrimPrefix(m, path+".")); err == nil {
			names = append(names, m)
		}
	}
	sort.Strings(names)
	return names, nil
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// buildIndex reads the rotated files and the current one, oldest first, so
// that FindResult sees the last record of each tool call. With keys, only
// a record that verifies and is in its place in the chain is indexed; the
// others are logged.
func (j *File) buildIndex() error {
	names, err := Rotated(j.path)
	if err != nil {
		return fmt.Errorf("journal: listing the rotated files of %s: %w", j.path, err)
	}
	j.chain.Start()
	for i, name := range append(names, j.path) {
		if i > 0 {
			j.chain.Link(j.link)
		}
		if err := j.indexFile(name, name == j.path); err != nil {
			return err
		}
		if j.chain.Seq > 0 {
			j.link = j.chain.MAC
		}
	}
	return nil
}

// maxLogged bounds how many records that do not verify Open logs one by
// one, per file; the rest are counted.
const maxLogged = 20

func (j *File) indexFile(name string, current bool) error {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		if current {
			j.chain, j.headAt = recauth.Chain{}, 0
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: opening %s to index it: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil // a device or a pipe holds no history
	}
	var end int64
	unauthenticated, refused := 0, 0
	// Only what the file held when it was opened is indexed: another
	// process may be appending to it all along, faster than this one
	// reads, and Open would never reach the end. The chain follows what it
	// appends later from headAt, as it follows any record another writer
	// appends after Open.
	for l := range lines(io.NewSectionReader(f, 0, fi.Size())) {
		end = l.end
		var le *LineError
		switch {
		case errors.As(l.err, &le):
			j.log.Warn("journal: skipping a line that holds no record", "path", name, "line", le.Line, "reason", le.Reason, "torn", le.Torn)
			continue
		case l.err != nil:
			return fmt.Errorf("journal: indexing %s: %w", name, l.err)
		}
		rec := l.rec
		if j.keys != nil {
			a, mac, err := j.keys.Verify(l.raw)
			if err == nil {
				err = j.chain.Next(a, mac)
			}
			switch {
			case errors.Is(err, recauth.ErrUnauthenticated):
				unauthenticated++
				continue
			case err != nil:
				if refused++; refused <= maxLogged {
					j.log.Warn("journal: a record does not verify; it is never replayed, so its tool call is asked again", "path", name, "line", l.n, "session", rec.Session, "tool_call", rec.ToolCallID, "reason", err.Error())
				}
				continue
			}
		}
		if rec.ToolCallID == "" || rec.Result == nil {
			continue
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("journal: indexing %s: %w", name, err)
		}
		j.index[key{rec.Session, rec.ToolCallID}] = line
	}
	if refused > maxLogged {
		j.log.Warn("journal: more records do not verify", "path", name, "not_logged", refused-maxLogged)
	}
	if unauthenticated > 0 {
		j.log.Warn("journal: records without authentication (written without a key ring, or not by askuser) are never replayed; their tool calls are asked again", "path", name, "records", unauthenticated)
	}
	if current {
		j.headAt = end
	}
	return nil
}

var _ interface {
	store.Journal
	store.ResultFinder
	io.Closer
} = (*File)(nil)

// checkData checks that a record given to Append is framed as one JSON
// object on one line. It does not validate the JSON again, which the
// orchestrator's encoder wrote (a second pass over every record cost a
// quarter of Append's throughput with 64 appenders): a line that is not
// JSON is what a reader reports as a *LineError and passes over.
func checkData(rec store.Record) error {
	d := rec.Data
	switch {
	case len(d) == 0:
		return errors.New("its Data is empty; a record is one JSON object")
	case d[0] != '{' || d[len(d)-1] != '}':
		return errors.New("its Data is not a JSON object")
	case bytes.IndexByte(d, '\n') >= 0:
		return errors.New("its Data holds a line break; a record is one JSON object on one line")
	}
	return nil
}
