package secretstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/askuser-go/askuser/secret"
)

// ErrNotFound reports that a session holds no record under a name.
var ErrNotFound = errors.New("secretstore: no secret stored under that name for this session")

// ErrNoSession reports that a context carries no session (see [WithSession]).
var ErrNoSession = errors.New("secretstore: no session in the context: use WithSession or ResolveFor")

// ErrBadRef reports a reference that is not "session:<name>".
var ErrBadRef = errors.New(`secretstore: not a secret reference: a reference is "session:" followed by a non-empty name`)

// A Store keeps sealed secrets by (session, name).
//
// Implementations seal every value before it leaves the call (with [Seal] or
// their own equivalent) and keep nothing in clear. Session ids and names are
// arbitrary non-empty strings of at most [MaxNameLen] bytes; an
// implementation must treat any such string, including "../x" or one holding
// NUL, as an opaque key. Every method returns promptly with ctx.Err() if ctx
// is done before it starts, and is safe for concurrent use.
type Store interface {
	// Put seals v and stores it under (session, name), replacing any
	// earlier record there. It does not wipe v.
	Put(ctx context.Context, session, name string, v secret.Value) error
	// Get returns the secret under (session, name): an error wrapping
	// ErrNotFound if there is none, or ErrOpen if the record does not open.
	Get(ctx context.Context, session, name string) (secret.Value, error)
	// Delete removes the record under (session, name). Deleting a record
	// that does not exist is not an error.
	Delete(ctx context.Context, session, name string) error
	// DeleteSession removes every record of a session. Deleting a session
	// that holds nothing is not an error.
	DeleteSession(ctx context.Context, session string) error
}

func notFound(session, name string) error {
	return fmt.Errorf("%w (session %q, name %q)", ErrNotFound, session, name)
}

type sessionKey struct{}

// WithSession returns a context that carries a session id, for [Resolve].
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionFrom returns the session id carried by ctx, if a non-empty one is.
func SessionFrom(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(sessionKey{}).(string)
	return s, ok && s != ""
}

// RefPrefix starts every secret reference: "session:<name>" names the secret
// <name> of the session the reference is resolved for.
const RefPrefix = "session:"

// Ref returns the reference to the secret called name: RefPrefix + name.
func Ref(name string) string { return RefPrefix + name }

// ParseRef returns the name a reference points to, or an error wrapping
// [ErrBadRef]. The error does not repeat the reference, which may be
// anything a model wrote.
func ParseRef(ref string) (name string, err error) {
	name, ok := strings.CutPrefix(ref, RefPrefix)
	if !ok || name == "" {
		return "", ErrBadRef
	}
	if len(name) > MaxNameLen {
		return "", fmt.Errorf("%w (this one's name is %d bytes long; at most %d are allowed)", ErrBadRef, len(name), MaxNameLen)
	}
	return name, nil
}

// Resolve returns the secret a reference points to, in the session carried
// by ctx ([WithSession]). It fails with [ErrNoSession] when ctx carries none,
// with [ErrBadRef] for a malformed reference, and with [ErrNotFound] for a
// name the session never stored, which is also what another session's
// reference gives, since a reference resolves only within one session.
func Resolve(ctx context.Context, s Store, ref string) (secret.Value, error) {
	session, ok := SessionFrom(ctx)
	if !ok {
		return secret.Value{}, ErrNoSession
	}
	return ResolveFor(ctx, s, session, ref)
}

// ResolveFor is [Resolve] for an explicit session.
func ResolveFor(ctx context.Context, s Store, session, ref string) (secret.Value, error) {
	if session == "" {
		return secret.Value{}, ErrNoSession
	}
	name, err := ParseRef(ref)
	if err != nil {
		return secret.Value{}, err
	}
	return s.Get(ctx, session, name)
}
