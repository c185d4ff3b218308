package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
)

// MaxLineBytes is the longest line Read decodes; a longer one is reported
// as a *LineError and skipped.
const MaxLineBytes = 16 << 20

// A LineError is a line of a journal that holds no record. Read reports it
// and goes on with the next line.
type LineError struct {
	// Line is the line's number, counting from 1.
	Line int
	// Reason says what is wrong with it.
	Reason string
	// Torn is set for an incomplete record: a write cut short by a crash,
	// whose line Open later ended with '\n'. It was never reported
	// written.
	Torn bool
}

// Error returns "journal: line N: reason".
func (e *LineError) Error() string {
	return fmt.Sprintf("journal: line %d: %s", e.Line, e.Reason)
}

// Read returns an iterator over the records of a journal read from r, in
// order. A line that holds no record yields a nil record and a *LineError,
// and reading goes on; blank lines are skipped. The last line, when it does
// not end with '\n', is yielded if it holds a whole record and skipped
// silently otherwise (a torn last line, never acknowledged). An error
// reading r is yielded last. Read does not check a record's
// authentication: VerifyFile does.
func Read(r io.Reader) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for l := range lines(r) {
			if !yield(l.rec, l.err) {
				return
			}
		}
	}
}

// A rawLine is one line of a journal as lines yields it: its number, its
// bytes (valid only until the next line), and its record or why it holds
// none. end is the offset just past the line (and its '\n').
type rawLine struct {
	n   int
	raw []byte
	rec *Record
	err error
	end int64
}

// lines is Read with each line's bytes and offset.
func lines(r io.Reader) iter.Seq[rawLine] {
	return func(yield func(rawLine) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		var line []byte
		var off int64
		for n := 1; ; n++ {
			l, size, ended, tooLong, err := readLine(br, line[:0])
			line = l
			off += size
			if err != nil && err != io.EOF {
				yield(rawLine{n: n, err: fmt.Errorf("journal: reading line %d: %w", n, err), end: off})
				return
			}
			if !ended {
				// The last line, without its '\n': a record whose write was
				// cut short, unless it is whole.
				if len(line) > 0 && !tooLong {
					if rec, le := parseLine(n, line); le == nil {
						yield(rawLine{n: n, raw: line, rec: rec, end: off})
					}
				}
				return
			}
			if tooLong {
				if !yield(rawLine{n: n, err: &LineError{Line: n, Reason: fmt.Sprintf("the line is longer than %d bytes", MaxLineBytes)}, end: off}) {
					return
				}
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			rl := rawLine{n: n, raw: line, end: off}
			if rec, le := parseLine(n, line); le != nil {
				rl.err = le
			} else {
				rl.rec = rec
			}
			if !yield(rl) {
				return
			}
		}
	}
}

// ReadFile returns an iterator over the records of the journal file at
// path, as Read. The file is opened when the iteration starts and closed
// when it ends; an error opening it is yielded.
func ReadFile(path string) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			yield(nil, fmt.Errorf("journal: %w", err))
			return
		}
		defer f.Close()
		for rec, err := range Read(f) {
			if !yield(rec, err) {
				return
			}
		}
	}
}

// readLine reads one line into buf, without its '\n'. size is how many
// bytes it consumed; ended reports whether the line ended with '\n';
// tooLong, that it was longer than MaxLineBytes (its bytes are dropped).
// err is io.EOF at the end of the input.
func readLine(br *bufio.Reader, buf []byte) (line []byte, size int64, ended, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		size += int64(len(chunk))
		if !tooLong {
			if len(buf)+len(chunk) > MaxLineBytes+1 {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if !tooLong {
				buf = buf[:len(buf)-1]
			}
			return buf, size, true, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, size, false, tooLong, err
		}
	}
}

// parseLine decodes one line into a record.
func parseLine(n int, line []byte) (*Record, *LineError) {
	rec, err := Decode(line)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && torn(line) {
			return nil, &LineError{Line: n, Reason: "an incomplete record, cut short by a crash", Torn: true}
		}
		return nil, &LineError{Line: n, Reason: err.Error()}
	}
	return rec, nil
}

// torn reports whether a line that is not valid JSON is the beginning of a
// record cut short: an object that ends before it closes, perhaps followed
// by the zero bytes a file system leaves in a block it had not written.
func torn(line []byte) bool {
	line = bytes.TrimRight(line, "\x00")
	if len(line) == 0 {
		return true
	}
	if line[0] != '{' {
		return false
	}
	d := json.NewDecoder(bytes.NewReader(line))
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return false // a whole value ended: what follows it is no torn tail
		}
	}
}
