package natsstore

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/askuser-go/askuser/store"
)

var validNotesName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Notes returns the bucket <prefix>_notes_<name>, made if it does not
// exist, as a store.Notes whose notes live ttl after their last write:
// what a responder shares across the replicas of a fleet (the Slack
// messages it posted, the signed requests and mail links already used).
// Every replica opens it with the same name; the first to make the bucket
// decides its ttl. Reads are answered by the bucket's leader, so that a
// create-only write on one replica is seen by the next read on any.
func (s *Store) Notes(ctx context.Context, name string, ttl time.Duration) (store.Notes, error) {
	if !validNotesName.MatchString(name) {
		return nil, fmt.Errorf("natsstore: notes %q: a name is 1 to 32 letters, digits, '-' or '_'", name)
	}
	if ttl < time.Second {
		return nil, fmt.Errorf("natsstore: notes %s: a time to live of %v; at least one second is required", name, ttl)
	}
	kv, err := s.bucket(ctx, "notes_"+name, "askuser's notes of the "+name+" responder, shared by the replicas", ttl)
	if err != nil {
		return nil, err
	}
	return &notes{kv: kv}, nil
}

type notes struct{ kv jetstream.KeyValue }

func (n *notes) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	return kvCreate(ctx, n.kv, "note", key, data)
}

func (n *notes) Get(ctx context.Context, key string) (store.Entry, error) {
	return kvGet(ctx, n.kv, "note", key)
}

func (n *notes) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	return kvUpdate(ctx, n.kv, "note", key, data, rev)
}

func (n *notes) List(ctx context.Context, prefix string) ([]store.Entry, error) {
	if !validListPrefix.MatchString(prefix) {
		return nil, fmt.Errorf("natsstore: listing notes under %q: a prefix is keys' first tokens, each followed by a dot (or empty, for every key)", prefix)
	}
	es, err := entries(ctx, n.kv, prefix+">")
	if err != nil {
		return nil, fmt.Errorf("natsstore: listing notes under %s: %w", prefix, err)
	}
	out := make([]store.Entry, 0, len(es))
	for _, e := range es {
		if e.Operation() != jetstream.KeyValuePut {
			continue
		}
		out = append(out, store.Entry{Key: e.Key(), Data: nonNil(e.Value()), Revision: e.Revision()})
	}
	slices.SortFunc(out, func(a, b store.Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, nil
}
