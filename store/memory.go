package store

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Memory is a Pending store in this process's memory: orchestrators that
// share one share their pending asks and their timers, as replicas sharing
// a NATS store do. It keeps each entry for Retention after its last write
// (zero: DefaultRetention). The zero Memory is ready to use.
type Memory struct {
	// Retention is how long an entry is kept after its last write.
	Retention time.Duration
	// Redelivery is how long a timer whose Due function failed (or whose
	// Due ended while it ran) waits before it comes again (zero: one
	// second).
	Redelivery time.Duration

	mu       sync.Mutex
	swept    time.Time // when expireLocked last ran
	rev      uint64
	entries  map[string]memEntry
	watchers []chan Entry

	timers  timerHeap
	atKey   map[string]*memTimer
	timer   *time.Timer // set for the earliest timer, while a Due runs
	due     []*memTimer // come due, waiting for a Due caller
	callers int         // Due calls running
	wake    chan struct{}
}

type memEntry struct {
	data    []byte
	rev     uint64
	written time.Time
}

// NewMemory returns an empty Memory that keeps entries for retention after
// their last write (zero: DefaultRetention).
func NewMemory(retention time.Duration) *Memory {
	return &Memory{Retention: retention}
}

func (m *Memory) retention() time.Duration {
	if m.Retention > 0 {
		return m.Retention
	}
	return DefaultRetention
}

func (m *Memory) redelivery() time.Duration {
	if m.Redelivery > 0 {
		return m.Redelivery
	}
	return time.Second
}

// expireLocked removes the entries retention has run out on, and tells
// the watchers. It sweeps at most once a second; between sweeps, live
// treats an entry past its retention as gone.
func (m *Memory) expireLocked(now time.Time) {
	if now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for k, e := range m.entries {
		if now.Sub(e.written) >= m.retention() {
			delete(m.entries, k)
			m.publishLocked(Entry{Key: k})
		}
	}
}

// live returns the entry under key unless there is none or its retention
// has run out.
func (m *Memory) live(key string, now time.Time) (memEntry, bool) {
	e, ok := m.entries[key]
	if !ok || now.Sub(e.written) >= m.retention() {
		return memEntry{}, false
	}
	return e, true
}

func (m *Memory) publishLocked(e Entry) {
	for _, w := range m.watchers {
		w <- e
	}
}

func (m *Memory) putLocked(key string, data []byte, now time.Time) uint64 {
	if m.entries == nil {
		m.entries = map[string]memEntry{}
	}
	m.rev++
	data = slices.Clone(data)
	m.entries[key] = memEntry{data: data, rev: m.rev, written: now}
	m.publishLocked(Entry{Key: key, Data: slices.Clone(data), Revision: m.rev})
	return m.rev
}

// Create implements Pending.
func (m *Memory) Create(ctx context.Context, key string, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if _, ok := m.live(key, now); ok {
		return 0, ErrExists
	}
	return m.putLocked(key, data, now), nil
}

// Get implements Pending.
func (m *Memory) Get(ctx context.Context, key string) (Entry, error) {
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	e, ok := m.live(key, now)
	if !ok {
		return Entry{}, ErrNotFound
	}
	return Entry{Key: key, Data: slices.Clone(e.data), Revision: e.rev}, nil
}

// Update implements Pending.
func (m *Memory) Update(ctx context.Context, key string, data []byte, rev uint64) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	if e, ok := m.live(key, now); !ok || e.rev != rev {
		return 0, ErrChanged
	}
	return m.putLocked(key, data, now), nil
}

// List implements Pending.
func (m *Memory) List(ctx context.Context, prefix string) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.expireLocked(now)
	var out []Entry
	for k := range m.entries {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if e, ok := m.live(k, now); ok {
			out = append(out, Entry{Key: k, Data: slices.Clone(e.data), Revision: e.rev})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Revision, b.Revision) })
	return out, nil
}

// Changes implements Pending. Changes are queued without bound for a slow
// f, so that no writer ever waits on a watcher.
func (m *Memory) Changes(ctx context.Context, f func(Entry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in := make(chan Entry, 64)
	// Publishing must never block a writer: each watcher gets a relay
	// goroutine that buffers without bound.
	relay := make(chan Entry)
	m.mu.Lock()
	m.watchers = append(m.watchers, relay)
	m.mu.Unlock()

	stop := make(chan struct{})
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		var queue []Entry
		for {
			var out chan Entry
			var next Entry
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
		m.watchers = slices.DeleteFunc(m.watchers, func(c chan Entry) bool { return c == relay })
		m.mu.Unlock()
		close(stop)
		<-relayDone
	}()
	f(Entry{})
	for {
		select {
		case e := <-in:
			f(e)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// A memTimer is one key's timer.
type memTimer struct {
	key   string
	at    time.Time
	index int  // in the heap, or -1
	busy  bool // given to a Due caller
	again bool // scheduled anew while busy
}

type timerHeap []*memTimer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*memTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// Schedule implements Pending.
func (m *Memory) Schedule(ctx context.Context, key string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setLocked(key, at)
	return nil
}

// setLocked puts key's timer at at, replacing its earlier time.
func (m *Memory) setLocked(key string, at time.Time) {
	if m.atKey == nil {
		m.atKey = map[string]*memTimer{}
	}
	t := m.atKey[key]
	switch {
	case t == nil:
		t = &memTimer{key: key, at: at, index: -1}
		m.atKey[key] = t
		heap.Push(&m.timers, t)
	case t.busy:
		t.at, t.again = at, true
		return
	case t.index >= 0:
		t.at = at
		heap.Fix(&m.timers, t.index)
	default: // come due, waiting for a caller
		m.due = slices.DeleteFunc(m.due, func(d *memTimer) bool { return d == t })
		t.at = at
		heap.Push(&m.timers, t)
	}
	m.armLocked()
}

// armLocked moves the timers that have come due to the due queue, wakes
// the callers, and sets the clock for the next.
func (m *Memory) armLocked() {
	now := time.Now()
	for len(m.timers) > 0 && !m.timers[0].at.After(now) {
		t := heap.Pop(&m.timers).(*memTimer)
		m.due = append(m.due, t)
	}
	if len(m.due) > 0 && m.wake != nil {
		close(m.wake)
		m.wake = nil
	}
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	if len(m.timers) > 0 && m.callers > 0 {
		m.timer = time.AfterFunc(time.Until(m.timers[0].at), func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.armLocked()
		})
	}
}

// Due implements Pending.
func (m *Memory) Due(ctx context.Context, f func(ctx context.Context, key string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	m.callers++
	m.armLocked()
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.callers--
		m.armLocked()
		m.mu.Unlock()
	}()
	for {
		m.mu.Lock()
		if len(m.due) == 0 {
			if m.wake == nil {
				m.wake = make(chan struct{})
			}
			wake := m.wake
			m.mu.Unlock()
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		t := m.due[0]
		m.due = m.due[1:]
		t.busy = true
		m.mu.Unlock()

		err := f(ctx, t.key)

		m.mu.Lock()
		t.busy = false
		switch {
		case t.again:
			t.again = false
			heap.Push(&m.timers, t)
		case err != nil || ctx.Err() != nil:
			t.at = time.Now().Add(m.redelivery())
			heap.Push(&m.timers, t)
		default:
			delete(m.atKey, t.key)
		}
		m.armLocked()
		m.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
