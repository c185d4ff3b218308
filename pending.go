package askuser

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// A PendingStore keeps pending asks as data, so that an ask outlives the
// request and the process that made it: every orchestrator given the same
// store (the replicas of a service, or one process restarted) sees the same
// asks, any of them takes a person's answer, and a retried tool call joins
// the ask or replays its result wherever it lands.
//
// A PendingStore is a small key-value store with compare-and-set: the
// orchestrator owns the keys (hex strings) and the values (its own
// versioned JSON), and the store keeps them and orders their changes by a
// revision. Every write names the revision it read, so that when two
// replicas end one ask, the first ending wins. NewMemoryPending is one for a
// single process; the natsstore package keeps one in NATS JetStream.
//
// Implementations are safe for concurrent use. Revisions are positive and
// increase with every write to a key.
type PendingStore interface {
	// Create stores data under key when the key holds nothing, and returns
	// its revision; when the key exists it changes nothing and returns an
	// error wrapping ErrPendingExists.
	Create(ctx context.Context, key string, data []byte) (rev uint64, err error)
	// Get returns what key holds: an error wrapping ErrPendingNotFound
	// when it holds nothing.
	Get(ctx context.Context, key string) (PendingEntry, error)
	// Update stores data under key when the key's revision is still rev,
	// and returns the new revision; otherwise it changes nothing and
	// returns an error wrapping ErrPendingChanged.
	Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error)
	// Watch calls f with every entry as it is now, then once with an empty
	// PendingEntry (the watcher has caught up), then with the changes as
	// they happen, in revision order, until ctx ends or the watch fails; it
	// returns ctx's error or the failure. A removed entry (retention ran
	// out) comes with nil Data. Every key's latest value reaches f; a
	// store that keeps one value per key may pass over a revision that a
	// newer one replaced before the watcher read it (a value is the whole
	// ask, so the newer one says all). f is called from one goroutine, one
	// entry at a time, and must not block for long.
	Watch(ctx context.Context, f func(PendingEntry)) error
}

// A PendingEntry is one value of a PendingStore and its revision.
type PendingEntry struct {
	Key      string
	Data     []byte
	Revision uint64
}

// Errors a PendingStore's methods wrap.
var (
	// ErrPendingExists: Create found the key taken.
	ErrPendingExists = errors.New("askuser: the pending-ask store already holds this key")
	// ErrPendingChanged: Update found a newer revision than the one it
	// was given (another process wrote first).
	ErrPendingChanged = errors.New("askuser: the pending ask changed meanwhile (another writer came first)")
	// ErrPendingNotFound: Get found nothing under the key.
	ErrPendingNotFound = errors.New("askuser: the pending-ask store holds nothing under this key")
)

// DefaultRetention is how long a store keeps an ask's final result for
// replay, when it is not told otherwise: 7 days.
const DefaultRetention = 7 * 24 * time.Hour

// MemoryPending is a PendingStore in this process's memory: orchestrators
// that share one share their pending asks, as replicas sharing a NATS
// store do. It keeps each entry for Retention after its last write (zero:
// DefaultRetention). The zero MemoryPending is ready to use.
type MemoryPending struct {
	// Retention is how long an entry is kept after its last write.
	Retention time.Duration

	mu       sync.Mutex
	swept    time.Time // when expireLocked last ran
	rev      uint64
	entries  map[string]memEntry
	watchers []chan PendingEntry
}

type memEntry struct {
	data    []byte
	rev     uint64
	written time.Time
}

// NewMemoryPending returns an empty MemoryPending that keeps entries for
// retention after their last write (zero: DefaultRetention).
func NewMemoryPending(retention time.Duration) *MemoryPending {
	return &MemoryPending{Retention: retention}
}

func (m *MemoryPending) retention() time.Duration {
	if m.Retention > 0 {
		return m.Retention
	}
	return DefaultRetention
}

// expireLocked removes the entries retention has run out on, and tells
// the watchers. It sweeps at most once a second; between sweeps, live
// treats an entry past its retention as gone.
func (m *MemoryPending) expireLocked(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for k, e := range m.entries {
		if now.Sub(e.written) >= m.retention() {
			delete(m.entries, k)
			m.publishLocked(PendingEntry{Key: k})
		}
	}
}

// live returns the entry under key unless there is none or its retention
// has run out.
func (m *MemoryPending) live(key string, now time.Time) (memEntry, bool) {
	e, ok := m.entries[key]
	if !ok || now.Sub(e.written) >= m.retention() {
		return memEntry{}, false
	}
	return e, true
}

func (m *MemoryPending) publishLocked(e PendingEntry) {
	for _, w := range m.watchers {
		w <- e
	}
}

func (m *MemoryPending) putLocked(key string, data []byte, now time.Time) uint64 {
	if m.entries == nil {
		m.entries = map[string]memEntry{}
	}
	m.rev++
	data = slices.Clone(data)
	m.entries[key] = memEntry{data: data, rev: m.rev, written: now}
	m.publishLocked(PendingEntry{Key: key, Data: slices.Clone(data), Revision: m.rev})
	return m.rev
}

// Create implements PendingStore.
func (m *MemoryPending) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if _, ok := m.live(key, now); ok {
		return 0, ErrPendingExists
	}
	return m.putLocked(key, data, now), nil
}

// Get implements PendingStore.
func (m *MemoryPending) Get(ctx context.Context, key string) (PendingEntry, error) {
	if err := ctx.Err(); err != nil {
		return PendingEntry{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	e, ok := m.live(key, now)
	if !ok {
		return PendingEntry{}, ErrPendingNotFound
	}
	return PendingEntry{Key: key, Data: slices.Clone(e.data), Revision: e.rev}, nil
}

// Update implements PendingStore.
func (m *MemoryPending) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if e, ok := m.live(key, now); !ok || e.rev != rev {
		return 0, ErrPendingChanged
	}
	return m.putLocked(key, data, now), nil
}

// Watch implements PendingStore. Changes are queued without bound for a
// slow f, so that no writer ever waits on a watcher.
func (m *MemoryPending) Watch(ctx context.Context, f func(PendingEntry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in := make(chan PendingEntry, 64)
	m.mu.Lock()
	now := time.Now()
	m.expireLocked(now)
	initial := make([]PendingEntry, 0, len(m.entries))
	for k := range m.entries {
		if e, ok := m.live(k, now); ok {
			initial = append(initial, PendingEntry{Key: k, Data: slices.Clone(e.data), Revision: e.rev})
		}
	}
	// Publishing must never block a writer: each watcher gets a relay
	// goroutine that buffers without bound.
	relay := make(chan PendingEntry)
	m.watchers = append(m.watchers, relay)
	m.mu.Unlock()

	stop := make(chan struct{})
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		var queue []PendingEntry
		for {
			var out chan PendingEntry
			var next PendingEntry
			if len(queue) > 0 {
				out, next = in, queue[0]
			}
			select {
			case e := <-relay:
				queue = append(queue, e)
			case out <- next:
				queue = queue[1:]
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		// Unregister under the lock, draining any publish in progress.
		m.mu.Lock()
		m.watchers = slices.DeleteFunc(m.watchers, func(c chan PendingEntry) bool { return c == relay })
		m.mu.Unlock()
		close(stop)
		<-relayDone
	}()

	slices.SortFunc(initial, func(a, b PendingEntry) int { return cmp.Compare(a.Revision, b.Revision) })
	for _, e := range initial {
		f(e)
	}
	f(PendingEntry{})
	for {
		select {
		case e := <-in:
			f(e)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
