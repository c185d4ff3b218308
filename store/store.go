// Package store defines what keeps askuser's state outside an ask — the
// interfaces a store implements, as database/sql/driver defines what a
// database driver implements: Pending (the pending asks and their timers;
// in memory, Memory), Consents (approvals a person made "for this
// session"; in memory, MemoryConsents) and Journal (one durable Record per
// finalized ask, with ResultFinder to replay a tool call from it; package
// journal keeps one in a file). The natsstore package keeps all three in
// NATS JetStream. Users of askuser pass stores to Orchestrator.Asks,
// Orchestrator.Consents and Orchestrator.Journal; the Pending methods are
// for the orchestrator and for store authors, who check theirs with the
// storetest package.
package store

import (
	"context"
	"errors"
	"time"
)

// Pending keeps pending asks as data, so that an ask outlives the request
// and the process that made it: every orchestrator given the same store
// (the replicas of a service, or one process restarted) finds the same
// asks, any of them takes a person's answer, and a retried tool call joins
// the ask or replays its result wherever it lands.
//
// It is a small key-value store with compare-and-set, a feed of changes,
// and durable timers. The orchestrator owns the keys and the values (its
// own versioned JSON); the store keeps them and orders their changes by a
// revision. Every write names the revision it read, so that when two
// replicas end one ask, the first ending wins. A replica holds in memory
// only the asks it serves and reads the rest on demand, so no method reads
// the whole store: List reads one key prefix (a session's asks), and
// Changes starts from now.
//
// Keys are tokens of letters, digits, '-' and '_' joined by dots; a prefix
// given to List ends with a dot, or is empty: every key (an operator's view
// across the fleet, which reads the whole store). Implementations are safe for concurrent
// use. Revisions are positive and increase with every write to a key.
type Pending interface {
	// Create stores data under key when the key holds nothing, and
	// returns its revision; when the key exists it changes nothing and
	// returns an error wrapping ErrExists.
	Create(ctx context.Context, key string, data []byte) (rev uint64, err error)
	// Get returns what key holds: an error wrapping ErrNotFound when it
	// holds nothing.
	Get(ctx context.Context, key string) (Entry, error)
	// Update stores data under key when the key's revision is still rev,
	// and returns the new revision; otherwise it changes nothing and
	// returns an error wrapping ErrChanged.
	Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error)
	// List returns the entries whose keys begin with prefix, as they are
	// now, in revision order.
	List(ctx context.Context, prefix string) ([]Entry, error)
	// Changes calls f once with an empty Entry when it is in place — every
	// write that returns after that call reaches f — and then with every
	// change to any key, in revision order, until ctx ends or the feed
	// fails; it returns ctx's error or the failure. It reads nothing that
	// was written before it started. A removed entry (its retention ran
	// out) comes with nil Data. Every key's latest value reaches f; a
	// store that keeps one value per key may pass over a revision that a
	// newer one replaced before f was called. f is called from one
	// goroutine, one entry at a time, and must not block for long.
	Changes(ctx context.Context, f func(Entry)) error
	// Schedule arranges for key to reach Due at or after at, replacing
	// any time scheduled for key before. The timer is durable: it outlives
	// the process that set it.
	Schedule(ctx context.Context, key string, at time.Time) error
	// Due calls f with each key whose scheduled time has come, until ctx
	// ends or the store fails, and returns ctx's error or the failure.
	// Across every process calling Due on the store, one f at a time gets
	// a key; a key whose f returns an error, or whose process goes away
	// before f returns, comes again (to any Due) after a short while,
	// until an f returns nil. f may be called for a key more than once, so
	// it checks what the key holds before acting. f's ctx ends when the
	// store would give the key to another caller; f should return by then.
	Due(ctx context.Context, f func(ctx context.Context, key string) error) error
}

// An Entry is one value of a Pending store and its revision.
type Entry struct {
	Key      string
	Data     []byte
	Revision uint64
}

// Errors a Pending store's methods wrap.
var (
	// ErrExists: Create found the key taken.
	ErrExists = errors.New("store: the pending-ask store already holds this key")
	// ErrChanged: Update found a newer revision than the one it was given
	// (another process wrote first), or no entry.
	ErrChanged = errors.New("store: the pending ask changed meanwhile (another writer came first)")
	// ErrNotFound: Get found nothing under the key.
	ErrNotFound = errors.New("store: the pending-ask store holds nothing under this key")
)

// DefaultRetention is how long a store keeps an ask after its last write
// (so a final result stays for replay), when it is not told otherwise: 7
// days.
const DefaultRetention = 7 * 24 * time.Hour
