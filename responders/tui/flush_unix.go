//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package tui

import "golang.org/x/sys/unix"

// withOutputProcessing sets OPOST and ONLCR on the terminal fd, with the
// ioctls that get and set its termios. Raw mode turns them off, but Bubble
// Tea, reading keys from the responder's pipe and not from the terminal,
// draws as on a terminal that still turns a line feed into a carriage
// return and a line feed: without them every row starts where the one
// above ended, and rows of the frame before stay on the screen.
func withOutputProcessing(fd int, get, set uint) error {
	t, err := unix.IoctlGetTermios(fd, get)
	if err != nil {
		return err
	}
	t.Oflag |= unix.OPOST | unix.ONLCR
	return unix.IoctlSetTermios(fd, set, t)
}
