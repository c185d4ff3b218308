package secretstore

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/nacl/secretbox"

	"github.com/askuser-go/askuser/secret"
)

// ErrOpen is the one error for every record that does not open: altered,
// truncated, of an unknown format version, sealed under a key the ring does
// not hold, or sealed for another session or name. It says no more than that
// on purpose; [Open] and every [Store.Get] return it unwrapped.
var ErrOpen = errors.New("secretstore: record does not open: it is damaged, was sealed for another session or name, or its key is not in the key ring")

// ErrNoKey reports that no key was given where one is required.
var ErrNoKey = errors.New("secretstore: no key")

// Limits on what Seal accepts.
const (
	MaxValueLen = 1 << 20 // bytes of plaintext in one record
	MaxNameLen  = 1 << 16 // bytes in a session id or a secret name
)

// The record format, version 1:
//
//	magic    2 bytes  "as"
//	version  1 byte   1
//	idLen    1 byte   1..MaxKeyIDLen
//	keyID    idLen bytes
//	nonce    24 bytes, fresh from crypto/rand for every seal
//	box      secretbox.Seal(plaintext, nonce, subkey): 16-byte tag + ciphertext
//
// The record's subkey comes from HKDF-SHA-256 (RFC 5869) in its two steps:
//
//	prk    = HKDF-Extract(salt = extractSalt, secret = ring key)
//	subkey = HKDF-Expand(prk, info, 32)
//	info   = infoLabel ‖ header (magic through keyID) ‖ nonce
//	         ‖ len(session) ‖ session ‖ len(name) ‖ name
//
// with each length as 4 big-endian bytes. The extract step depends only on
// the ring key, so a KeyRing does it once per key; every record still gets
// its own subkey, since its nonce is in info. Opening under a different
// header, session or name derives a different subkey, which the Poly1305 tag
// refuses.
const (
	magic0, magic1 = 'a', 's'
	version1       = 1
	nonceLen       = 24
	extractSalt    = "askuser secretstore v1 extract"
	infoLabel      = "askuser secretstore v1 record\x00"
)

// headerLen returns the length of the header for a key id.
func headerLen(id string) int { return 4 + len(id) + nonceLen }

func checkNames(session, name string) error {
	switch {
	case session == "":
		return errors.New("secretstore: empty session id: a secret belongs to a session, so one is required")
	case name == "":
		return errors.New("secretstore: empty secret name: a secret is stored under a non-empty name")
	case len(session) > MaxNameLen:
		return fmt.Errorf("secretstore: session id is %d bytes long: at most %d are allowed", len(session), MaxNameLen)
	case len(name) > MaxNameLen:
		return fmt.Errorf("secretstore: secret name is %d bytes long: at most %d are allowed", len(name), MaxNameLen)
	}
	return nil
}

// extract is the first HKDF step for a ring key.
func extract(secret *[32]byte) ([]byte, error) {
	return hkdf.Extract(sha256.New, secret[:], []byte(extractSalt))
}

// subkey derives the record key for header hdr (magic through keyID), the
// given nonce, session and name.
func subkey(k *ringKey, hdr, nonce []byte, session, name string) ([32]byte, error) {
	var info strings.Builder
	info.Grow(len(infoLabel) + len(hdr) + len(nonce) + 8 + len(session) + len(name))
	var n [4]byte
	info.WriteString(infoLabel)
	info.Write(hdr)
	info.Write(nonce)
	binary.BigEndian.PutUint32(n[:], uint32(len(session)))
	info.Write(n[:])
	info.WriteString(session)
	binary.BigEndian.PutUint32(n[:], uint32(len(name)))
	info.Write(n[:])
	info.WriteString(name)
	var sk [32]byte
	b, err := hkdf.Expand(sha256.New, k.prk, info.String(), 32)
	if err != nil {
		return sk, err
	}
	copy(sk[:], b)
	clear(b)
	return sk, nil
}

// Seal encrypts plaintext for (session, name) under the ring's current key
// and returns the record. It does not keep or change plaintext.
func Seal(ring *KeyRing, session, name string, plaintext []byte) ([]byte, error) {
	if ring == nil {
		return nil, fmt.Errorf("%w: Seal needs a key ring", ErrNoKey)
	}
	if err := checkNames(session, name); err != nil {
		return nil, err
	}
	if len(plaintext) > MaxValueLen {
		return nil, fmt.Errorf("secretstore: secret is %d bytes long: at most %d are allowed", len(plaintext), MaxValueLen)
	}
	id := ring.Current()
	key, _ := ring.key(id)
	n := headerLen(id)
	rec := make([]byte, n, n+secretbox.Overhead+len(plaintext))
	rec[0], rec[1], rec[2], rec[3] = magic0, magic1, version1, byte(len(id))
	copy(rec[4:], id)
	nonce := rec[4+len(id) : n]
	rand.Read(nonce) // never fails, per its documentation
	sk, err := subkey(key, rec[:4+len(id)], nonce, session, name)
	if err != nil {
		return nil, fmt.Errorf("secretstore: deriving the record key: %w", err)
	}
	defer clear(sk[:])
	return secretbox.Seal(rec, plaintext, (*[nonceLen]byte)(nonce), &sk), nil
}

// Open decrypts a record sealed by [Seal] for (session, name) with any key in
// the ring. Every failure to open returns [ErrOpen] itself, whatever the
// cause; only a nil ring is reported differently, as [ErrNoKey].
func Open(ring *KeyRing, session, name string, record []byte) ([]byte, error) {
	if ring == nil {
		return nil, fmt.Errorf("%w: Open needs a key ring", ErrNoKey)
	}
	out, err := openAppend(nil, ring, session, name, record)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []byte{} // an empty secret opens as empty, not as nil
	}
	return out, nil
}

// openAppend is Open appending the plaintext to dst.
func openAppend(dst []byte, ring *KeyRing, session, name string, record []byte) ([]byte, error) {
	idLen, ok := parseHeader(record)
	if !ok {
		return nil, ErrOpen
	}
	key, ok := ring.key(string(record[4 : 4+idLen]))
	if !ok {
		return nil, ErrOpen
	}
	n := 4 + idLen + nonceLen
	nonce := record[4+idLen : n]
	sk, err := subkey(key, record[:4+idLen], nonce, session, name)
	if err != nil {
		return nil, ErrOpen
	}
	defer clear(sk[:])
	out, ok := secretbox.Open(dst, record[n:], (*[nonceLen]byte)(nonce), &sk)
	if !ok {
		return nil, ErrOpen
	}
	return out, nil
}

// bufPool holds buffers for openValue, wiped before they return to it.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// openValue opens a record straight into a secret.Value, through a pooled
// buffer, so the plaintext is allocated once, inside the Value.
func openValue(ring *KeyRing, session, name string, record []byte) (secret.Value, error) {
	bp := bufPool.Get().(*[]byte)
	out, err := openAppend((*bp)[:0], ring, session, name, record)
	if err != nil {
		bufPool.Put(bp)
		return secret.Value{}, err
	}
	v := secret.New(out)
	clear(out)
	if cap(out) <= 64<<10 { // keep big buffers out of the pool
		*bp = out[:0]
		bufPool.Put(bp)
	}
	return v, nil
}

// parseHeader checks a record's header and returns the length of its key id.
func parseHeader(record []byte) (idLen int, ok bool) {
	if len(record) < 4 || record[0] != magic0 || record[1] != magic1 || record[2] != version1 {
		return 0, false
	}
	idLen = int(record[3])
	if idLen == 0 || idLen > MaxKeyIDLen || len(record) < 4+idLen+nonceLen+secretbox.Overhead {
		return 0, false
	}
	return idLen, true
}

// KeyID returns the id of the key a record was sealed with, or ErrOpen if the
// record has no well-formed header. It does not check that the record opens;
// use it to find records that still need re-sealing after a rotation.
func KeyID(record []byte) (string, error) {
	idLen, ok := parseHeader(record)
	if !ok {
		return "", ErrOpen
	}
	return string(record[4 : 4+idLen]), nil
}
