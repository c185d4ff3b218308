package natsstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/secret"
	"github.com/askuser-go/askuser/secretstore"
)

// Secrets returns the store's sealed secrets, a secretstore.Stager in the
// <prefix>_secrets bucket. Each value is sealed with secretstore.Seal under
// Config.Keys for its session and name before it is sent, and opened after
// it is read; the key itself never leaves the process. The key of a record
// is the digest of its session, a dot, and the digest of its name. Staged
// values are kept by secretstore.Staging, as records of their own. Without
// Config.Keys every method fails with secretstore.ErrNoKey.
//
// A record is one NATS message, so a value must fit the server's maximum
// payload (1 MiB by default) with the record's overhead.
func (s *Store) Secrets() secretstore.Stager {
	return secretstore.Staging(secrets{kv: s.secrets, ring: s.cfg.Keys})
}

type secrets struct {
	kv   jetstream.KeyValue
	ring *secretstore.KeyRing
}

func secretKey(session, name string) string { return digest(session) + "." + digest(name) }

func (s secrets) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.ring == nil {
		return fmt.Errorf("%w: the natsstore Config has no Keys to seal secrets with", secretstore.ErrNoKey)
	}
	return nil
}

func (s secrets) Put(ctx context.Context, session, name string, v secret.Value) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	pt := v.Reveal()
	rec, err := secretstore.Seal(s.ring, session, name, pt)
	clear(pt)
	if err != nil {
		return err
	}
	if _, err := s.kv.Put(ctx, secretKey(session, name), rec); err != nil {
		return fmt.Errorf("natsstore: storing a secret (session %q, name %q): %w", session, name, err)
	}
	return nil
}

func (s secrets) Get(ctx context.Context, session, name string) (secret.Value, error) {
	if err := s.check(ctx); err != nil {
		return secret.Value{}, err
	}
	if session == "" || name == "" {
		return secret.Value{}, fmt.Errorf("%w (session %q, name %q)", secretstore.ErrNotFound, session, name)
	}
	e, err := s.kv.Get(ctx, secretKey(session, name))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return secret.Value{}, fmt.Errorf("%w (session %q, name %q)", secretstore.ErrNotFound, session, name)
	}
	if err != nil {
		return secret.Value{}, fmt.Errorf("natsstore: reading a secret (session %q, name %q): %w", session, name, err)
	}
	pt, err := secretstore.Open(s.ring, session, name, e.Value())
	if err != nil {
		return secret.Value{}, err // ErrOpen, unwrapped, as Store.Get promises
	}
	v := secret.New(pt)
	clear(pt)
	return v, nil
}

func (s secrets) Delete(ctx context.Context, session, name string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if session == "" || name == "" {
		return nil // nothing can be stored there
	}
	if err := s.kv.Purge(ctx, secretKey(session, name)); err != nil {
		return fmt.Errorf("natsstore: deleting a secret (session %q, name %q): %w", session, name, err)
	}
	return nil
}

func (s secrets) DeleteSession(ctx context.Context, session string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if session == "" {
		return nil
	}
	es, err := entries(ctx, s.kv, digest(session)+".*")
	if err != nil {
		return fmt.Errorf("natsstore: listing the secrets of session %q: %w", session, err)
	}
	for _, e := range es {
		if err := s.kv.Purge(ctx, e.Key()); err != nil {
			return fmt.Errorf("natsstore: deleting the secrets of session %q: %w", session, err)
		}
	}
	return nil
}
