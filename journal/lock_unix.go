//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package journal

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f, waiting for it,
// and returns what releases it. Every File takes it around the check of the
// file's last byte and the write that follows, so that several processes
// appending to one file never write between the two. The kernel releases the
// lock of a process that dies. Where the file system does not lock, the
// write goes ahead unlocked.
func lockFile(f *os.File) (unlock func()) {
	rc, err := f.SyscallConn()
	if err != nil {
		return func() {}
	}
	var lerr error
	err = rc.Control(func(fd uintptr) {
		for {
			lerr = syscall.Flock(int(fd), syscall.LOCK_EX)
			if lerr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil || lerr != nil {
		return func() {}
	}
	return func() {
		_ = rc.Control(func(fd uintptr) { _ = syscall.Flock(int(fd), syscall.LOCK_UN) })
	}
}
