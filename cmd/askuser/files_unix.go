//go:build unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock opens a file without waiting: a FIFO that became one after
// it was checked opens at once instead of waiting for a writer, and is then
// refused.
const openNonblock = syscall.O_NONBLOCK

// checkKeyMode refuses a key file that group or others may read or write,
// as ssh refuses such a private key.
const checkKeyMode = true

// ownedByOther reports whether the file fi describes belongs to a user
// other than the one running askuser.
func ownedByOther(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Getuid()
}
