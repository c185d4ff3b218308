package stdio

import (
	"bytes"
	"io"
	"sync"
)

// lineReader is the one long-lived reader of an input: a goroutine that
// reads lines and hands them over, one at a time, on lines. It starts with
// the first question and ends at end of input or when stop is closed; a
// Read already in progress then ends when the input has data or is closed.
type lineReader struct {
	in    io.Reader
	lines chan []byte // closed at end of input, or once stopped

	startOnce sync.Once
	stopOnce  sync.Once
	stop      chan struct{}
}

func newLineReader(in io.Reader) *lineReader {
	return &lineReader{in: in, lines: make(chan []byte), stop: make(chan struct{})}
}

func (lr *lineReader) start() {
	lr.startOnce.Do(func() { go lr.run() })
}

// close stops the reader. A reader that never started is marked ended.
func (lr *lineReader) close() {
	lr.stopOnce.Do(func() { close(lr.stop) })
	lr.startOnce.Do(func() { close(lr.lines) })
}

// run reads lines. Lines end at "\n", with a "\r" before it dropped; the
// text after the last newline counts as a line. Bytes it no longer needs
// are cleared, since a line may be a secret typed on a terminal.
func (lr *lineReader) run() {
	defer close(lr.lines)
	var buf []byte
	chunk := make([]byte, 4096)
	defer func() { clear(buf[:cap(buf)]); clear(chunk) }()
	for {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line := append([]byte(nil), bytes.TrimSuffix(buf[:i], []byte("\r"))...)
			n := copy(buf, buf[i+1:])
			clear(buf[n:])
			buf = buf[:n]
			if !lr.send(line) {
				return
			}
			continue
		}
		n, err := lr.in.Read(chunk)
		buf = append(buf, chunk[:n]...)
		clear(chunk[:n])
		if err != nil {
			if len(buf) > 0 {
				line := append([]byte(nil), bytes.TrimSuffix(buf, []byte("\r"))...)
				lr.send(line)
			}
			return
		}
	}
}

func (lr *lineReader) send(line []byte) bool {
	select {
	case lr.lines <- line:
		return true
	case <-lr.stop:
		clear(line)
		return false
	}
}

// stopped reports whether the reader was stopped (by Close), rather than
// having reached the end of its input.
func (lr *lineReader) stopped() bool {
	select {
	case <-lr.stop:
		return true
	default:
		return false
	}
}

// drain discards the lines already read but not yet asked for (typed
// ahead, with echo on), so that none is ever taken for a secret, and
// reports whether there was one.
func (lr *lineReader) drain() (discarded bool) {
	for {
		select {
		case line, ok := <-lr.lines:
			if !ok {
				return discarded
			}
			clear(line)
			discarded = true
		default:
			return discarded
		}
	}
}
