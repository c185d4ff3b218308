package mcpresponder

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/askuser-go/askuser/secretstore"
)

// The requestState of a multi round-trip ask is the pending ask, sealed
// with the key ring's secretbox (confidential and integrity-protected):
// which ask (askuser's tool-call id for it, and when it was asked, so that
// a resumed ask keeps its deadline), bound to the session, the principal
// and the tool call (its tool and a hash of its arguments), for one round
// (the form it carries the reply to), with a nonce that makes it
// single-use.
const (
	// stateSession and stateName bind the seal to this use: a record
	// sealed for anything else does not open as a state.
	stateSession = "askuser mcp"
	stateName    = "requestState v1"
	stateVersion = 1
	// StateGrace is how long after its ask's deadline a requestState is
	// still taken: a retry in that time gets the ask's result (timed_out,
	// with the defaults applied), after it an error.
	StateGrace = 60 * time.Second
	// maxStateLen caps a requestState as the client sends it.
	maxStateLen = 4 << 10
)

// state is a requestState's content.
type state struct {
	V         int
	Session   string
	Principal string
	Tool      string
	Call      string // askuser's tool-call id for the ask
	Args      string // argsNames of the call's arguments
	AskedAt   time.Time
	ExpiresAt time.Time
	Round     int // the form the retry carries the reply to
	Nonce     string
}

// marshal writes the state compactly: the version and the round as
// uvarints, the two times as varints of Unix nanoseconds, then each
// string as a uvarint length and its bytes.
func (s *state) marshal() []byte {
	b := make([]byte, 0, 64+len(s.Session)+len(s.Principal)+len(s.Tool)+len(s.Call)+len(s.Args)+len(s.Nonce))
	b = binary.AppendUvarint(b, uint64(s.V))
	b = binary.AppendUvarint(b, uint64(s.Round))
	b = binary.AppendVarint(b, s.AskedAt.UnixNano())
	b = binary.AppendVarint(b, s.ExpiresAt.UnixNano())
	for _, f := range []string{s.Session, s.Principal, s.Tool, s.Call, s.Args, s.Nonce} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// unmarshalState reads what marshal wrote, and nothing else: a short,
// long or malformed record is refused.
func unmarshalState(b []byte) (*state, bool) {
	var s state
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	sv := func() (int64, bool) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	v, ok1 := uv()
	round, ok2 := uv()
	asked, ok3 := sv()
	expires, ok4 := sv()
	if !ok1 || !ok2 || !ok3 || !ok4 || v > 1<<16 || round > 1<<16 {
		return nil, false
	}
	s.V, s.Round = int(v), int(round)
	s.AskedAt, s.ExpiresAt = time.Unix(0, asked).UTC(), time.Unix(0, expires).UTC()
	for _, f := range []*string{&s.Session, &s.Principal, &s.Tool, &s.Call, &s.Args, &s.Nonce} {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return nil, false
		}
		*f = string(b[:n])
		b = b[n:]
	}
	if len(b) != 0 {
		return nil, false
	}
	return &s, true
}

// The refusals of a requestState. The tool result the model reads says
// the same, without the package prefix.
var (
	ErrStateDamaged   = errors.New("mcpresponder: the requestState does not open: it was altered or cut short, or sealed with a key this server does not hold; call the tool again without it to ask anew")
	ErrStateSession   = errors.New("mcpresponder: the requestState belongs to another session; a requestState is good only in the session that received it")
	ErrStatePrincipal = errors.New("mcpresponder: the requestState belongs to another principal; a requestState is good only for the caller that received it")
	ErrStateCall      = errors.New("mcpresponder: the requestState belongs to another tool call (another tool, or other arguments); retry the call it came with, unchanged")
	ErrStateExpired   = errors.New("mcpresponder: the requestState has expired: its ask's deadline passed more than 60 seconds ago; call the tool again to ask anew")
	ErrStateUsed      = errors.New("mcpresponder: the requestState was already used; each one is good for a single retry, carrying the reply to its form")
	ErrStateRound     = errors.New("mcpresponder: the requestState is for an earlier form of this ask, which was already answered; retry with the latest requestState")
	ErrStateGone      = errors.New("mcpresponder: no ask is known for this requestState any more (its result is past the store's retention); call the tool again without it to ask anew")
)

// sealState seals a state for the client to carry.
func sealState(ring *secretstore.KeyRing, s *state) (string, error) {
	rec, err := secretstore.Seal(ring, stateSession, stateName, s.marshal())
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(rec), nil
}

// openState opens a requestState as the client sent it. Whatever is wrong
// with it (not base64, not sealed by a key in the ring, altered, not a
// state of this version) is ErrStateDamaged.
func openState(ring *secretstore.KeyRing, s string) (*state, error) {
	if s == "" || len(s) > maxStateLen {
		return nil, ErrStateDamaged
	}
	rec, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrStateDamaged
	}
	data, err := secretstore.Open(ring, stateSession, stateName, rec)
	if err != nil {
		return nil, ErrStateDamaged
	}
	st, ok := unmarshalState(data)
	if !ok || st.V != stateVersion || st.Nonce == "" || st.Call == "" || st.Round < 1 {
		return nil, ErrStateDamaged
	}
	return st, nil
}

// argsNames names a call's arguments twice: the SHA-256 of the bytes as
// the client sent them, and of their canonical JSON (RFC 8785: object
// keys sorted, no white space, numbers in their shortest form).
func argsNames(args []byte) string {
	raw := sha256.Sum256(args)
	canon := canonicalHash(args)
	return string(raw[:]) + string(canon[:])
}

// sameArgs reports whether args are the arguments names names: byte for
// byte, as a client that retries the call it made sends them, or else as
// the same JSON written in another order or layout.
func sameArgs(names string, args []byte) bool {
	if len(names) != 2*sha256.Size {
		return false
	}
	raw := sha256.Sum256(args)
	if string(raw[:]) == names[:sha256.Size] {
		return true
	}
	canon := canonicalHash(args)
	return string(canon[:]) == names[sha256.Size:]
}

// canonicalHash is the SHA-256 of args' canonical JSON; arguments that
// are not JSON are hashed as they are.
func canonicalHash(args []byte) [sha256.Size]byte {
	canon := jsontext.Value(slices.Clone(args))
	if canon.Canonicalize() != nil {
		canon = jsontext.Value(args)
	}
	return sha256.Sum256(canon)
}
