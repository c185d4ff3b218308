//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package stdio

import "errors"

// canHideInput is false where this package cannot turn a terminal's echo
// off: no secret is read there.
const canHideInput = false

func noEcho(int) (func(), error) {
	return nil, errors.New("stdio: reading without echo is not supported on this system")
}

func flushInput(int) error {
	return errors.New("stdio: flushing a terminal's input is not supported on this system")
}
