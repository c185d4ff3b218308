package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Notes keeps the small values a responder shares across a fleet — the
// Slack message an ask was posted as, the signed requests and mail links
// already used — each until a time to live, counted from its last write,
// has passed: then it is gone, as if never written. Create is the
// create-only write that makes a first use win once across every replica;
// Update is compare-and-set. Keys are tokens of letters, digits, '-' and
// '_' joined by dots; List reads one prefix (ending with a dot). The
// natsstore package keeps Notes in a JetStream bucket; MemoryNotes keeps
// them in memory, for one process or for the replicas of a test.
// Implementations are safe for concurrent use.
type Notes interface {
	// Create stores data under key when the key holds nothing (or its
	// time ran out), and returns its revision; when the key holds a note
	// it changes nothing and returns an error wrapping ErrExists.
	Create(ctx context.Context, key string, data []byte) (rev uint64, err error)
	// Get returns the note under key, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) (Entry, error)
	// Update stores data under key when its revision is still rev, and
	// returns the new revision; otherwise it changes nothing and returns
	// an error wrapping ErrChanged.
	Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error)
	// List returns the notes whose keys begin with prefix.
	List(ctx context.Context, prefix string) ([]Entry, error)
}

// MemoryNotes is Notes in memory. Its zero value keeps each note for
// DefaultRetention; TTL sets another time to live.
type MemoryNotes struct {
	// TTL is how long a note is kept after its last write (zero:
	// DefaultRetention).
	TTL time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu    sync.Mutex
	rev   uint64
	byID  map[string]memoryNote
	swept time.Time // when the notes past their time were last dropped
}

type memoryNote struct {
	data    []byte
	rev     uint64
	expires time.Time
}

var _ Notes = (*MemoryNotes)(nil)

func (m *MemoryNotes) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *MemoryNotes) ttl() time.Duration {
	if m.TTL > 0 {
		return m.TTL
	}
	return DefaultRetention
}

// live returns key's note when its time has not run out; it drops one
// whose time has. m.mu is held.
func (m *MemoryNotes) live(key string, now time.Time) (memoryNote, bool) {
	n, ok := m.byID[key]
	if ok && !now.Before(n.expires) {
		delete(m.byID, key)
		return memoryNote{}, false
	}
	return n, ok
}

func (m *MemoryNotes) put(key string, data []byte, now time.Time) uint64 {
	if m.byID == nil {
		m.byID = map[string]memoryNote{}
	}
	// The notes past their time are dropped at most once a minute, so that
	// keys never read again do not pile up.
	if now.Sub(m.swept) >= time.Minute {
		m.swept = now
		for k, n := range m.byID {
			if !now.Before(n.expires) {
				delete(m.byID, k)
			}
		}
	}
	m.rev++
	m.byID[key] = memoryNote{data: slices.Clone(data), rev: m.rev, expires: now.Add(m.ttl())}
	return m.rev
}

func checkNoteKey(op, key string) error {
	if !validNoteKey(key) {
		return fmt.Errorf("store: %s note %q: a key is tokens of letters, digits, '-' and '_' joined by dots", op, key)
	}
	return nil
}

func validNoteKey(key string) bool {
	if key == "" {
		return false
	}
	for tok := range strings.SplitSeq(key, ".") {
		if tok == "" {
			return false
		}
		for _, c := range tok {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Create stores data under key when it holds no live note.
func (m *MemoryNotes) Create(_ context.Context, key string, data []byte) (uint64, error) {
	if err := checkNoteKey("creating", key); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if _, ok := m.live(key, now); ok {
		return 0, fmt.Errorf("store: creating note %s: %w", key, ErrExists)
	}
	return m.put(key, data, now), nil
}

// Get returns key's live note.
func (m *MemoryNotes) Get(_ context.Context, key string) (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.live(key, m.now())
	if !ok {
		return Entry{}, fmt.Errorf("store: reading note %s: %w", key, ErrNotFound)
	}
	return Entry{Key: key, Data: slices.Clone(n.data), Revision: n.rev}, nil
}

// Update stores data under key when its live note is at rev.
func (m *MemoryNotes) Update(_ context.Context, key string, data []byte, rev uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	n, ok := m.live(key, now)
	if !ok || n.rev != rev {
		return 0, fmt.Errorf("store: updating note %s at revision %d: %w", key, rev, ErrChanged)
	}
	return m.put(key, data, now), nil
}

// List returns the live notes under prefix, in revision order.
func (m *MemoryNotes) List(_ context.Context, prefix string) ([]Entry, error) {
	if prefix != "" && (!strings.HasSuffix(prefix, ".") || !validNoteKey(strings.TrimSuffix(prefix, "."))) {
		return nil, fmt.Errorf("store: listing notes under %q: a prefix is keys' first tokens, each followed by a dot (or empty, for every key)", prefix)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var out []Entry
	for k := range m.byID {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if n, ok := m.live(k, now); ok {
			out = append(out, Entry{Key: k, Data: slices.Clone(n.data), Revision: n.rev})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, nil
}
