// Package recauth authenticates the lines askuser keeps about decisions —
// journal records and remembered consents — and chains them, so that a
// line added, changed, moved or removed is found by whoever holds the key
// ring.
//
// A line is a JSON object. Its authentication is the object's last member,
// written by Seal and by nothing else:
//
//	{…the record…,"auth":{"key":"k1","seq":7,"prev":"…","mac":"…"}}
//
// The MAC is HMAC-SHA-256, under a key derived from the ring's key that
// "key" names (secretstore.KeyRing.DeriveWith, with a label per kind of
// line), of the label, the key id, the writer, the sequence number, the
// previous MAC and the line without its "auth" member (the exact bytes
// written, so no re-encoding is involved). Each field is length-prefixed,
// so no two inputs read alike.
package recauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"sync"

	"github.com/askuser-go/askuser/secretstore"
	"github.com/askuser-go/askuser/store"
)

// The labels of the derived keys, one per kind of line, so that a line of
// one kind never verifies as another.
const (
	LabelJournal = "askuser journal record v1"
	LabelConsent = "askuser consent v1"
)

// Why a line is not to be trusted; test with errors.Is.
var (
	// ErrUnauthenticated: the line carries no authentication (written
	// without a key ring, or by hand).
	ErrUnauthenticated = errors.New("not authenticated")
	// ErrMalformed: the line's authentication is not as Seal writes it.
	ErrMalformed = errors.New("malformed authentication")
	// ErrUnknownKey: the line names a key the ring does not hold.
	ErrUnknownKey = errors.New("made with a key the key ring does not hold")
	// ErrBadMAC: the MAC does not match: the line was changed or forged.
	ErrBadMAC = errors.New("the MAC does not match: the record was changed, or not written by a holder of the key")
	// ErrChain: an authentic line out of its place: a line before it was
	// removed, or it was moved or copied here.
	ErrChain = errors.New("out of its place in the chain")
)

// marker starts the authentication member of a line.
var marker = []byte(`,"auth":{`)

// A Keys makes and checks MACs of one kind of line with a key ring. It is
// safe for concurrent use.
type Keys struct {
	ring  *secretstore.KeyRing
	label string

	mu   sync.Mutex
	byID map[string]hash.Hash // an HMAC per key id, Reset before each use
}

// New returns the MAC keys of ring for the kind of line label names.
func New(ring *secretstore.KeyRing, label string) *Keys {
	return &Keys{ring: ring, label: label, byID: map[string]hash.Hash{}}
}

// Current returns the id of the key new lines are made with.
func (k *Keys) Current() string { return k.ring.Current() }

// mac computes the MAC of a line's head (the line up to its "auth"
// member, without the closing brace) under the key id.
func (k *Keys) mac(id, writer string, seq uint64, prev string, head []byte) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	h, ok := k.byID[id]
	if !ok {
		key, err := k.ring.DeriveWith(id, k.label)
		if err != nil {
			return nil, ErrUnknownKey
		}
		h = hmac.New(sha256.New, key[:])
		clear(key[:])
		k.byID[id] = h
	}
	h.Reset()
	var n [8]byte
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	field([]byte(k.label))
	field([]byte(id))
	field([]byte(writer))
	binary.BigEndian.PutUint64(n[:], seq)
	h.Write(n[:])
	field([]byte(prev))
	field(head)
	return h.Sum(make([]byte, 0, sha256.Size)), nil
}

// Encode returns a MAC as a line carries it.
func Encode(mac []byte) string { return base64.RawURLEncoding.EncodeToString(mac) }

// Seal returns body, a JSON object, with its authentication as its last
// member: the MAC under the ring's current key of the line's place
// (writer, seq) and the previous MAC prev (nil for none). It returns the
// line and its MAC.
func (k *Keys) Seal(body []byte, writer string, seq uint64, prev []byte) (line, mac []byte, err error) {
	body = bytes.TrimRight(body, " \t\r\n")
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, nil, errors.New("recauth: only a JSON object can be sealed")
	}
	head := body[:len(body)-1]
	if len(bytes.TrimSpace(head[1:])) == 0 {
		return nil, nil, errors.New("recauth: an empty object cannot be sealed")
	}
	a := store.RecordAuth{Key: k.Current(), Writer: writer, Seq: seq}
	if prev != nil {
		a.Prev = Encode(prev)
	}
	mac, err = k.mac(a.Key, a.Writer, a.Seq, a.Prev, head)
	if err != nil {
		return nil, nil, err
	}
	a.MAC = Encode(mac)
	line = make([]byte, 0, len(body)+len(marker)+128)
	line = append(line, head...)
	line = append(line, marker[:len(marker)-1]...)
	line = appendAuth(line, &a)
	line = append(line, '}')
	return line, mac, nil
}

// appendAuth writes a in the one form Seal writes and Split accepts.
func appendAuth(b []byte, a *store.RecordAuth) []byte {
	b = append(b, `{"key":"`...)
	b = append(b, a.Key...)
	b = append(b, '"')
	if a.Writer != "" {
		b = append(b, `,"writer":"`...)
		b = append(b, a.Writer...)
		b = append(b, '"')
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, a.Seq, 10)
	if a.Prev != "" {
		b = append(b, `,"prev":"`...)
		b = append(b, a.Prev...)
		b = append(b, '"')
	}
	b = append(b, `,"mac":"`...)
	b = append(b, a.MAC...)
	return append(b, `"}`...)
}

// Split finds the authentication of a line: the line's head (up to the
// "auth" member, without the closing brace) and the authentication. It
// returns ErrUnauthenticated for a line without one, and ErrMalformed for
// one that is not exactly as Seal writes it.
func Split(line []byte) (head []byte, a store.RecordAuth, err error) {
	line = bytes.TrimRight(line, " \t\r\n")
	i := bytes.LastIndex(line, marker)
	if i < 0 || len(line) < 2 || line[len(line)-1] != '}' {
		if bytes.Contains(line, []byte(`"auth"`)) {
			return nil, a, fmt.Errorf("%w: an \"auth\" member that is not the last one of the record", ErrMalformed)
		}
		return nil, a, ErrUnauthenticated
	}
	raw := line[i+len(marker)-1 : len(line)-1]
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		return nil, store.RecordAuth{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	switch {
	case !tokenOK(a.Key, 64, true):
		return nil, store.RecordAuth{}, fmt.Errorf("%w: the key id is not one a key ring allows", ErrMalformed)
	case !tokenOK(a.Writer, 64, false):
		return nil, store.RecordAuth{}, fmt.Errorf("%w: the writer id is not 1 to 64 letters, digits, '-' or '_'", ErrMalformed)
	case !macOK(a.MAC) || a.Prev != "" && !macOK(a.Prev):
		return nil, store.RecordAuth{}, fmt.Errorf("%w: a MAC is not 43 characters of base64url", ErrMalformed)
	}
	if !bytes.Equal(appendAuth(nil, &a), raw) {
		return nil, store.RecordAuth{}, fmt.Errorf("%w: not written in the form askuser writes it", ErrMalformed)
	}
	return line[:i], a, nil
}

// tokenOK reports whether s is at most max bytes of letters, digits, '-',
// '_' (and '.', where dot): a key id or a writer id; empty only when it
// may be absent (a writer).
func tokenOK(s string, max int, keyID bool) bool {
	if len(s) > max || keyID && s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || keyID && c == '.') {
			return false
		}
	}
	return true
}

func macOK(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.Strict().DecodeString(s)
	return err == nil
}

// Verify checks a line's MAC. It returns the line's authentication and
// its MAC, or why the line is not to be trusted: ErrUnauthenticated,
// ErrMalformed, ErrUnknownKey or ErrBadMAC (wrapped).
func (k *Keys) Verify(line []byte) (store.RecordAuth, []byte, error) {
	head, a, err := Split(line)
	if err != nil {
		return a, nil, err
	}
	want, err := k.mac(a.Key, a.Writer, a.Seq, a.Prev, head)
	if err != nil {
		return a, nil, fmt.Errorf("%w (key id %q)", err, a.Key)
	}
	got, _ := base64.RawURLEncoding.DecodeString(a.MAC)
	if !hmac.Equal(want, got) {
		return a, nil, ErrBadMAC
	}
	return a, want, nil
}

// A Chain follows the authentic lines of one chain in order and says of
// each whether it is in its place: the next sequence number, carrying the
// MAC of the authentic line before it. The zero Chain starts anywhere (the
// start of the chain is not being checked); Start and Link say how it must
// start.
type Chain struct {
	Seq uint64 // the last authentic line's sequence number; 0 before any
	MAC []byte // the last authentic line's MAC

	start int // startAny, startOne, startLinked (before the first line)
	link  []byte
}

const (
	startAny = iota
	startOne
	startLinked
)

// Start makes the chain's first line have to be its first (sequence 1),
// linking to whatever it links to: an earlier file that is not at hand.
func (c *Chain) Start() { *c = Chain{start: startOne} }

// Link makes the chain's first line have to be sequence 1 and carry prev
// (nil: none) as the MAC of the line before it: the last of the earlier
// file, or none for a journal's first file.
func (c *Chain) Link(prev []byte) { *c = Chain{start: startLinked, link: prev} }

// Next takes the next authentic line (its authentication and MAC, as
// Verify returns them) and says whether it is in its place (nil) or not
// (an error wrapping ErrChain). Either way the chain moves on to it, so
// that the lines after a break are judged against it and a break is
// reported once.
func (c *Chain) Next(a store.RecordAuth, mac []byte) error {
	var err error
	first := c.Seq == 0
	switch {
	case first && c.start == startAny:
	case a.Seq != c.Seq+1:
		err = fmt.Errorf("%w: sequence %d where %d was expected (a record before it was removed, or it was moved or copied here)", ErrChain, a.Seq, c.Seq+1)
	case first && c.start == startOne:
	case first && a.Prev != encodeOrEmpty(c.link), !first && a.Prev != Encode(c.MAC):
		err = fmt.Errorf("%w: it does not carry the MAC of the record before it (that record was removed or replaced, or this one was moved or copied here)", ErrChain)
	}
	c.Seq, c.MAC = a.Seq, mac
	return err
}

func encodeOrEmpty(b []byte) string {
	if b == nil {
		return ""
	}
	return Encode(b)
}
