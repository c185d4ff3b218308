package secretstore

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// KeyEnv is the environment variable [KeysFromEnv] reads: one or more keys in
// the form [ParseKeys] accepts.
const KeyEnv = "ASKUSER_SECRET_KEY"

// MaxKeyIDLen is the longest key id allowed, in bytes.
const MaxKeyIDLen = 64

// A Key is a 256-bit sealing key with an id. The id is stored in clear in
// every record sealed with the key, so that [Open] can pick the key again
// after a rotation; it must be 1 to [MaxKeyIDLen] bytes of ASCII letters,
// digits, '.', '-' and '_'.
//
// A Key never shows its Secret: fmt (every verb), encoding/json and log/slog
// render only the id. One exception is beyond any type's control: fmt cannot
// call methods on a value reached through an unexported struct field, so a
// Key kept by value in an unexported field prints its bytes. Keep keys in a
// [KeyRing], which holds them behind a pointer, or in exported fields.
type Key struct {
	ID     string
	Secret [32]byte
}

func (k Key) redacted() string { return "secretstore.Key{ID:" + k.ID + " Secret:[REDACTED]}" }

// String returns the key id and "[REDACTED]" in place of the secret.
func (k Key) String() string { return k.redacted() }

// GoString is String: %#v shows no secret either.
func (k Key) GoString() string { return k.redacted() }

// Format writes String for every verb and flag.
func (k Key) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(k.redacted())) }

// MarshalJSON encodes only the id: {"ID":"…","Secret":"[REDACTED]"}.
func (k Key) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"ID":%q,"Secret":"[REDACTED]"}`, k.ID), nil
}

// LogValue implements slog.LogValuer: only the id reaches a log.
func (k Key) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", k.ID), slog.String("secret", "[REDACTED]"))
}

// checkKeyID says what is wrong with a key id, if anything.
func checkKeyID(id string) error {
	if id == "" {
		return errors.New("empty key id: a key id is 1 to 64 ASCII letters, digits, '.', '-' or '_'")
	}
	if len(id) > MaxKeyIDLen {
		return fmt.Errorf("key id is %d bytes long: at most %d are allowed", len(id), MaxKeyIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			// The id is not echoed: a malformed entry may be key material.
			return fmt.Errorf("key id has a byte not allowed at offset %d: only ASCII letters, digits, '.', '-' and '_' are allowed", i)
		}
	}
	return nil
}

// A KeyRing holds the keys a store seals and opens with: the first is the
// current key, used by every new seal; the others are previous keys, used
// only to open records sealed before a rotation. A KeyRing is immutable and
// safe for concurrent use. Like a Key, it never shows a secret.
//
// To rotate, make a new ring with a new key first and the old keys after it,
// re-seal what matters (a [Store.Get] then [Store.Put] does), and drop the old
// key from the ring once no record needs it.
type KeyRing struct {
	// The secrets sit two pointers away, as in secret.Value: fmt, when it
	// reaches a KeyRing through an unexported field, cannot call Format
	// and prints the fields itself, following at most one pointer.
	p *ring
}

type ring struct {
	ids  []string            // current first
	byID map[string]*ringKey // never holds a secret by value
}

// NewKeyRing returns a ring of keys, the first being the current one. It
// refuses an empty list, an invalid or repeated id, and an all-zero secret
// (almost certainly a key that was never filled in). It copies the keys.
func NewKeyRing(keys ...Key) (*KeyRing, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: a key ring needs at least one key", ErrNoKey)
	}
	r := &ring{ids: make([]string, len(keys)), byID: make(map[string]*ringKey, len(keys))}
	for i, k := range keys {
		if err := checkKeyID(k.ID); err != nil {
			return nil, fmt.Errorf("secretstore: key %d of %d: %w", i+1, len(keys), err)
		}
		if _, dup := r.byID[k.ID]; dup {
			return nil, fmt.Errorf("secretstore: key %d of %d: key id %q is used twice: each key in a ring needs its own id", i+1, len(keys), k.ID)
		}
		if k.Secret == ([32]byte{}) {
			return nil, fmt.Errorf("secretstore: key %d of %d (id %q) is all zeros: use RandomKey, PassphraseKey or 32 random bytes", i+1, len(keys), k.ID)
		}
		prk, err := extract(&k.Secret)
		if err != nil {
			return nil, fmt.Errorf("secretstore: key %d of %d (id %q): %w", i+1, len(keys), k.ID, err)
		}
		r.ids[i] = k.ID
		r.byID[k.ID] = &ringKey{secret: k.Secret, prk: prk}
	}
	return &KeyRing{r}, nil
}

// Current returns the id of the key new seals use.
func (r *KeyRing) Current() string { return r.p.ids[0] }

// A ringKey is a key of a ring and its HKDF pseudorandom key.
type ringKey struct {
	secret [32]byte
	prk    []byte // HKDF-Extract of secret; see subkey
}

// key returns the key with the given id.
func (r *KeyRing) key(id string) (*ringKey, bool) {
	k, ok := r.p.byID[id]
	return k, ok
}

// Derive returns a key of 32 bytes for another use than sealing, named by
// label (a card's access tokens, say): HKDF-SHA-256 of the ring's current
// key, under a salt of its own, with label as the info. It depends only on
// the current key and the label, so every process holding the same ring
// derives the same key, and rotating the current key changes it. Different
// labels give independent keys, and none is a sealing key.
func (r *KeyRing) Derive(label string) ([32]byte, error) {
	return r.DeriveWith(r.Current(), label)
}

// DeriveWith is Derive from the ring's key named id rather than the
// current one, so that what was authenticated with a key derived before a
// rotation can still be checked while the old key stays in the ring. It
// returns an error wrapping ErrNoKey when the ring holds no key of that id.
func (r *KeyRing) DeriveWith(id, label string) ([32]byte, error) {
	var out [32]byte
	k, ok := r.key(id)
	if !ok {
		return out, fmt.Errorf("%w: the key ring holds no key with id %q (it holds %s)", ErrNoKey, id, strings.Join(r.p.ids, ", "))
	}
	prk, err := hkdf.Extract(sha256.New, k.secret[:], []byte(deriveSalt))
	if err != nil {
		return out, err
	}
	defer clear(prk)
	b, err := hkdf.Expand(sha256.New, prk, label, len(out))
	if err != nil {
		return out, err
	}
	copy(out[:], b)
	clear(b)
	return out, nil
}

// deriveSalt is the HKDF salt of Derive's keys, apart from the sealing
// keys' (extractSalt).
const deriveSalt = "askuser secretstore derived key v1"

// IDs returns the ids of the ring's keys, current first.
func (r *KeyRing) IDs() []string { return append([]string(nil), r.p.ids...) }

func (r *KeyRing) redacted() string {
	return "secretstore.KeyRing{" + strings.Join(r.p.ids, ",") + "}"
}

// String lists the key ids, never a secret.
func (r *KeyRing) String() string { return r.redacted() }

// GoString is String.
func (r *KeyRing) GoString() string { return r.redacted() }

// Format writes String for every verb and flag.
func (r *KeyRing) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(r.redacted())) }

// LogValue implements slog.LogValuer: only the ids reach a log.
func (r *KeyRing) LogValue() slog.Value { return slog.StringValue(r.redacted()) }

// ParseKeys parses a comma- or newline-separated list of keys, newest first,
// each written "<key-id>:<secret>" where the secret is 32 bytes in base64
// (standard or URL alphabet, padded or not), as `openssl rand -base64 32`
// prints. Blank entries and lines starting with '#' are skipped. Errors say
// which entry is wrong and why, never what the secret was.
func ParseKeys(s string) (*KeyRing, error) {
	var keys []Key
	n := 0
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		for entry := range strings.SplitSeq(line, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			n++
			id, enc, ok := strings.Cut(entry, ":")
			if !ok {
				return nil, fmt.Errorf("secretstore: key %d has no ':': write each key as <key-id>:<base64 of 32 bytes>", n)
			}
			id = strings.TrimSpace(id)
			if err := checkKeyID(id); err != nil {
				return nil, fmt.Errorf("secretstore: key %d: %w", n, err)
			}
			raw, err := decodeBase64(strings.TrimSpace(enc))
			if err != nil {
				return nil, fmt.Errorf("secretstore: key %d (id %q) is not valid base64: write the secret as base64 of 32 random bytes", n, id)
			}
			if len(raw) != 32 {
				clear(raw)
				return nil, fmt.Errorf("secretstore: key %d (id %q) decodes to %d bytes: exactly 32 are required", n, id, len(raw))
			}
			k := Key{ID: id}
			copy(k.Secret[:], raw)
			clear(raw)
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no keys found: write one or more <key-id>:<base64 of 32 bytes>, comma-separated, newest first", ErrNoKey)
	}
	return NewKeyRing(keys...)
}

func decodeBase64(s string) ([]byte, error) {
	var last error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		last = err
	}
	return nil, last
}

// KeysFromEnv parses the keys in the environment variable [KeyEnv]
// (ASKUSER_SECRET_KEY) with [ParseKeys]. It returns an error wrapping
// [ErrNoKey] when the variable is unset or blank.
func KeysFromEnv() (*KeyRing, error) {
	s, ok := os.LookupEnv(KeyEnv)
	if !ok || strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: %s is not set: set it to <key-id>:<base64 of 32 bytes> (for example id:$(openssl rand -base64 32))", ErrNoKey, KeyEnv)
	}
	r, err := ParseKeys(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeyEnv, err)
	}
	return r, nil
}

// KeysFromFile parses the keys in a file with [ParseKeys]. On Unix the file
// must not be readable or writable by group or others (mode 0600 or
// stricter), as ssh requires of a private key.
func KeysFromFile(path string) (*KeyRing, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("secretstore: reading keys: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("secretstore: reading keys: %w", err)
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secretstore: key file %s has mode %#o: it must not be accessible by group or others (chmod 600 it)", path, fi.Mode().Perm())
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("secretstore: reading keys: %w", err)
	}
	defer clear(buf.Bytes())
	r, err := ParseKeys(buf.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// RandomKey returns a key with the given id and 32 bytes from crypto/rand.
func RandomKey(id string) (Key, error) {
	if err := checkKeyID(id); err != nil {
		return Key{}, fmt.Errorf("secretstore: %w", err)
	}
	k := Key{ID: id}
	rand.Read(k.Secret[:]) // never fails, per its documentation
	return k, nil
}

// Argon2Params are the cost parameters of Argon2id for [PassphraseKey]. A
// zero field takes its value from RFC 9106's second recommended option:
// three passes over 64 MiB with four lanes, about a tenth of a second on a
// current machine. The zero Argon2Params is that option.
type Argon2Params struct {
	Time      uint32 // passes over memory
	MemoryKiB uint32 // memory in KiB
	Threads   uint8  // parallelism
}

// defaultArgon2 is RFC 9106's second recommended option for Argon2id.
var defaultArgon2 = Argon2Params{Time: 3, MemoryKiB: 64 * 1024, Threads: 4}

// PassphraseKey derives a key from a passphrase with Argon2id. The salt
// should be at least 16 random bytes kept beside the store (it is not
// secret); the same id, passphrase, salt and parameters always give the same
// key. The id is not checked here; [NewKeyRing] checks it.
func PassphraseKey(id string, passphrase, salt []byte, p Argon2Params) Key {
	if p.Time == 0 {
		p.Time = defaultArgon2.Time
	}
	if p.MemoryKiB == 0 {
		p.MemoryKiB = defaultArgon2.MemoryKiB
	}
	if p.Threads == 0 {
		p.Threads = defaultArgon2.Threads
	}
	if minMem := 8 * uint32(p.Threads); p.MemoryKiB < minMem {
		p.MemoryKiB = minMem // Argon2 needs 8 KiB per lane
	}
	k := Key{ID: id}
	b := argon2.IDKey(passphrase, salt, p.Time, p.MemoryKiB, p.Threads, 32)
	copy(k.Secret[:], b)
	clear(b)
	return k
}
