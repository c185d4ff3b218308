package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/internal/recauth"
	"github.com/askuser-go/askuser/store"
)

// Consents returns the store's remembered approval decisions, an
// store.Consents in the <prefix>_consents bucket: one JSON
// store.Consent per key, the digest of its session, a dot, and the
// digest of its approval digest.
//
// With the Store's Keys, each value carries a MAC under a key derived from
// the ring (as a consents file's lines do, see package journal), and a
// value that does not verify — put there by hand, or under another key —
// is not applied: Recall returns an error, which the orchestrator logs
// before asking the person, and Consents leaves it out. The values are not
// chained, since a bucket keeps only the latest value of each key: someone
// who can write to the bucket can put back a genuine value that was
// revoked (see docs/request_approval.md).
func (s *Store) Consents() store.Consents {
	c := consents{kv: s.consents}
	if s.cfg.Keys != nil {
		c.keys = recauth.New(s.cfg.Keys, recauth.LabelConsent)
	}
	return c
}

type consents struct {
	kv   jetstream.KeyValue
	keys *recauth.Keys // nil: values are not authenticated
}

func consentKey(session, dig string) string { return digest(session) + "." + digest(dig) }

func (c consents) Remember(ctx context.Context, cs store.Consent) error {
	if cs.Session == "" || cs.Digest == "" {
		return errors.New("natsstore: a consent needs a session and a digest")
	}
	data, err := json.Marshal(cs)
	if err != nil {
		return fmt.Errorf("natsstore: encoding a consent: %w", err)
	}
	if c.keys != nil {
		if data, _, err = c.keys.Seal(data, "", 0, nil); err != nil {
			return fmt.Errorf("natsstore: authenticating a consent: %w", err)
		}
	}
	if _, err := c.kv.Put(ctx, consentKey(cs.Session, cs.Digest), data); err != nil {
		return fmt.Errorf("natsstore: remembering a consent: %w", err)
	}
	return nil
}

// decode decodes a stored consent, checking its MAC with keys.
func (c consents) decode(data []byte) (store.Consent, error) {
	var cs store.Consent
	if c.keys != nil {
		if _, _, err := c.keys.Verify(data); err != nil {
			return cs, fmt.Errorf("natsstore: a stored consent does not verify, and is not applied: %w", err)
		}
	}
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
	cs, err := c.decode(e.Value())
	if err != nil {
		return store.Consent{}, false, err
	}
	if cs.Session != session || cs.Digest != dig {
		return store.Consent{}, false, errors.New("natsstore: a stored consent names another session or action than its key; it is not applied")
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
		cs, err := c.decode(e.Value())
		if err != nil {
			if c.keys != nil {
				continue // not in effect: Recall refuses it too
			}
			return nil, err
		}
		if cs.Session != session {
			continue
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
