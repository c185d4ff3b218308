package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/askuser-go/askuser/secretstore"
)

// The secret store of ask and secret exec.
//
// Without --store, sealed secrets go to the default store, which outlives
// the command, so that a reference handed out can be resolved later:
//
//	$XDG_STATE_HOME/askuser/         (else ~/.local/state/askuser/), mode 0700
//	$XDG_STATE_HOME/askuser/key      the key file, mode 0600, made on first use
//	$XDG_STATE_HOME/askuser/store/   the records (see secretstore.Dir)
//
// XDG_STATE_HOME counts only when it is an absolute path, as the XDG base
// directory specification says. The key file is made by ask the first time
// it seals a secret there, atomically: written in full under a temporary
// name and linked into place, so that two commands making it at once agree
// on one key and no reader ever sees half a key. A key file that group or
// others may read or write is refused. --key-file FILE or
// $ASKUSER_SECRET_KEY give the key instead of the default key file;
// --store DIR keeps the records under DIR, and then needs one of them.

// Names in askuser's state directory.
const (
	stateDirName = "askuser"
	storeDirName = "store"
	keyFileName  = "key"
)

// stateDir returns askuser's state directory: $XDG_STATE_HOME/askuser, or
// ~/.local/state/askuser when XDG_STATE_HOME is unset or not absolute.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, stateDirName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no state directory for the default secret store: set XDG_STATE_HOME or HOME, or give --store DIR with --key-file FILE")
	}
	return filepath.Join(home, ".local", "state", stateDirName), nil
}

// A storeSpec says where sealed secrets go and where their key comes from,
// as the flags and the environment have it.
type storeSpec struct {
	dir        string // the directory of the records
	keyFile    string // the key file, unless fromEnv
	fromEnv    bool   // the key is in $ASKUSER_SECRET_KEY
	defaultKey bool   // keyFile is the default key file, made on first use
	err        error  // why there is no default store (no state directory)
}

// errStoreNeedsKey is the refusal of --store without a key: a key made up
// for one process could never open the records again.
var errStoreNeedsKey = fmt.Errorf("--store needs a key: give --key-file FILE or set %s to <key-id>:<base64 of 32 bytes> (several, comma-separated, newest first)", secretstore.KeyEnv)

// resolveStore returns the store the flags name: --store DIR with the key
// from --key-file or $ASKUSER_SECRET_KEY, or else the default store with
// the key from --key-file, $ASKUSER_SECRET_KEY or the default key file.
// It reads no file. Only --store without a key is an error here; a default
// store without a state directory is one when it is opened, so that an ask
// that seals nothing does not need one.
func resolveStore(storeFlag, keyFileFlag string) (storeSpec, error) {
	envKey := strings.TrimSpace(os.Getenv(secretstore.KeyEnv)) != ""
	if storeFlag != "" {
		if keyFileFlag == "" && !envKey {
			return storeSpec{}, errStoreNeedsKey
		}
		return storeSpec{dir: storeFlag, keyFile: keyFileFlag, fromEnv: keyFileFlag == ""}, nil
	}
	state, err := stateDir()
	if err != nil {
		return storeSpec{err: err}, nil
	}
	s := storeSpec{dir: filepath.Join(state, storeDirName), keyFile: keyFileFlag}
	switch {
	case keyFileFlag != "":
	case envKey:
		s.fromEnv = true
	default:
		s.keyFile, s.defaultKey = filepath.Join(state, keyFileName), true
	}
	return s, nil
}

// keySource names where the key comes from, for a message.
func (s storeSpec) keySource() string {
	if s.fromEnv {
		return "$" + secretstore.KeyEnv
	}
	return s.keyFile
}

// open opens the store. create says whether a missing default key file is
// made (ask, about to seal) or refused (secret exec: nothing was ever
// sealed there).
func (s storeSpec) open(create bool) (*secretstore.Dir, error) {
	if s.err != nil {
		return nil, s.err
	}
	var ring *secretstore.KeyRing
	var err error
	switch {
	case s.fromEnv:
		ring, err = secretstore.KeysFromEnv()
	case s.defaultKey:
		ring, err = defaultKeys(s.keyFile, s.dir, create)
	default:
		ring, err = readKeyFile("--key-file", s.keyFile)
	}
	if err != nil {
		return nil, err
	}
	return secretstore.OpenDir(s.dir, ring)
}

// defaultKeys reads the default key file, making it first when it does not
// exist and create is set.
func defaultKeys(keyFile, storeDir string, create bool) (*secretstore.KeyRing, error) {
	ring, err := readKeyFile("the key file", keyFile)
	if !errors.Is(err, fs.ErrNotExist) {
		return ring, err
	}
	if !create {
		return nil, fmt.Errorf("no secret was ever sealed in the default store: its key file %s does not exist (ask makes it on the first secret; or give --store DIR with --key-file FILE or $%s)", keyFile, secretstore.KeyEnv)
	}
	if err := makeKeyFile(keyFile, storeDir); err != nil {
		return nil, err
	}
	return readKeyFile("the key file", keyFile)
}

// makeKeyFile makes the default key file with one random key, mode 0600 in
// a directory of mode 0700. It writes the file in full under a temporary
// name and links it into place: a key file another command made first is
// kept, so that every command uses one key.
func makeKeyFile(keyFile, storeDir string) error {
	dir := filepath.Dir(keyFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making the default store's directory: %w", err)
	}
	var id [4]byte
	rand.Read(id[:])
	k, err := secretstore.RandomKey("default-" + time.Now().UTC().Format("20060102") + "-" + hex.EncodeToString(id[:]))
	if err != nil {
		return err
	}
	defer clear(k.Secret[:])
	text := fmt.Appendf(nil, "# The key of askuser's secret store %s, made on first use.\n"+
		"# Keep it private: anyone with this file can open the secrets sealed there,\n"+
		"# and without it nobody can. To rotate, put a new <key-id>:<base64 of 32 bytes>\n"+
		"# line first and keep this one after it until no record needs it.\n"+
		"%s:%s\n", storeDir, k.ID, base64.StdEncoding.EncodeToString(k.Secret[:]))
	defer clear(text)

	f, err := os.CreateTemp(dir, ".key-*") // mode 0600
	if err != nil {
		return fmt.Errorf("making the key file %s: %w", keyFile, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("making the key file %s: %w", keyFile, err)
	}
	if err := os.Link(tmp, keyFile); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("making the key file %s: %w", keyFile, err)
	}
	return syncDir(dir)
}

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return nil // directories cannot be synced there
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
