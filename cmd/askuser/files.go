package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/askuser-go/askuser/dialect"
	"github.com/askuser-go/askuser/internal/hostcheck"
	"github.com/askuser-go/askuser/responder/scripted"
	"github.com/askuser-go/askuser/secretstore"
)

// The files the command reads, and how.
//
// Every file named on the command line (a call, a script, a key file, a
// journal) must be a regular file. A symbolic link is followed, as a user
// whose dotfiles are links expects, and the file it names is held to the
// same rules (for a key file, its mode is the mode checked). A FIFO, a
// device, a socket or a directory is refused before it is opened for
// reading: a FIFO would block the command until some writer came, a device
// such as /dev/zero would never end. Files are opened without waiting, and
// checked again once open, so that a file swapped for a FIFO in between is
// refused too. Standard input is read as it comes.
//
// Each file is read no further than its cap, so that no file, however
// large, makes the command run out of memory.

// The caps on what the command reads.
const (
	// maxCallRead is how much of a call is read: one byte more than the
	// decoder accepts, so that the decoder's own message about the cap
	// (the one the model would read) is what the caller sees.
	maxCallRead = dialect.DefaultMaxCallBytes + 1
	// maxScriptBytes caps a script file.
	maxScriptBytes = scripted.MaxFileBytes
	// maxKeyFileBytes caps a key file: a few lines of
	// <key-id>:<base64 of 32 bytes> and comments fit many times over.
	maxKeyFileBytes = 64 << 10
)

// openRegular opens the file name for reading, refusing anything but a
// regular file. what is how messages name it ("--request", "script"); hint
// says what to give instead of a file that is not regular.
func openRegular(what, name, hint string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, nil, fileError(what, name, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(what, name, fi.Mode(), hint)
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, fileError(what, name, err)
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fileError(what, name, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(what, name, fi.Mode(), hint)
	}
	return f, fi, nil
}

// checkJournal refuses a journal file that exists and would hang or
// mislead the journal package, which opens it: a FIFO (opening it waits for
// a writer), a device or a socket. A file that does not exist yet passes
// (the journal makes it), and so does a directory, which the journal
// package refuses at once with its own message.
func checkJournal(name string) error {
	fi, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fileError("--journal", name, err)
	case !fi.Mode().IsRegular() && !fi.IsDir():
		return notRegular("--journal", name, fi.Mode(), "the journal is a regular file askuser appends to; give its path, or the path of one to create")
	}
	return nil
}

// readCapped reads the regular file name whole, refusing one larger than
// max bytes (before reading it, when its size says so). hint says what to
// give instead of a file that is not regular, advice what to do about one
// that is too large.
func readCapped(what, name string, max int64, hint, advice string) ([]byte, error) {
	f, fi, err := openRegular(what, name, hint)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s %s is larger than %s, the most askuser reads of it; %s", what, name, hostcheck.Bytes(max), advice)
	if fi.Size() > max {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fileError(what, name, err)
	}
	if int64(len(data)) > max { // it grew since
		clear(data)
		return nil, tooLarge
	}
	return data, nil
}

// readCall reads a call from the file name, or from standard input when
// name is empty or "-", no further than maxCallRead.
func (e env) readCall(what, name string) ([]byte, error) {
	if name == "" || name == "-" {
		return io.ReadAll(io.LimitReader(e.stdin, maxCallRead))
	}
	f, _, err := openRegular(what, name, "give a regular file, or pipe the call into standard input")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCallRead))
	if err != nil {
		return nil, fileError(what, name, err)
	}
	return data, nil
}

// readScript reads a script file.
func readScript(name string) ([]byte, error) {
	return readCapped("script", name, maxScriptBytes,
		"a script is a regular file holding one JSON object",
		"a script is one JSON object with a few answers: make it smaller")
}

// readKeyFile reads the keys in a key file. On Unix the file must not be
// readable or writable by group or others (mode 0600 or stricter), as ssh
// requires of a private key; the bytes read are cleared once parsed.
func readKeyFile(what, name string) (*secretstore.KeyRing, error) {
	f, fi, err := openRegular(what, name, "keep the keys in a regular file of mode 0600")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if checkKeyMode && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", what, name, fi.Mode().Perm())
	}
	if fi.Size() > maxKeyFileBytes {
		return nil, keyFileTooLarge(what, name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	defer clear(data)
	if err != nil {
		return nil, fileError(what, name, err)
	}
	if len(data) > maxKeyFileBytes {
		return nil, keyFileTooLarge(what, name)
	}
	ring, err := secretstore.ParseKeys(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	return ring, nil
}

func keyFileTooLarge(what, name string) error {
	return fmt.Errorf("%s %s is larger than %s, the most askuser reads of a key file; a key file holds a few lines of <key-id>:<base64 of 32 bytes>: check that this is the key file",
		what, name, hostcheck.Bytes(maxKeyFileBytes))
}

// makePrivateDir makes the directory dir, mode 0700, with its parents,
// and refuses one that exists and is not private: on Unix, one that group
// or others may read, write or enter, or that another user owns. what
// names it in messages ("--state").
//
// It refuses rather than tightens. The directory may be one the user
// shares on purpose, or one that is not askuser's at all (--state $HOME,
// --state /tmp), whose mode is not askuser's to change; and a directory
// others could write may already hold a file they put there (a token file
// of their choosing), which a chmod now would not take out. As ssh does
// with ~/.ssh, it says what is wrong and leaves the fix to the user.
func makePrivateDir(what, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fileError(what, dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fileError(what, dir, err)
	}
	if !fi.IsDir() {
		return notADir(what, dir)
	}
	if !checkKeyMode {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s has mode %#o: group or others may reach the tokens, keys and asks askuser keeps there; make it private (chmod 700 %s) or give another directory", what, dir, perm, dir)
	}
	if ownedByOther(fi) {
		return fmt.Errorf("%s %s belongs to another user: askuser keeps its tokens, keys and asks only in a directory of its own user's; give another directory", what, dir)
	}
	return nil
}

// notADir is the refusal of a directory's path that names something
// else.
func notADir(what, name string) error {
	return fmt.Errorf("%s %s is not a directory; give the path of a directory, or of one to create", what, name)
}

// fileError names the file in an error from the os package, once.
func fileError(what, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: %w", what, name, err)
}

// notRegular is the refusal of a file that is not a regular file.
func notRegular(what, name string, mode fs.FileMode, hint string) error {
	var kind string
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	case mode&fs.ModeDevice != 0:
		kind = "a device"
	case mode.IsDir():
		kind = "a directory"
	default:
		kind = "a special file"
	}
	return fmt.Errorf("%s %s is %s, not a regular file; %s", what, name, kind, hint)
}
