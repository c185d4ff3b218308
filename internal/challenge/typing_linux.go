package challenge

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// tiocstiSwitch is the kernel's switch for TIOCSTI (Linux 6.2 and later).
const tiocstiSwitch = "/proc/sys/dev/tty/legacy_tiocsti"

// TypingAllowed reports whether the kernel lets a program type into the
// terminal it shares with the person (TIOCSTI): the switch reads 1, or
// the kernel predates the switch and always lets it.
func TypingAllowed() bool { return typingAllowed(tiocstiSwitch) }

// typingAllowed is TypingAllowed, with the switch read from path.
func typingAllowed(path string) bool {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && strings.TrimSpace(string(b)) == "1"
}
