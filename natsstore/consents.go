package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askuser-go/askuser/store"
	"github.com/nats-io/nats.go/jetstream"
)

// Consents returns the store's remembered approval decisions, an
// store.Consents in the <prefix>_consents bucket: one JSON
// store.Consent per key, the digest of its session, a dot, and the
// digest of its approval digest.
func (s *Store) Consents() store.Consents { return consents{s.consents} }

type consents struct{ kv jetstream.KeyValue }

func consentKey(session, dig string) string { return digest(session) + "." + digest(dig) }

func (c consents) Remember(ctx context.Context, cs store.Consent) error {
	if cs.Session == "" || cs.Digest == "" {
		return errors.New("natsstore: a consent needs a session and a digest")
	}
	data, err := json.Marshal(cs)
	if err != nil {
		return fmt.Errorf("natsstore: encoding a consent: %w", err)
	}
	if _, err := c.kv.Put(ctx, consentKey(cs.Session, cs.Digest), data); err != nil {
		return fmt.Errorf("natsstore: remembering a consent: %w", err)
	}
	return nil
}

func decodeConsent(data []byte) (store.Consent, error) {
	var cs store.Consent
	if err := json.Unmarshal(data, &cs); err != nil {
		return cs, fmt.Errorf("natsstore: a stored consent does not decode: %w", err)
	}
	return cs, nil
}

func (c consents) Recall(ctx context.Context, session, dig string) (store.Consent, bool, error) {
	if session == "" || dig == "" {
		return store.Consent{}, false, nil
	}
	e, err := c.kv.Get(ctx, consentKey(session, dig))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return store.Consent{}, false, nil
	}
	if err != nil {
		return store.Consent{}, false, fmt.Errorf("natsstore: recalling a consent: %w", err)
	}
	cs, err := decodeConsent(e.Value())
	if err != nil {
		return store.Consent{}, false, err
	}
	return cs, true, nil
}

func (c consents) Consents(ctx context.Context, session string) ([]store.Consent, error) {
	if session == "" {
		return nil, nil
	}
	es, err := entries(ctx, c.kv, digest(session)+".*")
	if err != nil {
		return nil, fmt.Errorf("natsstore: listing consents: %w", err)
	}
	var out []store.Consent
	for _, e := range es {
		cs, err := decodeConsent(e.Value())
		if err != nil {
			return nil, err
		}
		out = append(out, cs)
	}
	store.SortConsents(out)
	return out, nil
}

func (c consents) Revoke(ctx context.Context, session, dig string) error {
	if session == "" || dig == "" {
		return nil
	}
	if err := c.kv.Purge(ctx, consentKey(session, dig)); err != nil {
		return fmt.Errorf("natsstore: revoking a consent: %w", err)
	}
	return nil
}
