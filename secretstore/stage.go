package secretstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser/secret"
)

// A Stager is a [Store] that can keep a sealed value aside before it
// becomes the record under its name — or never does. The askuser
// orchestrator stages every secret a person types, and commits it only when
// the ask's final result hands its reference out; otherwise it discards it,
// so the record an earlier result points to stays as it was.
//
// [Memory] and [Dir] are Stagers; [Staging] makes one of any Store. A
// wrapper that embeds a Stager and changes what Put does must change Stage
// as well, or hide it (embed a Store instead), since a Stager's values go in
// through Stage.
type Stager interface {
	Store
	// Stage seals v for (session, name) and keeps it aside under a new id,
	// leaving the record under (session, name) as it was: Get does not see
	// a staged value. It does not wipe v.
	Stage(ctx context.Context, session, name string, v secret.Value) (id string, err error)
	// Commit makes the value staged under id the record under (session,
	// name), replacing any earlier one in one step, and uses id up. When
	// nothing is staged under id for (session, name) — it was committed or
	// discarded, or its session deleted — Commit returns an error wrapping
	// ErrNotFound and changes nothing.
	Commit(ctx context.Context, session, name, id string) error
	// Discard removes the value staged under id for (session, name).
	// Discarding what is not staged is not an error.
	Discard(ctx context.Context, session, name, id string) error
}

// Staging returns s as a Stager: s itself when it is one; otherwise a Stager
// that keeps each staged value in s under a name of its own (a NUL byte,
// "staged", a NUL byte and a random id), whose Commit reads the staged
// value, puts it under its name and deletes the staged record.
func Staging(s Store) Stager {
	if st, ok := s.(Stager); ok {
		return st
	}
	return staging{s}
}

type staging struct{ Store }

func stagedName(id string) string { return "\x00staged\x00" + id }

func (s staging) Stage(ctx context.Context, session, name string, v secret.Value) (string, error) {
	if err := checkNames(session, name); err != nil {
		return "", err
	}
	id := newStageID()
	if err := s.Put(ctx, session, stagedName(id), v); err != nil {
		return "", err
	}
	return id, nil
}

func (s staging) Commit(ctx context.Context, session, name, id string) error {
	if err := checkNames(session, name); err != nil {
		return err
	}
	v, err := s.Get(ctx, session, stagedName(id))
	if errors.Is(err, ErrNotFound) {
		return notStaged(session, name)
	}
	if err != nil {
		return fmt.Errorf("secretstore: committing a staged value (session %q, name %q): %w", session, name, err)
	}
	defer v.Wipe()
	if err := s.Put(ctx, session, name, v); err != nil {
		return err
	}
	return s.Delete(ctx, session, stagedName(id))
}

func (s staging) Discard(ctx context.Context, session, name, id string) error {
	if err := checkNames(session, name); err != nil {
		return err
	}
	return s.Delete(ctx, session, stagedName(id))
}

// newStageID returns 128 random bits in hex.
func newStageID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails, per its documentation
	return hex.EncodeToString(b[:])
}

// notStaged is Commit's error for an id under which nothing is staged.
func notStaged(session, name string) error {
	return fmt.Errorf("secretstore: nothing is staged under that id (session %q, name %q): %w", session, name, ErrNotFound)
}
