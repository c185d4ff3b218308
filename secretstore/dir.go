package secretstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/askuser-go/askuser/secret"
	"golang.org/x/crypto/nacl/secretbox"
)

// Dir is a [Store] and a [Stager] that keeps each sealed record in its own
// file under a directory, so records outlive the process.
//
// The layout is an implementation detail: each session has a subdirectory
// named by a SHA-256 hash of its id, and each record a file named by a
// SHA-256 hash of its session and name, so any session id or name is safe
// (none reaches the file system) and neither appears in a file name.
// Directories are created with mode 0700 and files with 0600.
//
// A Put writes a temporary file beside the record, syncs it, renames it over
// the record and syncs the directory, so a record whose Put returned nil
// survives a crash of the process, and a reader sees the old record or the
// new one, never a mix. Any number of goroutines and processes may share one
// directory. DeleteSession first renames the session's subdirectory out of
// the way, in one step, and then removes it; a removal cut short leaves a
// ".del-" directory that the next OpenDir removes. A process killed during a
// Put may leave a ".tmp-" file holding a sealed record; it is never read.
//
// A Stage writes and syncs a ".stg-" file beside the record, which Get never
// reads; Commit renames it over the record and syncs the directory, so a
// commit is one atomic step, durable once it returns, and a Commit in one
// process may use up what a Stage in another put aside. A process killed
// between a Stage and its Commit or Discard leaves the ".stg-" file; it is
// never read, and DeleteSession removes it with the session.
type Dir struct {
	root string
	ring *KeyRing
	// Within one process, a DeleteSession waits for the Puts of its
	// session to finish (and the reverse) instead of making them retry;
	// sessions share locks by a hash of their id. Between processes, a
	// Put that loses a race with a DeleteSession retries.
	locks [64]sync.RWMutex
}

var _ Stager = (*Dir)(nil)

const (
	tombPrefix  = ".del-"
	tmpPrefix   = ".tmp-"
	stagePrefix = ".stg-"
	recSuffix   = ".rec"
	putTries    = 10 // a Put racing another process's DeleteSession retries this often
)

// maxRecordLen is the longest record Seal makes.
const maxRecordLen = 4 + MaxKeyIDLen + nonceLen + secretbox.Overhead + MaxValueLen

// OpenDir returns a store keeping its records under dir, creating dir (mode
// 0700) if needed. It needs a key ring: with a nil ring it returns an error
// wrapping [ErrNoKey], since records sealed under a key made up for one
// process would not open in the next.
func OpenDir(dir string, ring *KeyRing) (*Dir, error) {
	if ring == nil {
		return nil, fmt.Errorf("%w: a directory store needs a key ring (see KeysFromEnv, KeysFromFile)", ErrNoKey)
	}
	if dir == "" {
		return nil, errors.New("secretstore: empty directory name: OpenDir needs a directory to keep records in")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("secretstore: creating the store directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("secretstore: opening the store directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("secretstore: %s is not a directory: the store needs a directory", dir)
	}
	d := &Dir{root: filepath.Clean(dir), ring: ring}
	d.sweep()
	return d, nil
}

// sweep removes what a DeleteSession cut short left behind.
func (d *Dir) sweep() {
	entries, err := os.ReadDir(d.root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tombPrefix) {
			_ = os.RemoveAll(filepath.Join(d.root, e.Name()))
		}
	}
}

// Path returns the directory the store keeps its records under.
func (d *Dir) Path() string { return d.root }

func (d *Dir) sessionDir(session string) string {
	p, _ := d.session(session)
	return p
}

// session returns the directory of a session and the lock that guards it.
func (d *Dir) session(session string) (string, *sync.RWMutex) {
	h := sha256.New()
	h.Write([]byte("askuser secretstore session\x00"))
	h.Write([]byte(session))
	sum := h.Sum(nil)
	return filepath.Join(d.root, "s-"+hex.EncodeToString(sum)), &d.locks[int(sum[0])%len(d.locks)]
}

func (d *Dir) recordPath(session, name string) string {
	var n [4]byte
	h := sha256.New()
	h.Write([]byte("askuser secretstore record\x00"))
	binary.BigEndian.PutUint32(n[:], uint32(len(session)))
	h.Write(n[:])
	h.Write([]byte(session))
	binary.BigEndian.PutUint32(n[:], uint32(len(name)))
	h.Write(n[:])
	h.Write([]byte(name))
	return filepath.Join(d.sessionDir(session), hex.EncodeToString(h.Sum(nil))+recSuffix)
}

// Put implements [Store].
func (d *Dir) Put(ctx context.Context, session, name string, v secret.Value) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pt := v.Reveal()
	rec, err := Seal(d.ring, session, name, pt)
	clear(pt)
	if err != nil {
		return err
	}
	sdir, lock := d.session(session)
	path := d.recordPath(session, name)
	lock.RLock()
	defer lock.RUnlock()
	for try := 0; ; try++ {
		err := d.write(sdir, path, rec)
		if err == nil {
			return nil
		}
		// ENOENT: a DeleteSession moved the session directory away
		// between our mkdir and our rename; start again.
		if !errors.Is(err, fs.ErrNotExist) || try == putTries-1 {
			return fmt.Errorf("secretstore: writing record (session %q, name %q): %w", session, name, err)
		}
	}
}

// write puts rec at path atomically and durably.
func (d *Dir) write(sdir, path string, rec []byte) (err error) {
	if err := os.Mkdir(sdir, 0o700); err == nil {
		if err := syncDir(d.root); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := os.CreateTemp(sdir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(rec); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(sdir)
}

// Stage implements [Stager].
func (d *Dir) Stage(ctx context.Context, session, name string, v secret.Value) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	pt := v.Reveal()
	rec, err := Seal(d.ring, session, name, pt)
	clear(pt)
	if err != nil {
		return "", err
	}
	sdir, lock := d.session(session)
	prefix := stagePrefix + strings.TrimSuffix(filepath.Base(d.recordPath(session, name)), recSuffix) + "-"
	lock.RLock()
	defer lock.RUnlock()
	for try := 0; ; try++ {
		id := prefix + newStageID()
		err := d.writeStaged(sdir, filepath.Join(sdir, id), rec)
		if err == nil {
			return id, nil
		}
		// ENOENT: a DeleteSession moved the session directory away
		// between our mkdir and our create; start again.
		if !errors.Is(err, fs.ErrNotExist) || try == putTries-1 {
			return "", fmt.Errorf("secretstore: staging a record (session %q, name %q): %w", session, name, err)
		}
	}
}

// writeStaged writes rec to a new file at path and syncs it. The directory
// entry becomes durable when Commit renames the file and syncs the
// directory.
func (d *Dir) writeStaged(sdir, path string, rec []byte) (err error) {
	if err := os.Mkdir(sdir, 0o700); err == nil {
		if err := syncDir(d.root); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(path)
		}
	}()
	if _, err := f.Write(rec); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// stagedPath returns the path of what Stage kept aside under id for the
// record at path, or false when id is not such a name.
func stagedPath(path, id string) (string, bool) {
	prefix := stagePrefix + strings.TrimSuffix(filepath.Base(path), recSuffix) + "-"
	rnd, ok := strings.CutPrefix(id, prefix)
	if !ok || len(rnd) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(rnd); err != nil {
		return "", false
	}
	return filepath.Join(filepath.Dir(path), id), true
}

// Commit implements [Stager].
func (d *Dir) Commit(ctx context.Context, session, name, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	path := d.recordPath(session, name)
	staged, ok := stagedPath(path, id)
	if !ok {
		return notStaged(session, name)
	}
	sdir, lock := d.session(session)
	lock.RLock()
	defer lock.RUnlock()
	if err := os.Rename(staged, path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return notStaged(session, name)
		}
		return fmt.Errorf("secretstore: committing a staged record (session %q, name %q): %w", session, name, err)
	}
	if err := syncDir(sdir); err != nil {
		return fmt.Errorf("secretstore: committing a staged record (session %q, name %q): %w", session, name, err)
	}
	return nil
}

// Discard implements [Stager].
func (d *Dir) Discard(ctx context.Context, session, name, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	staged, ok := stagedPath(d.recordPath(session, name), id)
	if !ok {
		return nil
	}
	if err := os.Remove(staged); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("secretstore: discarding a staged record (session %q, name %q): %w", session, name, err)
	}
	if err := syncDir(filepath.Dir(staged)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("secretstore: discarding a staged record (session %q, name %q): %w", session, name, err)
	}
	return nil
}

// Get implements [Store].
func (d *Dir) Get(ctx context.Context, session, name string) (secret.Value, error) {
	if err := ctx.Err(); err != nil {
		return secret.Value{}, err
	}
	if err := checkNames(session, name); err != nil {
		return secret.Value{}, err
	}
	f, err := os.Open(d.recordPath(session, name))
	if errors.Is(err, fs.ErrNotExist) {
		return secret.Value{}, notFound(session, name)
	}
	if err != nil {
		return secret.Value{}, fmt.Errorf("secretstore: reading record (session %q, name %q): %w", session, name, err)
	}
	rec, err := io.ReadAll(io.LimitReader(f, maxRecordLen+1))
	_ = f.Close()
	if err != nil {
		return secret.Value{}, fmt.Errorf("secretstore: reading record (session %q, name %q): %w", session, name, err)
	}
	return openValue(d.ring, session, name, rec)
}

// Delete implements [Store].
func (d *Dir) Delete(ctx context.Context, session, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, name); err != nil {
		return err
	}
	path := d.recordPath(session, name)
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("secretstore: deleting record (session %q, name %q): %w", session, name, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("secretstore: deleting record (session %q, name %q): %w", session, name, err)
	}
	return nil
}

// DeleteSession implements [Store].
func (d *Dir) DeleteSession(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkNames(session, "-"); err != nil {
		return err
	}
	var r [16]byte
	rand.Read(r[:])
	tomb := filepath.Join(d.root, tombPrefix+hex.EncodeToString(r[:]))
	sdir, lock := d.session(session)
	lock.Lock()
	err := os.Rename(sdir, tomb)
	lock.Unlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("secretstore: deleting session %q: %w", session, err)
	}
	if err := syncDir(d.root); err != nil {
		return fmt.Errorf("secretstore: deleting session %q: %w", session, err)
	}
	// The session is gone for every reader from here on. If the removal is
	// cut short, the next OpenDir finishes it.
	if err := os.RemoveAll(tomb); err != nil {
		return fmt.Errorf("secretstore: session %q is deleted, but removing its files failed (the next OpenDir retries): %w", session, err)
	}
	return nil
}

// syncDir makes a rename or a removal in dir durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return nil // directories cannot be synced there; renames are durable on NTFS
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
