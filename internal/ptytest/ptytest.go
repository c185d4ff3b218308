//go:build linux

// Package ptytest types into a pseudo-terminal as another program that
// shares the terminal would, for the tests of the terminal responders.
package ptytest

import (
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Inject types s on the terminal tty as a program that shares it can,
// with the TIOCSTI ioctl, a byte at a time, and reports whether it could.
// Where the kernel refuses (TIOCSTI switched off and no CAP_SYS_ADMIN, or
// tty not the caller's controlling terminal and no CAP_SYS_ADMIN), it
// writes s to master, the pseudo-terminal's other end, which puts the
// bytes on the terminal's input queue as TIOCSTI does.
func Inject(tty, master *os.File, s string) (ioctl bool, err error) {
	rc, err := tty.SyscallConn()
	if err != nil {
		return false, err
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		var errno unix.Errno
		if cerr := rc.Control(func(fd uintptr) {
			_, _, errno = unix.Syscall(unix.SYS_IOCTL, fd, unix.TIOCSTI, uintptr(unsafe.Pointer(&b)))
		}); cerr != nil {
			return false, cerr
		}
		if errno != 0 {
			if i > 0 {
				return true, errno // the kernel took some and refused the rest
			}
			_, err := io.WriteString(master, s)
			return false, err
		}
	}
	return true, nil
}
